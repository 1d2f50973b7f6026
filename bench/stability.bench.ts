/**
 * `npm run bench -- stability`: how much the report's figures move when the page did not change. The jittery
 * fixture page (test/fixtures/site/jittery.ts: log-normal server delays with a 30 % coefficient of variation and
 * a CPU-heavy script) is tested BENCH_TESTS times (10) with runs=1 and as many with runs=5, interleaved, once on
 * an idle machine and once with a CPU hog busy on the other core; for each of the four cells the standard
 * deviation of the report's performance score, LCP and TBT over its tests, and the loads the run guard discarded.
 *
 *   BENCH_TESTS=10 BENCH_SEED=1 npm run bench -- stability
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, sampleStdev } from '../src/analysis/statistics.js';
import { startFixtureSite } from '../test/fixtures/site/server.js';
import { call, startServer, waitForTest, type TestServer } from '../test/helpers/server.js';

const TESTS = Number(process.env.BENCH_TESTS ?? 10);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const RUNS = [1, 5] as const;

interface Outcome { performance: number; lcp: number; tbt: number; loads: number; discarded: number }
interface Cell { hog: boolean; runs: number; outcomes: Outcome[] }

async function testOnce(server: TestServer, key: string, url: string, runs: number): Promise<Outcome> {
  const res = await call(server, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url, runs } } } });
  if (res.status !== 202) throw new Error(`POST /tests: ${res.status} ${res.text}`);
  const id = res.body.data.id as string;
  const done = await waitForTest(server, key, id, 600_000);
  if (done.status !== 303) throw new Error(`test ${id} did not complete: ${done.text}`);
  const report = await call(server, 'GET', `/reports/${id}`, { key });
  const a = report.body.data.attributes;
  const file = await call(server, 'GET', `/reports/${id}/resources/runs.json`, { key });
  // A single-run test has runs.json only when the guard discarded a load.
  const loads: { discarded: boolean }[] = file.status === 200 ? file.body.runs : [{ discarded: false }];
  return { performance: a.performance_score, lcp: a.largest_contentful_paint, tbt: a.total_blocking_time,
    loads: loads.length, discarded: loads.filter((r) => r.discarded).length };
}

/** One busy loop pinned to the last core (the browser and Lighthouse get the others, or share it). */
function startHog(): ChildProcess {
  const core = String(availableParallelism() - 1);
  return spawn('taskset', ['-c', core, process.execPath, '-e', 'for(;;){}'], { stdio: 'ignore' });
}

const sd = (xs: number[]) => (xs.length > 1 ? sampleStdev(xs) : 0);
const fmt = (x: number, digits = 1) => x.toFixed(digits);

async function main() {
  const site = await startFixtureSite({ jitterSeed: SEED });
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-stability-'));
  const plans = join(dir, 'plans.json');
  await writeFile(plans, JSON.stringify({ bench: { extends: 'pro', unlimited_credits: true } }));
  const server = await startServer({ engine: 'sqlite', agentSlots: 1, runGuard: true, env: { WEBGAUGE_PLANS_FILE: plans } });
  const key = await server.account({ plan: 'bench' });
  const url = site.url('/jittery');
  const cells: Cell[] = [];
  const started = Date.now();
  try {
    await testOnce(server, key, url, 1); // warm-up: disk caches, the guard's baseline
    for (const hog of [false, true]) {
      const byRuns = new Map<number, Cell>(RUNS.map((runs) => [runs, { hog, runs, outcomes: [] }]));
      cells.push(...byRuns.values());
      const hogProcess = hog ? startHog() : undefined;
      try {
        for (let i = 0; i < TESTS; i++) {
          for (const runs of RUNS) {
            const o = await testOnce(server, key, url, runs);
            byRuns.get(runs)!.outcomes.push(o);
            console.log(`${hog ? 'hog ' : 'idle'} runs=${runs} #${i + 1}: performance ${o.performance}, LCP ${o.lcp} ms, ` +
              `TBT ${o.tbt} ms, ${o.loads} loads, ${o.discarded} discarded`);
          }
        }
      } finally {
        hogProcess?.kill('SIGKILL');
      }
    }
  } finally {
    await server.close();
    await site.close();
    await rm(dir, { recursive: true, force: true });
  }

  console.log(`\n/jittery (seed ${SEED}), ${TESTS} tests per cell, interleaved runs=1/runs=5, 1 agent slot, run guard on, ` +
    `${availableParallelism()} cores, ${Math.round((Date.now() - started) / 60_000)} min\n`);
  console.log('| host | runs | σ performance | σ LCP (ms) | σ TBT (ms) | median performance | median LCP | median TBT | loads | discarded |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const c of cells) {
    const col = (k: 'performance' | 'lcp' | 'tbt') => c.outcomes.map((o) => o[k]);
    const loads = c.outcomes.reduce((s, o) => s + o.loads, 0);
    const discarded = c.outcomes.reduce((s, o) => s + o.discarded, 0);
    console.log(`| ${c.hog ? 'CPU hog on core ' + (availableParallelism() - 1) : 'idle'} | ${c.runs} | ${fmt(sd(col('performance')))} | ` +
      `${fmt(sd(col('lcp')), 0)} | ${fmt(sd(col('tbt')), 0)} | ${median(col('performance'))} | ${median(col('lcp'))} | ` +
      `${median(col('tbt'))} | ${loads} | ${discarded} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
