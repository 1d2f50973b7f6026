/**
 * `npm run bench -- queue`: the queue between the service and remote agents, over HTTP, on SQLite and PostgreSQL
 * (when WEBGAUGE_TEST_PG_URL is set). Agents are real `webgauge agent` code whose runner returns at once
 * (bench/lib/stub-agent.ts), so what is measured is the queue: claim, lease, result upload, completion.
 * - claim latency of an idle agent: from POST /tests answered to the test in the agent's runner (20 tests, one by one);
 * - throughput: BENCH_TESTS (400) tests queued at once (moved into the location in one statement), 20 agent
 *   processes: tests claimed per second, and completed (each completion uploads a result bundle and writes a report).
 * Beside it, the floor: a bare Fastify route answering a small JSON body, requests per second with 20 clients.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { addLocation, createAgentToken } from '../src/core/catalog/locations.js';
import { call, engines, startServer, type TestServer } from '../test/helpers/server.js';

const TESTS = Number(process.env.BENCH_TESTS ?? 400);
const AGENTS = 20;

interface StubAgent { proc: ChildProcess; claims: { id: string; at: number }[] }

function startStub(server: string, token: string): StubAgent {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/stub-agent.ts', server, token], {
    env: { ...process.env, WEBGAUGE_LOG_LEVEL: 'warn', WEBGAUGE_DATA_DIR: tmpdir() }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const a: StubAgent = { proc, claims: [] };
  let buf = '';
  proc.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const m = /^claimed (\S+) (\d+)$/.exec(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (m) a.claims.push({ id: m[1]!, at: Number(m[2]) });
    }
  });
  return a;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function until(ok: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(20);
  }
}

async function bareFastifyFloor(): Promise<number> {
  const app = Fastify();
  app.post('/claim', async () => ({ test_id: 'x', options: { url: 'https://example.com/' } }));
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  let n = 0;
  const until = Date.now() + 3000;
  await Promise.all(Array.from({ length: AGENTS }, async () => {
    while (Date.now() < until) {
      const r = await fetch(`${base}/claim`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      await r.text();
      n++;
    }
  }));
  await app.close();
  return n / 3;
}

async function benchEngine(engine: 'sqlite' | 'postgres', plans: string) {
  const server: TestServer = await startServer({ engine, agentSlots: 0, env: { WEBGAUGE_PLANS_FILE: plans, WEBGAUGE_AGENT_HEARTBEAT_MS: '1000' } });
  const key = await server.account({ plan: 'bench' });
  const loc = await addLocation(server.app.store, { name: 'Bench', region: 'Here' });
  const { token } = await createAgentToken(server.app.store, loc.id);
  const agents: StubAgent[] = [];
  const post = async (location = loc.id) => {
    const res = await call(server, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: 'http://127.0.0.1:9/', location, report: 'none' } } } });
    if (res.status !== 202) throw new Error(`POST /tests: ${res.status} ${res.text}`);
    return { id: res.body.data.id as string, at: Date.now() };
  };
  const online = async (n: number) => ((await call(server, 'GET', `/locations/${loc.id}`, { key })).body?.data?.attributes?.agents_online ?? 0) >= n;
  try {
    // Claim latency: one idle agent, one test at a time.
    agents.push(startStub(server.base, token));
    await until(() => online(1), 60_000, 'the agent online');
    const latencies: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t = await post();
      await until(() => agents[0]!.claims.some((c) => c.id === t.id), 10_000, 'the claim');
      if (i > 0) latencies.push(agents[0]!.claims.find((c) => c.id === t.id)!.at - t.at);
      await sleep(300); // the agent is idle again, waiting in its claim
    }
    // Throughput: AGENTS agents, TESTS tests queued at once.
    for (let i = 1; i < AGENTS; i++) agents.push(startStub(server.base, token));
    await until(() => online(AGENTS), 60_000, 'all agents online');
    const claimsBefore = agents.reduce((s, a) => s + a.claims.length, 0);
    // The tests are queued first at a location no agent serves, then moved to the agents' location in one
    // statement: the queue then holds them all at once, and what is timed is claiming and completing alone.
    const parking = await addLocation(server.app.store, { name: 'Parking', region: 'Here' });
    await sleep(1100); // the directory sees the new location
    const ids: string[] = [];
    const tPost = Date.now();
    await Promise.all(Array.from({ length: 8 }, async () => { while (ids.length < TESTS) ids.push((await post(parking.id)).id); }));
    const postMs = Date.now() - tPost;
    const db = server.app.store.db;
    const t0 = Date.now();
    await db.updateTable('tests').set({ location: loc.id }).where('location', '=', parking.id).execute();
    const claimedCount = () => agents.reduce((s, a) => s + a.claims.length, 0) - claimsBefore;
    await until(() => claimedCount() >= ids.length, 300_000, 'every test claimed');
    const claimedAll = Date.now();
    const completed = async () => Number((await db.selectFrom('tests').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '=', 'completed').where('id', 'in', ids).executeTakeFirstOrThrow()).n);
    await until(async () => (await completed()) >= ids.length, 300_000, 'every test completed');
    const completedAll = Date.now();
    return {
      engine, latency: { p50: pct(latencies, 50), p95: pct(latencies, 95), max: Math.max(...latencies) },
      tests: ids.length, postMs, claimsPerSecond: ids.length / ((claimedAll - t0) / 1000), completedPerSecond: ids.length / ((completedAll - t0) / 1000),
    };
  } finally {
    for (const a of agents) a.proc.kill('SIGKILL');
    await server.close();
  }
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-queue-'));
  const plans = join(dir, 'plans.json');
  await writeFile(plans, JSON.stringify({ bench: { extends: 'pro', unlimited_credits: true, concurrent_tests: 100000, rate_limit: 10000 } }));
  const rows = [];
  try {
    for (const engine of engines()) rows.push(await benchEngine(engine, plans));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const floor = await bareFastifyFloor();
  console.log(`\nqueue over HTTP, ${AGENTS} stub agents (runner returns at once), ${TESTS} tests queued at once\n`);
  console.log('| engine | idle claim latency p50 / p95 / max (ms) | claims per s | completions per s | POST /tests of the 400 (ms) |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.engine} | ${r.latency.p50} / ${r.latency.p95} / ${r.latency.max} | ${r.claimsPerSecond.toFixed(0)} | ${r.completedPerSecond.toFixed(0)} | ${r.postMs} |`);
  }
  console.log(`\nfloor: a bare Fastify route answering a claim-sized JSON body to ${AGENTS} clients: ${floor.toFixed(0)} requests per s`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
