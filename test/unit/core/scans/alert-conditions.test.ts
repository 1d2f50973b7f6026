/**
 * A scan's alert conditions (core/scans/alert-conditions.ts): `alert_conditions` parsed with the defaults filled in and
 * bad ones refused with E40004 naming the condition's index and what to fix; a condition said as the app and the e-mail
 * say it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../../../src/core/errors.js';
import {
  conditionApplies, conditionKey, conditionText, MAX_ALERT_CONDITIONS, parseAlertConditions,
} from '../../../../src/core/scans/alert-conditions.js';

describe('alert_conditions parsed', () => {
  test('figures with their operators, and the comparison kinds with their defaults; none when not given', () => {
    assert.deepEqual(parseAlertConditions([
      { figure: 'lcp_p75', operator: 'gt', value: 2500 },
      { kind: 'figure', figure: 'performance_median', operator: 'lt', value: '70' },
      { figure: 'poor_lcp_pages', operator: 'gt', value: 0 },
      { kind: 'grade_drop' }, { kind: 'pages_worse', value: 3 }, { kind: 'template_worse', value: null },
    ]), [
      { kind: 'figure', figure: 'lcp_p75', operator: 'gt', value: 2500 },
      { kind: 'figure', figure: 'performance_median', operator: 'lt', value: 70 },
      { kind: 'figure', figure: 'poor_lcp_pages', operator: 'gt', value: 0 },
      { kind: 'grade_drop', figure: null, operator: null, value: 2 },
      { kind: 'pages_worse', figure: null, operator: null, value: 3 },
      { kind: 'template_worse', figure: null, operator: null, value: 0 },
    ]);
    for (const none of [undefined, null, '', []]) assert.deepEqual(parseAlertConditions(none), []);
  });

  test('bad conditions are E40004 naming the index and what to fix', () => {
    const cases: [unknown, RegExp][] = [
      ['lcp_p75>2500', /^alert_conditions must be an array of conditions, e\.g\. \[\{"figure"/],
      [Array.from({ length: MAX_ALERT_CONDITIONS + 1 }, (_, i) => ({ figure: 'lcp_p75', operator: 'gt', value: i })), /has 21 conditions; at most 20/],
      [[{ figure: 'lcp_p75', operator: 'gt', value: 1 }, 'poor_lcp_pages'], /^alert_conditions\[1\] must be an object: /],
      [[{ figure: 'lcp_p75', operator: 'gt', value: 1 }, { figure: 'lcp_p99', operator: 'gt', value: 1 }],
        /^alert_conditions\[1\]\.figure "lcp_p99" is no site figure; use one of lcp_p75, lcp_median, .* or failed_pages$/],
      [[{ figure: 'lcp_p75', operator: 'above', value: 1 }], /^alert_conditions\[0\]\.operator must be gt, gte, lt or lte \(> ≥ < ≤\); got "above"/],
      [[{ figure: 'lcp_p75', operator: 'gt' }], /^alert_conditions\[0\]\.value is the threshold of lcp_p75 \(75th percentile of LCP .*\): it must be milliseconds, 0 or more; got null/],
      [[{ figure: 'poor_cls_pages', operator: 'gt', value: 0.5 }], /value is the threshold of poor_cls_pages .*: it must be a whole number of pages/],
      [[{ figure: 'performance_median', operator: 'lt', value: 101 }], /it must be a score from 0 to 100; got 101/],
      [[{ figure: 'cls_p75', operator: 'gt', value: -0.1 }], /it must be a layout shift, 0 or more; got -0.1/],
      [[{ kind: 'slower' }], /^alert_conditions\[0\]\.kind "slower" is no condition kind; use one of figure, grade_drop, pages_worse or template_worse$/],
      [[{ value: 3 }], /^alert_conditions\[0\] needs a figure \(lcp_p75, .*\) with an operator and a value, or a kind \(grade_drop, pages_worse or template_worse\)/],
      [[{ kind: 'grade_drop', figure: 'lcp_p75' }], /^alert_conditions\[0\]: kind grade_drop takes no figure or operator .*give \{"kind": "grade_drop", "value": 2\}/],
      [[{ kind: 'grade_drop', value: 6 }], /^alert_conditions\[0\]\.value of kind grade_drop is a whole number of letters from 1 to 5 \(default 2\); got 6/],
      [[{ kind: 'pages_worse', value: 1.5 }], /value of kind pages_worse is a whole number of pages from 0/],
      [[{ figure: 'lcp_p75', operator: 'gt', value: 1, colour: 'red' }], /^alert_conditions\[0\] has an unknown member "colour"; a condition has kind, figure, operator, value or device/],
      [[{ kind: 'pages_worse' }, { kind: 'pages_worse', value: 0 }], /^alert_conditions\[1\] is the same condition as alert_conditions\[0\] \(more than 0 pages significantly worse\)/],
    ];
    for (const [input, detail] of cases) {
      assert.throws(() => parseAlertConditions(input), (e: unknown) => e instanceof ApiError && e.code === 'E40004' && detail.test(e.detail ?? ''),
        `${JSON.stringify(input).slice(0, 80)} → ${detail}`);
    }
  });

  test('a condition is said as the app and the e-mail say it; its identity is kind, figure, operator and value', () => {
    const [lcp, poor, grade] = parseAlertConditions([{ figure: 'lcp_p75', operator: 'gte', value: 2500 },
      { figure: 'poor_lcp_pages', operator: 'gt', value: 0 }, { kind: 'grade_drop', value: 1 }]);
    // By the figure's label in the one table, not the name the condition is written with (lcp_p75).
    assert.deepEqual([lcp, poor, grade].map((c) => conditionText(c!)), ['LCP, 75th percentile ≥ 2.50 s', 'Pages with poor LCP > 0', 'a page\'s grade falls 1 letter or more']);
    assert.equal(conditionKey(lcp!), 'figure|lcp_p75|gte|2500|');
    assert.notEqual(conditionKey(lcp!), conditionKey({ ...lcp!, value: 2600 }));
    assert.notEqual(conditionKey(lcp!), conditionKey({ ...lcp!, device: 'phone-mid' }), 'one device\'s condition is another');
  });

  test('a condition of one device (a scan per device): judged on that device\'s scan only; phone is a mid-tier phone', () => {
    const [all, phone, again] = parseAlertConditions([{ figure: 'lcp_p75', operator: 'gt', value: 2500 },
      { figure: 'lcp_p75', operator: 'gt', value: 2500, device: 'phone' }, { figure: 'lcp_p75', operator: 'gt', value: 2500, device: 'desktop' }]);
    assert.deepEqual([all!.device, phone!.device, again!.device], [undefined, 'phone-mid', 'desktop'], 'the same figure for every device and for one is two conditions');
    assert.ok(!('device' in all!), 'a condition of every device stores no device (those stored before devices read the same)');
    assert.deepEqual([conditionApplies(all!, 'phone-low'), conditionApplies(phone!, 'phone-mid'), conditionApplies(phone!, 'desktop')], [true, true, false]);
    for (const [device, detail] of [['tablet', /^alert_conditions\[0\]\.device "tablet" is no device class; use desktop, phone-mid, phone-low or phone \(phone-mid\)/],
      [3, /\.device 3 is no device class/]] as const) {
      assert.throws(() => parseAlertConditions([{ kind: 'pages_worse', device }]), (e: unknown) => e instanceof ApiError && detail.test(e.detail ?? ''), String(device));
    }
    assert.throws(() => parseAlertConditions([{ kind: 'pages_worse', device: 'phone' }, { kind: 'pages_worse', device: 'phone-mid' }]), /is the same condition/);
  });
});
