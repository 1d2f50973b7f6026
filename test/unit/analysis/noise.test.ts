import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIGURES, figure } from '../../../src/analysis/figures.js';
import { ALPHA, fewestTestable, judgeDifference, NOISE_BASIS, smallestP, testable, TESTED_SHARE } from '../../../src/analysis/noise.js';

describe('a difference is news only beyond noise (analysis/noise.ts)', () => {
  it('every figure of the one table states its noise, with why', () => {
    for (const f of FIGURES) {
      assert.ok(f.noise.change > 0, `${f.name} has a noise`);
      assert.ok(f.noise.why.length > 20, `${f.name} says why its noise is ${f.noise.change}`);
    }
  });

  it('single values: the figure\'s noise decides, the edge counting, in the figure\'s own direction', () => {
    const lcp = figure('largest_contentful_paint'); // lower is better, noise 500 ms
    const at = (after: number) => judgeDifference(lcp, { before: 1000, after })!;
    assert.equal(at(1000 + lcp.noise.change).difference, 'worse');
    assert.equal(at(1000 + lcp.noise.change - 1).difference, 'within_noise');
    assert.equal(at(1000 - lcp.noise.change).difference, 'better');
    assert.equal(at(1000 - lcp.noise.change + 1).difference, 'within_noise');
    assert.equal(at(1000).difference, 'within_noise');
    assert.equal(at(1021).basis, 'threshold');
    const perf = figure('performance_score'); // higher is better, noise 10 points
    assert.equal(judgeDifference(perf, { before: 80, after: 90 })!.difference, 'better');
    assert.equal(judgeDifference(perf, { before: 80, after: 71 })!.difference, 'within_noise');
    assert.equal(judgeDifference(perf, { before: 80, after: 70 })!.difference, 'worse');
    assert.equal(judgeDifference('cumulative_layout_shift', { before: 0, after: 0.1 })!.difference, 'worse');
    assert.equal(judgeDifference('cumulative_layout_shift', { before: 0, after: 0.099 })!.difference, 'within_noise');
  });

  it('a side without a value has no judgement; an unknown figure is a programming error', () => {
    assert.equal(judgeDifference('largest_contentful_paint', { before: null, after: 1000 }), undefined);
    assert.equal(judgeDifference('largest_contentful_paint', {}), undefined);
    assert.throws(() => judgeDifference('no_such_figure', { before: 1, after: 2 }), RangeError);
  });

  it('the test decides with enough runs a side: 3 and 4 reach p < 0.05, 3 and 3 cannot', () => {
    assert.deepEqual(fewestTestable(), [3, 4]);
    assert.equal(testable(3, 3), false);
    assert.equal(smallestP(3, 3), 0.05);
    assert.equal(testable(3, 4), true);
    const slow = [1000, 1010, 1020];
    const slower = [2000, 2100, 2200, 2300];
    const j = judgeDifference('largest_contentful_paint', { runs: [slow, slower] })!;
    assert.equal(j.basis, 'test');
    assert.equal(j.difference, 'worse');
    assert.ok(j.p! < ALPHA);
    assert.deepEqual(j.n, [3, 4]);
    assert.equal(judgeDifference('largest_contentful_paint', { runs: [slower, slow] })!.difference, 'better');
    // 3 and 3 runs: the threshold on the values given (the report's figure), said so.
    const few = judgeDifference('largest_contentful_paint', { before: 1010, after: 2200, runs: [slow, slower.slice(0, 3)] })!;
    assert.equal(few.basis, 'threshold');
    assert.equal(few.difference, 'worse');
  });

  it('under the test, a significant change smaller than its share of the noise is within noise; overlapping runs are too', () => {
    const least = figure('largest_contentful_paint').noise.change * TESTED_SHARE; // 250 ms
    const a = [1000, 1001, 1002, 1003];
    const small = judgeDifference('largest_contentful_paint', { runs: [a, a.map((v) => v + least - 1)] })!;
    assert.equal(small.basis, 'test');
    assert.equal(small.difference, 'within_noise');
    const edge = judgeDifference('largest_contentful_paint', { runs: [a, a.map((v) => v + least)] })!;
    assert.equal(edge.difference, 'worse');
    const mixed = judgeDifference('largest_contentful_paint', { runs: [[1000, 2000, 1100, 1900], [1050, 1950, 1500, 1600]] })!;
    assert.equal(mixed.basis, 'test');
    assert.equal(mixed.difference, 'within_noise');
    // 1,500 ms apart in one report, overlapping runs: the test, not the single values, decides.
    const spread = judgeDifference('largest_contentful_paint', { before: 1000, after: 2500, runs: [[1000, 2500, 1800, 1200], [2500, 1000, 1700, 1300]] })!;
    assert.equal(spread.difference, 'within_noise');
  });

  it('says its basis in words from the table', () => {
    assert.match(NOISE_BASIS, /10 points of performance, 500 ms of LCP, 200 ms of TBT/);
    assert.match(NOISE_BASIS, /3 and 4 or more/);
  });
});
