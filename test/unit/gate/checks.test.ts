/**
 * The CI gate's judgement (gate/checks.ts), without a server: budgets against the median of the runs, the comparison
 * with history in both directions and below its thresholds. Its outputs are outputs.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GateError } from '../../../src/gate/api-client.js';
import { checkBudget, comparableHistory, compareWithHistory, COMPARISON, exitCodeOf, parseBudget } from '../../../src/gate/checks.js';

describe('budgets', () => {
  test('a budget file names numeric report attributes with a min and/or a max', () => {
    const b = parseBudget('{"largest_contentful_paint": {"max": 2500}, "performance_score": {"min": 90}}', 'b.json');
    assert.deepEqual([...b], [['largest_contentful_paint', { max: 2500 }], ['performance_score', { min: 90 }]]);
  });

  test('a bad budget file is refused with what to fix', () => {
    const bad: [string, RegExp][] = [
      ['not json', /is not JSON/],
      ['[1]', /must be a JSON object of limits/],
      ['{}', /has no limits/],
      ['{"lcp": {"max": 1}}', /"lcp" is not a numeric report attribute; use one of .*largest_contentful_paint/],
      ['{"url": {"max": 1}}', /"url" is not a numeric report attribute/],
      ['{"page_bytes": {"max": "1"}}', /limit of "page_bytes" must be/],
      ['{"page_bytes": {"maximum": 1}}', /limit of "page_bytes" must be/],
      ['{"page_bytes": {}}', /limit of "page_bytes" must be/],
      ['{"page_bytes": {"min": 5, "max": 1}}', /min of "page_bytes" \(5\) is above its max \(1\)/],
    ];
    for (const [text, message] of bad) assert.throws(() => parseBudget(text, 'b.json'), (e: Error) => e instanceof GateError && message.test(e.message), text);
  });

  test('each limit is checked against the figure; a failure names the attribute, the value and the limit', () => {
    const budget = parseBudget('{"largest_contentful_paint": {"max": 2500}, "performance_score": {"min": 90}, ' +
      '"page_bytes": {"min": 1000, "max": 5000}, "total_blocking_time": {"max": 100}}', 'b.json');
    const checks = checkBudget(budget, { largest_contentful_paint: 2600, performance_score: 95, page_bytes: 5000 });
    assert.deepEqual(checks.map((c) => c.outcome), ['fail', 'pass', 'pass', 'fail']);
    assert.equal(checks[0]!.message, 'largest_contentful_paint 2.60 s is over its budget of max 2.50 s');
    assert.match(checks[1]!.message, /performance_score 95% is within its budget \(min 90%\)/);
    assert.match(checks[3]!.message, /total_blocking_time: the report has no value/);
    assert.equal(exitCodeOf(checks), 1);
    assert.equal(exitCodeOf(checks.filter((c) => c.outcome === 'pass')), 0);
    assert.match(checkBudget(parseBudget('{"performance_score": {"min": 90}}', 'b'), { performance_score: 89 })[0]!.message,
      /performance_score 89% is under its budget of min 90%/);
  });
});

describe('the comparison with history', () => {
  const history = [1000, 1010, 990, 1005, 995, 1002, 998, 1008];

  test('a clear slowdown of a time fails, with the change and the p-value', () => {
    const c = compareWithHistory('largest_contentful_paint', [1400, 1420, 1390], history);
    assert.equal(c.outcome, 'fail');
    assert.ok(c.p! < COMPARISON.alpha && c.change! > 0.35, JSON.stringify(c));
    assert.match(c.message, /largest_contentful_paint is significantly worse: 1\.40 s against 1\.00 s before \(\+39\.9 %, p = /);
  });

  test('a clear improvement passes as "better"; for a score, higher is better', () => {
    assert.equal(compareWithHistory('largest_contentful_paint', [600, 610, 590], history).outcome, 'improved');
    const scores = [90, 91, 90, 92, 90, 91];
    assert.equal(compareWithHistory('performance_score', [70, 71, 72], scores).outcome, 'fail');
    assert.equal(compareWithHistory('performance_score', [99, 100, 99], [80, 81, 80, 82, 80]).outcome, 'improved');
  });

  test('significant but smaller than 5 %, or large but not significant: no significant change', () => {
    const small = compareWithHistory('largest_contentful_paint', [1030, 1031, 1032], history);
    assert.equal(small.outcome, 'pass');
    assert.ok(small.p! < COMPARISON.alpha, 'every run above every earlier report, yet under 5 %');
    assert.match(small.message, /no significant change/);
    const noisy = compareWithHistory('largest_contentful_paint', [2000, 900, 1000], [500, 1500, 800, 1200, 1000, 2000]);
    assert.equal(noisy.outcome, 'pass');
    // One load can never be significant against 8 reports (the smallest one-sided p is 1/9).
    assert.equal(compareWithHistory('largest_contentful_paint', [5000], history).outcome, 'pass');
  });

  test('the structure score and grade compare only with reports of the same Lighthouse audits, and say what was left out', () => {
    const report = { lighthouse_version: '13.5.0', structure_score: 70, largest_contentful_paint: 900 };
    const earlier = [
      ...[91, 90, 92, 90, 91, 90].map((v) => ({ lighthouse_version: '12.8.2', structure_score: v, largest_contentful_paint: 900 })),
      { lighthouse_version: '13.4.1', structure_score: 71, largest_contentful_paint: 910 },
    ];
    const structure = comparableHistory('structure_score', report, earlier);
    assert.deepEqual(structure.values, [71]);
    assert.match(structure.note!, /^6 earlier reports left out: scored from the structure audits of Lighthouse 12\.8\.2, this report from those of Lighthouse 13\.5\.0/);
    const check = compareWithHistory('structure_score', [70, 69, 70], structure.values, structure.note);
    assert.equal(check.outcome, 'skipped', 'not a regression: only the re-mapping');
    assert.match(check.message, /only 1 earlier reports have it \(6 earlier reports left out/);
    // The same history compares across the line for a metric Lighthouse 13 kept as it was.
    assert.deepEqual(comparableHistory('largest_contentful_paint', report, earlier), { values: [900, 900, 900, 900, 900, 900, 910] });
    assert.deepEqual(comparableHistory('service_score', { lighthouse_version: '12.8.2', service_score: 80 },
      [{ lighthouse_version: '12.8.2', service_score: 81 }]), { values: [81] });
  });

  test('a report on a phone\'s calibrated CPU compares only with reports on that CPU (issue 49): a page tested as a phone before is no regression', () => {
    const phone = { cpu_benchmark_target: 1000, cpu_target_reached: true };
    const report = { ...phone, largest_contentful_paint: 2600, total_blocking_time: 400 };
    const earlier = [
      ...[2500, 2550].map((v) => ({ ...phone, largest_contentful_paint: v, total_blocking_time: 380 })),
      // Made before device classes: the agent's own CPU, no link.
      ...[1200, 1180, 1210, 1190, 1200, 1220].map((v) => ({ largest_contentful_paint: v, total_blocking_time: 60 })),
    ];
    const lcp = comparableHistory('largest_contentful_paint', report, earlier);
    assert.deepEqual(lcp.values, [2500, 2550]);
    assert.match(lcp.note!, /^6 earlier reports left out: made on the test agent's own CPU, this report on a mid-tier phone's CPU \(benchmark 1000\); figures of another CPU do not compare/);
    assert.equal(compareWithHistory('largest_contentful_paint', [2600, 2610, 2590], lcp.values, lcp.note).outcome, 'skipped');
    // Without the cut the same history reads as a regression: the check above is what keeps it out.
    assert.equal(compareWithHistory('largest_contentful_paint', [2600, 2610, 2590], earlier.map((r) => r.largest_contentful_paint)).outcome, 'fail');
    // A phone the agent could not slow ran on the agent's CPU: it compares with the desktop-CPU history.
    assert.equal(comparableHistory('total_blocking_time', { cpu_benchmark_target: 1000, cpu_target_reached: false, total_blocking_time: 70 },
      earlier).values.length, 6);
  });

  test('without enough history or values it is skipped, never failed', () => {
    assert.equal(compareWithHistory('largest_contentful_paint', [5000, 5000, 5000], [1000, 1000, 1000, 1000]).outcome, 'skipped');
    assert.equal(compareWithHistory('largest_contentful_paint', [], history).outcome, 'skipped');
    // Every value equal (CLS 0 everywhere): no evidence either way.
    assert.equal(compareWithHistory('cumulative_layout_shift', [0, 0, 0], [0, 0, 0, 0, 0]).outcome, 'pass');
  });
});

