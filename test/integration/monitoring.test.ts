// lane: shared
/**
 * Monitoring (spec 3, 4.3): POST /pages/{id}/performance_monitor over HTTP with every error path, and the
 * scheduler driven by calling tick() with the clock moved (clock.advance): one monitored test per slot, across
 * two schedulers and a restart, none after disabling or deleting the page. Pages are seeded straight into the
 * store (test/helpers/seed.ts), as a completed test leaves them; no agent runs, so monitored tests stay queued.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { clock } from '../../src/core/clock.js';
import { failTest } from '../../src/core/tests/tests.js';
import { MonitorScheduler, RETRY_MS } from '../../src/scheduler/monitor.js';
import { openStore, type Store } from '../../src/store/db.js';
import { call, engines, errorOf, startServer, type Res, type TestServer } from '../helpers/server.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';
import { assertError, assertData } from '../helpers/assertions.js';
import { ALLOW_ALL } from '../helpers/run-spec.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UNKNOWN = 'AAAAAAAAAAAA';

const monitorBody = (frequency: unknown) => ({ data: { type: 'performance_monitor', attributes: { frequency } } });

for (const engine of engines()) {
  describe(engine, () => {
    let s: TestServer;
    let key: string;
    let accountId: string;
    const ownerEmail = `mon-${Date.now()}@example.test`;
    before(async () => {
      s = await startServer({ engine, agentSlots: 0 });
      // The app's own scheduler would tick on real time; these tests tick by hand.
      await s.app.monitor.stop();
      key = await s.account({ plan: 'pro', email: ownerEmail });
      accountId = await accountIdOf(s.app.store, key);
    });
    after(async () => {
      clock.reset();
      await s?.close();
    });
    afterEach(() => clock.reset());

    const setFrequency = (pageId: string, frequency: unknown, k = key) => call(s, 'POST', `/pages/${pageId}/performance_monitor`, { key: k, body: monitorBody(frequency) });
    const pageRow = (id: string) => s.app.store.db.selectFrom('pages').selectAll().where('id', '=', id).executeTakeFirst();
    const monitoredTests = (url: string) =>
      s.app.store.db.selectFrom('tests').selectAll().where('url', '=', url).where('source', '=', 'monitored').orderBy('created').execute();
    const scheduler = (store: Store = s.app.store) => new MonitorScheduler({ store, targetPolicy: ALLOW_ALL, plans: s.config.plans });
    /** Monitored tests stay queued without an agent; clear them so the concurrency limit never interferes. */
    const clearQueue = async () => {
      const left = await s.app.store.db.selectFrom('tests').select('id').where('state', 'in', ['queued', 'started']).execute();
      for (const t of left) await failTest(s.app.store, t.id, null, 'cleared by the test suite');
    };
    beforeEach(clearQueue);

    describe('POST /pages/{id}/performance_monitor', () => {
      test('sets each frequency and answers the updated page; no and none disable', async () => {
        const { pageId } = await seedPage(s.app.store, accountId);
        for (const f of ['hourly', 'daily', 'weekly', 'monthly']) {
          const data = assertData(await setFrequency(pageId, f));
          assert.equal(data.type, 'page');
          assert.equal(data.id, pageId);
          assert.equal(data.attributes.monitored, f);
          assert.equal(data.links.performance_monitor, `${s.api}/pages/${pageId}/performance_monitor`);
        }
        assert.equal(assertData(await setFrequency(pageId, 'none')).attributes.monitored, 'no');
        assert.equal(assertData(await setFrequency(pageId, 'Daily')).attributes.monitored, 'daily', 'case does not matter');
        assert.equal(assertData(await setFrequency(pageId, 'no')).attributes.monitored, 'no');
        assert.equal(assertData(await call(s, 'GET', `/pages/${pageId}`, { key })).attributes.monitored, 'no');
        assert.equal((await pageRow(pageId))?.monitor_next_run, null);
      });

      test('enabling schedules the first run one interval ahead; re-posting keeps the schedule', async () => {
        const { pageId } = await seedPage(s.app.store, accountId);
        const before = clock.now();
        assertData(await setFrequency(pageId, 'daily'));
        const first = (await pageRow(pageId))!.monitor_next_run!;
        assert.ok(first >= before + DAY && first <= clock.now() + DAY, `next run ${first - before} ms ahead`);
        clock.advance(HOUR);
        assertData(await setFrequency(pageId, 'daily'));
        assert.equal((await pageRow(pageId))!.monitor_next_run, first);
        assertData(await setFrequency(pageId, 'hourly'));
        const hourly = (await pageRow(pageId))!.monitor_next_run!;
        assert.ok(hourly < first && hourly > clock.now(), 'a faster frequency brings the next run forward');
      });

      test('a missing or invalid frequency or body is 400 E4001', async () => {
        const { pageId } = await seedPage(s.app.store, accountId);
        for (const f of [undefined, '', 'yearly', 1, null, ['daily']]) assertError(await setFrequency(pageId, f), 400, 'E4001');
        for (const body of [{}, { data: 'daily' }, { data: { type: 'tag', attributes: { frequency: 'daily' } } }, { data: { type: 'performance_monitor' } }]) {
          assertError(await call(s, 'POST', `/pages/${pageId}/performance_monitor`, { key, body }), 400, 'E4001');
        }
        assert.equal((await pageRow(pageId))?.monitored, 'no');
      });

      test('an unknown or foreign page is 404 E40402; a wrong Content-Type is 415 E41500', async () => {
        assertError(await setFrequency(UNKNOWN, 'daily'), 404, 'E40402');
        const other = await s.account({ plan: 'pro' });
        const theirs = await seedPage(s.app.store, await accountIdOf(s.app.store, other));
        assertError(await setFrequency(theirs.pageId, 'daily'), 404, 'E40402');
        const { pageId } = await seedPage(s.app.store, accountId);
        for (const contentType of [null, 'application/json']) {
          assertError(await call(s, 'POST', `/pages/${pageId}/performance_monitor`, { key, body: monitorBody('daily'), contentType }), 415, 'E41500');
        }
      });

      test('a basic plan gets no hourly and one slot: 403 E40303; changing its monitored page is allowed', async () => {
        const basic = await s.account({ plan: 'basic' });
        const basicId = await accountIdOf(s.app.store, basic);
        const [a, b] = [await seedPage(s.app.store, basicId), await seedPage(s.app.store, basicId)];
        assertError(await setFrequency(a.pageId, 'hourly', basic), 403, 'E40303');
        assert.equal(assertData(await setFrequency(a.pageId, 'daily', basic)).attributes.monitored, 'daily');
        assertError(await setFrequency(b.pageId, 'weekly', basic), 403, 'E40303');
        assert.equal((await pageRow(b.pageId))?.monitored, 'no');
        assert.equal(assertData(await setFrequency(a.pageId, 'monthly', basic)).attributes.monitored, 'monthly', 'same page, same slot');
        assertData(await setFrequency(a.pageId, 'no', basic));
        assert.equal(assertData(await setFrequency(b.pageId, 'weekly', basic)).attributes.monitored, 'weekly', 'the slot is free again');
      });

      test('a page whose location is no longer offered cannot be monitored: 403 E40303', async () => {
        const { pageId } = await seedPage(s.app.store, accountId, { location: '999' });
        assertError(await setFrequency(pageId, 'daily'), 403, 'E40303');
        assert.equal(assertData(await setFrequency(pageId, 'no')).attributes.monitored, 'no', 'disabling is always allowed');
      });

      test('a Viewer cannot change monitoring: 403 E40301', async () => {
        const viewer = await s.account({ plan: 'pro', role: 'viewer', teamOf: ownerEmail });
        const { pageId } = await seedPage(s.app.store, accountId);
        assertError(await setFrequency(pageId, 'daily', viewer), 403, 'E40301');
        assertError(await setFrequency(pageId, 'no', viewer), 403, 'E40301');
        assert.equal((await pageRow(pageId))?.monitored, 'no');
      });
    });

    describe('the scheduler', () => {
      // Each test counts its own slots: pages monitored by earlier tests are switched off first.
      beforeEach(async () => {
        await s.app.store.db.updateTable('pages').set({ monitored: 'no', monitor_next_run: null, monitor_anchor: null }).execute();
      });

      test('a due hourly page gets exactly one monitored test per slot, with its stored options, charged', async () => {
        const seeded = await seedPage(s.app.store, accountId, { retention: 6 });
        assertData(await setFrequency(seeded.pageId, 'hourly'));
        const sched = scheduler();
        assert.equal((await sched.tick()).queued, 0, 'not due before the first hour');
        const creditsBefore = assertData(await call(s, 'GET', '/status', { key })).attributes.api_credits;
        clock.advance(HOUR);
        assert.equal((await sched.tick()).queued, 1);
        assert.equal((await sched.tick()).queued, 0, 'the same slot never runs twice');
        const tests = await monitoredTests(seeded.options.url);
        assert.equal(tests.length, 1);
        assert.deepEqual(JSON.parse(tests[0].options), seeded.options);
        assert.equal(tests[0].page_id, seeded.pageId);
        assert.equal(tests[0].credits_tenths, 14, 'lighthouse 1 + 6-month retention 0.4');
        const creditsAfter = assertData(await call(s, 'GET', '/status', { key })).attributes.api_credits;
        assert.equal(Math.round((creditsBefore - creditsAfter) * 10), 14, 'charged like an API test');
        const test = assertData(await call(s, 'GET', `/tests/${tests[0].id}`, { key }));
        assert.equal(test.attributes.source, 'monitored');
        clock.advance(HOUR);
        assert.equal((await sched.tick()).queued, 1);
        assert.equal((await monitoredTests(seeded.options.url)).length, 2);
      });

      test('monitoring repeats the page\'s runs, charged ×runs; an account since moved to a smaller plan gets its plan\'s most', async () => {
        const seeded = await seedPage(s.app.store, accountId, { runs: 5 });
        assertData(await setFrequency(seeded.pageId, 'hourly'));
        const sched = scheduler();
        clock.advance(HOUR);
        assert.equal((await sched.tick()).queued, 1);
        const [pro] = await monitoredTests(seeded.options.url);
        assert.equal(JSON.parse(pro!.options).runs, 5);
        assert.equal(pro!.credits_tenths, 50, 'lighthouse 1 × 5 runs');
        // A page made while the account was pro (runs 5), monitored now that it is basic (max_runs 3).
        const basic = await s.account({ plan: 'basic' });
        const basicPage = await seedPage(s.app.store, await accountIdOf(s.app.store, basic), { runs: 5 });
        assertData(await setFrequency(basicPage.pageId, 'daily', basic));
        clock.advance(DAY);
        await sched.tick();
        const [capped] = await monitoredTests(basicPage.options.url);
        assert.equal(JSON.parse(capped!.options).runs, 3);
        assert.equal(capped!.credits_tenths, 30);
      });

      test('two schedulers ticking together run each slot once', async () => {
        const seeded = await seedPage(s.app.store, accountId);
        assertData(await setFrequency(seeded.pageId, 'hourly'));
        // PostgreSQL: a second connection pool, as a second process would have. SQLite: one writer per file, so
        // the second scheduler shares the store; its ticks still interleave with the first at every await.
        const second = engine === 'postgres' ? await openStore({ databaseUrl: s.config.databaseUrl, dataDir: s.config.dataDir }) : s.app.store;
        try {
          const [a, b] = [scheduler(), scheduler(second)];
          let contested = 0;
          for (let slot = 1; slot <= 5; slot++) {
            clock.advance(HOUR);
            const [ra, rb] = await Promise.all([a.tick(), b.tick(), a.tick()]);
            assert.equal(ra.queued + rb.queued, 1, `slot ${slot}: ${JSON.stringify([ra, rb])}`);
            contested += ra.lost + rb.lost;
            assert.equal((await monitoredTests(seeded.options.url)).length, slot);
            await clearQueue();
          }
          assert.ok(contested > 0, 'both schedulers saw a slot due and one lost the claim');
        } finally {
          if (second !== s.app.store) await second.close();
        }
      });

      test('after a restart, slots missed while down run once, then the grid continues', async () => {
        const seeded = await seedPage(s.app.store, accountId);
        assertData(await setFrequency(seeded.pageId, 'hourly'));
        const anchor = (await pageRow(seeded.pageId))!.monitor_anchor!;
        clock.advance(HOUR);
        assert.equal((await scheduler().tick()).queued, 1);
        // "Down" for five hours; then a new process opens the store and starts its scheduler.
        clock.advance(5 * HOUR + 60_000);
        const restarted = await openStore({ databaseUrl: s.config.databaseUrl, dataDir: s.config.dataDir });
        try {
          const again = scheduler(restarted);
          assert.equal((await again.tick()).queued, 1, 'five missed slots: one run');
          assert.equal((await again.tick()).queued, 0);
          assert.equal((await monitoredTests(seeded.options.url)).length, 2);
          const next = (await pageRow(seeded.pageId))!.monitor_next_run!;
          assert.equal(next, anchor + 7 * HOUR, 'the next slot is on the grid, after now');
        } finally {
          await restarted.close();
        }
      });

      test('disabling monitoring stops it', async () => {
        const seeded = await seedPage(s.app.store, accountId);
        assertData(await setFrequency(seeded.pageId, 'hourly'));
        assertData(await setFrequency(seeded.pageId, 'no'));
        clock.advance(3 * HOUR);
        await scheduler().tick();
        assert.equal((await monitoredTests(seeded.options.url)).length, 0);
      });

      test('deleting the page stops it (DELETE /pages and the last report deleted)', async () => {
        const a = await seedPage(s.app.store, accountId);
        const b = await seedPage(s.app.store, accountId);
        assertData(await setFrequency(a.pageId, 'hourly'));
        assertData(await setFrequency(b.pageId, 'hourly'));
        assertData(await call(s, 'DELETE', `/pages/${a.pageId}`, { key }));
        assertData(await call(s, 'DELETE', `/reports/${b.reportId}`, { key }));
        assert.equal(await pageRow(b.pageId), undefined, 'a page without reports is gone');
        clock.advance(2 * HOUR);
        await scheduler().tick();
        assert.equal((await monitoredTests(a.options.url)).length, 0);
        assert.equal((await monitoredTests(b.options.url)).length, 0);
      });

      test('with credits short the slot is skipped and the reason kept; the next slot runs', async () => {
        const poor = await s.account({ plan: 'pro', credits: 0 });
        const poorId = await accountIdOf(s.app.store, poor);
        const seeded = await seedPage(s.app.store, poorId);
        assertData(await setFrequency(seeded.pageId, 'hourly', poor));
        // No daily refill during this test.
        await s.app.store.db.updateTable('accounts').set({ credits_refilled_at: clock.now() + 10 * DAY }).where('id', '=', poorId).execute();
        clock.advance(HOUR);
        const r = await scheduler().tick();
        assert.equal(r.skipped, 1);
        const row = (await pageRow(seeded.pageId))!;
        assert.match(row.monitor_skip_reason ?? '', /credits/);
        assert.ok(row.monitor_skipped_at !== null && row.monitor_next_run! > clock.now());
        assert.equal((await monitoredTests(seeded.options.url)).length, 0);
        await s.app.store.db.updateTable('accounts').set({ credits_tenths: 50 }).where('id', '=', poorId).execute();
        clock.advance(HOUR);
        assert.equal((await scheduler().tick()).queued, 1);
      });

      test('with all test slots busy the slot is retried shortly, not lost', async () => {
        const busy = await s.account({ plan: 'basic' });
        const busyId = await accountIdOf(s.app.store, busy);
        const seeded = await seedPage(s.app.store, busyId);
        assertData(await setFrequency(seeded.pageId, 'daily', busy));
        for (let i = 0; i < 2; i++) {
          const res = await call(s, 'POST', '/tests', { key: busy, body: { data: { type: 'test', attributes: { url: `http://127.0.0.1:9/busy${i}` } } } });
          assert.equal(res.status, 202, res.text);
        }
        clock.advance(DAY);
        const ticked = clock.now();
        assert.equal((await scheduler().tick()).retried, 1);
        const retryAt = (await pageRow(seeded.pageId))!.monitor_next_run!;
        assert.ok(retryAt >= ticked + RETRY_MS && retryAt <= clock.now() + RETRY_MS, 'retried a minute later');
        await clearQueue();
        clock.advance(RETRY_MS);
        assert.equal((await scheduler().tick()).queued, 1);
        assert.equal((await monitoredTests(seeded.options.url)).length, 1);
      });
    });
  });
}
