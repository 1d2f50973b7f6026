/**
 * `npm run bench -- turnaround`: a test of the fixture page through the whole service as an operator runs it (the
 * run guard on, the connection guard enforcing a policy that allows only the fixture's address), from POST /tests to
 * the report being readable, beside a bare `lighthouse` CLI run of the same page in the same sitting, interleaved so
 * both see the same machine, and beside the page's own observation floor (from asking for the navigation to the end
 * of the load wait: what the page itself needs watched). From a fresh start of the service:
 * - the first test, and the next five (the first must take at most 1.2x their median, with no discarded load);
 * - tests of `runs=3`, per load;
 * - Chrome tests without Lighthouse (`report=none`, `legacy`), to an idle agent and back to back, each against its own
 *   observation floor (their load ends with the load wait: no TTI window; Lighthouse records the network only);
 * - the median time of each phase of a load;
 * - a mid-tier phone's test (device_class phone-mid: the agent's calibrated CPU rate, Lighthouse's mobile screen, the
 *   slow 4G link) against a desktop test, interleaved, each to an idle agent (3 s after the last) and each against
 *   its own observation floor: what a phone adds to the service's part of a test (its longer load is the page's on
 *   that phone, its floor). Goal: the phone's time ÷ its floor at most 1.15× the desktop's. BENCH_PHONE_RUNS (default
 *   BENCH_RUNS); 0: none.
 *
 *   BENCH_RUNS=5 npm run bench -- turnaround   (the tests after the first; runs=3 tests: BENCH_RUNS3, default 2)
 * BENCH_WITHOUT_LIGHTHOUSE=1: Chrome's tests without Lighthouse alone (no CLI, no Lighthouse tests).
 * Firefox (Desktop) tests first (bench/lib/firefox-turnaround.ts); BENCH_BROWSER=firefox or chrome runs one browser's.
 */
import { startFixtureSite } from '../test/fixtures/site/server.js';
import { startServer } from '../test/helpers/server.js';
import { median, timedTest, type Timed } from './lib/timed-test.js';
import { runTest } from '../src/runner/run.js';
import type { RunResult, RunSpec } from '../src/runner/types.js';
import { timeBareLighthouseCli } from './lighthouse-cli.js';
import { firefoxTurnaround } from './lib/firefox-turnaround.js';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const multiRunTests = Number(process.env.BENCH_RUNS3 ?? 2);
const phoneRuns = Number(process.env.BENCH_PHONE_RUNS ?? runs);
/** A phone test's time over its floor may be this much of a desktop test's. */
const PHONE_GOAL = 1.15;

