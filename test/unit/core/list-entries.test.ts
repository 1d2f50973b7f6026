/**
 * Every bad entry of a list attribute is named, not only the first (core/errors.ts eachEntry): the API's detail lists
 * each with its index and why (the spec's code and title unchanged), for a scan's alert conditions, its URL and
 * pattern lists and a test's lists (dns, cookies, URL patterns); and a form that sends such a list one entry a line
 * names each by its field and line number (web/kit.ts formError).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PLANS } from '../../../src/core/accounts/plans.js';
import { createCatalog } from '../../../src/core/catalog/catalog.js';
import { ApiError, eachEntry } from '../../../src/core/errors.js';
import { parseTestOptions, type OptionsContext } from '../../../src/core/options/options.js';
import { parseAlertConditions } from '../../../src/core/scans/alert-conditions.js';
import { parseScanRequest } from '../../../src/core/scans/scan-request.js';
import { errorBox, formError, formLines } from '../../../src/web/kit.js';
import { FormFields } from '../../../src/web/session.js';

const catalog = createCatalog({ locationName: 'Test machine', locationRegion: 'Local' });
const pro: OptionsContext = { plan: PLANS.pro, catalog, defaultLocation: '1', defaultBrowser: '3' };

/** The ApiError `fn` throws. */
function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('nothing was refused');
}

describe('eachEntry', () => {
  test('the good entries pass; one bad entry keeps its own detail; several are all named, in order, with the first code', () => {
    const even = (n: number, at: string) => {
      if (n % 2) throw new ApiError('E40004', `${at} ${n} is odd`);
      return n / 2;
    };
    assert.deepEqual(eachEntry('n', [2, 4], even), [1, 2]);
    const one = refusal(() => eachEntry('n', [2, 3], even));
    assert.equal(one.detail, 'n[1] 3 is odd');
    assert.deepEqual(one.entries, [{ list: 'n', index: 1, detail: 'n[1] 3 is odd' }]);
    const three = refusal(() => eachEntry('n', [1, 2, 3, 5], even));
    assert.equal(three.code, 'E40004');
    assert.equal(three.title, 'Invalid test parameter');
    assert.equal(three.detail, '3 entries of n are refused: n[0] 1 is odd; n[2] 3 is odd; n[3] 5 is odd');
    assert.deepEqual(three.entries.map((e) => e.index), [0, 2, 3]);
  });

  test('an error of another kind ends the check at once', () => {
    assert.throws(() => eachEntry('n', [1, 2], (n) => {
      if (n === 2) throw new TypeError('broken');
      throw new ApiError('E40004', 'odd');
    }), TypeError);
    const first = refusal(() => eachEntry('n', [1, 2, 3], (n) => {
      throw new ApiError(n === 2 ? 'E40003' : 'E40004', `bad ${n}`);
    }));
    assert.equal(first.code, 'E40003', 'a refusal of another code than the first is not mixed into its list');
  });
});

describe('list attributes name every bad entry', () => {
  test("a scan's two bad alert conditions are both named (the schedule's case of issue 48)", () => {
    const err = refusal(() => parseAlertConditions([
      { figure: 'lcp_p75', operator: 'gt', value: 2500 },
      { figure: 'lcpx', operator: 'gt', value: 2500 },
      { kind: 'grade_drop', value: 9 },
    ]));
    assert.equal(err.code, 'E40004');
    assert.match(err.detail ?? '', /^2 entries of alert_conditions are refused: alert_conditions\[1\]\.figure "lcpx" is no site figure.*; alert_conditions\[2\]\.value of kind grade_drop/);
    assert.deepEqual(err.entries.map((e) => e.index), [1, 2]);
  });

  test("a scan's URLs and patterns, each bad one named", () => {
    const err = refusal(() => parseScanRequest({ url: 'https://example.com/', source: 'list', urls: ['/a', 'ftp://x/', '/b', 'mailto:y'] }, pro));
    assert.deepEqual(err.entries.map((e) => [e.list, e.index]), [['urls', 1], ['urls', 3]]);
    assert.match(err.detail ?? '', /urls\[1\] "ftp:\/\/x\/": is not an http\(s\) URL.*; urls\[3\] "mailto:y"/);
  });

  test("a test's DNS overrides, each bad one named", () => {
    const err = refusal(() => parseTestOptions({ url: 'https://example.com/', dns: ['nohost', 'example.com:1.2.3.4', 'a.example:notanip'] }, pro));
    assert.deepEqual(err.entries.map((e) => [e.list, e.index]), [['dns', 0], ['dns', 2]]);
    assert.match(err.detail ?? '', /^2 entries of dns are refused: dns\[0\] "nohost" must be host:ip_address.*; dns\[2\] "a\.example:notanip": "notanip" is not an IPv4 or IPv6 address/);
  });
});

describe('a form names each bad line', () => {
  test('line numbers count the blank lines the form leaves out', () => {
    assert.deepEqual(formLines('\n a \n\n b\r\nc\n'), { entries: ['a', 'b', 'c'], lineOf: [2, 4, 5] });
  });

  test('each refused entry is its field and line, linked to the field; the message counts them', () => {
    const form = new FormFields(new URLSearchParams({ alert_conditions: 'lcp_p75 > 2500\n\nlcpx > 1\ngrade_drop 9\nlcp_p75 > 2500' }).toString());
    const err = refusal(() => parseAlertConditions([
      { figure: 'lcp_p75', operator: 'gt', value: '2500' }, { figure: 'lcpx', operator: 'gt', value: '1' },
      { kind: 'grade_drop', value: '9' }, { figure: 'lcp_p75', operator: 'gt', value: '2500' },
    ]));
    const e = formError(err, form, { alert_conditions: 'Alert conditions' });
    assert.equal(e.message, 'Invalid test parameter: 3 lines are refused.');
    assert.equal(e.lines.length, 3);
    assert.ok(e.lines.every((l) => l.field === 'f-alert_conditions' && l.label === 'Alert conditions'));
    assert.match(e.lines[0]!.text, /^line 3 \(figure\) "lcpx" is no site figure/);
    assert.match(e.lines[1]!.text, /^line 4 \(value\) of kind grade_drop/);
    assert.match(e.lines[2]!.text, /^line 5 is the same condition as line 1 /);
    const html = errorBox(e);
    assert.match(html, /^<div class="error form-error" id="form-error" tabindex="-1" autofocus data-form-error role="alert">Invalid test parameter: 3 lines are refused\.<ul>/);
    assert.match(html, /<li><a href="#f-alert_conditions">Alert conditions<\/a>: line 3 \(figure\)/);
  });

  test('without a field for the list, the API says it in its own words', () => {
    const err = refusal(() => parseAlertConditions([{ figure: 'lcpx', operator: 'gt', value: 1 }]));
    assert.deepEqual(formError(err, new FormFields('')), { message: `Invalid test parameter: ${err.detail}`, lines: [] });
  });
});
