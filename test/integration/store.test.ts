// lane: pairs 130
/**
 * The queue in the tests table (DESIGN.md "The tests table is the queue"), on both engines, through the core
 * functions an agent uses: claim, lease renewal, the lease reaper, the queue timeout's time window, failing and
 * releasing tests; and API keys stored hashed. Tests are queued over HTTP on an app without agent slots, so only
 * these calls move them. Then the queue behind a busy agent, through the API: one in-process slot whose loads are
 * stubs taking 600 ms each, a queue timeout of 1 s: five tests all complete, counting down their queue_position,
 * while a location with no agent online ends its test in error, refunded.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { authenticate } from '../../src/core/accounts/accounts.js';
import { clock } from '../../src/core/clock.js';
import { addLocation } from '../../src/core/catalog/locations.js';
import { claimTest, failQueuedPastTimeout, failTest, reapExpiredLeases, releaseTest, renewLease, runEstimate, type TestRow } from '../../src/core/tests/tests.js';
import { deleteAgent, upsertAgent } from '../../src/store/locations.js';
import type { RunResult, RunSpec } from '../../src/runner/types.js';
import { call, engines, startServer, waitForTest, type TestServer } from '../helpers/server.js';
import { stubResult } from '../helpers/stub-result.js';

const PAGE = 'http://127.0.0.1:9/page.html';
const LOCATION = '1';
const LEASE = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


for (const engine of engines()) {
  describe(engine, () => {
    let s: TestServer;
    before(async () => {
      // A lease far longer than any test: the app's own reaper (every leaseMs / 2) never runs during the tests,
      // so only the calls below requeue or fail a test.
      s = await startServer({ engine, agentSlots: 0, leaseMs: 3_600_000 });
    });
    after(async () => {
      clock.reset();
      await s?.close();
    });

    const store = () => s.app.store;
    const db = () => s.app.store.db;
    const row = (id: string): Promise<TestRow> => db().selectFrom('tests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    /** Queue a test over HTTP; returns its ID. Waits a little so that `created` orders the queue strictly. */
    async function queue(key: string, attributes: Record<string, unknown> = {}): Promise<string> {
      const res = await call(s, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: PAGE, ...attributes } } } });
      assert.equal(res.status, 202, res.text);
      await sleep(3);
      return res.body.data.id;
    }

    async function credits(key: string): Promise<number> {
      const res = await call(s, 'GET', '/status', { key });
      assert.equal(res.status, 200, res.text);
      return res.body.data.attributes.api_credits;
    }

    /** Every test starts with no queued or started test: whatever an earlier test left is failed. */
    beforeEach(async () => {
      const left = await db().selectFrom('tests').select('id').where('state', 'in', ['queued', 'started']).execute();
      for (const t of left) assert.equal(await failTest(store(), t.id, null, 'cleared by the test suite'), true);
    });
    afterEach(() => {
      clock.reset();
    });

    test('claimTest gives the oldest queued test, once, with a lease', async () => {
      const a = await s.account({ plan: 'pro' });
      const b = await s.account({ plan: 'pro' });
      const first = await queue(a);
      const second = await queue(b);
      const third = await queue(a);

      assert.equal(await claimTest(store(), '999', 'agent-1', LEASE), undefined, 'another location has no work');

      const before = clock.now();
      const t1 = await claimTest(store(), LOCATION, 'agent-1', LEASE);
      assert.ok(t1);
      assert.equal(t1.id, first);
      assert.equal(t1.state, 'started');
      assert.equal(t1.lease_owner, 'agent-1');
      assert.equal(Number(t1.attempts), 1);
      assert.ok(Number(t1.started) >= before - 1);
      assert.ok(Number(t1.lease_expires) >= before + LEASE - 1 && Number(t1.lease_expires) <= clock.now() + LEASE);

      assert.equal((await claimTest(store(), LOCATION, 'agent-2', LEASE))?.id, second, 'oldest first, whatever the account');
      assert.equal((await claimTest(store(), LOCATION, 'agent-1', LEASE))?.id, third);
      assert.equal(await claimTest(store(), LOCATION, 'agent-3', LEASE), undefined, 'each test is claimed once');

      // The API shows the claimed test as started, still with Retry-After.
      const res = await call(s, 'GET', `/tests/${first}`, { key: a });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.attributes.state, 'started');
      assert.ok(Number.isInteger(res.body.data.attributes.started));
      assert.equal(res.headers.get('retry-after'), '3');
    });

    test('ten concurrent claims over five queued tests never get the same test', async () => {
      const key = await s.account({ plan: 'pro' });
      const queued: string[] = [];
      for (let i = 0; i < 5; i++) queued.push(await queue(key));
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => claimTest(store(), LOCATION, `agent-${i}`, LEASE)));
      const got = claims.filter((t): t is TestRow => t !== undefined);
      const ids = got.map((t) => t.id);
      assert.equal(new Set(ids).size, ids.length, `no test claimed twice: ${ids.join(', ')}`);
      assert.equal(got.length, 5, 'every queued test was claimed');
      assert.deepEqual([...ids].sort(), [...queued].sort());
      for (const t of got) {
        const r = await row(t.id);
        assert.equal(r.state, 'started');
        assert.equal(r.lease_owner, t.lease_owner, 'the stored owner is the agent that got the test');
        assert.equal(Number(r.attempts), 1);
      }
      assert.equal(await claimTest(store(), LOCATION, 'late', LEASE), undefined);
    });

    test('renewLease extends the lease of its holder only', async () => {
      const key = await s.account({ plan: 'pro' });
      const id = await queue(key);
      const t = await claimTest(store(), LOCATION, 'agent-a', LEASE);
      assert.equal(t?.id, id);
      const expires = Number((await row(id)).lease_expires);

      assert.equal(await renewLease(db(), id, 'agent-b', 10 * LEASE), false, 'another agent cannot renew');
      assert.equal(Number((await row(id)).lease_expires), expires);
      assert.equal((await row(id)).lease_owner, 'agent-a');

      clock.advance(1_000);
      assert.equal(await renewLease(db(), id, 'agent-a', LEASE), true);
      assert.ok(Number((await row(id)).lease_expires) > expires, 'the holder extended its lease');

      assert.equal(await renewLease(db(), 'no-such-test', 'agent-a', LEASE), false);
      assert.equal(await failTest(store(), id, 'agent-a', 'done'), true);
      assert.equal(await renewLease(db(), id, 'agent-a', LEASE), false, 'a finished test has no lease to renew');
    });

    test('a renewal stores the phase its agent reports (not another agent\'s); a requeue or a release forgets it', async () => {
      const key = await s.account({ plan: 'pro' });
      const id = await queue(key);
      assert.equal((await claimTest(store(), LOCATION, 'agent-a', LEASE))?.id, id);
      const phaseOf = async () => { const r = await row(id); return [r.phase, r.phase_run]; };
      assert.deepEqual(await phaseOf(), [null, null], 'a test just claimed has no phase yet');
      assert.equal(await renewLease(db(), id, 'agent-a', LEASE, { phase: 'loading', run: 2 }), true);
      assert.deepEqual(await phaseOf(), ['loading', 2]);
      assert.equal(await renewLease(db(), id, 'agent-b', LEASE, { phase: 'storing', run: 2 }), false);
      assert.deepEqual(await phaseOf(), ['loading', 2], 'another agent reports nothing of the test');
      assert.equal(await renewLease(db(), id, 'agent-a', LEASE), true);
      assert.deepEqual(await phaseOf(), ['loading', 2], 'a plain renewal keeps the phase');
      await releaseTest(db(), id, 'agent-a');
      assert.deepEqual([(await row(id)).state, ...await phaseOf()], ['queued', null, null], 'a test handed back is queued, with no phase');
      assert.equal((await claimTest(store(), LOCATION, 'agent-a', LEASE))?.id, id);
      assert.equal(await renewLease(db(), id, 'agent-a', LEASE, { phase: 'auditing', run: 1 }), true);
      clock.advance(LEASE + 1);
      assert.deepEqual(await reapExpiredLeases(store()), { requeued: 1, failed: 0 }, 'its lease ran out');
      assert.deepEqual([(await row(id)).state, ...await phaseOf()], ['queued', null, null], 'a requeued test has no phase');
    });

    test('runEstimate: the median duration of the location\'s latest completed tests of the last 24 hours; none without any', async () => {
      const key = await s.account({ plan: 'pro' });
      const location = `estimate-${engine}`;
      assert.equal(await runEstimate(db(), location), undefined, 'no history, no estimate');
      const now = clock.now();
      // Durations 20, 30 and 40 s, and one finished two days ago (beyond the tests' retention) that took 500 s.
      for (const [i, [agoMs, durationMs]] of [[60_000, 20_000], [50_000, 40_000], [40_000, 30_000], [2 * 86_400_000, 500_000]].entries()) {
        const id = await queue(key);
        await db().updateTable('tests').set({ state: 'completed', location, started: now - agoMs - durationMs, finished: now - agoMs, created: now - agoMs - durationMs - i })
          .where('id', '=', id).execute();
      }
      assert.deepEqual(await runEstimate(db(), location), { ms: 30_000, tests: 3 });
    });

    test('a lease that runs out is requeued the first time and failed with an error the second time', async () => {
      const key = await s.account({ plan: 'pro' });
      const id = await queue(key);
      assert.equal(await credits(key), 99);

      assert.equal((await claimTest(store(), LOCATION, 'agent-a', LEASE))?.id, id);
      assert.deepEqual(await reapExpiredLeases(store()), { requeued: 0, failed: 0 }, 'a live lease is left alone');
      assert.equal((await row(id)).state, 'started');

      clock.advance(LEASE + 1_000);
      assert.deepEqual(await reapExpiredLeases(store()), { requeued: 1, failed: 0 });
      let r = await row(id);
      assert.equal(r.state, 'queued');
      assert.equal(r.lease_owner, null);
      assert.equal(r.lease_expires, null);
      assert.equal(r.started, null);
      assert.equal(Number(r.attempts), 1);
      assert.equal(await renewLease(db(), id, 'agent-a', LEASE), false, 'the dead agent lost the test');
      let res = await call(s, 'GET', `/tests/${id}`, { key });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.attributes.state, 'queued');
      assert.equal(res.headers.get('retry-after'), '3');
      assert.equal(await credits(key), 99, 'a requeued test stays charged');

      const again = await claimTest(store(), LOCATION, 'agent-b', LEASE);
      assert.equal(again?.id, id, 'the requeued test is claimed again');
      assert.equal(Number(again!.attempts), 2);

      clock.advance(LEASE + 1_000);
      assert.deepEqual(await reapExpiredLeases(store()), { requeued: 0, failed: 1 });
      r = await row(id);
      assert.equal(r.state, 'error');
      assert.equal(typeof r.error, 'string');
      assert.ok(r.error!.trim().length > 0, 'the failure says why');
      assert.ok(r.finished !== null);
      assert.equal(r.lease_owner, null);
      assert.equal(await claimTest(store(), LOCATION, 'agent-c', LEASE), undefined, 'a failed test is not queued again');
      assert.deepEqual(await reapExpiredLeases(store()), { requeued: 0, failed: 0 });
      assert.equal(await credits(key), 100, 'the failed test was refunded');

      res = await call(s, 'GET', `/tests/${id}`, { key });
      assert.equal(res.status, 200);
      const a = res.body.data.attributes;
      assert.equal(a.state, 'error');
      assert.equal(typeof a.error, 'string');
      assert.ok(a.error.length > 0);
      assert.ok(Number.isInteger(a.started), 'started is an integer');
      assert.ok(Number.isInteger(a.finished), 'finished is an integer');
      assert.equal(a.report, undefined);
      assert.equal(res.headers.get('retry-after'), null, 'no Retry-After once the test has failed');
    });

    test('failTest refunds the credits once, and only for the agent holding the test', async () => {
      const key = await s.account({ plan: 'pro' });
      const id = await queue(key, { video: 1, retention: 6 });
      assert.equal(await credits(key), 97.7);
      assert.equal((await claimTest(store(), LOCATION, 'agent-a', LEASE))?.id, id);

      assert.equal(await failTest(store(), id, 'agent-b', 'not mine'), false);
      assert.equal((await row(id)).state, 'started');
      assert.equal(await credits(key), 97.7);

      assert.equal(await failTest(store(), id, 'agent-a', 'The page crashed the browser.'), true);
      const r = await row(id);
      assert.equal(r.state, 'error');
      assert.equal(r.error, 'The page crashed the browser.');
      assert.equal(await credits(key), 100);

      assert.equal(await failTest(store(), id, 'agent-a', 'twice'), false, 'a failed test cannot fail again');
      assert.equal(await failTest(store(), id, null, 'twice'), false);
      assert.equal(await credits(key), 100, 'refunded once');

      const res = await call(s, 'GET', `/tests/${id}`, { key });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.attributes.state, 'error');
      assert.equal(res.body.data.attributes.error, 'The page crashed the browser.');
    });

    test('a failed test frees its concurrency slot', async () => {
      const key = await s.account({ plan: 'basic' });
      const first = await queue(key);
      await queue(key);
      const refused = await call(s, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: PAGE } } } });
      assert.equal(refused.status, 429);
      assert.equal((await claimTest(store(), LOCATION, 'agent-a', LEASE))?.id, first);
      assert.equal(await failTest(store(), first, 'agent-a', 'failed'), true);
      await queue(key);
    });

    test('releaseTest puts the test back in the queue without counting the attempt', async () => {
      const key = await s.account({ plan: 'pro' });
      const id = await queue(key);
      assert.equal((await claimTest(store(), LOCATION, 'agent-a', LEASE))?.id, id);

      await releaseTest(db(), id, 'agent-b');
      assert.equal((await row(id)).state, 'started', 'another agent cannot release it');
      assert.equal((await row(id)).lease_owner, 'agent-a');

      await releaseTest(db(), id, 'agent-a');
      let r = await row(id);
      assert.equal(r.state, 'queued');
      assert.equal(Number(r.attempts), 0);
      assert.equal(r.lease_owner, null);
      assert.equal(r.lease_expires, null);
      assert.equal(r.started, null);
      assert.equal(await credits(key), 99, 'a released test stays charged: it will still run');

      // Released, claimed and then lost: that is its first lost lease, so it is requeued, not failed.
      const again = await claimTest(store(), LOCATION, 'agent-b', LEASE);
      assert.equal(again?.id, id);
      assert.equal(Number(again!.attempts), 1);
      clock.advance(LEASE + 1_000);
      assert.deepEqual(await reapExpiredLeases(store()), { requeued: 1, failed: 0 });
      r = await row(id);
      assert.equal(r.state, 'queued');
    });

    test('the queue timeout fails a queued test only when no agent of its location was online at any moment of it', async () => {
      const TIMEOUT = 60_000;
      const WINDOW = 3_000;
      const limits = { queueTimeoutMs: TIMEOUT, onlineWindowMs: WINDOW };
      const names = (id: string) => (id === LOCATION ? { name: 'Local' } : undefined);
      /** An agent last heard from `ago` ms before now (margins of a second stand for "just"). */
      const seen = (agentId: string, ago: number, location = LOCATION) => {
        const at = clock.now() - ago;
        return upsertAgent(db(), {
          id: agentId, location, token_id: null, version: 'test', hostname: 'here', browsers: '["3"]', slots: 1, started: at, last_seen: at,
        });
      };
      const agents = [`window-a-${engine}`, `window-b-${engine}`, `window-elsewhere-${engine}`];
      try {
        const key = await s.account({ plan: 'pro' });
        const id = await queue(key);
        assert.equal(await credits(key), 99);
        clock.advance(TIMEOUT - 1_000);
        assert.equal(await failQueuedPastTimeout(store(), limits, names), 0, 'not queued for the whole timeout yet');

        clock.advance(2_000);
        // Heard from just before the timeout began: still online at its first moment.
        await seen(agents[0]!, TIMEOUT + WINDOW - 1_000);
        // An agent of another location heard from just now saves nothing here.
        await seen(agents[2]!, 0, '999');
        assert.equal(await failQueuedPastTimeout(store(), limits, names), 0, 'an agent was online at the first moment of the timeout');
        assert.equal((await row(id)).state, 'queued');

        // Heard from last a little longer ago: offline during the whole timeout.
        await seen(agents[0]!, TIMEOUT + WINDOW + 1_000);
        assert.equal(await failQueuedPastTimeout(store(), limits, names), 1, 'no agent online during the whole timeout');
        const r = await row(id);
        assert.equal(r.state, 'error');
        assert.equal(r.error, 'No agent of location "Local" (ID 1) was online to run this test within 1 minute; its credits were refunded.');
        assert.equal(await credits(key), 100, 'refunded');
        assert.equal(await failQueuedPastTimeout(store(), limits, names), 0, 'failed once');

        // Busy is not dead: an agent that keeps saying it is alive keeps a test waiting, however long.
        const waiting = await queue(key);
        for (let i = 0; i < 10; i++) {
          await seen(agents[1]!, 0);
          clock.advance(TIMEOUT);
          assert.equal(await failQueuedPastTimeout(store(), limits, names), 0);
        }
        assert.equal((await row(waiting)).state, 'queued');
        // A test taken by an agent is never failed as unclaimed, even by a check that read it while still queued.
        assert.equal((await claimTest(store(), LOCATION, agents[1]!, LEASE))?.id, waiting);
        assert.equal(await failTest(store(), waiting, null, 'no agent', { onlyIfQueued: true }), false);
        assert.equal((await row(waiting)).state, 'started');
      } finally {
        for (const a of agents) await deleteAgent(db(), a);
      }
    });

    test('API keys are stored hashed: no table holds a key', async () => {
      const keys = [s.key, await s.account({ plan: 'pro' }), await s.account({ plan: 'basic' })];
      await queue(keys[1]);
      for (const key of keys) assert.equal((await call(s, 'GET', '/status', { key })).status, 200);

      const accounts = await db().selectFrom('accounts').selectAll().execute();
      assert.ok(accounts.length >= 3);
      const dumps = {
        accounts: JSON.stringify(accounts),
        tests: JSON.stringify(await db().selectFrom('tests').selectAll().execute()),
        rate_limits: JSON.stringify(await db().selectFrom('rate_limits').selectAll().execute()),
      };
      for (const key of keys) {
        for (const [table, dump] of Object.entries(dumps)) {
          assert.ok(!dump.toLowerCase().includes(key.toLowerCase()), `table ${table} contains an API key`);
        }
        assert.ok((await authenticate(db(), s.config.plans, key)) !== null, 'the key still authenticates');
      }
      for (const a of accounts) {
        assert.equal(await authenticate(db(), s.config.plans, a.api_key_hash), null, 'the stored value is not a usable key');
        assert.equal((await call(s, 'GET', '/status', { key: a.api_key_hash })).status, 401);
      }
    });
  });
}

