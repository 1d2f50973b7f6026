/**
 * `npm run bench -- stability`: how much the report's figures move when the page did not change. The jittery
 * fixture page (test/fixtures/site/jittery.ts: log-normal server delays with a 30 % coefficient of variation and
 * a CPU-heavy script) is tested BENCH_TESTS times (10) with runs=1 and as many with runs=5, interleaved, once on
 * an idle machine and once with a CPU hog busy on the other core; for each of the four cells the standard
 * deviation of the report's performance score, LCP and TBT over its tests, and the loads the run guard discarded.
 *
 * First, grade and structure of an unchanged page: the fixture's image defect page (a 1920×1080 JPEG shown at 960×540,
 * Lighthouse's "Improve image delivery" fails on it; test/fixtures/site/defects.ts) retested BENCH_RETESTS times (10),
 * runs=1, served from a process of its own on 127.0.0.2 (Lighthouse's insights pass over localhost): each retest's
 * grade, structure score and the image insight's score, byte savings and LCP saving (as Lighthouse estimated it).
 *
 *   BENCH_TESTS=10 BENCH_SEED=1 npm run bench -- stability
 *   BENCH_PART=structure npm run bench -- stability    # the grade and structure part only (~4 min)
 *   BENCH_PART=figures npm run bench -- stability      # the figures part only (~30 min)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, sampleStdev } from '../src/analysis/statistics.js';
import { defectPath } from '../test/fixtures/site/defects.js';
import { startFixtureSiteProcess } from '../test/fixtures/site/process.js';
import { startFixtureSite } from '../test/fixtures/site/server.js';
import { call, startServer, waitForTest, type TestServer } from '../test/helpers/server.js';

const TESTS = Number(process.env.BENCH_TESTS ?? 10);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const RUNS = [1, 5] as const;
const RETESTS = Number(process.env.BENCH_RETESTS ?? 10);
const PART = process.env.BENCH_PART ?? 'all';
const HOST = 'defects.test';
const INSIGHT = 'image-delivery-insight';

interface Retest { audits: Record<string, number | null>; grade: string; service: number; structure: number; insight: number | null; bytes?: number; lcpSaving?: number; performance: number }

/** Grade and structure of an unchanged page over RETESTS retests: do they move with nothing changed? */
async function structurePart(): Promise<void> {
  const site = await startFixtureSiteProcess({ host: '127.0.0.2' });
  const server = await startServer({ engine: 'sqlite', agentSlots: 1 });
  const url = `http://${HOST}:${site.port}${defectPath('image')}`;
  const rows: Retest[] = [];
  const started = Date.now();
  try {
    await fetch(`${site.origin}${defectPath('clean')}`); // its images are made on the first request
    const key = await server.account({ plan: 'pro' });
    for (let i = 0; i < RETESTS; i++) {
      const res = await call(server, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url, dns: [`${HOST}:127.0.0.2`] } } } });
      if (res.status !== 202) throw new Error(`POST /tests: ${res.status} ${res.text}`);
      const id = res.body.data.id as string;
      const done = await waitForTest(server, key, id, 600_000);
      if (done.status !== 303) throw new Error(`test ${id} did not complete: ${done.text}`);
      const a = (await call(server, 'GET', `/reports/${id}`, { key })).body.data.attributes;
      const structure = (await call(server, 'GET', `/reports/${id}/resources/structure.json`, { key })).body as
        { audits: { id: string; score: number | null; savings?: { bytes?: number; metrics?: Record<string, number> } }[] };
      const insight = structure.audits.find((x) => x.id === INSIGHT);
      const row: Retest = { audits: Object.fromEntries(structure.audits.map((x) => [x.id, x.score])), grade: a.service_grade, service: a.service_score, structure: a.structure_score, performance: a.performance_score,
        insight: insight?.score ?? null, bytes: insight?.savings?.bytes, lcpSaving: insight?.savings?.metrics?.LCP };
      rows.push(row);
      console.log(`retest ${i + 1}: grade ${row.grade} ${row.service} %, structure ${row.structure} %, performance ${row.performance}, ` +
        `${INSIGHT} ${row.insight} (${row.bytes ?? 0} bytes, LCP saving ${row.lcpSaving ?? '–'} ms)`);
    }
  } finally {
    await server.close();
    await site.close();
  }
  const range = (xs: number[]) => `${Math.min(...xs)}–${Math.max(...xs)}`;
  console.log(`\n${defectPath('image')} retested ${RETESTS} times, runs=1, 1 agent slot, ${availableParallelism()} cores, ` +
    `${Math.round((Date.now() - started) / 60_000)} min\n`);
  console.log(`| retest | grade | grade % | structure % | performance | ${INSIGHT} | its byte savings | its LCP saving (ms) |`);
  console.log('|---|---|---|---|---|---|---|---|');
  rows.forEach((r, i) => console.log(`| ${i + 1} | ${r.grade} | ${r.service} | ${r.structure} | ${r.performance} | ${r.insight} | ` +
    `${r.bytes ?? '–'} | ${r.lcpSaving ?? '–'} |`));
  console.log(`| range | ${[...new Set(rows.map((r) => r.grade))].join(', ')} | ${range(rows.map((r) => r.service))} | ` +
    `${range(rows.map((r) => r.structure))} | ${range(rows.map((r) => r.performance))} | ${[...new Set(rows.map((r) => r.insight))].join(', ')} | | |`);
  const moved = Object.keys(rows[0]?.audits ?? {}).filter((id) => new Set(rows.map((r) => r.audits[id])).size > 1);
  console.log(`\nStructure audits whose score moved: ${moved.length ? moved.map((id) => `${id} (${rows.map((r) => r.audits[id]).join(', ')})`).join('; ') : 'none'}`);
}

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
  if (PART !== 'figures') await structurePart();
  if (PART !== 'structure') await figuresPart();
}

async function figuresPart() {
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
