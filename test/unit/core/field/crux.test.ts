/**
 * Google's CrUX answers read as documented (core/field/crux.ts), the form factor of a device, what may be asked, the
 * quota's queue on a fake clock, and the settings.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  askableOrigin, CRUX_HISTORY_PERIODS, CruxQuota, cruxFormFactorOf, parseCruxHistory, parseCruxRecord,
} from '../../../../src/core/field/crux.js';
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

  test('a history as CrUX sends it (histogramTimeseries with "NaN" densities, string p75s for CLS): the newest 40 weeks at most', () => {
    const weeks = 45;
    const periods = Array.from({ length: weeks }, (_, i) => {
      const last = new Date(Date.UTC(2026, 10, 28) - (weeks - 1 - i) * 7 * 86_400_000);
      const first = new Date(last.getTime() - 27 * 86_400_000);
      const d = (t: Date) => date(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate());
      return { firstDate: d(first), lastDate: d(last) };
    });
    const lcp = periods.map((_, i) => (i === 44 ? null : 2000 + i));
    const h = parseCruxHistory({ record: {
      key: { formFactor: 'PHONE', url: 'https://shop.example/p' },
      metrics: {
        largest_contentful_paint: {
          histogramTimeseries: [{ start: 0, end: 2500, densities: lcp.map((v) => (v === null ? 'NaN' : 0.8)) },
            { start: 2500, end: 4000, densities: lcp.map((v) => (v === null ? 'NaN' : 0.15)) }, { start: 4000, densities: lcp.map((v) => (v === null ? 'NaN' : 0.05)) }],
          percentilesTimeseries: { p75s: lcp },
        },
        cumulative_layout_shift: { percentilesTimeseries: { p75s: lcp.map((v) => (v === null ? null : '0.07')) } },
      },
      collectionPeriods: periods,
    } }, 'url', 'PHONE');
    assert.equal(h?.key, 'https://shop.example/p');
    assert.equal(h?.points.length, CRUX_HISTORY_PERIODS);
    assert.deepEqual(h?.points.at(-1), { last: '2026-11-21', p75: { lcp: 2043, cls: 0.07 } }, 'the newest week with data last; the week without left out');
    assert.equal(h?.points[0]?.p75.lcp, 2004, 'oldest first');
    assert.ok(h!.points.every((p, i) => i === 0 || p.last > h!.points[i - 1]!.last));
    assert.equal(parseCruxHistory({ record: { metrics: {} } }, 'url', 'PHONE'), undefined, 'no collectionPeriods: not of the documented shape');
  });

  test('the quota: 150 places a minute, first come first served, a place more than 2 s away refused at once (fake clock)', async () => {
    let now = 1_000_000;
    const slept: number[] = [];
    const quota = new CruxQuota(150, 2_000, () => now, async (ms) => { slept.push(ms); });
    const first = await Promise.all(Array.from({ length: 150 }, () => quota.take()));
    assert.ok(first.every(Boolean));
    assert.deepEqual(slept, [], 'the first 150 of a minute wait for nothing');
    assert.equal(await quota.take(), false, 'the 151st in the same minute: its place is a minute away, refused');
    now += 30_000;
    assert.equal(await quota.take(), false, 'still 30 s away');
    now += 28_500;
    // 1.5 s before the minute is over: places free at +60 s are worth waiting for, in order.
    assert.equal(await quota.take(), true);
    assert.deepEqual(slept, [1_500]);
    now += 1_000;
    assert.equal(await quota.take(), true);
    assert.deepEqual(slept, [1_500, 500]);
    now += 500; // the minute is over: the first 150 places are free again, minus the two promised
    const next = await Promise.all(Array.from({ length: 149 }, () => quota.take()));
    assert.equal(next.filter(Boolean).length, 148, '148 places left in the new minute, the 149th is a minute away');
    assert.equal(slept.length, 2, 'none of them waited');

    // A refused question takes no place.
    let t = 0;
    const small = new CruxQuota(2, 2_000, () => t, async () => undefined);
    assert.deepEqual([await small.take(), await small.take(), await small.take(), await small.take()], [true, true, false, false]);
    t = 58_001;
    assert.deepEqual([await small.take(), await small.take(), await small.take()], [true, true, false], 'two places at 60 s, not four');
  });

  test('a phone test reads CrUX\'s phones, a desktop test its desktops', () => {
    assert.equal(cruxFormFactorOf('desktop'), 'DESKTOP');
    assert.equal(cruxFormFactorOf('phone-mid'), 'PHONE');
    assert.equal(cruxFormFactorOf('phone-low'), 'PHONE');
  });

  test('only URLs on public host names may go to Google', () => {
    assert.equal(askableOrigin('https://shop.example/p?q=1#top'), 'https://shop.example');
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
