// lane: alone
/**
 * Several runs per test, through the HTTP API with real Chromium loads of the fixture page and the run guard
 * on: runs=3 is three real loads (the fixture site counts them), the report is the median run of runs.json,
 * meta.runs gives the spread, credits are three times the test's; on SQLite also a load made while CPU hogs
 * keep the host busy is discarded and the page loaded again. The retest of the runs=3 report is about the runs
 * it repeats, not the page: its loads are stub results (test/helpers/stub-result.ts), counted.
 * The pages are loaded for real on the first engine, where the fixture site counts the loads; the second engine's
 * agent is handed those same results in the same order (test/helpers/replayed-loads.ts), its run guard judging them
 * by the host measurements they carry, so runs.json, the median report, meta.runs and the credits are checked on
 * each engine against real loads.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';
import { call, engines, errorOf, startServer, waitForTest, type Res, type TestServer } from '../helpers/server.js';
import { medianOf } from '../../src/report/page.js';
import { stubResult } from '../helpers/stub-result.js';
import { replayedLoads } from '../helpers/replayed-loads.js';
import type { RunSpec } from '../../src/runner/types.js';

const credits = async (server: TestServer, key: string) =>
  (await call(server, 'GET', '/status', { key })).body.data.attributes.api_credits as number;
const loadsOf = (site: FixtureSite, path: string) => site.requests.filter((r) => r.path === path).length;

interface RunEntry { run: number; discarded: boolean; discard_reason: string | null; benchmark_index: number | null;
  [attribute: string]: unknown }

async function runsOf(server: TestServer, id: string): Promise<{ count: number; median_run: number; runs: RunEntry[] }> {
  const res = await call(server, 'GET', `/reports/${id}/resources/runs.json`, { key: server.key });
  assert.equal(res.status, 200, res.text);
  return { ...res.body, runs: res.body.runs.map((r: { attributes: object }) => ({ ...r, ...r.attributes })) };
}

/** One fixture site for both engines: the second engine's replayed loads are of its URLs. */
let site: FixtureSite;
const loads = replayedLoads();
before(async () => {
  site = await startFixtureSite();
});
after(async () => {
  await site?.close();
  process.stderr.write(`[runs] page loads: ${loads.counts.real} real, ${loads.counts.replayed} replayed\n`);
});

