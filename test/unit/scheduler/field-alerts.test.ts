/**
 * What a change of a field alert condition tells (scheduler/field-alerts.ts): the webhook `field.alert`'s data and the
 * e-mail. Their delivery (once, through the outbox, on both engines) is tested in test/integration/field-alerts.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fieldAlertMail, fieldAlertPayload } from '../../../src/scheduler/field-alerts.js';
import type { FieldAlertChange, FieldAlertRow } from '../../../src/core/field/field-alerts.js';
import type { FieldSite } from '../../../src/core/field/sites.js';

const site = { id: 's1', accountId: 'a1', name: 'Shop & Co', origins: ['https://shop.example'] } as FieldSite;
const condition = (over: Partial<FieldAlertRow> = {}): FieldAlertRow => ({
  id: 'c1', account_id: 'a1', site_id: 's1', figure: 'field_lcp_p75', operator: 'gt', value: 2500, device: 'mobile', template: '/blog/:slug', path: '',
  window_days: 7, min_views: 100, enabled: 1, state: 'triggered', state_since: 1_796_475_600_000, judged: 1_796_475_600_000, measured: 3120, views: 240,
  created: 0, ...over,
});
const change = (over: Partial<FieldAlertChange> = {}): FieldAlertChange => ({ condition: condition(), site, change: 'triggered', measured: 3120, views: 240, ...over });
const links = { origin: 'https://webgauge.example', api: 'https://webgauge.example/api/2.0' };

describe('the field.alert webhook\'s data', () => {
  test('the change, the site, the condition with its scope and words, the figure, its views, when, and the links', () => {
    assert.deepEqual(fieldAlertPayload(change(), links), {
      state: 'triggered',
      site: { id: 's1', name: 'Shop & Co', origins: ['https://shop.example'] },
      condition: {
        id: 'c1', figure: 'field_lcp_p75', operator: 'gt', value: 2500, device: 'mobile', template: '/blog/:slug', path: null, window_days: 7, min_views: 100,
        text: 'LCP p75 > 2.50 s, mobile, template /blog/:slug, last 7 days, at least 100 page views',
      },
      measured: 3120, page_views: 240, judged: 1_796_475_600,
      links: {
        field: 'https://webgauge.example/field/s1?device=mobile&days=7&template=%2Fblog%2F%3Aslug',
        condition: 'https://webgauge.example/api/2.0/field_sites/s1/alert_conditions/c1',
      },
    });
  });

  test('the whole site on all devices: no template nor path, no device in the link', () => {
    const p = fieldAlertPayload(change({ change: 'resolved', condition: condition({ device: 'all', template: '', state: 'fine' }) }), links);
    assert.equal(p.state, 'resolved');
    assert.equal(p.condition.template, null);
    assert.equal(p.links.field, 'https://webgauge.example/field/s1?days=7');
  });
});

describe('the field alert e-mail', () => {
  test('an alert says the condition, the site, the figure and its views, and links the figures, escaped in HTML', () => {
    const m = fieldAlertMail('owner@shop.example', change(), 'https://webgauge.example/field/s1?device=mobile&days=7');
    assert.equal(m.to, 'owner@shop.example');
    assert.equal(m.subject, '[Webgauge] Alert: LCP p75 > 2.50 s on Shop & Co');
    assert.match(m.text, /^Alert: LCP p75 > 2\.50 s, mobile, template \/blog\/:slug, last 7 days, at least 100 page views on Shop & Co: real visitors measured 3\.12 s over 240 page views\./);
    assert.match(m.text, /The figures: https:\/\/webgauge\.example\/field\/s1\?device=mobile&days=7\n$/);
    assert.match(m.html, /Shop &#38; Co: real visitors measured <b>3\.12 s<\/b> over 240 page views/);
    assert.match(m.html, /<a href="https:\/\/webgauge\.example\/field\/s1\?device=mobile&#38;days=7">The figures<\/a>/);
  });

  test('a resolution says so; a figure that prints like its limit is printed exactly', () => {
    const m = fieldAlertMail('o@x.example', change({ change: 'resolved', measured: 0.1004, views: 1200,
      condition: condition({ figure: 'field_inp_poor_share', operator: 'gt', value: 0.1, template: '', state: 'fine' }) }), 'https://w.example/field/s1');
    assert.equal(m.subject, '[Webgauge] Resolved: INP poor share > 10 % on Shop & Co');
    assert.match(m.text, /real visitors measured 10 % \(0\.1004\) over 1,200 page views/);
  });
});