async function main() {
  const site = await startFixtureSite();
  const url = site.url('/');
  // BENCH_BROWSER=firefox: the Firefox tests alone; otherwise Chrome's, then Firefox's (BENCH_FIREFOX_RUNS, default 3).
  if (process.env.BENCH_BROWSER !== 'chrome') {
    await firefoxTurnaround(url, Number(process.env.BENCH_FIREFOX_RUNS ?? 3));
    if (process.env.BENCH_BROWSER === 'firefox') return void (await site.close());
  }
  const phases: Record<string, number>[] = [];
  const run = async (spec: RunSpec): Promise<RunResult> => {
    const result = await runTest(spec);
    phases.push(result.phases);
    return result;
  };
  const withLighthouse = process.env.BENCH_WITHOUT_LIGHTHOUSE !== '1';
  // One warm-up of the bare CLI so it pays no first-run disk caching; the service gets none: its first test is measured.
  if (withLighthouse) await timeBareLighthouseCli(url);
  const server = await startServer({ engine: 'sqlite', agentSlots: 1, allowPrivateTargets: false, runGuard: true,
    env: { WEBGAUGE_ALLOW_TARGETS: '127.0.0.1' }, overrides: { run, launchAhead: true } });
  const single: Timed[] = [];
  const multi: Timed[] = [];
  const bare: number[] = [];
  /** Tests without Lighthouse: POST to report, and the observation floor of their one load. */
  const withoutLighthouse: { report: string; idle: boolean; ms: number; floor: number; total: number; reasons: string[] }[] = [];
  /** Where the loads of the tests without Lighthouse begin in `phases`, and where the phone's comparison's begin. */
  let withoutFrom = 0;
  let phoneFrom = 0;
  /** The phone's comparison: tests of each device, interleaved, to an idle agent. */
  const devices: { device: 'desktop' | 'phone-mid'; ms: number; floor: number; phases: Record<string, number>; reasons: string[] }[] = [];
  let first: Timed | undefined;
  try {
    if (withLighthouse) first = await timedTest(server, { url });
    for (let i = 0; i < runs && withLighthouse; i++) {
      single.push(await timedTest(server, { url }));
      bare.push(await timeBareLighthouseCli(url));
    }
    for (let i = 0; i < multiRunTests && withLighthouse; i++) {
      multi.push(await timedTest(server, { url, runs: 3 }));
      bare.push(await timeBareLighthouseCli(url));
    }
    withoutFrom = phases.length;
    for (const report of ['none', 'legacy']) {
      // To an idle agent (its browser launched ahead and ready), then back to back (the next browser's launch, ~1 s
      // here, is over only when the previous report is made, not during a load).
      for (const idle of [true, false]) {
        for (let i = 0; i < runs; i++) {
          if (idle) await new Promise((r) => setTimeout(r, 3000));
          const timed = await timedTest(server, { url, report });
          // The floor of the load the report is made of (the last: a load the run guard discarded comes before it).
          withoutLighthouse.push({ report, idle, ms: timed.ms, floor: phases.at(-1)?.observation ?? NaN,
            total: phases.at(-1)?.total ?? NaN, reasons: timed.reasons });
        }
      }
    }
    phoneFrom = phases.length;
    for (let i = 0; i < phoneRuns && withLighthouse; i++) {
      for (const device of ['desktop', 'phone-mid'] as const) {
        await new Promise((r) => setTimeout(r, 3000));
        const timed = await timedTest(server, device === 'desktop' ? { url } : { url, device_class: device });
        const load = phases.at(-1) ?? {};
        devices.push({ device, ms: timed.ms, floor: load.observation ?? NaN, phases: load, reasons: timed.reasons });
      }
    }
  } finally {
    await server.close();
    await site.close();
  }
  const lighthouseLoads = phases.slice(0, withoutFrom);
  if (first) {
    const observation = median(lighthouseLoads.map((p) => p.observation ?? NaN).filter(Number.isFinite));
    const cli = median(bare);
    const one = median(single.map((t) => t.ms));
    const perLoad = median(multi.map((t) => Math.round(t.ms / t.loads)));
    const row = (what: string, ms: number, goalCli?: number, goalFloor?: number) => console.log(
      `${what.padEnd(44)} ${String(ms).padStart(7)} ${(ms / cli).toFixed(2).padStart(7)}${goalCli ? ` (<= ${goalCli})` : '        '}` +
      ` ${(ms / observation).toFixed(2).padStart(7)}${goalFloor ? ` (<= ${goalFloor})` : ''}`);
    console.log(`\nfixture page ${url}, SQLite, 1 agent slot, run guard on; medians (ms)`);
    console.log(`${'what'.padEnd(44)}      ms  ÷ CLI            ÷ floor`);
    row(`bare lighthouse CLI (${bare.length} runs)`, cli);
    row('the page\'s observation floor', observation);
    row(`webgauge test, POST to report (${single.length} tests)`, one, 0.7, 1.15);
    row(`runs=3, per load (${multi.length} tests)`, perLoad, 0.7, 1.15);
    // The service around the load: POST, queue, claim, storing the report, and the client's polling (one-load tests).
    const around = [first, ...single].map((t, i) => t.ms - (phases[i]?.total ?? NaN)).filter(Number.isFinite);
    console.log(`\nthe service around the load (POST to report minus the load's total, one-load tests): median ${median(around)} ms ` +
      `(polling every 80 ms adds 40 on average)`);
    const next = median(single.slice(0, 5).map((t) => t.ms));
    console.log(`\nfirst test after start ${first.ms} ms = ${(first.ms / next).toFixed(2)}x the median of the next five (${next} ms; goal <= 1.2); ` +
      `loads discarded: first test ${first.discarded}, all tests ${[first, ...single, ...multi].reduce((n, t) => n + t.discarded, 0)}`);
    for (const reason of [first, ...single, ...multi].flatMap((t) => t.reasons)) console.log(`  discarded: ${reason}`);
  }
  console.log('\nChrome without Lighthouse; medians (ms)');
  for (const report of ['none', 'legacy']) {
    for (const idle of [true, false]) {
      const tests = withoutLighthouse.filter((t) => t.report === report && t.idle === idle);
      const ms = median(tests.map((t) => t.ms));
      const floor = median(tests.map((t) => t.floor).filter(Number.isFinite));
      console.log(`${`report=${report}, ${idle ? 'to an idle agent' : 'back to back'} (${tests.length} tests)`.padEnd(44)} ${String(ms).padStart(7)}` +
        ` ${(ms / floor).toFixed(2).padStart(7)} (<= 1.15; its own floor ${floor} ms; each: ${tests.map((t) => (t.ms / t.floor).toFixed(2)).join(', ')})`);
    }
  }
  for (const t of withoutLighthouse) for (const reason of t.reasons) console.log(`  discarded (report=${t.report}): ${reason}`);
  const withoutPhases = phases.slice(withoutFrom, phoneFrom);
  const aroundWithout = withoutLighthouse.map((t) => t.ms - t.total).filter(Number.isFinite);
  console.log(`the service around those loads (POST to report minus the load's total): median ${median(aroundWithout)} ms`);
  const showPhases = (what: string, loads: Record<string, number>[]) => {
    if (loads.length === 0) return;
    console.log(`\nphases of ${what} (median ms over ${loads.length} loads)`);
    for (const key of [...new Set(loads.flatMap((p) => Object.keys(p)))]) {
      const values = loads.map((p) => p[key]).filter((v): v is number => typeof v === 'number');
      console.log(`  ${key.padEnd(30)} ${String(median(values)).padStart(6)}   (${values.length} loads)`);
    }
  };
  if (devices.length > 0) {
    console.log('\na phone against a desktop, interleaved, each to an idle agent; medians (ms)');
    const of = (device: string) => devices.filter((d) => d.device === device);
    const ratio = (device: string) => median(of(device).map((d) => d.ms / d.floor * 1000)) / 1000;
    for (const device of ['desktop', 'phone-mid']) {
      const tests = of(device);
      console.log(`${`${device} (${tests.length} tests)`.padEnd(44)} ${String(median(tests.map((t) => t.ms))).padStart(7)}` +
        ` ${ratio(device).toFixed(2).padStart(7)} ÷ its own floor ${median(tests.map((t) => t.floor))} ms; each: ` +
        `${tests.map((t) => `${t.ms}/${t.floor}`).join(', ')}`);
      for (const t of tests) for (const reason of t.reasons) console.log(`  discarded (${device}): ${reason}`);
    }
    const quotient = ratio('phone-mid') / ratio('desktop');
    console.log(`the phone's time over its floor is ${quotient.toFixed(3)}× the desktop's (goal <= ${PHONE_GOAL})` +
      `${quotient > PHONE_GOAL ? ' (!)' : ''}; the service around the load (POST to report minus the load's total): ` +
      `desktop ${median(of('desktop').map((t) => t.ms - (t.phases.total ?? NaN)))} ms, ` +
      `phone ${median(of('phone-mid').map((t) => t.ms - (t.phases.total ?? NaN)))} ms`);
    if (quotient > PHONE_GOAL) process.exitCode = 1;
    showPhases('the desktop\'s loads beside the phone\'s', of('desktop').map((t) => t.phases));
    showPhases('the phone\'s loads', of('phone-mid').map((t) => t.phases));
  }
  showPhases('a Lighthouse load', lighthouseLoads);
  showPhases('a load without Lighthouse', withoutPhases);
  console.log(`  first load's phases: ${JSON.stringify(phases[0])}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
