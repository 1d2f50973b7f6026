/**
 * `npm run bench -- journeys`: what a journey costs against what it stands for, through the whole service as an
 * operator runs it (SQLite, the run guard on, a policy that allows only the fixture's address), the two interleaved
 * so both see the same machine:
 * - a one-navigation journey of a page against a plain test of the same URL (goal: within 10 %);
 * - a journey of four navigations against the sum of four plain tests of the same pages (one per page).
 * Each with its observation floor (from asking for the first navigation to the end of the last step's wait).
 *
 *   BENCH_RUNS=5 BENCH_RUNS4=3 npm run bench -- journeys
 */
import { startFixtureSite } from '../test/fixtures/site/server.js';
import { startServer } from '../test/helpers/server.js';
import { runTest } from '../src/runner/run.js';
import type { RunResult, RunSpec } from '../src/runner/types.js';
import { median, timedTest } from './lib/timed-test.js';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const fourRuns = Number(process.env.BENCH_RUNS4 ?? 3);

async function main() {
  const site = await startFixtureSite();
  const pages = ['/', '/gallery', '/paint', '/switchable'].map((p) => site.url(p));
  const observation = new Map<string, number>();
  const run = async (spec: RunSpec): Promise<RunResult> => {
    const result = await runTest(spec);
    observation.set(spec.testId, result.phases.observation ?? NaN);
    return result;
  };
  const server = await startServer({ engine: 'sqlite', agentSlots: 1, allowPrivateTargets: false, runGuard: true,
    env: { WEBGAUGE_ALLOW_TARGETS: '127.0.0.1' }, overrides: { run, launchAhead: true } });
  const journey = (urls: string[]) => ({ journey: { title: 'bench', steps: urls.map((url) => ({ type: 'navigate', url })) } });
  const plainOne: number[] = [];
  const journeyOne: number[] = [];
  const floors = { plain: [] as number[], journey: [] as number[], four: [] as number[], sum: [] as number[] };
  const four: number[] = [];
  const sums: number[] = [];
  try {
    // Warm-up (the first test after a start is not what is compared).
    await timedTest(server, { url: pages[0] });
    for (let i = 0; i < runs; i++) {
      const plain = await timedTest(server, { url: pages[0] });
      const one = await timedTest(server, journey([pages[0]!]));
      plainOne.push(plain.ms);
      journeyOne.push(one.ms);
      floors.plain.push(observation.get(plain.id)!);
      floors.journey.push(observation.get(one.id)!);
    }
    for (let i = 0; i < fourRuns; i++) {
      const j = await timedTest(server, journey(pages));
      four.push(j.ms);
      floors.four.push(observation.get(j.id)!);
      let sum = 0;
      let floor = 0;
      for (const url of pages) {
        const t = await timedTest(server, { url });
        sum += t.ms;
        floor += observation.get(t.id)!;
      }
      sums.push(sum);
      floors.sum.push(floor);
    }
  } finally {
    await server.close();
    await site.close();
  }
  const row = (what: string, ms: number, floor: number, against?: number) => console.log(
    `${what.padEnd(52)} ${String(ms).padStart(7)} ${String(Math.round(floor)).padStart(7)} ${(ms / floor).toFixed(2).padStart(7)}` +
    `${against ? ` ${(ms / against).toFixed(3).padStart(7)}` : ''}`);
  console.log(`\nfixture pages ${pages.join(' ')}, SQLite, 1 agent slot, run guard on; medians (ms)`);
  console.log(`${'what'.padEnd(52)}      ms   floor ÷ floor ÷ plain`);
  const plain = median(plainOne);
  row(`plain test of / (${plainOne.length})`, plain, median(floors.plain));
  row(`one-navigation journey of / (${journeyOne.length}; goal <= 1.10)`, median(journeyOne), median(floors.journey), plain);
  const sum = median(sums);
  row(`four plain tests, one per page, summed (${sums.length})`, sum, median(floors.sum));
  row(`journey of the four pages (${four.length})`, median(four), median(floors.four), sum);
  console.log(`\neach pair: ${plainOne.map((p, i) => `${p}/${journeyOne[i]}`).join(' ')}; four: ${four.map((f, i) => `${f}/${sums[i]}`).join(' ')}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
