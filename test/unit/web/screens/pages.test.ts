/** The pages list screen (web/screens/pages.ts): its view of the query string, its list query and its links. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listQueryOf, pagesHref, pagesViewOf } from '../../../../src/web/screens/pages.js';

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
