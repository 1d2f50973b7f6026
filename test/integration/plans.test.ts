// lane: shared
/**
 * The operator's plans file (WEBGAUGE_PLANS_FILE) end to end, on both engines: an unlimited plan is never
 * charged or refused for credits but keeps its (file's) concurrency limit, a plan's rate limit applies, and an
 * account whose plan left the file works on basic limits.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { accountsChanged } from '../../src/core/accounts/auth-cache.js';
import { clock } from '../../src/core/clock.js';
import { failTest } from '../../src/core/tests/tests.js';
import { call, engines, startServer, type TestServer } from '../helpers/server.js';
import { accountIdOf } from '../helpers/seed.js';
import { assertData, assertError, creditsOf } from '../helpers/assertions.js';

const PLANS_FILE = {
  free: { extends: 'pro', unlimited_credits: true, initial_credits: 0, concurrent_tests: 12 },
  tight: { extends: 'basic', rate_limit: 3 },
  gone: { extends: 'pro', daily_credits: 50 },
};

for (const engine of engines()) {
  describe(engine, () => {
    let dir: string;
    let s: TestServer;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'webgauge-plans-'));
      const file = join(dir, 'plans.json');
      await writeFile(file, JSON.stringify(PLANS_FILE));
      s = await startServer({ engine, agentSlots: 0, env: { WEBGAUGE_PLANS_FILE: file } });
    });
    after(async () => {
      await s?.close();
      await rm(dir, { recursive: true, force: true });
    });

    const startTest = (key: string, i: number, attributes: object = {}) =>
      call(s, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: `http://127.0.0.1:9/p${i}.html`, ...attributes } } } });

    test('an unlimited plan starts more tests than any credit allowance allows, free, up to the file\'s concurrency limit', async () => {
      const key = await s.account({ plan: 'free' });
      assert.equal(await creditsOf(s, key), 0, 'initial_credits from the file');
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        // lighthouse + video + 24 months: 3.7 credits each, 44.4 in all against a balance of 0.
        const res = await startTest(key, i, { video: 1, retention: 24 });
        const data = assertData(res, 202);
        assert.deepEqual(res.body.meta, { credits_left: 0, credits_used: 3.7 }, 'the price is reported, nothing is taken');
        ids.push(data.id);
      }
      assertError(await startTest(key, 99), 429, 'E42900');
      assert.equal(await creditsOf(s, key), 0);
      const status = assertData(await call(s, 'GET', '/status', { key })).attributes;
      assert.equal(status.account_type, 'Free');
      assert.equal(status.account_pro_analysis_options_access, true, 'extends pro');

      // A failed test refunds what was charged, which is nothing.
      assert.equal(await failTest(s.app.store, ids[0], null, 'test failure'), true);
      assert.equal(await creditsOf(s, key), 0);
      assertData(await startTest(key, 100), 202);
    });

    test("the file's rate limit applies: the 4th request of a window is 429 E42901", async () => {
      const key = await s.account({ plan: 'tight' });
      // Just after a window starts, so that the four requests fall in one window.
      clock.advance(60_000 - (clock.now() % 60_000) + 100);
      try {
        for (let i = 0; i < 3; i++) {
          const res = await call(s, 'GET', '/status', { key });
          assertData(res);
          assert.equal(res.headers.get('x-ratelimit-limit'), '3, 3;window=60');
        }
        assertError(await call(s, 'GET', '/status', { key }), 429, 'E42901');
      } finally {
        clock.reset();
      }
    });

    test('an account whose plan left the file works on basic limits', async () => {
      const key = await s.account({ plan: 'gone', credits: 10 });
      assert.equal(assertData(await call(s, 'GET', '/status', { key })).attributes.api_refill_amount, 50);
      // The operator removes the plan from the file and restarts: the stored plan name is no longer known.
      await s.app.store.db.updateTable('accounts').set({ plan: 'vanished' }).where('id', '=', await accountIdOf(s.app.store, key)).execute();
      accountsChanged(); // the restart: nothing this process remembered of the key survives it
      const status = assertData(await call(s, 'GET', '/status', { key })).attributes;
      assert.equal(status.api_refill_amount, 5);
      assert.equal(status.account_type, 'Basic');
      assert.equal(status.account_pro_analysis_options_access, false);
      assertData(await startTest(key, 1), 202);
      const second = await startTest(key, 2);
      assert.equal(assertData(second, 202) && second.body.meta.credits_used, 1, 'charged as usual');
      assert.equal(await creditsOf(s, key), 8);
      assertError(await startTest(key, 3), 429, 'E42900'); // basic: 2 at once
    });
  });
}
