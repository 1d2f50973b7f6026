// lane: shared
/**
 * Google's CrUX beside the lab (issue 51, point 4), on both engines, against a local server that answers in CrUX's
 * documented format (test/fixtures/crux-server.ts): a report, a page and a scan show CrUX's p75s labelled as Google's;
 * a URL without a record shows its origin's, said; asked at most once a day per URL and form factor, across a restart
 * (the answer kept in the store); a failure is not kept; the quota of 150 a minute holds; without a key nothing is
 * asked and the screens say how to add one; an internal address is never sent to Google.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CruxClient, CRUX_QUERIES_PER_MINUTE } from '../../src/core/field/crux.js';
import { startCruxFixture, type CruxFixture } from '../fixtures/crux-server.js';
import { accountIdOf, addReport, seedPage, seedScan } from '../helpers/seed.js';
import { engines, startServer, type TestServer } from '../helpers/server.js';
import { webSession } from '../helpers/web-session.js';
import { clock } from '../../src/core/clock.js';

const ORIGIN = 'https://shop.example';
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ');
const quiet = { warn: () => undefined };

for (const engine of engines()) {
  describe(`Google's CrUX on ${engine}`, () => {
    let crux: CruxFixture;
    let server: TestServer;
    let plain: TestServer;
    before(async () => {
      crux = await startCruxFixture();
      crux.records.set(`${ORIGIN}/p/1 DESKTOP`, { p75: { lcp: 2100, inp: 180, cls: 0.08, fcp: 1200, ttfb: 600 },
        weeks: { lcp: [2600, null, 2400, 2300, 2100], cls: [0.12, null, 0.1, 0.09, 0.08] } });
      crux.records.set(`${ORIGIN}/p/2 DESKTOP`, { p75: { lcp: 2100 }, weeks: { lcp: [2600, null, 2400, 2300, 2100], cls: [0.12, null, 0.1, 0.09, 0.08] } });
      crux.records.set(`${ORIGIN} DESKTOP`, { p75: { lcp: 3300, inp: 250, cls: 0.2, fcp: 2000, ttfb: 900 } });
      [server, plain] = await Promise.all([
        startServer({ engine, env: { WEBGAUGE_CRUX_API_KEY: crux.apiKey, WEBGAUGE_CRUX_BASE_URL: crux.base } }),
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
      // The next day: asked again.
      const realNow = clock.now;
      clock.now = () => realNow() + 86_400_000;
      try {
        await restarted.record(`${ORIGIN}/p/1`, 'DESKTOP');
      } finally {
        clock.now = realNow;
      }
      assert.equal(crux.questions.length, before + 2);
    });

    test('a URL without a record shows its origin\'s, said; a failure is not kept; an internal address is never asked', async () => {
      const client = new CruxClient({ apiKey: crux.apiKey, baseUrl: crux.base }, server.app.store.db, quiet);
      const before = crux.questions.length;
      const r = await client.record(`${ORIGIN}/unknown`, 'DESKTOP');
      assert.equal(r?.scope, 'origin');
      assert.equal(r?.key, ORIGIN);
      assert.equal(r?.metrics.lcp?.p75, 3300);
      assert.deepEqual(crux.questions.slice(before).map((q) => q.body.url ?? q.body.origin), [`${ORIGIN}/unknown`, ORIGIN]);
      assert.equal(await client.record('https://nowhere.example/x', 'PHONE'), null, 'no record of the URL nor its origin');
      const nothing = crux.questions.length;
      assert.equal(await client.record('https://nowhere.example/x', 'PHONE'), null);
      assert.equal(crux.questions.length, nothing, '"no record" is kept for the day too');

      crux.failNext = 1;
      assert.equal(await client.record(`${ORIGIN}/fails`, 'DESKTOP'), null, 'a 429: nothing shown');
      const afterFailure = crux.questions.length;
      const again = await client.record(`${ORIGIN}/fails`, 'DESKTOP');
      assert.equal(again?.scope, 'origin', 'asked again after a failure');
      assert.ok(crux.questions.length > afterFailure);

      const count = crux.questions.length;
      for (const url of ['http://127.0.0.1:8080/', 'http://intranet/p', 'http://localhost/', 'http://[::1]/', 'http://app.localhost/', 'ftp://x.example/']) {
        assert.equal(await client.record(url, 'DESKTOP'), null, url);
      }
      assert.equal(crux.questions.length, count, 'no internal address went to Google');
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
    });
  });
}
