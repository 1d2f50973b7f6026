/**
 * Several runs per test; placed by core/tests/runs.ts (the runs' record: runs.json and meta.runs): the runs option as
 * POST /tests parses it (core/options/options.ts) and prices it (core/accounts/pricing.ts), a retest capped at its
 * plan's runs (core/options/analysis-options.ts), and the median run and the spread (analysis/median-run.ts,
 * statistics.ts). The run guard's verdicts are agent/host-check.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { medianRunIndex, runSpread } from '../../../../src/analysis/median-run.js';
import { median, sampleStdev } from '../../../../src/analysis/statistics.js';
import { withRunsUpTo } from '../../../../src/core/options/analysis-options.js';
import { createCatalog } from '../../../../src/core/catalog/catalog.js';
import { ApiError } from '../../../../src/core/errors.js';
import { optionsFingerprint, parseTestOptions, type OptionsContext } from '../../../../src/core/options/options.js';
import { PLANS } from '../../../../src/core/accounts/plans.js';
import { testCost } from '../../../../src/core/accounts/pricing.js';
import { runsFile, runsMeta, type RunRecord } from '../../../../src/core/tests/runs.js';
import { testAttributes } from '../../../../src/api/resource-body.js';

/** What POST /tests does with a body: the API unwraps it, core parses the options. */
const parseTestAttributes = (b: unknown, c: Parameters<typeof parseTestOptions>[1]) => parseTestOptions(testAttributes(b), c);

const catalog = createCatalog({ locationName: 'Test machine', locationRegion: 'Local' });
const pro: OptionsContext = { plan: PLANS.pro, catalog, defaultLocation: '1', defaultBrowser: '3' };
const basic: OptionsContext = { ...pro, plan: PLANS.basic };
const parse = (attributes: Record<string, unknown>, ctx = pro) =>
  parseTestAttributes({ data: { type: 'test', attributes: { url: 'https://example.com/', ...attributes } } }, ctx);

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, 'E40004');
    return e.detail ?? '';
  }
  assert.fail('expected E40004');
}

describe('the runs option', () => {
  test('1 to the plan\'s max_runs; one run stays out of the options, so clients that never ask see no change', () => {
    assert.equal(parse({}).runs, undefined);
    assert.equal(parse({ runs: 1 }).runs, undefined);
    assert.equal(parse({ runs: '5' }).runs, 5);
    assert.equal(parse({ runs: 9 }).runs, 9);
    assert.equal(parse({ runs: 3 }, basic).runs, 3);
    assert.ok(!('runs' in parse({ runs: 1 })));
  });
  test('anything else is refused with a detail that says what to send', () => {
    assert.match(refusal(() => parse({ runs: 4 }, basic)), /runs is 4; this account's basic plan allows 1 to 3 runs per test/);
    assert.match(refusal(() => parse({ runs: 10 })), /pro plan allows 1 to 9/);
    for (const bad of [0, -1, 2.5, 'three', true, [3], { n: 3 }]) {
      assert.match(refusal(() => parse({ runs: bad })), /runs must be an integer from 1/, `runs ${JSON.stringify(bad)}`);
    }
  });
  test('runs is not part of the page: the same URL with 1 or 5 runs is one page', () => {
    assert.equal(optionsFingerprint(parse({ runs: 5 })), optionsFingerprint(parse({})));
  });
  test('credits: the test\'s price times runs, the video once', () => {
    assert.equal(testCost({ report: 'lighthouse', video: 0, retention: 1, runs: 3 }), 3);
    assert.equal(testCost({ report: 'lighthouse', video: 1, retention: 1, runs: 3 }), 3.9);
    assert.equal(testCost({ report: 'legacy', video: 0, retention: 6, runs: 5 }), 5.5);
    assert.equal(testCost({ report: 'lighthouse', video: 1, retention: 1 }), 1.9);
  });

  test('a retest or monitored test of an account moved to a smaller plan runs at most its plan\'s max_runs', () => {
    const o = parse({ runs: 9 });
    assert.equal(withRunsUpTo(o, 9), o);
    assert.equal(withRunsUpTo(o, 3).runs, 3);
    assert.ok(!('runs' in withRunsUpTo(o, 1)), 'one run is no runs option at all');
    assert.equal(withRunsUpTo(o, 3).url, o.url);
  });
});

describe('the median run', () => {
  const run = (performance_score: number, first_contentful_paint: number, time_to_interactive: number) =>
    ({ performance_score, first_contentful_paint, time_to_interactive, onload_time: 1000 });

  test('median and sample standard deviation', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
    assert.equal(sampleStdev([2, 4, 4, 4, 5, 5, 7, 9]).toFixed(4), '2.1381');
    assert.equal(sampleStdev([5]), 0);
  });
  test('the run with the median performance score, so the grade is the median grade', () => {
    // Run 0 is closest to the FCP/TTI medians (Lighthouse CI would pick it) but has the lowest score.
    const runs = [run(70, 1000, 3000), run(90, 800, 2000), run(85, 1300, 4000)];
    assert.equal(medianRunIndex(runs), 2);
  });
  test('among runs of the median score, the one closest to the FCP and TTI medians (Lighthouse CI\'s rule)', () => {
    const runs = [run(80, 900, 5000), run(80, 1000, 3100), run(95, 1100, 3000), run(60, 1000, 3000), run(80, 2000, 2900)];
    assert.equal(medianRunIndex(runs), 1);
  });
  test('without Lighthouse: closest to the medians of FCP and onload time', () => {
    const runs = [900, 1000, 1500].map((fcp, i) => ({ first_contentful_paint: fcp, onload_time: [2000, 2050, 1000][i]! }));
    assert.equal(medianRunIndex(runs), 1);
  });
  test('spread of every metric all runs have', () => {
    const spread = runSpread([run(70, 1000, 3000), run(90, 800, 2000), run(80, 1300, 4000)]);
    assert.deepEqual(spread.performance_score, { min: 70, median: 80, max: 90, stdev: 10 });
    assert.deepEqual(Object.keys(spread).sort(), ['first_contentful_paint', 'onload_time', 'performance_score', 'time_to_interactive']);
  });
  test('runs.json and meta.runs: discarded runs are listed but the median comes from the kept ones', () => {
    const record = (n: number, score: number, discarded = false): RunRecord => ({
      run: n, discarded, discard_reason: discarded ? 'the host was busy' : null, benchmark_index: 1000,
      baseline_benchmark_index: 1000, other_cpu_cores: 0, attributes: { performance_score: score, first_contentful_paint: 1000, onload_time: 2000 },
    });
    const file = runsFile([record(1, 50, true), record(2, 90), record(3, 80), record(4, 70)]);
    assert.equal(file.count, 3);
    assert.equal(file.median_run, 3);
    assert.equal(file.runs.length, 4);
    const meta = runsMeta(file);
    assert.equal(meta.discarded, 1);
    assert.deepEqual(meta.spread.performance_score, { min: 70, median: 80, max: 90, stdev: 10 });
    // Every load discarded: the median of them all, never nothing.
    const all = runsFile([record(1, 50, true), record(2, 60, true), record(3, 70, true)]);
    assert.equal(all.median_run, 2);
    assert.equal(all.count, 3);
  });
});

