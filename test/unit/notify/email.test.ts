/** The alert e-mail (notify/email.ts alertMail). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alertMail } from '../../../src/notify/email.js';

test('alert e-mail: text and HTML with the page, the metric, value against threshold and the links; HTML escaped', () => {
  const m = alertMail({
    to: 'a@example.test', state: 'triggered', pageUrl: 'https://example.test/?q=<b>', metric: 'fully_loaded_time', operator: 'gt',
    value: 4200, threshold: 3000, conditionValue: 3000, reportLink: 'https://w.test/api/2.0/reports/R', reportPageLink: 'https://w.test/reports/R',
    pageLink: 'https://w.test/api/2.0/pages/P',
  });
  // The metric by its label and values as the one table of figures prints them: never its attribute name.
  assert.match(m.subject, /Alert: Fully loaded on https:\/\/example\.test/);
  assert.ok(m.text.includes('Alert: Fully loaded > 3.00 s.'), m.text);
  assert.ok(!m.text.includes('fully_loaded_time') && !m.html.includes('fully_loaded_time'), m.text);
  assert.ok(m.text.includes('Fully loaded: measured 4.20 s'), m.text);
  for (const s of ['measured 4.20 s against the threshold 3.00 s', 'https://w.test/reports/R', 'https://w.test/api/2.0/pages/P']) {
    assert.ok(m.text.includes(s), s);
    assert.ok(m.html.includes(s), s);
  }
  assert.ok(!m.html.includes('?q=<b>') && m.html.includes('?q=&#60;b&#62;'));
});

test('alert e-mail: a value and its threshold that print alike are told apart; a regression by its share', () => {
  const close = alertMail({
    to: 'a@example.test', state: 'triggered', pageUrl: 'https://example.test/', metric: 'largest_contentful_paint', operator: 'gt',
    value: 2504, threshold: 2500, conditionValue: 2500, reportLink: 'r', reportPageLink: 'rp', pageLink: 'p',
  });
  assert.ok(close.text.includes('Largest contentful paint: measured 2.50 s (2,504 ms) against the threshold 2.50 s (2,500 ms).'), close.text);
  const regression = alertMail({
    to: 'a@example.test', state: 'resolved', pageUrl: 'https://example.test/', metric: 'performance_score', operator: 'regression',
    value: 71, threshold: 76.5, conditionValue: 0.1, reportLink: 'r', reportPageLink: 'rp', pageLink: 'p',
  });
  assert.match(regression.subject, /^\[Webgauge\] Resolved: Performance on /);
  assert.ok(regression.text.includes('Resolved: Performance regressed by at least 10% against the page\'s history.'), regression.text);
});
