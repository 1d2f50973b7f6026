// lane: alone
/**
 * Remote agents and locations, with every part a real process: the service (`webgauge serve --no-agent`, no
 * in-process agent), a location added and a token made with the operator's CLI, two agents of that location
 * (`webgauge agent --server … --token …`) loading the fixture site in real Chromium. kill -9 of the agent running
 * a test, kill -9 and restart of the service mid-test: every test completes. A location without agents ends its
 * test in error after the queue timeout, refunded. A wrong token stops an agent at once. The agents trust the
 * company CA of their own WEBGAUGE_EXTRA_CA_CERTS (the service's does not reach them): one test loads the site over
 * HTTPS with a certificate of that CA. On PostgreSQL also two API nodes: the agent talks to one, the report is read
 * from the other. The tests run Lighthouse on the first engine (the report after a kill -9 has its score); on the
 * second they are plain loads (report=none), shorter: leases, requeues and hand-backs are the same either way, and
 * Lighthouse's figures do not depend on the engine. An agent whose CA file cannot be read is refused before it
 * reaches any service: checked once, on the first engine.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { startChildService, type ChildService } from '../helpers/child-service.js';
import { call, engines, freshPgDatabase, waitForTest } from '../helpers/server.js';
import { openStore } from '../../src/store/db.js';
import { makePrivateCa, type PrivateCa } from '../helpers/certificates.js';
import { DEFAULT_FIREFOX_PATH, findFirefox } from '../../src/runner/firefox/launch.js';
import { webgaugeArgs } from '../helpers/webgauge-command.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const METRICS_TOKEN = 'metrics-token-for-the-test-0123';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** `webgauge <args>` as an operator types it; resolves with its exit code and output. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; lastLine: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, webgaugeArgs(args), { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, out: stdout + stderr, lastLine: stdout.trim().split('\n').at(-1) ?? '' });
    });
  });
}

interface AgentProcess {
  proc: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** The company CA the agents trust (their own WEBGAUGE_EXTRA_CA_CERTS), and its file. */
let ca: PrivateCa;
let caFile: string;

