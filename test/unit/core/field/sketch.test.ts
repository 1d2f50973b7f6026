/**
 * The field rollups' distribution (core/field/sketch.ts): any percentile it gives is within its 1 % relative accuracy
 * of the exact nearest-rank percentile of the same views, merged in any order and after encoding; the shares good /
 * needs improvement / poor are exact.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FIELD_FIGURE_NAMES, rateField } from '../../../../src/analysis/figures.js';
import { nearestRank } from '../../../../src/core/field/figures.js';
import { FieldSketch, RELATIVE_ACCURACY } from '../../../../src/core/field/sketch.js';

const within = (got: number, exact: number, unit: number) =>
  Math.abs(got - exact) <= Math.max(exact * RELATIVE_ACCURACY, unit) + 1e-9;

describe('the field sketch', () => {
  test('p50, p75 and p90 are within 1 % of the exact nearest-rank percentiles, for any spread of values', () => {
    fc.assert(fc.property(fc.array(fc.double({ min: 0, max: 600_000, noNaN: true }), { minLength: 1, maxLength: 400 }), (lcps) => {
      const s = new FieldSketch();
      for (const v of lcps) s.addView({ lcp: v });
      for (const q of [0.5, 0.75, 0.9]) {
        const got = s.quantile('lcp', q)!;
        const exact = nearestRank(lcps, q);
        // Under a millisecond a value is read as 0 (the zero bucket): within 1 ms.
        assert.ok(within(got, exact, 1), `q ${q}: ${got} against exact ${exact}`);
      }
    }), { numRuns: 200 });
  });

  test('layout shift keeps 0.0001 and the same 1 %', () => {
    const cls = Array.from({ length: 1000 }, (_, i) => (i % 7 === 0 ? 0 : (i * 0.00731) % 0.9));
    const s = new FieldSketch();
    for (const v of cls) s.addView({ cls: v });
    for (const q of [0.5, 0.75, 0.9]) assert.ok(within(s.quantile('cls', q)!, nearestRank(cls, q), 0.0001));
  });

  test('merging the hours of a day, in any order and through their encoding, gives the day\'s own sketch', () => {
    const values = Array.from({ length: 3000 }, (_, i) => 300 + ((i * 7919) % 5000));
    const whole = new FieldSketch();
    const hours = Array.from({ length: 24 }, () => new FieldSketch());
    values.forEach((v, i) => {
      whole.addView({ lcp: v, ttfb: v / 10 });
      hours[(i * 13) % 24]!.addView({ lcp: v, ttfb: v / 10 });
    });
    const merged = new FieldSketch();
    for (const h of [...hours].reverse()) merged.mergeEncoded(h.encode());
    assert.deepEqual(merged.encode(), whole.encode());
    assert.equal(merged.views, 3000);
    assert.equal(FieldSketch.decode(whole.encode()).quantile('lcp', 0.75), whole.quantile('lcp', 0.75));
  });

  test('the shares good / needs improvement / poor are exact counts by web.dev\'s bands, edges included', () => {
    const s = new FieldSketch();
    const inps = [200, 200.1, 500, 500.1, 50, 800];
    for (const v of inps) s.addView({ inp: v });
    const d = s.distribution('inp');
    assert.deepEqual(d, { n: 6, good: 2, ni: 2, poor: 2 });
    assert.deepEqual(inps.map((v) => rateField('inp', v)), ['good', 'needs_improvement', 'needs_improvement', 'poor', 'good', 'poor']);
  });

  test('a view without a metric counts as a view and not in that metric', () => {
    const s = new FieldSketch();
    s.addView({ lcp: 1000 });
    s.addView({ lcp: 2000, inp: 100 });
    assert.equal(s.views, 2);
    assert.equal(s.distribution('inp').n, 1);
    assert.equal(s.quantile('cls', 0.75), null);
    for (const m of FIELD_FIGURE_NAMES) assert.ok(s.distribution(m).n <= 2);
  });

  test('an encoded hour of a busy site stays small', () => {
    const s = new FieldSketch();
    for (let i = 0; i < 5000; i++) s.addView({ lcp: 800 + (i * 37) % 6000, inp: 40 + (i * 11) % 700, cls: ((i * 3) % 40) / 100, fcp: 500 + (i * 13) % 3000, ttfb: 80 + (i * 7) % 1500 });
    assert.ok(s.encode().length < 2500, `${s.encode().length} bytes`);
  });
});
