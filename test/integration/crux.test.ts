// lane: shared
/**
 * Google's CrUX beside the lab (issue 51, point 4), on both engines, against a local server that answers in CrUX's
 * documented format (test/fixtures/crux-server.ts): a report, a page and a scan show CrUX's p75s labelled as Google's;
 * a URL without a record shows its origin's, said (the origin asked once for all its URLs); asked at most once a day
 * per URL and form factor, across a restart (the answer kept in the store) and for callers asking at once; a failure
 * (429, 5xx, a wrong key, no answer in time) gives null, is logged without the key, held a minute and asked again
 * after; the quota of 150 a minute holds; the history's weeks come oldest first, 40 at most; without a key nothing is
 * asked and the screens say how to add one; an internal address is never sent to Google.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CruxClient, CruxQuota, CRUX_QUERIES_PER_MINUTE } from '../../src/core/field/crux.js';
import { startCruxFixture, type CruxFixture } from '../fixtures/crux-server.js';
import { accountIdOf, addReport, seedPage, seedScan } from '../helpers/seed.js';
import { engines, startServer, type TestServer } from '../helpers/server.js';
import { webSession } from '../helpers/web-session.js';
import { clock } from '../../src/core/clock.js';

const ORIGIN = 'https://shop.example';
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ');
const quiet = { warn: () => undefined };
/** A client's log, kept to read. */
const kept = () => {
  const lines: string[] = [];
  return { lines, warn: (obj: object, msg: string) => { lines.push(`${msg} ${JSON.stringify(obj)}`); } };
};
/** Runs `fn` with the clock moved on by ms, then moves it back. */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  clock.advance(ms);
  try {
    return await fn();
  } finally {
    clock.advance(-ms);
  }
}

