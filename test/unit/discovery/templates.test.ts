/**
 * Templates of a scan's pages (discovery/templates.ts), as pure functions: the URL shape, named templates, path
 * patterns, the choice of pages.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assignTemplates, checkPathPattern, compilePattern, selectPages, stableRank } from '../../../src/discovery/templates.js';

describe('templates (pure)', () => {
  test('the URL shape: ids, slugs with siblings, top-level pages themselves', () => {
    const urls = ['/', '/about', '/contact', '/blog/a', '/blog/b/', '/p/123', '/p/456', '/u/550e8400-e29b-41d4-a716-446655440000',
      '/x/deadbeef12', '/docs/guide/intro', '/only/child', '/2026', '/cal/2026/11', 'https://e.com/shop/item/77?q=1'];
    assert.deepEqual(assignTemplates(urls), ['/', '/about', '/contact', '/blog/:slug', '/blog/:slug', '/p/:id', '/p/:id', '/u/:id',
      '/x/:id', '/docs/guide/intro', '/only/child', '/:id', '/cal/:id/:id', '/shop/item/:id']);
  });

  test('named templates first, the first that matches wins; :name is one segment, * the rest', () => {
    assert.deepEqual(assignTemplates(['/p/1', '/p/1/reviews', '/blog/a/b', '/blog', '/docs/x'], ['/p/:id', '/blog/*', '/*']),
      ['/p/:id', '/*', '/blog/*', '/*', '/*']);
    assert.ok(compilePattern('/shop/:cat/*.html').test('/shop/shoes/a/b.html'));
    assert.ok(!compilePattern('/shop/:cat').test('/shop/a/b'));
    assert.ok(compilePattern('/a.b').test('/a.b') && !compilePattern('/a.b').test('/axb'), 'other characters are literal');
  });

  test('checkPathPattern says what is wrong with a pattern', () => {
    for (const ok of ['/blog/*', '/p/:id', '*.pdf', '/search?q=*', '/']) assert.equal(checkPathPattern(ok), undefined, ok);
    assert.match(checkPathPattern('blog/*')!, /must start with "\/"/);
    assert.match(checkPathPattern('https://e.com/blog')!, /is a URL; give the path only/);
    assert.match(checkPathPattern('/p/:id-x')!, /a parameter is a whole segment/);
    assert.match(checkPathPattern('/a b')!, /space/);
    assert.match(checkPathPattern('/a#b')!, /fragments/);
    assert.match(checkPathPattern('')!, /empty/);
    assert.match(checkPathPattern(`/${'a'.repeat(2000)}`)!, /longer than/);
  });

  test('selectPages: stable sample, round-robin by first appearance, the start page first, a list kept in its order', () => {
    const page = (url: string, template: string) => ({ url: `http://e.com${url}`, template });
    const candidates = [page('/b/1', '/b/:id'), page('/b/2', '/b/:id'), page('/b/3', '/b/:id'), page('/c/1', '/c/:id'), page('/', '/')];
    const s = selectPages(candidates, { sample: 2, maxPages: 4, first: 'http://e.com/' });
    assert.equal(s.pages[0]!.url, 'http://e.com/');
    assert.deepEqual(s.pages.map((p) => p.template), ['/', '/b/:id', '/c/:id', '/b/:id']);
    assert.equal(s.sampledOut, 1);
    assert.equal(s.overMaxPages, 0);
    const reversed = selectPages([...candidates].reverse(), { sample: 2, maxPages: 4, first: 'http://e.com/' });
    assert.deepEqual(new Set(reversed.pages.map((p) => p.url)), new Set(s.pages.map((p) => p.url)));
    const list = selectPages(candidates, { sample: 0, maxPages: 3, keepOrder: true });
    const lowestB = candidates.slice(0, 3).map((p) => p.url).sort((a, b) => (stableRank(a) < stableRank(b) ? -1 : 1))[0];
    assert.deepEqual(list.pages.map((p) => p.url), [lowestB, 'http://e.com/c/1', 'http://e.com/']);
    assert.equal(list.overMaxPages, 2);
  });
});