for (const engine of engines()) {
  describe(`${engine}: the queue behind a busy agent`, () => {
    const LOAD_MS = 600;
    const QUEUE_TIMEOUT_MS = 1_000;
    let s: TestServer;
    const loads: string[] = [];
    /** The agent's loads: no browser, 600 ms each, so that a queue builds up behind the one slot. */
    const run = async (spec: RunSpec): Promise<RunResult> => {
      loads.push(spec.options.url);
      await sleep(LOAD_MS);
      return stubResult(spec.options.url);
    };

    before(async () => {
      // The reaper runs every half lease (1 s here); three heartbeats of 200 ms (the online window) are shorter
      // than the queue timeout, so only the busy agent's own heartbeats keep the waiting tests alive.
      s = await startServer({
        engine, agentSlots: 1, leaseMs: 2_000, overrides: { run },
        env: { WEBGAUGE_QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS), WEBGAUGE_AGENT_HEARTBEAT_MS: '200' },
      });
    });
    after(async () => s?.close());

    const post = (attributes: Record<string, unknown>) =>
      call(s, 'POST', '/tests', { key: s.key, body: { data: { type: 'test', attributes: { report: 'none', ...attributes } } } });
    const credits = async () => (await call(s, 'GET', '/status', { key: s.key })).body.data.attributes.api_credits as number;

    test('five tests behind one busy slot wait past the queue timeout and all complete; queue_position counts down', async () => {
      const t0 = Date.now();
      const ids: string[] = [];
      const postedAt: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await post({ url: `${PAGE}?busy-${i}` });
        assert.equal(res.status, 202, res.text);
        ids.push(res.body.data.id);
        postedAt.push(Date.now());
        await sleep(3); // queued_at orders the queue strictly
      }
      /** Each test's polls in order: its state and queue_position, and when. */
      const seen: { at: number; state: string; position: unknown; status: number }[][] = ids.map(() => []);
      for (;;) {
        const round: (number | undefined)[] = [];
        // The later tests first: a claim between two reads can then only lower an earlier test's position.
        for (let i = ids.length - 1; i >= 0; i--) {
          const res = await call(s, 'GET', `/tests/${ids[i]}`, { key: s.key });
          const a = res.body.data.attributes;
          seen[i]!.push({ at: Date.now(), state: a.state, position: a.queue_position, status: res.status });
          if (a.state === 'queued') {
            assert.ok(Number.isInteger(a.queue_position) && a.queue_position >= 0, JSON.stringify(a));
            round[i] = a.queue_position;
          } else {
            assert.equal('queue_position' in a, false, `no queue_position once ${a.state}`);
          }
        }
        // Within one round, a test queued later has more tests ahead of it.
        const queued = round.flatMap((p, i) => (p === undefined ? [] : [[i, p] as const]));
        for (let k = 1; k < queued.length; k++) assert.ok(queued[k]![1] > queued[k - 1]![1], `positions in order: ${JSON.stringify(queued)}`);
        if (seen.every((polls) => polls.at(-1)!.state === 'completed')) break;
        assert.ok(seen.every((polls) => polls.at(-1)!.state !== 'error'), JSON.stringify(seen.map((p) => p.at(-1))));
        assert.ok(Date.now() - t0 < 30_000, 'all five completed within 30 s');
        await sleep(100);
      }
      for (const polls of seen) {
        assert.equal(polls.at(-1)!.status, 303, 'completed: 303 to the report');
        const positions = polls.filter((p) => p.state === 'queued').map((p) => p.position as number);
        for (let k = 1; k < positions.length; k++) assert.ok(positions[k]! <= positions[k - 1]!, `a position never grows: ${positions.join(', ')}`);
      }
      const last = seen[4]!;
      assert.equal(last[0]!.state, 'queued');
      assert.ok((last[0]!.position as number) >= 1, `the last test starts behind others: ${String(last[0]!.position)}`);
      const lastPositions = last.filter((p) => p.state === 'queued').map((p) => p.position as number);
      assert.ok(Math.min(...lastPositions) < lastPositions[0]!, `the last test moved up: ${lastPositions.join(', ')}`);
      const waited = last.filter((p) => p.state === 'queued').at(-1)!.at - postedAt[4]!;
      assert.ok(waited > QUEUE_TIMEOUT_MS, `the last test waited ${waited} ms, longer than the queue timeout`);
      assert.equal(loads.length, 5, 'each test loaded once');
      process.stdout.write(`# ${engine}: five tests behind one slot of ${LOAD_MS} ms loads: the last one queued ${waited} ms, all done in ${Date.now() - t0} ms\n`);
    });

    test('a location with no agent online: its test ends in error after the queue timeout, refunded', async () => {
      const empty = (await addLocation(s.app.store, { name: 'Empty room', region: 'Nowhere' })).id;
      // The catalogue sees a new location within a second.
      const deadline = Date.now() + 10_000;
      while ((await call(s, 'GET', `/locations/${empty}`, { key: s.key })).status !== 200) {
        assert.ok(Date.now() < deadline, 'the new location listed');
        await sleep(100);
      }
      const before = await credits();
      const t0 = Date.now();
      const res = await post({ url: `${PAGE}?nobody`, location: empty });
      assert.equal(res.status, 202, res.text);
      const charged = res.body.meta.credits_used as number;
      assert.ok(charged > 0);
      assert.equal(Math.round((before - (await credits())) * 10) / 10, charged);
      const polled = await call(s, 'GET', `/tests/${res.body.data.id}`, { key: s.key });
      assert.equal(polled.body.data.attributes.state, 'queued');
      assert.equal(polled.body.data.attributes.queue_position, 0);
      const done = await waitForTest(s, s.key, res.body.data.id, 15_000);
      assert.equal(done.status, 200);
      assert.equal(done.body.data.attributes.state, 'error');
      assert.match(done.body.data.attributes.error,
        /^No agent of location "Empty room" \(ID \d+\) was online to run this test within [\d.]+ (?:seconds?|minutes?); its credits were refunded\.$/);
      assert.equal('queue_position' in done.body.data.attributes, false);
      assert.ok(Date.now() - t0 >= QUEUE_TIMEOUT_MS, 'not before the queue timeout');
      assert.equal(await credits(), before, 'refunded');
    });
  });
}