for (const engine of engines()) {
  describe(`runs per test (${engine})`, () => {
    let server: TestServer;
    let started: Res;
    let report: Res;
    let creditsBefore: number;
    const path = '/?runs';
    /** Whether this engine's agent loads the pages itself (else it is handed the first engine's results). */
    const loadsPages = loads.loadsOn(engine);
    /** URLs whose loads are stub results from now on, and the stub loads made, by test. */
    const stubbed = new Set<string>();
    const stubLoads = new Map<string, number>();
    const load = loads.runFor(engine);
    const run = async (spec: RunSpec) => {
      if (!stubbed.has(spec.options.url)) return load(spec);
      stubLoads.set(spec.testId, (stubLoads.get(spec.testId) ?? 0) + 1);
      return stubResult(spec.options.url);
    };

    before(async () => {
      // The real runner, with the browsers launched ahead as without the wrapper (where it loads pages).
      server = await startServer({ engine, agentSlots: 1, runGuard: true, overrides: { run, launchAhead: loadsPages } });
      creditsBefore = await credits(server, server.key);
      started = await call(server, 'POST', '/tests', { key: server.key,
        body: { data: { type: 'test', attributes: { url: site.url(path), runs: 3 } } } });
      assert.equal(started.status, 202, started.text);
      const done = await waitForTest(server, server.key, started.body.data.id, 180_000);
      assert.equal(done.status, 303, done.text);
      report = await call(server, 'GET', `/reports/${started.body.data.id}`, { key: server.key });
      assert.equal(report.status, 200, report.text);
    });
    after(async () => {
      await server?.close();
    });

    it('costs three times the test\'s credits', async () => {
      assert.equal(started.body.meta.credits_used, 3);
      assert.equal(await credits(server, server.key), creditsBefore - 3);
    });

    it('loads the page three times (more only for loads the guard discarded), each a real load', async () => {
      const file = await runsOf(server, report.body.data.id);
      const kept = file.runs.filter((r) => !r.discarded);
      // Where the pages are loaded (the first engine; the next is handed those loads): the site saw each of them.
      if (loadsPages) assert.equal(loadsOf(site, path), file.runs.length, 'the fixture site saw one request of the page per load');
      // Three kept loads, after at most two extra ones for loads the guard discarded (a busy machine can cause them).
      const why = JSON.stringify(file.runs.map((r) => r.discard_reason));
      assert.ok(file.runs.length >= 3 && file.runs.length <= 5, why);
      if (file.runs.length < 5) assert.equal(kept.length, 3, why);
      assert.equal(file.count, kept.length || file.runs.length);
      for (const r of file.runs) {
        assert.ok(typeof r.benchmark_index === 'number' && r.benchmark_index > 0, `benchmark index of run ${r.run}`);
        assert.ok(typeof r.performance_score === 'number' && typeof r.largest_contentful_paint === 'number');
        assert.equal(r.discarded, r.discard_reason !== null);
      }
    });

    it('the report is the median run: every figure of one load, its Lighthouse JSON too', async () => {
      const file = await runsOf(server, report.body.data.id);
      const median = file.runs.find((r) => r.run === file.median_run)!;
      assert.ok(median && !median.discarded);
      const a = report.body.data.attributes;
      for (const [k, v] of Object.entries(median.attributes as Record<string, number>)) assert.equal(a[k], v, k);
      const meta = report.body.data.meta.runs;
      assert.equal(meta.count, file.count);
      assert.equal(meta.median_run, file.median_run);
      assert.equal(meta.discarded, file.runs.filter((r) => r.discarded).length);
      // An odd number of runs: the chosen run's score is the median score (analysis/median-run.ts).
      if (meta.count % 2 === 1) assert.equal(a.performance_score, meta.spread.performance_score.median);
      for (const m of ['performance_score', 'largest_contentful_paint', 'total_blocking_time', 'first_contentful_paint', 'page_bytes']) {
        const s = meta.spread[m];
        assert.ok(s.min <= s.median && s.median <= s.max && s.stdev >= 0, `${m}: ${JSON.stringify(s)}`);
      }
      const lhr = await call(server, 'GET', `/reports/${report.body.data.id}/resources/lighthouse.json`, { key: server.key });
      assert.equal(Math.round(lhr.body.categories.performance.score * 100), a.performance_score);
      assert.equal(lhr.body.environment.benchmarkIndex, median.benchmark_index, 'the benchmark index of the median load');
      assert.equal(report.body.data.links.runs, `${server.api}/reports/${report.body.data.id}/resources/runs.json`);
      const options = await call(server, 'GET', `/reports/${report.body.data.id}/resources/analysis-options`, { key: server.key });
      assert.equal(options.body.runs, 3);
      // The report page says so, with the spread of the figures.
      const page = await fetch(report.body.data.links.report_url as string);
      const html = await page.text();
      // "median of 3 runs"; on a busy machine that left fewer kept, "median of 2 runs (3 runs asked)" (report/page.ts medianOf).
      const said = medianOf(meta, 3).replace(/[()]/g, '\\$&');
      assert.match(html, new RegExp(`<b>${said}</b>`));
      assert.match(html, new RegExp(`<h2>Runs <small>${said}: every figure above is run ${meta.median_run}'s`));
      assert.match(html, /<td>Performance<\/td><td>\d+%<\/td>/);
    });

    it('a retest repeats the runs; a single-run report has no runs.json', async () => {
      // The page's three real loads were checked above; the retest's three are stub results.
      stubbed.add(site.url(path));
      const pageLoads = loadsOf(site, path);
      const retest = await call(server, 'POST', `/reports/${report.body.data.id}/retest`, { key: server.key });
      assert.equal(retest.status, 202, retest.text);
      assert.equal(retest.body.meta.credits_used, 3);
      const one = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: { url: site.url('/gallery'), report: 'none' } } } });
      assert.equal(one.body.meta.credits_used, 0.6);
      const retested = await waitForTest(server, server.key, retest.body.data.id, 180_000);
      assert.equal(retested.status, 303);
      assert.equal(stubLoads.get(retest.body.data.id), 3, 'the retest loaded the page three times');
      assert.equal(loadsOf(site, path), pageLoads, 'with stub results');
      const again = await runsOf(server, retested.body.data.attributes.report);
      assert.deepEqual({ count: again.count, runs: again.runs.length }, { count: 3, runs: 3 });
      assert.equal((await waitForTest(server, server.key, one.body.data.id, 180_000)).status, 303);
      const single = await call(server, 'GET', `/reports/${one.body.data.id}`, { key: server.key });
      const singleRuns = await call(server, 'GET', `/reports/${one.body.data.id}/resources/runs.json`, { key: server.key });
      if (single.body.data.meta === undefined) {
        assert.equal(single.body.data.links.runs, undefined);
        assert.equal(singleRuns.status, 404);
      } else {
        // The guard discarded a load (a busy machine): runs.json then lists the loads, one of them kept; or, on a machine
        // busy for all of them, none kept, and the report is the median of every load (what the report page must not call runs).
        const loadsMade = singleRuns.body.runs as { discarded: boolean }[];
        const keptLoads = loadsMade.filter((r) => !r.discarded).length;
        assert.equal(single.body.data.meta.runs.count, keptLoads === 0 ? loadsMade.length : 1, singleRuns.text);
        assert.equal(loadsMade.length, single.body.data.meta.runs.discarded + keptLoads, singleRuns.text);
      }
      // A report of one load (written as completeTest writes it, so whatever the host did): no runs.json.
      const seeded = await seedPage(server.app.store, await accountIdOf(server.app.store, server.key));
      const plain = await call(server, 'GET', `/reports/${seeded.reportId}`, { key: server.key });
      assert.equal(plain.body.data.meta, undefined);
      assert.equal(plain.body.data.links.runs, undefined);
      const missing = await call(server, 'GET', `/reports/${seeded.reportId}/resources/runs.json`, { key: server.key });
      assert.equal(missing.status, 404);
      assert.equal(errorOf(missing).code, 'E40407');
      assert.match(errorOf(missing).detail ?? '', /loaded the page once/);
    });

    it('runs beyond the plan are refused with E40004 and change nothing', async () => {
      const basic = await server.account({ plan: 'basic' });
      const before = await credits(server, basic);
      for (const [key, runs, detail] of [[basic, 4, /basic plan allows 1 to 3/], [server.key, 10, /pro plan allows 1 to 9/], [basic, 0, /integer from 1/]] as const) {
        const res = await call(server, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: site.url('/'), runs } } } });
        assert.equal(res.status, 400, res.text);
        assert.equal(errorOf(res).code, 'E40004');
        assert.match(errorOf(res).detail ?? '', detail);
      }
      assert.equal(await credits(server, basic), before);
      assert.equal((await call(server, 'GET', '/tests', { key: basic })).body.data.length, 0);
    });

    if (engine === 'sqlite') {
      it('a load made while CPU hogs keep the host busy is discarded and the page loaded again', async () => {
        const hogPath = '/?contended';
        const hogs: ChildProcess[] = [];
        const stopHogs = () => { for (const h of hogs.splice(0)) h.kill('SIGKILL'); };
        // Busy on every core from before the first load until the second load asks for the page.
        for (let i = 0; i < 2; i++) hogs.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
        const watcher = setInterval(() => { if (loadsOf(site, hogPath) >= 2) stopHogs(); }, 10);
        try {
          const res = await call(server, 'POST', '/tests', { key: server.key,
            body: { data: { type: 'test', attributes: { url: site.url(hogPath), report: 'lighthouse' } } } });
          assert.equal(res.status, 202, res.text);
          assert.equal((await waitForTest(server, server.key, res.body.data.id, 180_000)).status, 303);
          const file = await runsOf(server, res.body.data.id);
          assert.ok(file.runs.length >= 2 && file.runs.length <= 3, `${file.runs.length} loads`);
          assert.equal(loadsOf(site, hogPath), file.runs.length);
          const first = file.runs[0]!;
          assert.ok(first.discarded, 'the first load ran on a busy host');
          assert.match(first.discard_reason ?? '', /the host was (busy: other processes used \d+\.\d+ CPU cores|slow: benchmark index)/);
          const last = file.runs.at(-1)!;
          assert.ok(!last.discarded, `the last load ran on a quiet host: ${last.discard_reason}`);
          assert.equal(file.median_run, last.run);
          const rep = await call(server, 'GET', `/reports/${res.body.data.id}`, { key: server.key });
          assert.deepEqual({ count: rep.body.data.meta.runs.count, discarded: rep.body.data.meta.runs.discarded }, { count: 1, discarded: file.runs.length - 1 });
          assert.equal(rep.body.data.attributes.largest_contentful_paint, last.largest_contentful_paint);
        } finally {
          clearInterval(watcher);
          stopHogs();
        }
      });
    }
  });
}
