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
  assert.match(m.subject, /Alert: fully_loaded_time on https:\/\/example\.test/);
  // Values print as the one table of figures prints a time.
  assert.ok(m.text.includes('Alert: fully_loaded_time > 3.00 s.'), m.text);
  for (const s of ['measured 4.20 s against the threshold 3.00 s', 'https://w.test/reports/R', 'https://w.test/api/2.0/pages/P']) {
    assert.ok(m.text.includes(s), s);
    assert.ok(m.html.includes(s), s);
  }
  assert.ok(!m.html.includes('?q=<b>') && m.html.includes('?q=&#60;b&#62;'));
});
