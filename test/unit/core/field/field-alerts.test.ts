/**
 * The rules of alerts on real visitors' figures (core/field/field-alerts.ts): what a condition accepts and what it
 * says to fix, its verdict on figures (not judged under its minimum, the operators at their edges), its words, its
 * scope as the figures module reads it, and the Field view it links to. The judgement over a store, its one
 * notification per change and its events are tested on both engines in test/integration/field-alerts.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  FIELD_ALERT_DEVICES, FIELD_ALERT_OPERATORS, fieldAlertFilters, fieldAlertHref, fieldAlertText, judgeFieldAlert, parseFieldAlertInput, type FieldAlertRow,
} from '../../../../src/core/field/field-alerts.js';
import { ApiError } from '../../../../src/core/errors.js';
import { OPERATORS } from '../../../../src/core/vocabulary/alert-operators.js';

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, 'E4001');
    return err.detail ?? '';
  }
  assert.fail('accepted');
};

const condition = (over: Partial<FieldAlertRow> = {}): FieldAlertRow => ({
  id: 'c1', account_id: 'a1', site_id: 's1', figure: 'field_inp_poor_share', operator: 'gt', value: 0.1, device: 'mobile', template: '', path: '',
  window_days: 7, min_views: 50, enabled: 1, state: 'not_judged', state_since: 0, judged: null, measured: null, views: null, created: 0, ...over,
});

const figures = (metric: string, n: number, p75: number | null, poor: number | null) => ({ metrics: { [metric]: { n, p75, poor } } });

describe('a field alert condition as a client gives it', () => {
  test('the least a condition says: figure, operator and value; the rest defaults later', () => {
    assert.deepEqual(parseFieldAlertInput({ figure: 'field_lcp_p75', operator: 'gt', value: 2500 }, 'create'), { figure: 'field_lcp_p75', operator: 'gt', value: 2500 });
    const all = { figure: 'field_inp_poor_share', operator: 'gte', value: 0.1, device: 'desktop', template: '/blog/:slug', path: '/blog/a', window_days: 28, min_views: 1, enabled: false };
    assert.deepEqual(parseFieldAlertInput(all, 'create'), all);
  });

  test('the operators are the alert operators\' thresholds; devices are the field\'s and all', () => {
    assert.deepEqual([...FIELD_ALERT_OPERATORS], OPERATORS.filter((o) => o !== 'regression'));
    assert.deepEqual([...FIELD_ALERT_DEVICES], ['all', 'mobile', 'tablet', 'desktop']);
    for (const figure of ['lcp', 'inp', 'cls', 'fcp', 'ttfb'].flatMap((m) => [`field_${m}_p75`, `field_${m}_poor_share`])) {
      assert.equal(parseFieldAlertInput({ figure, operator: 'lt', value: 0.5 }, 'create').figure, figure);
    }
  });

  for (const [name, attributes, detail] of [
    ['nothing', {}, /^figure, operator, value are required; send \{"data"/],
    ['no value', { figure: 'field_lcp_p75', operator: 'gt' }, /^value is required/],
    ['a lab figure', { figure: 'largest_contentful_paint', operator: 'gt', value: 1 }, /not a field figure; use one of field_lcp_p75, field_lcp_poor_share/],
    ['a regression', { figure: 'field_lcp_p75', operator: 'regression', value: 1 }, /operator "regression" is unknown; use one of gt, gte, lt, lte/],
    ['a value in words', { figure: 'field_lcp_p75', operator: 'gt', value: '2500' }, /value must be a number, got "2500"/],
    ['a share over 1', { figure: 'field_cls_poor_share', operator: 'gt', value: 2 }, /value of field_cls_poor_share must be a share from 0 to 1, got 2/],
    ['a negative p75', { figure: 'field_ttfb_p75', operator: 'gt', value: -5 }, /must be milliseconds, 0 or more/],
    ['an unknown device', { figure: 'field_lcp_p75', operator: 'gt', value: 1, device: 'phone' }, /device must be one of all, mobile, tablet, desktop, got "phone"/],
    ['a template without its slash', { figure: 'field_lcp_p75', operator: 'gt', value: 1, template: 'blog/:slug' }, /template must start with "\/"/],
    ['a window of no days', { figure: 'field_lcp_p75', operator: 'gt', value: 1, window_days: 0 }, /window_days must be a whole number from 1 to 28, got 0/],
    ['a window of a day and a half', { figure: 'field_lcp_p75', operator: 'gt', value: 1, window_days: 1.5 }, /window_days must be a whole number/],
    ['a minimum of no views', { figure: 'field_lcp_p75', operator: 'gt', value: 1, min_views: 0 }, /min_views must be a whole number from 1 to 10,000,000, got 0/],
    ['enabled in words', { figure: 'field_lcp_p75', operator: 'gt', value: 1, enabled: 'yes' }, /enabled must be true or false/],
    ['an unknown attribute', { figure: 'field_lcp_p75', operator: 'gt', value: 1, threshold: 1 }, /Unknown attribute "threshold"/],
  ] as const) {
    test(`${name} is refused, saying what to fix`, () => assert.match(refusal(() => parseFieldAlertInput(attributes, 'create')), detail));
  }

  test('a change is checked against the condition it changes: a share\'s new value, a new figure against the old value', () => {
    const share = condition();
    assert.deepEqual(parseFieldAlertInput({ value: 0.2 }, 'patch', share), { value: 0.2 });
    assert.match(refusal(() => parseFieldAlertInput({ value: 3 }, 'patch', share)), /must be a share from 0 to 1/);
    const p75 = condition({ figure: 'field_lcp_p75', value: 2500 });
    assert.match(refusal(() => parseFieldAlertInput({ figure: 'field_lcp_poor_share' }, 'patch', p75)), /must be a share from 0 to 1, got 2500/);
    assert.deepEqual(parseFieldAlertInput({ figure: 'field_lcp_poor_share', value: 0.25 }, 'patch', p75), { figure: 'field_lcp_poor_share', value: 0.25 });
    assert.deepEqual(parseFieldAlertInput({}, 'patch', p75), {}, 'nothing to change is no error');
  });
});

describe('a condition\'s verdict on figures', () => {
  test('under its minimum of page views it is not judged, whatever the figure says', () => {
    assert.deepEqual(judgeFieldAlert(condition(), figures('inp', 20, 900, 1)), { state: 'not_judged', measured: 1, views: 20 });
    assert.deepEqual(judgeFieldAlert(condition(), figures('inp', 49, 900, 1)).state, 'not_judged');
    assert.deepEqual(judgeFieldAlert(condition(), figures('inp', 50, 900, 0.5)), { state: 'triggered', measured: 0.5, views: 50 });
  });

  test('no figure (no views of that metric, or a figure the figures module does not have) is not judged', () => {
    assert.deepEqual(judgeFieldAlert(condition(), { metrics: {} }), { state: 'not_judged', measured: null, views: 0 });
    assert.equal(judgeFieldAlert(condition(), figures('inp', 500, null, null)).state, 'not_judged');
    assert.equal(judgeFieldAlert(condition({ figure: 'field_nope_p75' }), figures('inp', 500, 900, 1)).state, 'not_judged');
  });

  test('a p75 condition reads the p75, a share condition the poor share', () => {
    const lcp = condition({ figure: 'field_lcp_p75', value: 2500, min_views: 1 });
    assert.equal(judgeFieldAlert(lcp, figures('lcp', 10, 2600, 0)).state, 'triggered');
    assert.equal(judgeFieldAlert(lcp, figures('lcp', 10, 2400, 1)).state, 'fine', 'a poor share of 1 is not the p75');
    assert.equal(judgeFieldAlert(condition({ min_views: 1 }), figures('inp', 10, 99_999, 0.05)).state, 'fine', 'a high p75 is not the share');
  });

  test('each operator at its edge', () => {
    const at = (operator: string, measured: number) => judgeFieldAlert(condition({ operator, value: 0.1, min_views: 1 }), figures('inp', 10, 1, measured)).state;
    assert.deepEqual(['gt', 'gte', 'lt', 'lte'].map((o) => at(o, 0.1)), ['fine', 'triggered', 'fine', 'triggered']);
    assert.deepEqual(['gt', 'gte', 'lt', 'lte'].map((o) => at(o, 0.2)), ['triggered', 'triggered', 'fine', 'fine']);
    assert.deepEqual(['gt', 'gte', 'lt', 'lte'].map((o) => at(o, 0)), ['fine', 'fine', 'triggered', 'triggered']);
  });
});

describe('a condition in words, its scope and its view', () => {
  test('its words name the figure, the limit in the figure\'s unit, the device, the scope, the window and the minimum', () => {
    assert.equal(fieldAlertText(condition()), 'INP poor share > 10 %, mobile, the whole site, last 7 days, at least 50 page views');
    assert.equal(fieldAlertText(condition({ figure: 'field_lcp_p75', operator: 'gte', value: 2500, device: 'all', template: '/blog/:slug', window_days: 1, min_views: 1 })),
      'LCP p75 ≥ 2.50 s, all devices, template /blog/:slug, last 1 day, at least 1 page view');
    assert.equal(fieldAlertText(condition({ template: '/blog/:slug', path: '/blog/a', min_views: 12_000 })),
      'INP poor share > 10 %, mobile, path /blog/a, last 7 days, at least 12,000 page views', 'a path is the narrower scope');
  });

  test('the scope becomes the figures module\'s filters: all devices is no device filter, "" no template nor path', () => {
    assert.deepEqual(fieldAlertFilters(condition()), { device: 'mobile' });
    assert.deepEqual(fieldAlertFilters(condition({ device: 'all' })), {});
    assert.deepEqual(fieldAlertFilters(condition({ device: 'desktop', template: '/blog/:slug', path: '/blog/a' })), { device: 'desktop', template: '/blog/:slug', path: '/blog/a' });
  });

  test('its view on the Field screen has its device, window, template and path', () => {
    assert.equal(fieldAlertHref(condition()), '/field/s1?device=mobile&days=7');
    assert.equal(fieldAlertHref(condition({ device: 'all', window_days: 28 })), '/field/s1?days=28');
    assert.equal(fieldAlertHref(condition({ template: '/blog/:slug', path: '/blog/a b' })), '/field/s1?device=mobile&days=7&path=%2Fblog%2Fa+b&template=%2Fblog%2F%3Aslug');
  });
});
