/**
 * `npm run bench -- captures`: what each capture adds to a test of the fixture's gallery page, and the turnaround
 * of a test with every capture on, beside a bare `lighthouse` CLI run of the same page, measured in one sitting
 * and interleaved so all see the same machine:
 *   - bare lighthouse CLI (performance only, its defaults: simulated throttling);
 *   - webgauge test without video, POST /tests to the report being readable;
 *   - webgauge test with video (everything the test itself produces: Lighthouse JSON, HAR, screenshot,
 *     filmstrip, video, image sources, resource summary), same measure, and the time ffmpeg spent encoding;
 *   - then, on that report, the resources made on request: report.pdf, the full PDF, optimized-images.tar;
 *   - "everything": POST /tests with video to every resource downloaded, PDFs and archive included.
 * BENCH_RUNS (default 3) runs of each; medians, min and max in ms.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createAccount } from '../src/core/accounts/accounts.js';
import { runTest } from '../src/runner/run.js';
import type { RunSpec } from '../src/runner/types.js';
import { startFixtureSite } from '../test/fixtures/site/server.js';
import { timeBareLighthouseCli } from './lighthouse-cli.js';

const runs = Number(process.env.BENCH_RUNS ?? 3);

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] ?? NaN, min: s[0] ?? NaN, max: s[s.length - 1] ?? NaN };
}

async function main() {
  const site = await startFixtureSite();
  const dataDir = await mkdtemp(join(tmpdir(), 'webgauge-bench-'));
  const phases: Record<string, number>[] = [];
  const config = loadConfig({
    WEBGAUGE_DATA_DIR: dataDir, WEBGAUGE_PORT: '0', WEBGAUGE_AGENT_SLOTS: '1', WEBGAUGE_ALLOW_PRIVATE_TARGETS: '1',
    WEBGAUGE_LOG_LEVEL: 'silent', WEBGAUGE_PDF_WAIT_MS: '120000',
  });
  // The real runner, its per-phase times kept.
  const app = await createApp(config, {
    run: async (spec: RunSpec) => {
      const result = await runTest(spec);
      phases.push({ ...result.phases, video: spec.options.video });
      return result;
    },
  });
  const api = `${await app.server.listen({ host: '127.0.0.1', port: 0 })}/api/2.0`;
  const { apiKey } = await createAccount(app.store.db, config.plans, { email: 'bench@example.test', plan: 'pro', credits: 10_000 });
  const headers = { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}` };
  const url = site.url('/gallery');

  const get = async (path: string): Promise<number> => {
    const res = await fetch(path.startsWith('http') ? path : api + path, { headers });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.arrayBuffer()).byteLength;
  };
  const test = async (video: 0 | 1): Promise<{ id: string; ms: number }> => {
    const t0 = performance.now();
    const res = await fetch(`${api}/tests`, {
      method: 'POST', headers: { ...headers, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'test', attributes: { url, video } } }),
    });
    if (res.status !== 202) throw new Error(`POST /tests: ${res.status} ${await res.text()}`);
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    for (;;) {
      const poll = await fetch(`${api}/tests/${id}`, { headers, redirect: 'manual' });
      if (poll.status === 303) break;
      const body = (await poll.json()) as { data: { attributes: { state: string; error?: string } } };
      if (body.data.attributes.state === 'error') throw new Error(body.data.attributes.error);
      await new Promise((r) => setTimeout(r, 100));
    }
    await get(`/reports/${id}`);
    return { id, ms: Math.round(performance.now() - t0) };
  };
  const timed = async (fn: () => Promise<unknown>): Promise<number> => {
    const t0 = performance.now();
    await fn();
    return Math.round(performance.now() - t0);
  };

  const rows: Record<string, number[]> = {
    'bare lighthouse CLI (performance only)': [], 'webgauge test, no video (POST to report)': [],
    'webgauge test, video (POST to report)': [], 'report.pdf (first request to file)': [],
    'report.pdf?full=1 (first request to file)': [], 'optimized-images.tar (first request)': [],
    'everything: test with video + every resource': [],
  };
  const key = Object.keys(rows);
  try {
    await timeBareLighthouseCli(url); // warm-ups: disk caches, module loading, the host benchmark
    await test(1);
    phases.length = 0;
    for (let i = 0; i < runs; i++) {
      rows[key[0]].push(await timeBareLighthouseCli(url));
      rows[key[1]].push((await test(0)).ms);
      const withVideo = await test(1);
      rows[key[2]].push(withVideo.ms);
      rows[key[3]].push(await timed(() => get(`/reports/${withVideo.id}/resources/report.pdf`)));
      rows[key[4]].push(await timed(() => get(`/reports/${withVideo.id}/resources/report.pdf?full=1`)));
      rows[key[5]].push(await timed(() => get(`/reports/${withVideo.id}/resources/optimized-images.tar`)));
      rows[key[6]].push(await timed(async () => {
        const { id } = await test(1);
        await Promise.all(['net.har', 'lighthouse.json', 'screenshot.jpg', 'filmstrip.json', 'video.mp4', 'resource-summary',
          'analysis-options'].map((n) => get(`/reports/${id}/resources/${n}`)));
        await get(`/reports/${id}/resources/report.pdf`);
        await get(`/reports/${id}/resources/report.pdf?full=1`);
        await get(`/reports/${id}/resources/optimized-images.tar`);
      }));
    }
  } finally {
    await app.close();
    await site.close();
    await rm(dataDir, { recursive: true, force: true });
  }

  console.log(`\nfixture gallery page ${url}, ${runs} runs each, interleaved, 1 agent slot, SQLite (ms)`);
  console.log(`${'what'.padEnd(48)} median    min    max`);
  for (const [name, xs] of Object.entries(rows)) {
    const s = stats(xs);
    console.log(`${name.padEnd(48)} ${String(s.median).padStart(6)} ${String(s.min).padStart(6)} ${String(s.max).padStart(6)}`);
  }
  const novideo = stats(rows[key[1]]).median;
  const video = stats(rows[key[2]]).median;
  const encode = stats(phases.filter((p) => p.video === 1).map((p) => p.video_encode ?? 0));
  console.log(`\ncost of video: ${video - novideo} ms on the turnaround (median with - median without); ffmpeg encoding ` +
    `${encode.median} ms (median), while Lighthouse audits`);
  const bare = stats(rows[key[0]]).median;
  console.log(`turnaround with every capture of the test, vs the bare CLI: ${video} vs ${bare} ms ` +
    `(${video <= bare ? 'not slower' : `${video - bare} ms slower`}); with PDFs and archive made too: ${stats(rows[key[6]]).median} ms`);
  console.log('\nrunner phases (ms), median per phase over the measured tests:');
  const names = [...new Set(phases.flatMap((p) => Object.keys(p)))].filter((n) => n !== 'video');
  for (const n of names) console.log(`  ${n.padEnd(30)} ${String(stats(phases.map((p) => p[n] ?? 0)).median).padStart(6)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
