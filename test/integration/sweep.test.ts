// lane: shared
/**
 * The expiry sweep (spec 8 retention) on both engines: expired reports leave the store with their artifact
 * folders, their pages are refreshed or deleted with their tag links, tests older than 24 h go, in bounded
 * batches; a site scan lasts as long as its pages' reports (the `retention` it was started with). Pages and reports are seeded straight into the store (test/helpers/seed.ts); time moves by clock.advance.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { FileArtifactStore } from '../../src/artifacts/store.js';
import { DAY_MS } from '../../src/core/accounts/accounts.js';
import { clock } from '../../src/core/clock.js';
import { failTest } from '../../src/core/tests/tests.js';
import { ExpirySweeper } from '../../src/scheduler/sweep.js';
import { call, engines, startServer, type TestServer } from '../helpers/server.js';
import { accountIdOf, addReport, seedPage, seedScan } from '../helpers/seed.js';
import { reportExpiry } from '../../src/core/reports/reports.js';

const HOUR = 3_600_000;

for (const engine of engines()) {
  describe(engine, () => {
    let s: TestServer;
    let key: string;
    let accountId: string;
    let artifacts: FileArtifactStore;
    before(async () => {
      s = await startServer({ engine, agentSlots: 0 });
      // These tests sweep by hand; the app's own sweeper would run on real time.
      await s.app.sweeper.stop();
      key = await s.account({ plan: 'pro' });
      accountId = await accountIdOf(s.app.store, key);
      artifacts = new FileArtifactStore(join(s.config.dataDir, 'artifacts'));
    });
    after(async () => {
      clock.reset();
      await s?.close();
    });
    afterEach(() => clock.reset());

    const sweeper = (o: { batchSize?: number; maxBatches?: number; intervalMs?: number } = {}) => new ExpirySweeper({ store: s.app.store, artifacts, ...o });
    const db = () => s.app.store.db;
    const reportExists = async (id: string) => (await db().selectFrom('reports').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
    const folder = (id: string) => join(s.config.dataDir, 'artifacts', id);

    test('an expired report goes with its files; its page is refreshed, or deleted with its tag links when empty', async () => {
      const now = clock.now();
      const lone = await seedPage(s.app.store, accountId, { expires: now + HOUR });
      const shared = await seedPage(s.app.store, accountId, { created: now - 1000, expires: now + HOUR });
      const newer = await addReport(s.app.store, accountId, shared.pageId, shared.options, { created: now, expires: now + 10 * DAY_MS });
      await db().updateTable('pages').set({ report_count: 2, latest_report_id: newer }).where('id', '=', shared.pageId).execute();
      for (const id of [lone.reportId, shared.reportId, newer]) await artifacts.put(`${id}/screenshot.jpg`, 'jpeg');
      const tag = (await call(s, 'POST', '/page_tags', { key, body: { data: { type: 'tag', attributes: { name: 'swept' } } } })).body.data;
      await call(s, 'POST', `/page_tags/${tag.id}/attach`, { key, body: { page_ids: [lone.pageId, shared.pageId] } });

      assert.equal((await sweeper().sweep()).reports, 0, 'nothing has expired yet');
      clock.advance(2 * HOUR);
      const r = await sweeper().sweep();
      assert.equal(r.reports, 2);
      assert.equal(r.pages, 1);
      assert.equal(await reportExists(lone.reportId), false);
      assert.equal(await reportExists(shared.reportId), false);
      assert.equal(await reportExists(newer), true);
      assert.equal(existsSync(folder(lone.reportId)), false, 'artifact folder removed');
      assert.equal(existsSync(folder(shared.reportId)), false);
      assert.equal(existsSync(folder(newer)), true, 'a valid report keeps its files');
      assert.equal(await db().selectFrom('pages').select('id').where('id', '=', lone.pageId).executeTakeFirst(), undefined);
      const page = await db().selectFrom('pages').selectAll().where('id', '=', shared.pageId).executeTakeFirstOrThrow();
      assert.equal(page.report_count, 1);
      assert.equal(page.latest_report_id, newer);
      const links = await db().selectFrom('page_tag_links').select('page_id').where('tag_id', '=', tag.id).execute();
      assert.deepEqual(links.map((l) => l.page_id), [shared.pageId]);
    });

    test('tests older than 24 hours are deleted; a test still queued then is failed and refunded first', async () => {
      // Above the allowance, so the daily refill leaves the balance alone and only charges and refunds move it.
      const other = await s.account({ plan: 'pro', credits: 200 });
      const start = async () => (await call(s, 'POST', '/tests', { key: other, body: { data: { type: 'test', attributes: { url: 'http://127.0.0.1:9/x' } } } })).body.data.id;
      const done = await start();
      await failTest(s.app.store, done, null, 'finished for the test');
      const waiting = await start();
      const credits = async () => (await call(s, 'GET', '/status', { key: other })).body.data.attributes.api_credits;
      const before = await credits();
      clock.advance(23 * HOUR);
      assert.equal((await sweeper().sweep()).tests, 0, 'younger than 24 h');
      clock.advance(2 * HOUR);
      const recent = await start();
      const r = await sweeper().sweep();
      assert.equal(r.expiredQueued, 1);
      assert.equal(r.tests, 2);
      const left = await db().selectFrom('tests').select('id').where('id', 'in', [done, waiting, recent]).execute();
      assert.deepEqual(left.map((t) => t.id), [recent]);
      assert.equal(await credits(), before, 'the waiting test was refunded, the recent one charged');
    });

    test('batches are bounded: maxBatches × batchSize reports per run, the rest on the next run', async () => {
      const seeded = [];
      for (let i = 0; i < 5; i++) seeded.push(await seedPage(s.app.store, accountId, { expires: clock.now() + 1000 }));
      clock.advance(2000);
      assert.equal((await sweeper({ batchSize: 2, maxBatches: 1 }).sweep()).reports, 2);
      assert.equal((await sweeper({ batchSize: 2, maxBatches: 10 }).sweep()).reports, 3);
      for (const x of seeded) assert.equal(await reportExists(x.reportId), false);
    });

    test('a scan is kept as long as its reports: its retention sets its expiry, an expired scan leaves the history at once and the store with the sweep', async () => {
      // POST /scans: the scan's expiry is its reports' (1 month by default, `retention` months when given). One page
      // each: max_pages' credits are reserved until discovery gives back what it did not use.
      const started: Record<string, number> = {};
      for (const retention of [undefined, 6]) {
        const res = await call(s, 'POST', '/scans', { key, body: { data: { type: 'scan', attributes: {
          url: 'http://127.0.0.1:9/', source: 'list', urls: ['/a'], max_pages: 1, ...(retention ? { retention } : {}) } } } });
        assert.equal(res.status, 202, res.text);
        const row = await db().selectFrom('scans').select(['created', 'expires']).where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
        assert.equal(row.expires, reportExpiry(row.created, retention ?? 1), `retention ${retention ?? 'default'}`);
        started[String(retention ?? 1)] = row.expires;
      }
      assert.ok(started['6']! > started['1']!);

      // Two completed scans of one site, a month and a day apart: the older one expires first.
      const page = (i: number) => ({ url: `https://kept.example/p/${i}`, template: '/p/:id', grade: 'B', performance_score: 80, largest_contentful_paint: 2000 + i });
      const older = await seedScan(s.app.store, accountId, { url: 'https://kept.example/', state: 'completed', pages: [page(1), page(2)], created: clock.now() - 2 * DAY_MS });
      const newer = await seedScan(s.app.store, accountId, { url: 'https://kept.example/', state: 'completed', pages: [page(1), page(2)] });
      assert.equal((await call(s, 'GET', `/scans/${newer.scanId}/compare/last`, { key })).status, 200, 'the older scan is the last one before');
      // 29 days on: the older scan's month is over (its reports' too), the newer one's is not.
      clock.advance(29 * DAY_MS);
      // Past its retention the older scan is gone for every reader before the sweep deletes it.
      assert.equal((await call(s, 'GET', `/scans/${older.scanId}`, { key })).status, 404);
      assert.equal((await call(s, 'GET', `/scans/${newer.scanId}/compare/last`, { key })).status, 404, 'no earlier scan kept');
      assert.equal((await call(s, 'GET', `/scans/${newer.scanId}`, { key })).status, 200);
      const r = await sweeper().sweep();
      assert.ok(r.reports >= 2, `its pages' reports went too (${r.reports})`);
      const left = await db().selectFrom('scans').select('id').where('id', 'in', [older.scanId, newer.scanId]).execute();
      assert.deepEqual(left.map((x) => x.id), [newer.scanId]);
      assert.equal((await db().selectFrom('scan_pages').select('id').where('scan_id', '=', older.scanId).execute()).length, 0, 'its pages with it');
      assert.equal((await db().selectFrom('scan_pages').select('id').where('scan_id', '=', newer.scanId).execute()).length, 2);
    });

    test('start() sweeps at once and then periodically; stop() ends it', async () => {
      const gone = async (id: string) => {
        for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
          if (!(await reportExists(id))) return true;
        }
        return false;
      };
      const a = await seedPage(s.app.store, accountId, { expires: clock.now() + 1000 });
      clock.advance(2000);
      const sw = sweeper({ intervalMs: 100 });
      sw.start();
      assert.ok(await gone(a.reportId), 'swept at start');
      const b = await seedPage(s.app.store, accountId, { expires: clock.now() + 1000 });
      clock.advance(2000);
      assert.ok(await gone(b.reportId), 'swept again on the interval');
      await sw.stop();
    });
  });
}
