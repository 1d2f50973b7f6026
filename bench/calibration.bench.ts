/**
 * `npm run bench -- calibration`: the agent's CPU calibration of the phone device classes (runner/cpu-calibration.ts)
 * as it runs in a browser launched ahead (runner/launch-ahead.ts), on this host:
 * - BENCH_RUNS calibrations (default 5): how long each took, its benchmark runs, the host's benchmark, and per target
 *   the rate and the benchmark measured under it (the goal: within ±5 % of the target, at most 5 s of benchmark);
 * - how long a load that wants the browser waits when it comes in the middle of a calibration, against the floor
 *   measured in the same sitting: one benchmark run (the bound: a queued test waits at most one run).
 */
import { performance } from 'node:perf_hooks';
import { LaunchAhead } from '../src/runner/launch-ahead.js';
import { pageFunctions } from 'lighthouse/core/lib/page-functions.js';
import { CPU_TARGETS } from '../src/core/vocabulary/device-classes.js';
import { defaultSandbox } from '../src/runner/browser.js';
import { CHROME, ALLOW_ALL } from '../test/helpers/run-spec.js';
import { median } from '../src/analysis/statistics.js';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const targets = CPU_TARGETS.map((t) => t.target);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const ahead = new LaunchAhead({ chromePath: CHROME, sandbox: defaultSandbox(), protocolTimeoutMs: 60_000, policy: ALLOW_ALL });
  try {
    console.log('calibration | ms | host benchmark | per target: rate → measured (off the target by)');
    const times: number[] = [];
    for (let i = 1; i <= runs; i++) {
      const t0 = performance.now();
      const c = await ahead.calibrate(targets, undefined);
      const ms = Math.round(performance.now() - t0);
      times.push(ms);
      if (!c) throw new Error('a calibration failed');
      const per = c.settings.map((s) => `${s.target}: ${s.rate}× → ${Math.round(s.measured)} (${((s.measured / s.target - 1) * 100).toFixed(1)} %)`);
      console.log(`${i} | ${ms} | ${Math.round(c.hostIndex)} | ${per.join(' · ')}`);
    }
    console.log(`median calibration ${median(times)} ms (the host's reading included; the agent gives it its latest reading)`);

    // The floor: one benchmark run, in the same browser, now.
    const ready = (await ahead.ready())!;
    const page = (await ready.browser.pages())[0]!;
    const oneRun: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      await page.evaluate(pageFunctions.computeBenchmarkIndex);
      oneRun.push(performance.now() - t0);
    }
    const floor = median(oneRun);

    // A load comes while a calibration runs: how long take() waits.
    const waits: number[] = [];
    for (let i = 0; i < runs; i++) {
      const calibrating = ahead.calibrate(targets, undefined);
      await sleep(700 + 300 * i); // somewhere within the calibration's runs
      const t0 = performance.now();
      const taken = await ahead.take();
      waits.push(performance.now() - t0);
      await calibrating;
      ahead.retire(taken);
      await ahead.quiet();
      ahead.prepare();
    }
    const worst = Math.max(...waits);
    console.log(`a load that wants the browser mid-calibration waits: median ${Math.round(median(waits))} ms, worst ${Math.round(worst)} ms; ` +
      `one benchmark run (floor) ${Math.round(floor)} ms: worst/floor ${(worst / floor).toFixed(2)} (goal ≤ 1.0 plus the protocol's round trip)`);
  } finally {
    await ahead.close();
  }
}

await main();
