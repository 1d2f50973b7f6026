/**
 * The Mann-Whitney U test (analysis/mann-whitney.ts): exact and normal p-values, ties, and its properties over
 * generated samples.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { mannWhitneyU, normalUpperTail } from '../../../src/analysis/mann-whitney.js';

const close = (a: number, b: number, eps: number) => assert.ok(Math.abs(a - b) <= eps, `${a} is not within ${eps} of ${b}`);

test('exact: complete separation of 5 and 5 has p = 1/252 one-sided and 2/252 two-sided', () => {
  const slow = [6, 7, 8, 9, 10];
  const fast = [1, 2, 3, 4, 5];
  const r = mannWhitneyU(slow, fast, 'greater');
  assert.equal(r.method, 'exact');
  assert.equal(r.u, 25);
  close(r.p, 1 / 252, 1e-12);
  close(mannWhitneyU(fast, slow, 'two-sided').p, 2 / 252, 1e-12);
  close(mannWhitneyU(fast, slow, 'greater').p, 1, 1e-12);
});

test('exact: SciPy\'s documented example (U = 17, two-sided p = 0.1111, one-sided 7/126)', () => {
  const a = [19, 22, 16, 29, 24];
  const b = [20, 11, 17, 12];
  const r = mannWhitneyU(a, b, 'two-sided');
  assert.equal(r.u, 17);
  close(r.p, 0.111111, 1e-5);
  close(mannWhitneyU(a, b, 'greater').p, 7 / 126, 1e-12);
});

test('normal approximation is close to the exact p-value for 20 against 20 values', () => {
  const x = Array.from({ length: 20 }, (_, i) => i * 1.7 + 3);
  const y = Array.from({ length: 20 }, (_, i) => i * 1.5 + 0.25);
  // Reference values from SciPy 1.17 (scipy.stats.mannwhitneyu, method exact / asymptotic).
  const exact = mannWhitneyU(x, y, 'greater'); // 400 cells: still exact
  assert.equal(exact.method, 'exact');
  assert.equal(exact.u, 253);
  close(exact.p, 0.0785800279754915, 1e-12);
  const approx = mannWhitneyU([...x, 1000.5], [...y, -1000.5], 'greater'); // 441 cells: normal
  assert.equal(approx.method, 'normal');
  assert.equal(approx.u, 294);
  close(approx.p, 0.033151548122946566, 1e-6);
  close(normalUpperTail(1.6448536), 0.05, 1e-6);
  close(normalUpperTail(-1.959964), 0.975, 1e-6);
});

test('ties: mid-ranks and the tie-corrected variance; all values equal gives p = 1', () => {
  // Ranks of [1,2,2,3 | 2,3,3,4]: 1 → 1; the three 2s → 3; the three 3s → 6; 4 → 8. R_x = 1+3+3+6 = 13, U = 13 - 10 = 3.
  const r = mannWhitneyU([1, 2, 2, 3], [2, 3, 3, 4], 'less');
  assert.equal(r.method, 'normal');
  assert.equal(r.u, 3);
  // Variance = 16/12 * (9 - (24 + 24) / 56) = 10.857; z = (3 - 8 + 0.5) / 3.295 = -1.366.
  close(r.p, 1 - normalUpperTail((3 - 8 + 0.5) / Math.sqrt((16 / 12) * (9 - 48 / 56))), 1e-12);
  close(r.p, 0.08601685446091145, 1e-6); // SciPy, asymptotic
  assert.equal(mannWhitneyU([5, 5, 5], [5, 5], 'greater').p, 1);
});

test('properties: U(x,y) + U(y,x) = n1·n2, p(greater of x,y) = p(less of y,x), p in [0,1]', () => {
  const sample = fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 25 });
  fc.assert(
    fc.property(sample, sample, (x, y) => {
      const a = mannWhitneyU(x, y, 'greater');
      const b = mannWhitneyU(y, x, 'less');
      assert.equal(a.u + mannWhitneyU(y, x).u, x.length * y.length);
      close(a.p, b.p, 1e-6); // the normal tail is an approximation (error < 1.5e-7)
      assert.ok(a.p >= 0 && a.p <= 1 + 1e-12);
    }),
    { numRuns: 300 },
  );
});

test('refuses empty samples and non-finite values', () => {
  assert.throws(() => mannWhitneyU([], [1]), RangeError);
  assert.throws(() => mannWhitneyU([1, Number.NaN], [1]), RangeError);
});
