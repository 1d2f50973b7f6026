/** The beacon's check (core/field/beacon.ts): shape, physical bounds, unknown fields dropped. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkBeacon } from '../../../../src/core/field/beacon.js';

const ok = { v: 1, url: 'https://shop.example/p', lcp: { v: 1200, el: 'img.hero', src: 'https://shop.example/h.jpg', load: 300 }, cls: { v: 0.05 } };

describe('the beacon check', () => {
  test('a whole beacon passes; unknown fields are dropped at every depth', () => {
    const r = checkBeacon(JSON.stringify({ ...ok, cookie: 'x', lcp: { ...ok.lcp, text: 'Buy now' } }));
    assert.ok(r.ok);
    assert.equal('cookie' in r.beacon, false);
    assert.equal('text' in r.beacon.lcp!, false);
  });

  for (const [name, body, reason] of [
    ['not JSON', '{"v":1,', 'malformed'],
    ['no url', JSON.stringify({ v: 1, lcp: { v: 1 } }), 'malformed'],
    ['no metric', JSON.stringify({ v: 1, url: 'https://shop.example/' }), 'malformed'],
    ['another version', JSON.stringify({ ...ok, v: 2 }), 'malformed'],
    ['a string for a number', JSON.stringify({ ...ok, lcp: { v: '1200' } }), 'malformed'],
    ['an unknown navigation type', JSON.stringify({ ...ok, nav: 'teleport' }), 'malformed'],
    ['a negative LCP', JSON.stringify({ ...ok, lcp: { v: -1 } }), 'out_of_bounds'],
    ['a CLS of a million', JSON.stringify({ ...ok, cls: { v: 1e6 } }), 'out_of_bounds'],
    ['an INP of an hour', JSON.stringify({ ...ok, inp: { v: 3_600_000 } }), 'out_of_bounds'],
    ['a selector of 600 characters', JSON.stringify({ ...ok, lcp: { v: 1, el: 'div'.repeat(200) } }), 'out_of_bounds'],
    ['a number too large to be finite', '{"v":1,"url":"https://a.example/","fcp":{"v":1e999}}', 'out_of_bounds'],
  ] as const) {
    test(`${name} is refused as ${reason}, saying what`, () => {
      const r = checkBeacon(body);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.reason, reason);
        assert.match(r.detail, /\w/);
      }
    });
  }
});
