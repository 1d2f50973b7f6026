// lane: alone
/**
 * kill -9 of an agent or of a whole server (real child processes, SIGKILL): the test it held never stays
 * `started`. Its lease runs out; a node that starts afterwards requeues it at once (not at its next periodic
 * run), and a test whose agent died twice fails with an error that says so, refunded. The node that completes the
 * killed server's test loads the page for real on the first engine; on the second its agent is handed that load's
 * result (test/helpers/replayed-loads.ts): what is checked there is the lease, the requeue and the attempts.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { call, engines, startServer, waitForTest, type TestServer } from '../helpers/server.js';
import { accountIdOf } from '../helpers/seed.js';
import { replayedLoads } from '../helpers/replayed-loads.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A child `node --import tsx <script>` in its own process group, so that SIGKILL takes its browsers too. */
function spawnNode(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  return { child, output: () => out };
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The store settings of a server, for a child process using the same database. */
const storeEnv = (server: TestServer): Record<string, string> => ({
  WEBGAUGE_DATA_DIR: server.config.dataDir,
  ...(server.config.databaseUrl ? { WEBGAUGE_DATABASE_URL: server.config.databaseUrl } : {}),
});

/** One fixture site for both engines: the second engine's replayed load is of its URL. */
let site: FixtureSite;
const loads = replayedLoads();
before(async () => {
  site = await startFixtureSite();
});
after(async () => {
  await site?.close();
  process.stderr.write(`[crash] page loads by the rescuing node: ${loads.counts.real} real, ${loads.counts.replayed} replayed\n`);
});

for (const engine of engines()) {
  describe(engine, () => {
    let server: TestServer;
    before(async () => {
      // API only, and a long lease so that its own periodic reaper (every lease/2) stays out of the way.
      server = await startServer({ engine, agentSlots: 0, leaseMs: 120_000 });
    });
    after(async () => {
      await server.close();
    });

    const testRow = (id: string) => server.app.store.db.selectFrom('tests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const credits = async (key: string) => (await call(server, 'GET', '/status', { key })).body.data.attributes.api_credits;

    /** A child agent claims the test with a 1 s lease and is killed; returns once that lease has run out. */
    async function claimAndDie(id: string): Promise<void> {
      const agent = spawnNode(['test/fixtures/processes/claim-and-hang.ts'], { ...storeEnv(server), CLAIM_LEASE_MS: '1000' });
      await until('the claim', async () => agent.output().includes('claimed'));
      assert.equal(agent.output().trim(), `claimed ${id}`);
      await kill9(agent.child);
      assert.equal((await testRow(id)).state, 'started', 'the dead agent\'s test is started until its lease runs out');
      await sleep(1100);
    }

    test('an agent killed twice: the next node to start requeues the test at once, then fails it, refunded', async () => {
      const key = await server.account({ plan: 'basic' });
      const before = await credits(key);
      const started = await call(server, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: 'http://127.0.0.1:9/' } } } });
      assert.equal(started.status, 202, started.text);
      const id = started.body.data.id as string;

      await claimAndDie(id);
      const second = await startServer({ engine, sharing: server, agentSlots: 0, leaseMs: 120_000 });
      try {
        // No periodic run has happened yet (lease/2 = 60 s): the start did it.
        assert.equal((await testRow(id)).state, 'queued');
      } finally {
        await second.close();
      }

      await claimAndDie(id);
      const third = await startServer({ engine, sharing: server, agentSlots: 0, leaseMs: 120_000 });
      try {
        const row = await testRow(id);
        assert.equal(row.state, 'error');
        assert.match(row.error ?? '', /stopped responding .* twice/);
        const res = await call(server, 'GET', `/tests/${id}`, { key });
        assert.equal(res.body.data.attributes.state, 'error');
        assert.equal(res.body.data.attributes.error, row.error);
        assert.equal(await credits(key), before, 'refunded');
        assert.equal(Number((await server.app.store.db.selectFrom('tests').select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', await accountIdOf(server.app.store, key)).where('state', 'in', ['queued', 'started'])
          .executeTakeFirstOrThrow()).n), 0, 'the concurrency slot is free again');
      } finally {
        await third.close();
      }
    });

    test('a server killed while its agent runs a test: another node completes the test', async () => {
      const started = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: { url: site.url('/') } } } });
      assert.equal(started.status, 202, started.text);
      const id = started.body.data.id as string;
      const serve = spawnNode(['src/main.ts', 'serve'], {
        ...storeEnv(server), WEBGAUGE_PORT: '0', WEBGAUGE_AGENT_SLOTS: '1', WEBGAUGE_LEASE_MS: '2000',
        WEBGAUGE_ALLOW_PRIVATE_TARGETS: '1', WEBGAUGE_LOG_LEVEL: 'silent',
      });
      try {
        await until('the killed server\'s agent to start the test', async () => (await testRow(id)).state === 'started', 30_000);
      } finally {
        await kill9(serve.child);
      }
      assert.equal((await testRow(id)).state, 'started');
      const rescuer = await startServer({ engine, sharing: server, agentSlots: 1, leaseMs: 2000,
        overrides: { run: loads.runFor(engine), launchAhead: loads.loadsOn(engine) } });
      try {
        const done = await waitForTest(rescuer, server.key, id, 120_000);
        assert.equal(done.status, 303, done.text);
        const row = await testRow(id);
        assert.equal(row.state, 'completed');
        assert.equal(row.attempts, 2, 'the killed run and the one that completed');
      } finally {
        await rescuer.close();
      }
    });
  });
}
