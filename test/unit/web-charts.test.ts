import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axisEnds, day, layout, lineChart, niceCeil, VIEW, when, type ChartMetric } from '../../src/web/charts.js';
import { listQueryOf, pagesHref, pagesViewOf } from '../../src/web/screens/pages.js';

const score: ChartMetric = { title: 'Performance', label: 'performance', format: (v) => `${v}%`, max: 100 };
const timing: ChartMetric = { title: 'LCP', label: 'LCP', format: (v) => `${v} ms`, minTop: 1000 };
const T = Date.UTC(2026, 10, 25, 14, 2);
const H = 3_600_000;

describe('web charts', () => {
  it('writes times in UTC to the second as "14:02:00 25 Nov 2026"', () => {
    assert.equal(when(T), '14:02:00 25 Nov 2026');
    assert.equal(when(Date.UTC(2027, 0, 3, 4, 5, 9)), '04:05:09 3 Jan 2027');
    assert.equal(day(T), '25 Nov');
  });

  it('labels the time axis with days, or times of day over a short span', () => {
    assert.deepEqual(axisEnds(T, T + 5 * 86_400_000), ['25 Nov', '30 Nov']);
    assert.deepEqual(axisEnds(T, T + H), ['14:02', '15:02 25 Nov']);
    assert.deepEqual(axisEnds(T, T + 12 * H), ['14:02 25 Nov', '02:02 26 Nov']);
  });

  it('rounds axis tops up to 1, 2, 2.5 or 5 times a power of ten', () => {
    assert.equal(niceCeil(1), 1);
    assert.equal(niceCeil(1.3), 2);
    assert.equal(niceCeil(2.2), 2.5);
    assert.equal(niceCeil(3100), 5000);
    assert.equal(niceCeil(7), 10);
    assert.equal(niceCeil(0.07), 0.1);
    assert.equal(niceCeil(1000), 1000);
  });

  it('places points oldest to newest across the plot, skipping null values', () => {
    const { top, placed } = layout(score, [
      { href: '/reports/c', time: T + 2 * H, value: 100 },
      { href: '/reports/a', time: T, value: 0 },
      { href: '/reports/b', time: T + H, value: null },
    ]);
    assert.equal(top, 100);
    assert.deepEqual(placed.map((p) => p.href), ['/reports/a', '/reports/c']);
    assert.equal(placed[0].x, VIEW.left);
    assert.equal(placed[1].x, VIEW.width - VIEW.right);
    assert.equal(placed[0].y, VIEW.height - VIEW.bottom);
    assert.equal(placed[1].y, VIEW.top);
  });

  it('scales a free axis to a round top above the largest value, with a floor', () => {
    assert.equal(layout(timing, [{ href: '/r', time: T, value: 3100 }]).top, 5000);
    assert.equal(layout(timing, [{ href: '/r', time: T, value: 0 }]).top, 1000);
  });

  it('draws a figure with the metric, the latest value, axis labels, a line and a named link per point', () => {
    const html = lineChart(score, [
      { href: '/reports/a', time: T - H, value: 70 },
      { href: '/reports/b', time: T, value: 87 },
    ]);
    assert.match(html, /^<figure class="chart card"><figcaption><h3>Performance <span class="chart-latest">87%<\/span><\/h3><\/figcaption>/);
    assert.match(html, /<svg role="img" aria-label="Performance over 2 reports, from 13:02:00 25 Nov 2026 to 14:02:00 25 Nov 2026: latest 87%, lowest 70%, highest 87%" viewBox="0 0 320 136">/);
    assert.match(html, />100%<\/text>/);
    assert.match(html, />0%<\/text>/);
    assert.match(html, /<polyline class="line" points="[\d., ]+"\/>/);
    assert.match(html, /<a href="\/reports\/b" aria-label="14:02:00 25 Nov 2026: performance 87%"><title>14:02:00 25 Nov 2026: performance 87%<\/title><circle /);
    assert.equal(html.match(/<a /g)?.length, 2);
    // The links are not inside the image (axe: nested-interactive), but in a group over it.
    assert.match(html, /<svg role="img"[^>]*>(?:(?!<a ).)*<\/svg><svg class="points" role="group" aria-label="Performance of each report"/);
  });

  it('still draws one point, centred, without a line', () => {
    const html = lineChart(score, [{ href: '/reports/a', time: T, value: 50 }]);
    assert.match(html, /<svg role="img"/);
    assert.doesNotMatch(html, /polyline/);
    assert.match(html, new RegExp(`<circle cx="${VIEW.left + (VIEW.width - VIEW.left - VIEW.right) / 2}" cy="`));
    assert.match(html, /over 1 report, 14:02:00 25 Nov 2026/);
  });

  it('says so when no report has the figure', () => {
    const html = lineChart(score, [{ href: '/reports/a', time: T, value: null }]);
    assert.doesNotMatch(html, /<svg/);
    assert.match(html, /No performance figures/);
  });

  it('escapes what it writes', () => {
    const html = lineChart({ ...score, title: '<b>', label: '"x"' }, [{ href: '/reports/a"b', time: T, value: 1 }]);
    assert.doesNotMatch(html, /<b>|"x"|a"b/);
  });
});

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
