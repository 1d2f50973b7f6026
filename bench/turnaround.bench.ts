/**
 * `npm run bench`: the turnaround of one test of the fixture page through the whole service (POST /tests to the
 * report being readable), beside a bare `lighthouse` CLI run of the same page, measured in one sitting and
 * interleaved so both see the same machine. Also the per-phase times of the runner.
 *
 *   BENCH_RUNS=3 npm run bench
 */
import { startFixtureSite } from '../test/fixtures/site/server.js';
import { call, startServer, waitForTest } from '../test/helpers/server.js';
import { timeBareLighthouseCli } from './lighthouse-cli.js';

const runs = Number(process.env.BENCH_RUNS ?? 3);

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
}

async function main() {
  const site = await startFixtureSite();
  // As an operator runs it: the connection guard enforcing a policy that allows only the fixture's address.
  const server = await startServer({ engine: 'sqlite', agentSlots: 1, allowPrivateTargets: false,
    env: { WEBGAUGE_ALLOW_TARGETS: '127.0.0.1' } });
  const url = site.url('/');
  const service: number[] = [];
  const bare: number[] = [];
  try {
    // One warm-up of each so neither pays first-run disk caching.
    await timeBareLighthouseCli(url);
    for (let i = 0; i <= runs; i++) {
      const t0 = Date.now();
      const res = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: { url } } } });
      if (res.status !== 202) throw new Error(`POST /tests: ${res.status} ${res.text}`);
      const done = await waitForTest(server, server.key, res.body.data.id);
      if (done.status !== 303) throw new Error(`test did not complete: ${done.text}`);
      const report = await call(server, 'GET', `/reports/${res.body.data.id}`, { key: server.key });
      if (report.status !== 200) throw new Error(`report: ${report.status}`);
      if (i === 0) continue; // warm-up
      service.push(Date.now() - t0);
      bare.push(await timeBareLighthouseCli(url));
    }
  } finally {
    await server.close();
    await site.close();
  }
  const s = stats(service);
  const b = stats(bare);
  console.log(`\nfixture page ${url}, ${runs} runs each, interleaved, 1 agent slot, SQLite`);
  console.log('what                                      median    min     max   (ms)');
  console.log(`webgauge test, POST to report            ${String(s.median).padStart(6)} ${String(s.min).padStart(6)} ${String(s.max).padStart(6)}`);
  console.log(`bare lighthouse CLI (performance only)   ${String(b.median).padStart(6)} ${String(b.min).padStart(6)} ${String(b.max).padStart(6)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