/** `webgauge agent` in its own process group (kill -9 takes its browsers too). */
function startAgent(server: string, token: string, scratch: string, env: Record<string, string> = {}): AgentProcess {
  const proc = spawn(process.execPath, webgaugeArgs(['agent', '--server', server, '--token', token, '--slots', '1']), {
    env: {
      ...process.env, WEBGAUGE_DATA_DIR: scratch, WEBGAUGE_ALLOW_PRIVATE_TARGETS: '1', WEBGAUGE_RUN_GUARD: '0', WEBGAUGE_LOG_LEVEL: 'info',
      WEBGAUGE_EXTRA_CA_CERTS: caFile, ...env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, output: () => out, exited };
}

async function kill9(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((resolve) => p.once('exit', resolve));
  process.kill(-p.pid!, 'SIGKILL');
  await exited;
}


/** How `agent` exited, or 'still running' after 20 s (the timer is cleared: it would keep this process alive). */
async function exitOf(agent: AgentProcess): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), 20_000)));
  try {
    return await Promise.race([agent.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function until<T>(what: string, get: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

for (const engine of engines()) {
  describe(`remote agents (${engine})`, () => {
    let site: FixtureSite;
    let dataDir: string;
    let scratch: string;
    let pgdb: Awaited<ReturnType<typeof freshPgDatabase>> | undefined;
    let storeEnv: Record<string, string>;
    let port: number;
    let service: ChildService;
    let server: string;
    let location: string;
    let token: string;
    const agents: AgentProcess[] = [];
    const serviceEnv = () => ({
      ...storeEnv, WEBGAUGE_PORT: String(port), WEBGAUGE_AGENT_SLOTS: '0', WEBGAUGE_LEASE_MS: '3000',
      // The queue timeout only ends tests of a location none of whose agents was heard from for 2 s + three
      // heartbeats: the agents here heartbeat every 0.5 s, and every requeue restarts a test's wait.
      WEBGAUGE_AGENT_HEARTBEAT_MS: '500', WEBGAUGE_QUEUE_TIMEOUT_MS: '2000', WEBGAUGE_LOG_LEVEL: 'info',
      WEBGAUGE_METRICS_TOKEN: METRICS_TOKEN,
    });
    // The agents' and the protocol's behaviour, once (first engine): the store's part of it (agents seen, a test handed
    // back, tokens) is store.test's and agent-protocol.test's on both engines; the second engine keeps the scenarios
    // whose outcome the store decides (the lease reaper, a restart, the queue timeout, the metrics' counts).
    const once = engine === engines()[0];
    // Lighthouse's figures are the page's, whichever engine stores them: its audits run on the first engine only.
    const lighthouse = once;
    const post = (url: string, loc: string, key = service.key, report = lighthouse ? 'lighthouse' : 'none') =>
      call(service, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url, location: loc, report } } } });
    /** The agent running a test: the one that says it claimed it (every agent has a browser: the one launched ahead). */
    const runningAgent = (id: string) => until('the agent that claimed the test', async () =>
      agents.find((a) => a.proc.exitCode === null && a.output().split('\n').some((line) => line.includes('test claimed') && line.includes(id))));
    /** A test of the fixture page at `path`, queued at the remote location and taken by an agent. */
    const startedTest = async (path: string, url = site.url(path)): Promise<string> => {
      const res = await post(url, location);
      assert.equal(res.status, 202, res.text);
      const id = res.body.data.id as string;
      await until('the test started', async () => (await state(id)) === 'started');
      return id;
    };
    const state = async (id: string) => (await call(service, 'GET', `/tests/${id}`, { key: service.key })).body?.data?.attributes?.state as string;

    before(async () => {
      ca = makePrivateCa();
      site = await startFixtureSite({ tls: ca.issue(['127.0.0.1']) });
      dataDir = await mkdtemp(join(tmpdir(), 'webgauge-remote-'));
      scratch = await mkdtemp(join(tmpdir(), 'webgauge-remote-agents-'));
      caFile = join(scratch, 'company-ca.pem');
      await writeFile(caFile, ca.cert);
      pgdb = engine === 'postgres' ? await freshPgDatabase() : undefined;
      storeEnv = { WEBGAUGE_DATA_DIR: dataDir, ...(pgdb ? { WEBGAUGE_DATABASE_URL: pgdb.url } : {}) };
      port = await freePort();
      service = await startChildService(dataDir, serviceEnv());
      server = service.api.replace(/\/api\/2\.0$/, '');

      const added = await cli(['location', 'add', '--name', 'Remote rack', '--region', 'Test lab'], storeEnv);
      assert.equal(added.code, 0, added.out);
      location = added.lastLine;
      assert.match(location, /^\d+$/);
      const made = await cli(['agent', 'token', 'create', '--location', location], storeEnv);
      assert.equal(made.code, 0, made.out);
      token = made.lastLine;
      assert.match(token, /^wgat_[A-Za-z0-9_-]{43}$/);
      for (let i = 0; i < 2; i++) agents.push(startAgent(server, token, join(scratch, `agent-${i}`)));
      // A test posted before any agent of the location was heard from would end at the queue timeout (2 s).
      await until('two agents online', async () => (await call(service, 'GET', `/locations/${location}`, { key: service.key }))
        .body?.data?.attributes?.agents_online === 2, 30_000);
    });

    after(async () => {
      for (const a of agents) await kill9(a.proc);
      await service?.stop();
      await site?.close();
      await pgdb?.drop();
      await rm(dataDir, { recursive: true, force: true });
      await rm(scratch, { recursive: true, force: true });
    });

    if (once) test('the new location lists the browsers of its two online agents; location 1 has none online', async () => {
      const loc = await until('two agents online', async () => {
        const res = await call(service, 'GET', `/locations/${location}`, { key: service.key });
        return res.body?.data?.attributes?.agents_online === 2 && res.body.data;
      }, 30_000);
      // Chrome, and Firefox (Desktop) when the agents' machine has a working one and Xvfb (scripts/install.sh installs both).
      const firefox = await findFirefox(process.env.WEBGAUGE_FIREFOX_PATH ?? DEFAULT_FIREFOX_PATH);
      assert.deepEqual(loc.attributes.browsers, 'version' in firefox ? ['1', '3'] : ['3']);
      const listed = await cli(['location', 'list'], storeEnv);
      assert.equal(listed.code, 0, listed.out);
      assert.match(listed.out, new RegExp(`^${location}\tname=Remote rack\tregion=Test lab\tagents_online=2\t`, 'm'));
      assert.match(listed.out, /^1\tname=Local\tregion=Local\tdefault\tagents_online=0$/m);
      assert.equal(loc.attributes.name, 'Remote rack');
      assert.equal(loc.attributes.region, 'Test lab');
      const all = await call(service, 'GET', '/locations', { key: service.key });
      const local = all.body.data.find((l: { id: string }) => l.id === '1');
      assert.deepEqual({ browsers: local.attributes.browsers, online: local.attributes.agents_online }, { browsers: [], online: 0 });
    });

    test('kill -9 of the agent running a test: another agent of the location completes it', async () => {
      const path = `/?remote-kill-agent-${engine}`;
      const id = await startedTest(path);
      const runner = await runningAgent(id);
      await until('the page requested', async () => site.requests.some((r) => r.path === path));
      const killedAt = Date.now();
      await kill9(runner.proc);
      // Three heartbeats (0.5 s each) without a word, and the killed agent is offline.
      await until('the killed agent offline', async () =>
        (await call(service, 'GET', `/locations/${location}`, { key: service.key })).body.data.attributes.agents_online === 1, 10_000);
      const done = await waitForTest(service, service.key, id, 120_000);
      assert.equal(done.status, 303, done.text);
      const report = await call(service, 'GET', `/reports/${id}`, { key: service.key });
      assert.equal(report.status, 200, report.text);
      if (lighthouse) assert.equal(report.body.data.attributes.performance_score > 0, true);
      assert.equal(site.requests.filter((r) => r.path === path).length, 2, 'loaded by the killed agent, then by the other');
      const again = site.requests.filter((r) => r.path === path)[1]!.time;
      process.stdout.write(`# ${engine}: kill -9 of the agent → the page loading again on the other agent ${again - killedAt} ms ` +
        `(lease 3 s), → the test completed ${Date.now() - killedAt} ms\n`);
      // Replace the killed agent for the next tests, which need both online (a test handed back while the new one still
      // starts would find no agent within the 2 s queue timeout).
      agents.splice(agents.indexOf(runner), 1, startAgent(server, token, join(scratch, 'agent-2')));
      await until('two agents online again', async () =>
        (await call(service, 'GET', `/locations/${location}`, { key: service.key })).body.data.attributes.agents_online === 2, 30_000);
    });

    if (once) test('SIGTERM of the agent running a test hands it back: the other agent completes it, no attempt lost', async () => {
      const path = `/?remote-sigterm-${engine}`;
      const res = await post(site.url(path), location);
      assert.equal(res.status, 202, res.text);
      const id = res.body.data.id as string;
      await until('the page requested', async () => site.requests.some((r) => r.path === path));
      const runner = await runningAgent(id);
      runner.proc.kill('SIGTERM');
      assert.equal(await runner.exited, 0);
      assert.match(runner.output(), /test handed back to the queue \(stopping\)/);
      const done = await waitForTest(service, service.key, id, 120_000);
      assert.equal(done.status, 303, done.text);
      assert.equal(site.requests.filter((r) => r.path === path).length, 2);
      // Handed back, not timed out: the second claim is the test's first counted attempt.
      const store = await openStore({ dataDir, databaseUrl: pgdb?.url });
      try {
        const row = await store.db.selectFrom('tests').select('attempts').where('id', '=', id).executeTakeFirstOrThrow();
        assert.equal(row.attempts, 1);
      } finally {
        await store.close();
      }
      agents.splice(agents.indexOf(runner), 1, startAgent(server, token, join(scratch, 'agent-3')));
    });

    // The restart (4-5 s) outlasts the 3 s lease: the agent's result is refused as late ("lease lost") and the test,
    // requeued, is loaded again. What this proves is that the test completes, not that the first agent finishes it.
    test('kill -9 and restart of the service mid-test: the test still completes (an HTTPS site of the agents\' CA)', async () => {
      const path = `/?remote-kill-server-${engine}`;
      const id = await startedTest(path, `https://127.0.0.1:${site.securePort}${path}`);
      const runner = await runningAgent(id);
      await until('the page requested', async () => site.requests.some((r) => r.path === path));
      const key = service.key;
      const seen = runner.output().length;
      service.proc.kill('SIGKILL');
      await new Promise((resolve) => (service.proc.exitCode !== null || service.proc.signalCode !== null ? resolve(null) : service.proc.once('exit', resolve)));
      // The service comes back once the agent running the test has found it gone (a renewal of its lease failed).
      await until('the agent finding the service gone', async () => runner.output().slice(seen).includes('lease renewal failed'), 10_000);
      service = await startChildService(dataDir, serviceEnv(), key);
      const done = await waitForTest(service, key, id, 120_000);
      assert.equal(done.status, 303, done.text);
      const report = await call(service, 'GET', `/reports/${id}`, { key });
      assert.equal(report.status, 200, report.text);
      assert.ok(site.requests.filter((r) => r.path === path).length >= 1);
      const har = await call(service, 'GET', `/reports/${id}/resources/net.har`, { key });
      const doc = har.body.log.entries.find((e: { request: { url: string } }) => e.request.url.endsWith(path));
      assert.ok(doc.timings.ssl > 0, 'loaded over TLS, the certificate accepted');
    });

    test('a location without agents: its test ends in error after the queue timeout, credits refunded', async () => {
      const added = await cli(['location', 'add', '--name', 'Empty room', '--region', 'Nowhere'], storeEnv);
      assert.equal(added.code, 0, added.out);
      const empty = added.lastLine;
      // The service sees a new location within a second.
      await until('the location listed', async () => (await call(service, 'GET', `/locations/${empty}`, { key: service.key })).status === 200, 10_000);
      const credits = async () => (await call(service, 'GET', '/status', { key: service.key })).body.data.attributes.api_credits as number;
      const before = await credits();
      const res = await post(site.url('/?nobody'), empty, service.key, 'lighthouse'); // never loaded: a test's price, 1 credit
      assert.equal(res.status, 202, res.text);
      assert.equal(await credits(), before - 1);
      const done = await waitForTest(service, service.key, res.body.data.id, 30_000);
      assert.equal(done.body.data.attributes.state, 'error');
      assert.match(done.body.data.attributes.error, /No agent of location "Empty room" \(ID \d+\) was online/);
      assert.equal(await credits(), before);
      // Refused while tests wait there; removed once none does.
      const removed = await cli(['location', 'remove', empty], storeEnv);
      assert.equal(removed.code, 0, removed.out);
      const gone = await until('the location gone', async () => {
        const r = await call(service, 'GET', `/locations/${empty}`, { key: service.key });
        return r.status === 404 && r;
      }, 10_000);
      assert.equal(gone.body.errors[0].code, 'E40404');
    });

    test('GET /metrics: Prometheus text behind the bearer token, with the queue, the agents and the finished tests', async () => {
      const metrics = (token?: string) => fetch(`${server}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      assert.equal((await metrics()).status, 401);
      assert.equal((await metrics('wrong-token-of-the-same-size-012')).status, 401);
      const value = (text: string, series: string) => {
        const line = text.split('\n').find((l) => l.startsWith(series + ' '));
        return line === undefined ? undefined : Number(line.slice(series.length + 1));
      };
      // The test that timed out was followed up (and counted) by this node, which restarted before it.
      const text = await until('the finished test counted', async () => {
        const t = await (await metrics(METRICS_TOKEN)).text();
        return (value(t, `webgauge_test_duration_seconds_count{location="${location}"}`) ?? 0) >= 1 && t;
      }, 15_000);
      assert.equal(value(text, `webgauge_agents_online{location="${location}"}`), 2);
      assert.equal(value(text, 'webgauge_agents_online{location="1"}'), 0);
      assert.equal(value(text, `webgauge_tests_queued{location="${location}"}`), 0);
      assert.ok((value(text, `webgauge_tests_total{location="${location}",state="completed"}`) ?? 0) >= 1, text);
      assert.match(text, /webgauge_http_request_duration_seconds_count\{method="GET",route="\/api\/2\.0\/tests\/:id",status_code="\d+"\} \d+/);
    });

    // The agent refuses to start before it reaches any service: once, on the first engine.
    if (once) test('an agent whose CA file cannot be read does not start: exit 2 naming the variable', async () => {
      const bad = startAgent(server, token, join(scratch, 'bad-ca'), { WEBGAUGE_EXTRA_CA_CERTS: join(scratch, 'no-such.pem') });
      assert.equal(await exitOf(bad), 2);
      assert.match(bad.output(), /WEBGAUGE_EXTRA_CA_CERTS: cannot read the file .*no-such\.pem \(ENOENT\)/);
    });

    if (once) test('a wrong or revoked token stops an agent at once, non-zero, saying why', async () => {
      const wrong = startAgent(server, 'wgat_not-a-token', join(scratch, 'wrong'));
      const wrongExit = exitOf(wrong); // 20 s from its start
      // Meanwhile the operator makes a token and revokes it.
      const made = await cli(['agent', 'token', 'create', '--location', location], storeEnv);
      const tokenId = /agent token (\S+) for location/.exec(made.out)![1]!;
      const revoked = await cli(['agent', 'token', 'revoke', tokenId], storeEnv);
      const code = await wrongExit;
      assert.notEqual(code, 0);
      assert.notEqual(code, 'still running');
      assert.match(wrong.output(), /agent token is wrong or revoked/);
      assert.equal(revoked.code, 0, revoked.out);
      const late = startAgent(server, made.lastLine, join(scratch, 'revoked'));
      const lateCode = await exitOf(late);
      assert.notEqual(lateCode, 0);
      assert.notEqual(lateCode, 'still running', 'an agent with a revoked token stops, as one with a wrong token');
      assert.match(late.output(), /wrong or revoked/);
    });

    if (engine === 'postgres') {
      test('two API nodes on one database and data folder: the agent talks to one, the report is read from the other', async () => {
        const path = '/?two-nodes';
        const res = await post(site.url(path), location);
        assert.equal(res.status, 202, res.text);
        // The second node starts while an agent of the first loads the page.
        const second = await startChildService(dataDir, { ...serviceEnv(), WEBGAUGE_PORT: '0' }, service.key);
        try {
          const done = await waitForTest(second, service.key, res.body.data.id, 120_000);
          assert.equal(done.status, 303, done.text);
          const report = await call(second, 'GET', `/reports/${res.body.data.id}`, { key: service.key });
          assert.equal(report.status, 200, report.text);
          const har = await call(second, 'GET', `/reports/${res.body.data.id}/resources/net.har`, { key: service.key });
          assert.equal(har.status, 200);
          assert.ok(har.body.log.entries.some((e: { request: { url: string } }) => e.request.url === site.url(path)));
        } finally {
          await second.stop();
        }
      });
    }
  });
}
