/**
 * Times a bare `lighthouse` CLI run (performance category only, Lighthouse's defaults otherwise: simulated
 * mobile throttling) as the yardstick for our runner's turnaround.
 *
 *   node --import tsx bench/lighthouse-cli.ts [runs]   prints both for the fixture page, side by side
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { analysisOptions, runSpec } from '../test/helpers/run-spec.js';

const CHROME_PATH = process.env.WEBGAUGE_CHROME_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = '--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run ' +
  '--disable-background-networking --disable-component-update --disable-sync';

/** Wall-clock ms of one `lighthouse <url>` CLI run, from spawn to exit. */
export async function timeBareLighthouseCli(url: string): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-lh-cli-'));
  const bin = resolve('node_modules/.bin/lighthouse');
  const args = [url, '--quiet', '--output=json', `--output-path=${join(dir, 'report.json')}`,
    '--only-categories=performance', `--chrome-flags=${CHROME_FLAGS}`];
  const started = performance.now();
  try {
    await new Promise<void>((done, fail) => {
      execFile(bin, args, { env: { ...process.env, CHROME_PATH }, maxBuffer: 1 << 24 }, (err, _out, stderr) =>
        err ? fail(new Error(`lighthouse CLI failed: ${err.message}\n${stderr}`)) : done());
    });
    return Math.round(performance.now() - started);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 3);
  const { startFixtureSite } = await import('../test/fixtures/site/server.js');
  const { runTest } = await import('../src/runner/run.js');
  const site = await startFixtureSite();
  const url = site.url('/');
  const bare: number[] = [];
  const ours: number[] = [];
  const phases: Record<string, number>[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      bare.push(await timeBareLighthouseCli(url));
      const workDir = await mkdtemp(join(tmpdir(), 'webgauge-bench-'));
      try {
        const started = performance.now();
        const result = await runTest(runSpec(analysisOptions(url), {
          testId: `bench-${i}`, chromePath: CHROME_PATH, workDir, timeoutMs: 120_000 }));
        ours.push(Math.round(performance.now() - started));
        phases.push(result.phases);
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
    }
  } finally {
    await site.close();
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`fixture page ${url}, ${runs} run(s) each, interleaved (ms)`);
  console.log('run   bare lighthouse CLI   webgauge runTest');
  bare.forEach((b, i) => console.log(`${String(i + 1).padStart(3)}   ${String(b).padStart(19)}   ${String(ours[i]).padStart(16)}`));
  console.log(`med   ${String(median(bare)).padStart(19)}   ${String(median(ours)).padStart(16)}`);
  console.log('\nrunTest phases (ms) per run:');
  for (const key of Object.keys(phases[0] ?? {})) {
    console.log(`  ${key.padEnd(30)} ${phases.map((p) => String(p[key] ?? '-').padStart(6)).join(' ')}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
