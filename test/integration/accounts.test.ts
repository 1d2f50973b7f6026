// lane: shared
/**
 * Account rules (spec 5, 8): the Viewer role reads but cannot start tests, delete, create PDFs or change tags
 * and monitoring (403 E40301, nothing changed or charged); credits refill daily up to the allowance, never above,
 * with time moved by clock.advance. Pages and reports are seeded straight into the store (test/helpers/seed.ts).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { DAY_MS, refilledCredits } from '../../src/core/accounts/accounts.js';
import { clock } from '../../src/core/clock.js';
import { PLANS } from '../../src/core/accounts/plans.js';
import { failTest } from '../../src/core/tests/tests.js';
import { call, engines, errorOf, startServer, type Res, type TestServer } from '../helpers/server.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';
import { scanRow } from '../helpers/scans.js';
import { accountUsage } from '../../src/core/accounts/usage.js';
import { newId } from '../../src/core/ids.js';
import { assertError, assertData } from '../helpers/assertions.js';

const PAGE = 'http://127.0.0.1:9/page.html';
const startBody = { data: { type: 'test', attributes: { url: PAGE } } };

for (const engine of engines()) {
  describe(engine, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer({ engine, agentSlots: 0 });
    });
    after(async () => {
      clock.reset();
      await s?.close();
    });
    afterEach(() => clock.reset());

    const credits = async (key: string) => assertData(await call(s, 'GET', '/status', { key })).attributes.api_credits as number;

    describe('the Viewer role', () => {
      let owner: string;
      let viewer: string;
      let seeded: Awaited<ReturnType<typeof seedPage>>;
      before(async () => {
        const email = `team-${Date.now()}@example.test`;
        owner = await s.account({ plan: 'pro', email });
        viewer = await s.account({ plan: 'pro', role: 'viewer', teamOf: email });
        seeded = await seedPage(s.app.store, await accountIdOf(s.app.store, owner));
      });

      test("reads the team owner's data", async () => {
        assert.equal(assertData(await call(s, 'GET', `/pages/${seeded.pageId}`, { key: viewer })).id, seeded.pageId);
        assert.equal(assertData(await call(s, 'GET', `/reports/${seeded.reportId}`, { key: viewer })).id, seeded.reportId);
        assert.equal(typeof (await credits(viewer)), 'number');
      });

      test('cannot start tests or retests: 403 E40301, nothing queued or charged', async () => {
        const before = await credits(owner);
        assertError(await call(s, 'POST', '/tests', { key: viewer, body: startBody }), 403, 'E40301');
        assertError(await call(s, 'POST', `/reports/${seeded.reportId}/retest`, { key: viewer }), 403, 'E40301');
        assertError(await call(s, 'POST', `/pages/${seeded.pageId}/retest`, { key: viewer }), 403, 'E40301');
        assert.equal(await credits(owner), before);
        const queued = await s.app.store.db.selectFrom('tests').select('id').where('url', '=', seeded.options.url).execute();
        assert.equal(queued.length, 0);
      });

      test('cannot delete reports or pages: 403 E40301, both still there', async () => {
        assertError(await call(s, 'DELETE', `/reports/${seeded.reportId}`, { key: viewer }), 403, 'E40301');
        assertError(await call(s, 'DELETE', `/pages/${seeded.pageId}`, { key: viewer }), 403, 'E40301');
        assertData(await call(s, 'GET', `/reports/${seeded.reportId}`, { key: owner }));
        assertData(await call(s, 'GET', `/pages/${seeded.pageId}`, { key: owner }));
      });

      test('cannot create PDF reports: 403 E40301', async () => {
        for (const name of ['report.pdf', 'report.pdf?full=1', 'report_pdf']) {
          assertError(await call(s, 'GET', `/reports/${seeded.reportId}/resources/${name}`, { key: viewer }), 403, 'E40301');
        }
      });

      test('cannot change tags or monitoring: 403 E40301', async () => {
        const tag = assertData(await call(s, 'POST', '/page_tags', { key: owner, body: { data: { type: 'tag', attributes: { name: 't' } } } }), 201);
        assertError(await call(s, 'POST', '/page_tags', { key: viewer, body: { data: { type: 'tag', attributes: { name: 'v' } } } }), 403, 'E40301');
        assertError(await call(s, 'POST', `/pages/${seeded.pageId}/attach_tags`, { key: viewer, body: { page_tags: [tag.id] } }), 403, 'E40301');
        const body = { data: { type: 'performance_monitor', attributes: { frequency: 'daily' } } };
        assertError(await call(s, 'POST', `/pages/${seeded.pageId}/performance_monitor`, { key: viewer, body }), 403, 'E40301');
      });

      test('the owner can do what the viewer cannot', async () => {
        assertData(await call(s, 'POST', `/pages/${seeded.pageId}/retest`, { key: owner }), 202);
        assertData(await call(s, 'DELETE', `/pages/${seeded.pageId}`, { key: owner }));
      });
    });

    describe('daily credit refill', () => {
      const clear = async () => {
        const left = await s.app.store.db.selectFrom('tests').select('id').where('state', 'in', ['queued', 'started']).execute();
        for (const t of left) await failTest(s.app.store, t.id, null, 'cleared by the test suite');
      };
      const spend = async (key: string, n: number) => {
        for (let i = 0; i < n; i++) {
          assertData(await call(s, 'POST', '/tests', { key, body: startBody }), 202);
          // Failed tests are refunded; mark them completed so the spending stays spent.
          await s.app.store.db.updateTable('tests').set({ state: 'completed' }).where('state', '=', 'queued').execute();
        }
      };

      test('a balance below the allowance refills to it once a day has passed, not before', async () => {
        await clear();
        const key = await s.account({ plan: 'basic' });
        await spend(key, 3);
        assert.equal(await credits(key), 2);
        clock.advance(DAY_MS - 60_000);
        assert.equal(await credits(key), 2, 'not yet a day');
        clock.advance(60_000);
        assert.equal(await credits(key), 5, 'back to the basic allowance of 5');
        const refill = assertData(await call(s, 'GET', '/status', { key })).attributes.api_refill;
        assert.ok(refill > clock.nowSeconds() && refill <= clock.nowSeconds() + 86_400, 'next refill within a day');
      });

      test('days without refill do not accumulate: after three days the balance is the allowance', async () => {
        await clear();
        const key = await s.account({ plan: 'basic', credits: 0 });
        clock.advance(3 * DAY_MS + 1000);
        assert.equal(await credits(key), 5);
        clock.advance(DAY_MS);
        assert.equal(await credits(key), 5, 'a full balance is not topped up beyond the allowance');
      });

      test('a balance above the allowance is left alone, never raised', async () => {
        await clear();
        const key = await s.account({ plan: 'basic', credits: 20 });
        await spend(key, 1);
        clock.advance(2 * DAY_MS);
        assert.equal(await credits(key), 19);
      });

      test('a test refused for credits (402 E40201) starts after the refill', async () => {
        await clear();
        const key = await s.account({ plan: 'basic', credits: 0.5 });
        assertError(await call(s, 'POST', '/tests', { key, body: startBody }), 402, 'E40201');
        clock.advance(DAY_MS);
        const res = await call(s, 'POST', '/tests', { key, body: startBody });
        assertData(res, 202);
        assert.equal(res.body.meta.credits_left, 4);
        await clear();
      });

      test("Account's sum: the tests charged since the refill and what the account's scans hold (no other account's)", async () => {
        await clear();
        const key = await s.account({ plan: 'basic' });
        const other = await s.account({ plan: 'basic' });
        const id = await accountIdOf(s.app.store, key);
        await spend(key, 2);
        const url = 'http://127.0.0.1:9/';
        const scan = (accountId: string, reserved: number) => scanRow({ id: newId(), account_id: accountId, url, options: '{}', settings: '{}',
          created: clock.now(), expires: clock.now() + DAY_MS, found: 0, state: 'discovering', reserved_tenths: reserved });
        await s.app.store.db.insertInto('scans').values([scan(id, 6), scan(id, 0), scan(await accountIdOf(s.app.store, other), 4)]).execute();
        const { nextRefill } = await refilledCredits(s.app.store.db, id, PLANS.basic);
        const usage = await accountUsage(s.app.store.db, id, nextRefill - DAY_MS);
        assert.deepEqual([usage.testsSinceRefill, usage.chargedSinceRefillTenths, usage.reservedTenths], [2, 20, 6]);
        clock.advance(DAY_MS);
        const after = await refilledCredits(s.app.store.db, id, PLANS.basic);
        assert.equal((await accountUsage(s.app.store.db, id, after.nextRefill - DAY_MS)).testsSinceRefill, 0, 'a new day counts afresh');
        await s.app.store.db.deleteFrom('scans').where('url', '=', url).execute();
      });

      test('refilledCredits reports the refill time on the daily grid of the last refill', async () => {
        const key = await s.account({ plan: 'pro', credits: 1 });
        const id = await accountIdOf(s.app.store, key);
        const start = (await s.app.store.db.selectFrom('accounts').select('credits_refilled_at').where('id', '=', id).executeTakeFirstOrThrow()).credits_refilled_at;
        clock.advance(DAY_MS + 5 * 3_600_000);
        const c = await refilledCredits(s.app.store.db, id, PLANS.pro);
        assert.equal(c.tenths, 1000, 'pro allowance 100');
        assert.equal(c.nextRefill, start + 2 * DAY_MS);
      });
    });
  });
}
