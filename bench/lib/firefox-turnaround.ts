/**
 * The Firefox part of `npm run bench -- turnaround`: Firefox (Desktop) tests of the fixture page through the whole
 * service (the connection guard enforcing a policy that allows only the fixture's address), from POST /tests to the
 * report being readable, beside each test's own observation floor (from asking for the navigation to the end of the
 * load wait). Tests come to an idle agent, whose Firefox was launched ahead (a launch takes seconds), and back to back.
 * The service's first Firefox test is shown apart: an agent launches a Firefox ahead once it has run a Firefox test
 * (not at its start, where it readies Chrome), so that test launches its own.
 */
import { call, startServer, waitForTest } from '../../test/helpers/server.js';
import { runTest } from '../../src/runner/run.js';
import type { RunResult, RunSpec } from '../../src/runner/types.js';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : Math.round((s[s.length / 2 - 1]! + s[s.length / 2]!) / 2);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function firefoxTurnaround(url: string, tests: number): Promise<void> {
  const phases: Record<string, number>[] = [];
  const run = async (spec: RunSpec): Promise<RunResult> => {
    const result = await runTest(spec);
    phases.push(result.phases);
    return result;
  };
  const server = await startServer({ engine: 'sqlite', agentSlots: 1, allowPrivateTargets: false,
    env: { WEBGAUGE_ALLOW_TARGETS: '127.0.0.1' }, overrides: { run, launchAhead: true } });
  const timed = async (): Promise<{ ms: number; floor: number; phases: Record<string, number> }> => {
    const t0 = performance.now();
    const res = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: { url, browser: '1' } } } });
    if (res.status !== 202) throw new Error(`POST /tests: ${res.status} ${res.text}`);
    const done = await waitForTest(server, server.key, res.body.data.id, 180_000, 50);
    if (done.status !== 303) throw new Error(`test did not complete: ${done.text}`);
    const report = await call(server, 'GET', `/reports/${res.body.data.id}`, { key: server.key });
    if (report.status !== 200) throw new Error(`report: ${report.status}`);
    const p = phases.at(-1)!;
    return { ms: Math.round(performance.now() - t0), floor: p.observation!, phases: p };
  };
  const idle: Awaited<ReturnType<typeof timed>>[] = [];
  const backToBack: Awaited<ReturnType<typeof timed>>[] = [];
  let first: Awaited<ReturnType<typeof timed>> | undefined;
  try {
    first = await timed();
    for (let i = 0; i < tests; i++) {
      await sleep(15_000); // the agent idle: the next Firefox launched ahead and ready
      idle.push(await timed());
    }
    for (let i = 0; i < tests; i++) backToBack.push(await timed());
  } finally {
    await server.close();
  }
  const show = (what: string, xs: typeof idle) => {
    const ratios = xs.map((t) => t.ms / t.floor);
    console.log(`${what.padEnd(52)} POST to report ${String(median(xs.map((t) => t.ms))).padStart(6)} ms, floor ` +
      `${String(median(xs.map((t) => t.floor))).padStart(6)} ms, ratio median ${median(ratios.map((r) => Math.round(r * 100))) / 100} ` +
      `(each: ${ratios.map((r) => r.toFixed(2)).join(', ')}; goal <= 1.2)`);
  };
  console.log(`\nFirefox (Desktop), fixture page ${url}, SQLite, 1 agent slot`);
  show('the service\'s first Firefox test (launches its Firefox)', [first!]);
  show(`a test to an idle agent (${idle.length} tests)`, idle);
  show(`tests back to back (${backToBack.length} tests)`, backToBack);
  for (const [what, tests] of [['to an idle agent', idle], ['back to back', backToBack]] as const) {
    console.log(`phases of a Firefox load ${what} (median ms)`);
    const all = tests.map((t) => t.phases);
    for (const key of [...new Set(all.flatMap((p) => Object.keys(p)))]) {
      console.log(`  ${key.padEnd(30)} ${String(median(all.map((p) => p[key]).filter((v): v is number => typeof v === 'number'))).padStart(6)}`);
    }
  }
}