for (const engine of engines()) {
  describe(`Google's CrUX on ${engine}`, () => {
    let crux: CruxFixture;
    let server: TestServer;
    let plain: TestServer;
    const serverLog: string[] = [];
    before(async () => {
      crux = await startCruxFixture();
      crux.records.set(`${ORIGIN}/p/1 DESKTOP`, { p75: { lcp: 2100, inp: 180, cls: 0.08, fcp: 1200, ttfb: 600 },
        weeks: { lcp: [2600, null, 2400, 2300, 2100], cls: [0.12, null, 0.1, 0.09, 0.08] } });
      crux.records.set(`${ORIGIN}/p/2 DESKTOP`, { p75: { lcp: 2100 }, weeks: { lcp: [2600, null, 2400, 2300, 2100], cls: [0.12, null, 0.1, 0.09, 0.08] } });
      crux.records.set(`${ORIGIN} DESKTOP`, { p75: { lcp: 3300, inp: 250, cls: 0.2, fcp: 2000, ttfb: 900 } });
      [server, plain] = await Promise.all([
        startServer({ engine, env: { WEBGAUGE_CRUX_API_KEY: crux.apiKey, WEBGAUGE_CRUX_BASE_URL: crux.base },
          overrides: { logStream: { write: (line) => { serverLog.push(line); } } } }),
        startServer({ engine }),
      ]);
    });
    after(async () => {
      await Promise.all([server?.close(), plain?.close()]);
      await crux?.close();
    });

    test('a report shows CrUX\'s p75s of its URL as Google\'s; asked once a day per URL and form factor, across a restart', async () => {
      const accountId = await accountIdOf(server.app.store, server.key);
      const seeded = await seedPage(server.app.store, accountId, { url: `${ORIGIN}/p/1` });
      const web = webSession(server);
      const cookie = await web.signIn(server.key);
      const before = crux.questions.length;
      const first = await web.get(cookie, `/reports/${seeded.reportId}`);
      assert.equal(first.status, 200);
      const card = text(first.html.slice(first.html.indexOf('id="lab-field"')));
      assert.match(card, /Google's CrUX \(p75\)/);
      assert.match(card, /LCP [^A-Z]*2\.10 s/, 'CrUX\'s LCP p75 beside the lab\'s');
      assert.match(card, /Google's CrUX: Chrome users on desktops over 2026-11-04 to 2026-12-01, this URL's record\. Google's figures, not this site's own\./);
      const asked = crux.questions.slice(before);
      assert.equal(asked.length, 1);
      assert.deepEqual({ ...asked[0]!.body, metrics: undefined }, { url: `${ORIGIN}/p/1`, formFactor: 'DESKTOP', metrics: undefined });
      assert.equal(asked[0]!.endpoint, 'queryRecord');
      assert.equal(asked[0]!.key, crux.apiKey);

      // Again, and from a new client on the same store (a restarted service): kept for the day, not asked.
      await web.get(cookie, `/reports/${seeded.reportId}`);
      const restarted = new CruxClient({ apiKey: crux.apiKey, baseUrl: crux.base }, server.app.store.db, quiet);
      const kept = await restarted.record(`${ORIGIN}/p/1`, 'DESKTOP');
      assert.equal(kept?.metrics.lcp?.p75, 2100);
      assert.equal(kept?.metrics.cls?.p75, 0.08, 'CLS\'s p75 came as a string');
      assert.ok(Math.abs(kept!.metrics.lcp!.good - 0.8) < 1e-9);
      assert.equal(crux.questions.length, before + 1, 'one question for three views and a restart');
      // The same URL with a fragment (which no server sees) is the same question.
      await restarted.record(`${ORIGIN}/p/1#reviews`, 'DESKTOP');
      assert.equal(crux.questions.length, before + 1);
      // The other form factor is another question.
      assert.equal(await restarted.record(`${ORIGIN}/p/1`, 'PHONE'), null, 'no phone record of the URL nor of its origin');
      assert.equal(crux.asked(`${ORIGIN}/p/1`, 'PHONE'), 1);
      // The next day: asked again.
      await later(86_400_000, () => restarted.record(`${ORIGIN}/p/1`, 'DESKTOP'));
      assert.equal(crux.asked(`${ORIGIN}/p/1`, 'DESKTOP', 'queryRecord'), 2);
    });

    test('a URL without a record shows its origin\'s, said, the origin asked once for all its URLs; an internal address is never asked', async () => {
      const client = new CruxClient({ apiKey: crux.apiKey, baseUrl: crux.base }, server.app.store.db, quiet);
      const before = crux.questions.length;
      const r = await client.record(`${ORIGIN}/unknown`, 'DESKTOP');
      assert.equal(r?.scope, 'origin');
      assert.equal(r?.key, ORIGIN);
      assert.equal(r?.metrics.lcp?.p75, 3300);
      assert.deepEqual(crux.questions.slice(before).map((q) => q.body.url ?? q.body.origin), [`${ORIGIN}/unknown`, ORIGIN]);
      const other = await client.record(`${ORIGIN}/unknown-too`, 'DESKTOP');
      assert.equal(other?.scope, 'origin');
      assert.deepEqual(crux.questions.slice(before).map((q) => q.body.url ?? q.body.origin), [`${ORIGIN}/unknown`, ORIGIN, `${ORIGIN}/unknown-too`],
        'the origin\'s record kept for the day serves its other URLs');
      assert.equal((await client.originRecord(ORIGIN, 'DESKTOP'))?.metrics.lcp?.p75, 3300, 'a scan\'s origin: kept too');
      assert.equal(crux.asked(ORIGIN, 'DESKTOP'), 1);

      assert.equal(await client.record('https://nowhere.example/x', 'PHONE'), null, 'no record of the URL nor its origin');
      const nothing = crux.questions.length;
      assert.equal(await client.record('https://nowhere.example/x', 'PHONE'), null);
      assert.equal(crux.questions.length, nothing, '"no record" is kept for the day too');

      const count = crux.questions.length;
      for (const url of ['http://127.0.0.1:8080/', 'http://intranet/p', 'http://localhost/', 'http://[::1]/', 'http://app.localhost/', 'ftp://x.example/']) {
        assert.equal(await client.record(url, 'DESKTOP'), null, url);
      }
      assert.equal(crux.questions.length, count, 'no internal address went to Google');
    });

    test('callers asking the same at once share one question', async () => {
      crux.records.set(`${ORIGIN}/together PHONE`, { p75: { lcp: 1900 } });
      const client = new CruxClient({ apiKey: crux.apiKey, baseUrl: crux.base }, server.app.store.db, quiet);
      const again = new CruxClient({ apiKey: crux.apiKey, baseUrl: crux.base }, server.app.store.db, quiet);
      const answers = await Promise.all(Array.from({ length: 8 }, () => client.record(`${ORIGIN}/together`, 'PHONE')));
      assert.ok(answers.every((a) => a?.metrics.lcp?.p75 === 1900 && a.scope === 'url'));
      assert.equal(crux.asked(`${ORIGIN}/together`), 1);
      assert.equal((await again.record(`${ORIGIN}/together`, 'PHONE'))?.metrics.lcp?.p75, 1900, 'a new client on the same store reads the kept answer');
      assert.equal(crux.asked(`${ORIGIN}/together`), 1);
    });

    test('a 429, a 5xx, a wrong key or no answer in time: null, logged without the key, held a minute, asked again after', async () => {
      crux.records.set(`${ORIGIN}/fails DESKTOP`, { p75: { lcp: 2222 } });
      const log = kept();
      // The quota on the wall clock: this test moves the service's clock a minute on and back, and a place taken in that
      // minute would otherwise stand a minute ahead of every later question.
      const client = new CruxClient({ apiKey: crux.apiKey, baseUrl: crux.base }, server.app.store.db, log,
        { answerTimeoutMs: 300, quota: new CruxQuota(CRUX_QUERIES_PER_MINUTE, 2_000, () => Date.now()) });
      crux.failNext = 1;
      crux.failStatus = 429;
      assert.equal(await client.record(`${ORIGIN}/fails`, 'DESKTOP'), null, 'a 429: nothing shown');
      assert.equal(crux.asked(`${ORIGIN}/fails`), 1);
      assert.equal(await client.record(`${ORIGIN}/fails`, 'DESKTOP'), null, 'held: not asked again at once');
      assert.equal(await client.record(`${ORIGIN}/other`, 'DESKTOP'), null, 'after a 429 no question is asked for a minute');
      assert.equal(crux.asked(`${ORIGIN}/fails`) + crux.asked(`${ORIGIN}/other`), 1);
      const again = await later(61_000, () => client.record(`${ORIGIN}/fails`, 'DESKTOP'));
      assert.equal(again?.metrics.lcp?.p75, 2222, 'asked again after the minute');
      assert.equal(crux.asked(`${ORIGIN}/fails`), 2);
      assert.equal((await client.record(`${ORIGIN}/fails`, 'DESKTOP'))?.metrics.lcp?.p75, 2222, 'then kept for the day');
      assert.equal(crux.asked(`${ORIGIN}/fails`), 2);

      crux.failNext = 1;
      crux.failStatus = 503;
      assert.equal(await client.history(`${ORIGIN}/fails`, 'DESKTOP'), null, 'a 503');
      assert.equal(crux.asked(`${ORIGIN}/fails`, 'DESKTOP', 'queryHistoryRecord'), 1);

      crux.delayMs = 600;
      const t0 = performance.now();
      assert.equal(await client.record(`${ORIGIN}/slow`, 'DESKTOP'), null, 'no answer in time');
      assert.ok(performance.now() - t0 < 550, 'the caller is not held past the timeout');
      crux.delayMs = 0;

      const wrong = new CruxClient({ apiKey: 'not-the-key-42', baseUrl: crux.base }, server.app.store.db, log);
      assert.equal(await wrong.record(`${ORIGIN}/p/9`, 'DESKTOP'), null, 'a wrong key');
      assert.equal(crux.questions.at(-1)?.status, 400);

      const lines = log.lines.join('\n');
      assert.match(lines, /"status":429/);
      assert.match(lines, /"status":503/);
      assert.match(lines, /CrUX could not be asked/);
      assert.match(lines, /"status":400/);
      assert.ok(!lines.includes(crux.apiKey) && !lines.includes('not-the-key-42'), 'no key in the log');
      const kept429 = await server.app.store.db.selectFrom('crux_cache').select('key').where('key', '=', `${ORIGIN}/slow`).execute();
      assert.deepEqual(kept429, [], 'a failure is not kept for the day');
    });

    test('the history: weeks oldest first, 40 at most, weeks without data left out; the origin\'s when the URL has none', async () => {
      const weeks = Array.from({ length: 45 }, (_, i) => (i % 10 === 3 ? null : 2000 + i));
      crux.records.set(`${ORIGIN}/long PHONE`, { p75: { lcp: 2044 }, weeks: { lcp: weeks, cls: weeks.map((v) => (v === null ? null : 0.05)) } });
      crux.records.set(`${ORIGIN} PHONE`, { p75: { lcp: 3000 }, weeks: { lcp: [3100, 3000] } });
      const client = new CruxClient({ apiKey: crux.apiKey, baseUrl: crux.base }, server.app.store.db, quiet);
      const h = await client.history(`${ORIGIN}/long`, 'PHONE');
      assert.equal(h?.scope, 'url');
      const sent = weeks.slice(-40).filter((v) => v !== null);
      assert.deepEqual(h?.points.map((p) => p.p75.lcp), sent, 'the newest 40 weeks asked for, oldest first, nulls dropped');
      assert.equal(h?.points.at(-1)?.last, '2026-11-28');
      assert.equal(h?.points[0]?.p75.cls, 0.05);
      assert.ok(h!.points.every((p, i) => i === 0 || p.last > h!.points[i - 1]!.last));
      await client.history(`${ORIGIN}/long`, 'PHONE');
      assert.equal(crux.asked(`${ORIGIN}/long`, 'PHONE', 'queryHistoryRecord'), 1, 'asked once a day');

      const o = await client.history(`${ORIGIN}/no-history`, 'PHONE');
      assert.equal(o?.scope, 'origin');
      assert.deepEqual(o?.points.map((p) => p.p75.lcp), [3100, 3000]);
    });

    test('at most 150 questions a minute: the rest are not asked (nothing shown) rather than held', async () => {
      const client = new CruxClient({ apiKey: crux.apiKey, baseUrl: crux.base }, server.app.store.db, quiet);
      const before = crux.questions.length;
      const t0 = performance.now();
      const answers = await Promise.all(Array.from({ length: CRUX_QUERIES_PER_MINUTE + 10 }, (_, i) => client.originRecord(`https://site${i}.example`, 'PHONE')));
      assert.equal(crux.questions.length - before, CRUX_QUERIES_PER_MINUTE);
      assert.ok(answers.every((a) => a === null));
      assert.ok(performance.now() - t0 < 10_000, 'no caller held a minute');
      assert.deepEqual(client.counts, { record: CRUX_QUERIES_PER_MINUTE, history: 0 });
    });

    test('a page charts CrUX\'s weekly p75 beside its reports; a scan shows its origin\'s', async () => {
      const accountId = await accountIdOf(server.app.store, server.key);
      const seeded = await seedPage(server.app.store, accountId, { url: `${ORIGIN}/p/2`, created: Date.UTC(2026, 10, 20) });
      await addReport(server.app.store, accountId, seeded.pageId, seeded.options, { created: clock.now() });
      await server.app.store.db.updateTable('reports').set({ largest_contentful_paint: 1500, cumulative_layout_shift: 0.02 }).where('page_id', '=', seeded.pageId).execute();
      const web = webSession(server);
      const cookie = await web.signIn(server.key);
      const page = await web.get(cookie, `/pages/${seeded.pageId}`);
      assert.equal(page.status, 200);
      const history = crux.questions.filter((q) => q.endpoint === 'queryHistoryRecord' && q.body.url === `${ORIGIN}/p/2`);
      assert.equal(history.length, 1);
      assert.equal(history[0]!.body.collectionPeriodCount, 40);
      // The weeks from the reports' span on (a week before the first), without the week CrUX had no data for.
      assert.match(page.html.replace(/&#39;/g, "'"), /Google's CrUX p75 per week \(this URL, desktops\): 3 points, latest 2\.10 s/);
      assert.match(page.html, /class="line-crux"/);

      const { scanId } = await seedScan(server.app.store, accountId, { url: `${ORIGIN}/`, state: 'completed',
        pages: [{ url: `${ORIGIN}/p/3`, template: '/p/:id', largest_contentful_paint: 1500, cumulative_layout_shift: 0.02, total_blocking_time: 10 }] });
      const scan = await web.get(cookie, `/scans/${scanId}`);
      assert.equal(scan.status, 200);
      const part = text(scan.html.slice(scan.html.indexOf('id="sr-field"')));
      assert.match(part, /Google's CrUX Chrome users of https:\/\/shop\.example on desktops, 2026-11-04 to 2026-12-01: Google's figures for the whole origin/);
      assert.match(part, /3\.30 s/);
    });

    test('without a key nothing is asked, and the screens say how to add one', async () => {
      const accountId = await accountIdOf(plain.app.store, plain.key);
      const seeded = await seedPage(plain.app.store, accountId, { url: `${ORIGIN}/p/1` });
      const web = webSession(plain);
      const cookie = await web.signIn(plain.key);
      const before = crux.questions.length;
      for (const path of [`/reports/${seeded.reportId}`, `/pages/${seeded.pageId}`]) {
        const res = await web.get(cookie, path);
        assert.equal(res.status, 200);
        assert.match(text(res.html), /Google's CrUX figures are not shown: the operator sets WEBGAUGE_CRUX_API_KEY/, path);
      }
      assert.equal(crux.questions.length, before);
      assert.equal(plain.config.crux, undefined);
      assert.ok(!serverLog.join('\n').includes(crux.apiKey), 'the keyed service never logged its key');
    });
  });
}
