/** Google's CrUX answers read as documented (core/field/crux.ts), the form factor of a device, and what may be asked. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { askableOrigin, cruxFormFactorOf, parseCruxHistory, parseCruxRecord } from '../../../../src/core/field/crux.js';
import { loadConfig } from '../../../../src/config.js';

const date = (y: number, m: number, d: number) => ({ year: y, month: m, day: d });

describe("Google's CrUX", () => {
  test('a record: p75s (CLS as a string), the three bins as shares, the period; metrics without a p75 left out', () => {
    const r = parseCruxRecord({ record: {
      key: { formFactor: 'PHONE', url: 'https://shop.example/' },
      metrics: {
        largest_contentful_paint: { histogram: [{ start: 0, end: 2500, density: 0.71 }, { start: 2500, end: 4000, density: 0.2 }, { start: 4000, density: 0.09 }], percentiles: { p75: 2612 } },
        cumulative_layout_shift: { histogram: [{ start: '0.00', end: '0.10', density: 0.9 }, { start: '0.10', end: '0.25', density: 0.06 }, { start: '0.25', density: 0.04 }], percentiles: { p75: '0.05' } },
        interaction_to_next_paint: { histogram: [] },
        round_trip_time: { percentiles: { p75: 150 } },
      },
      collectionPeriod: { firstDate: date(2026, 11, 4), lastDate: date(2026, 12, 1) },
    } }, 'url', 'PHONE');
    assert.deepEqual(r, {
      scope: 'url', key: 'https://shop.example/', formFactor: 'PHONE', collectionPeriod: { first: '2026-11-04', last: '2026-12-01' },
      metrics: { lcp: { p75: 2612, good: 0.71, needsImprovement: 0.2, poor: 0.09 }, cls: { p75: 0.05, good: 0.9, needsImprovement: 0.06, poor: 0.04 } },
    });
    assert.equal(parseCruxRecord({ error: { code: 404 } }, 'url', 'PHONE'), undefined);
    assert.equal(parseCruxRecord(null, 'url', 'PHONE'), undefined);
  });

  test('a history: weekly p75s oldest first, weeks without data (null, "NaN") left out', () => {
    const h = parseCruxHistory({ record: {
      key: { origin: 'https://shop.example' },
      metrics: {
        largest_contentful_paint: { percentilesTimeseries: { p75s: [2400, null, 2300] } },
        cumulative_layout_shift: { percentilesTimeseries: { p75s: ['0.12', 'NaN', null] } },
      },
      collectionPeriods: [
        { firstDate: date(2026, 10, 18), lastDate: date(2026, 11, 14) },
        { firstDate: date(2026, 10, 25), lastDate: date(2026, 11, 21) },
        { firstDate: date(2026, 11, 1), lastDate: date(2026, 11, 28) },
      ],
    } }, 'origin', 'DESKTOP');
    assert.deepEqual(h?.points, [{ last: '2026-11-14', p75: { lcp: 2400, cls: 0.12 } }, { last: '2026-11-28', p75: { lcp: 2300 } }]);
    assert.equal(h?.scope, 'origin');
  });

  test('a phone test reads CrUX\'s phones, a desktop test its desktops', () => {
    assert.equal(cruxFormFactorOf('desktop'), 'DESKTOP');
    assert.equal(cruxFormFactorOf('phone-mid'), 'PHONE');
    assert.equal(cruxFormFactorOf('phone-low'), 'PHONE');
  });

  test('only URLs on public host names may go to Google', () => {
    assert.equal(askableOrigin('https://shop.example/p?q=1'), 'https://shop.example');
    for (const url of ['http://127.0.0.1/', 'http://10.0.0.8:8080/', 'http://[::1]/', 'http://localhost/', 'http://app.localhost/', 'http://intranet/x', 'file:///etc/passwd', 'nope']) {
      assert.equal(askableOrigin(url), undefined, url);
    }
  });

  test('the settings: no key, nothing; a bad base URL or key is refused without echoing the key', () => {
    assert.equal(loadConfig({ WEBGAUGE_DATA_DIR: '/tmp/x' }).crux, undefined);
    assert.deepEqual(loadConfig({ WEBGAUGE_DATA_DIR: '/tmp/x', WEBGAUGE_CRUX_API_KEY: 'AIzaSyTest_key-1' }).crux,
      { apiKey: 'AIzaSyTest_key-1', baseUrl: 'https://chromeuxreport.googleapis.com/v1' });
    assert.throws(() => loadConfig({ WEBGAUGE_DATA_DIR: '/tmp/x', WEBGAUGE_CRUX_API_KEY: 'k', WEBGAUGE_CRUX_BASE_URL: 'ftp://x' }), /WEBGAUGE_CRUX_BASE_URL must be an http\(s\) URL/);
    assert.throws(() => loadConfig({ WEBGAUGE_DATA_DIR: '/tmp/x', WEBGAUGE_CRUX_API_KEY: 'secret key with spaces' }), (err: Error) =>
      /WEBGAUGE_CRUX_API_KEY must be/.test(err.message) && !err.message.includes('secret'));
  });
});
