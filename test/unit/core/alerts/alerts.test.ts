import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALERT_METRICS, CONDITION_SHAPE, parseConditionInput, REGRESSION, regressionVerdict } from '../../../../src/core/alerts/alerts.js';
import { resourceAttributes } from '../../../../src/api/resource-body.js';
import { ApiError } from '../../../../src/core/errors.js';
import { alertMail } from '../../../../src/notify/email.js';
import { signatureHeader } from '../../../../src/notify/sign.js';

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

test('signature: t and the hex HMAC-SHA256 of "<t>.<body>" keyed with the secret', () => {
  // python3: hmac.new(b'whsec_test', b'1700000000.{"a":1}', hashlib.sha256).hexdigest()
  assert.equal(signatureHeader('whsec_test', '{"a":1}', 1700000000), 't=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789');
});

test('alert e-mail: text and HTML with the page, the metric, value against threshold and the links; HTML escaped', () => {
  const m = alertMail({
    to: 'a@example.test', state: 'triggered', pageUrl: 'https://example.test/?q=<b>', metric: 'fully_loaded_time', operator: 'gt',
    value: 4200, threshold: 3000, conditionValue: 3000, reportLink: 'https://w.test/api/2.0/reports/R', reportPageLink: 'https://w.test/reports/R',
    pageLink: 'https://w.test/api/2.0/pages/P',
  });
  assert.match(m.subject, /Alert: fully_loaded_time on https:\/\/example\.test/);
  // Values print as the one table of figures prints a time.
  assert.ok(m.text.includes('Alert: fully_loaded_time > 3.00 s.'), m.text);
  for (const s of ['measured 4.20 s against the threshold 3.00 s', 'https://w.test/reports/R', 'https://w.test/api/2.0/pages/P']) {
    assert.ok(m.text.includes(s), s);
    assert.ok(m.html.includes(s), s);
  }
  assert.ok(!m.html.includes('?q=<b>') && m.html.includes('?q=&#60;b&#62;'));
});
