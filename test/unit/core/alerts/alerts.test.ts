/**
 * A page's alert conditions (core/alerts/alerts.ts): the regression verdict over a page's reports, and what POST (and
 * PATCH) .../performance_alert_conditions makes of a body. The alert e-mail is notify/email.test.ts, a delivery's
 * signature notify/sign.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALERT_METRICS, CONDITION_SHAPE, parseConditionInput, REGRESSION, regressionVerdict } from '../../../../src/core/alerts/alerts.js';
import { resourceAttributes } from '../../../../src/api/resource-body.js';
import { ApiError } from '../../../../src/core/errors.js';

/** What POST (and PATCH) .../performance_alert_conditions does with a body: the API unwraps it, core parses it. */
const parseConditionBody = (b: unknown, mode: 'create' | 'patch') =>
  parseConditionInput(resourceAttributes(b, 'performance_alert_condition', CONDITION_SHAPE, mode === 'patch'), mode);

const steady = [200, 204, 198, 201, 207, 199, 202, 196, 203, 200, 205, 197, 201, 199, 204];
const newestFirst = (oldestFirst: number[]) => [...oldestFirst].reverse();

test('regression: undefined until there are recent + baselineMin values', () => {
  assert.equal(REGRESSION.recent + REGRESSION.baselineMin, 10);
  assert.equal(regressionVerdict(newestFirst(steady.slice(0, 9)), 'onload_time', 0.1), undefined);
  assert.ok(regressionVerdict(newestFirst(steady.slice(0, 10)), 'onload_time', 0.1));
});

test('regression: noise does not hold; five reports 20 % slower do, with the medians as value and threshold', () => {
  assert.equal(regressionVerdict(newestFirst(steady), 'onload_time', 0.1)!.holds, false);
  const slow = [...steady, 240, 244, 238, 241, 246];
  const v = regressionVerdict(newestFirst(slow), 'onload_time', 0.1)!;
  assert.equal(v.holds, true);
  assert.equal(v.value, 241);
  assert.ok(Math.abs(v.threshold - 201 * 1.1) < 1e-9, String(v.threshold)); // baseline median 201 (the 15 steady values)
  assert.ok(v.p! < 0.001);
  // Significant but smaller than the change that matters: no.
  assert.equal(regressionVerdict(newestFirst(slow), 'onload_time', 0.25)!.holds, false);
});

test('regression: for scores, worse is lower', () => {
  const scores = [90, 91, 89, 90, 92, 90, 91, 89, 90, 91];
  assert.equal(regressionVerdict(newestFirst([...scores, 99, 98, 99, 99, 98]), 'performance_score', 0.05)!.holds, false);
  const v = regressionVerdict(newestFirst([...scores, 75, 74, 76, 75, 73]), 'performance_score', 0.05)!;
  assert.equal(v.holds, true);
  assert.ok(v.threshold < 90 && v.value < v.threshold);
});

test('conditions: metrics are the numeric report attributes; bad bodies are E4001 naming the field', () => {
  for (const m of ['service_score', 'fully_loaded_time', 'cumulative_layout_shift', 'page_bytes']) assert.ok(ALERT_METRICS.includes(m), m);
  for (const m of ['created', 'expires', 'url', 'service_grade']) assert.ok(!ALERT_METRICS.includes(m), m);
  const body = (attributes: unknown) => ({ data: { type: 'performance_alert_condition', attributes } });
  assert.deepEqual(parseConditionBody(body({ metric: 'onload_time', operator: 'regression', value: 0.2 }), 'create'),
    { metric: 'onload_time', operator: 'regression', value: 0.2 });
  const refused = (b: unknown, field: RegExp, mode: 'create' | 'patch' = 'create') =>
    assert.throws(() => parseConditionBody(b, mode), (e: unknown) => e instanceof ApiError && e.code === 'E4001' && field.test(e.detail ?? ''));
  refused({}, /data/);
  refused({ data: { type: 'tag', attributes: {} } }, /data\.type/);
  refused(body({ metric: 'onload_time', operator: 'gt', value: Infinity }), /value/);
  refused(body({ metric: 'onload_time', operator: 'regression', value: 0 }), /regression/);
  refused(body({ enabled: 'yes' }), /enabled/, 'patch');
  assert.deepEqual(parseConditionBody({ data: {} }, 'patch'), {});
});

