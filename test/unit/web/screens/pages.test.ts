/** The pages list screen (web/screens/pages.ts): its view of the query string, its list query and its links. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ReportRow } from '../../../../src/core/reports/reports.js';
import { latestChange, listQueryOf, pagesHref, pagesViewOf } from '../../../../src/web/screens/pages.js';

describe('pages list view', () => {
  it('reads the query string, falling back to defaults on bad values', () => {
    assert.deepEqual(pagesViewOf({}), { url: '', tag: '', sort: '-latest_report_time', page: 1 });
    assert.deepEqual(pagesViewOf({ url: ' shop ', tag: 'T1', sort: 'url', page: '3' }), { url: 'shop', tag: 'T1', sort: 'url', page: 3 });
    assert.deepEqual(pagesViewOf({ sort: 'report_count', page: '-2' }), { url: '', tag: '', sort: '-latest_report_time', page: 1 });
    assert.equal(pagesViewOf({ page: '1.5' }).page, 1);
    assert.equal(pagesViewOf({ page: 'x' }).page, 1);
    assert.equal(pagesViewOf({ sort: 'constructor' }).sort, '-latest_report_time');
    assert.equal(pagesViewOf({ url: ['a', 'b'] }).url, 'a');
  });

  it('makes one list query: URL substring, one tag, the sort, 50 a page', () => {
    const q = listQueryOf({ url: 'a,b', tag: 'T1', sort: 'url', page: 2 });
    assert.deepEqual(q.filters, [
      { attr: 'url', type: 'fuzzy', op: 'eq', values: ['a,b'] },
      { attr: 'page_tag', type: 'tag', op: 'eq', values: ['T1'] },
    ]);
    assert.deepEqual(q.sort, [{ attr: 'url', desc: false }]);
    assert.deepEqual(q.page, { size: 50, number: 2 });
    assert.deepEqual(listQueryOf(pagesViewOf({})).filters, []);
  });

  it('links pages keeping the filters', () => {
    assert.equal(pagesHref(pagesViewOf({}), 1), '/pages');
    assert.equal(pagesHref(pagesViewOf({ url: 'a b', sort: 'created' }), 2), '/pages?url=a+b&sort=created&page=2');
  });
});

describe('page view: the newest report against the one before', () => {
  const report = (o: Partial<ReportRow>) => ({ lighthouse_version: '13.5.0', service_score: 88, performance_score: 90, structure_score: 70,
    largest_contentful_paint: 2100, total_blocking_time: 150, cumulative_layout_shift: 0.02, fully_loaded_time: 2884, page_bytes: 1_250_000, ...o }) as ReportRow;
  const items = (html: string) => [...html.matchAll(/<span class="pv-change-name">([^<]+)<\/span> <span class="cmp-delta ([a-z_]+)"[^>]*>([^<]*)/g)]
    .map((m) => [m[1], m[2], m[3]!.trim()]);

  it('marks each charted figure better, worse or within noise by the one rule, and says the basis once', () => {
    const html = latestChange([report({ largest_contentful_paint: 1876, fully_loaded_time: 2905, total_blocking_time: 420 }), report({})]);
    assert.deepEqual(items(html).filter(([, v]) => v !== 'same'), [
      ['LCP', 'within_noise', '\u2212224 ms'], ['TBT', 'worse', '+270 ms'], ['Fully loaded', 'within_noise', '+21 ms'],
    ]);
    assert.equal(html.match(/are marked within noise/g)?.length, 1);
  });

  it('leaves out the grade and structure across structure audit sets, and says nothing with one report', () => {
    const html = latestChange([report({ structure_score: 80 }), report({ lighthouse_version: '12.8.0' })]);
    assert.deepEqual(items(html).map(([n]) => n).filter((n) => n === 'Grade' || n === 'Structure'), []);
    assert.equal(latestChange([report({})]), '');
  });
});
