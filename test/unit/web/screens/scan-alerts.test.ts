/** New scan's alert conditions, one a line (web/screens/scan-alerts.ts), as the API's `alert_conditions` its parser judges. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { conditionsFromLines } from '../../../../src/web/screens/scan-alerts.js';
import { parseAlertConditions } from '../../../../src/core/scans/alert-conditions.js';

describe('alert conditions from the form\'s lines', () => {
  test('a figure, an operator and a value; a kind and its value; a device first for that device\'s scan alone', () => {
    const lines = ['lcp_p75 > 2500', 'performance_median lt 70', 'grade_drop 2', 'template_worse', 'phone-mid: lcp_p75 ≥ 4000', 'phone:pages_worse 1'];
    assert.deepEqual(conditionsFromLines(lines), [
      { figure: 'lcp_p75', operator: 'gt', value: '2500' }, { figure: 'performance_median', operator: 'lt', value: '70' },
      { kind: 'grade_drop', value: '2' }, { kind: 'template_worse' },
      { figure: 'lcp_p75', operator: 'gte', value: '4000', device: 'phone-mid' }, { kind: 'pages_worse', value: '1', device: 'phone' },
    ]);
    assert.deepEqual(parseAlertConditions(conditionsFromLines(lines)).map((c) => c.device), [undefined, undefined, undefined, undefined, 'phone-mid', 'phone-mid']);
  });

  test('a device that is none reaches the API, which names it', () => {
    assert.throws(() => parseAlertConditions(conditionsFromLines(['tablet: lcp_p75 > 1'])), /alert_conditions\[0\]\.device "tablet" is no device class/);
  });
});
