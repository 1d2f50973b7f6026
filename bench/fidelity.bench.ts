/**
 * `npm run bench -- fidelity`: is a throttled load what a person on that link would have seen? The fixture's
 * /origins page (three origins: the document and a stylesheet on two HTTP origins, a 200 KB photo over HTTP/2 on an
 * HTTPS origin whose certificate comes from a CA made here and trusted through WEBGAUGE_EXTRA_CA_CERTS's path) is
 * loaded by the runner on three links, and each HAR phase is held against what the link's round trips and bytes
 * require (test/helpers/link-physics.ts), onload against the least the page's critical path allows: the link's
 * physics plus the browser's own work while none of the page's requests was on the link (parsing before the first
 * subresource is asked for, the load event after the last byte), read from the same load. The site runs
 * in a process of its own, so its server times are its own.
 *
 *   BENCH_RUNS=3 npm run bench -- fidelity
 *   BENCH_BROWSER=firefox npm run bench -- fidelity   (the same with Firefox (Desktop), a legacy report; its onload's
 *   lower bound is Firefox's critical path: the photo requested once the head's stylesheet is loaded, link-physics.ts)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTest } from '../src/runner/run.js';
import { defaultSandbox } from '../src/runner/browser.js';
import { buildTrustStore, caCertificates } from '../src/runner/trust-store.js';
import { throttleFigures } from '../src/core/options/options.js';
import { FIXTURE, ORIGINS } from '../test/fixtures/site/server.js';
import { startFixtureSiteProcess } from '../test/fixtures/site/process.js';
import { makePrivateCa } from '../test/helpers/certificates.js';
import { originsFidelity, withinGoal, type HandshakeBytes, type PhaseCheck } from '../test/helpers/link-physics.js';
import { analysisOptions, runSpec } from '../test/helpers/run-spec.js';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const LINKS = ['20000/5000/50', '5000/1000/150', '1600/768/300'];
const firefox = process.env.BENCH_BROWSER === 'firefox';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const ca = makePrivateCa();
  const site = await startFixtureSiteProcess({ tls: ca.issue([ORIGINS.secure]) });
  const trustStore = await buildTrustStore(caCertificates(ca.cert), defaultSandbox().tag);
  const url = `http://${ORIGINS.page}:${site.port}${FIXTURE.origins.path}`;
  const dns = Object.values(ORIGINS).map((host) => `${host}:127.0.0.1`);
  let failed = 0;
  try {
    for (const throttle of LINKS) {
      const link = throttleFigures(throttle)!;
      const checks = new Map<string, PhaseCheck[]>();
      const onloads: ReturnType<typeof originsFidelity>['onload'][] = [];
      for (let i = 0; i < runs; i++) {
        const workDir = await mkdtemp(join(tmpdir(), 'webgauge-fidelity-'));
        try {
          const result = await runTest({ ...runSpec(analysisOptions(url, { dns, throttle, ...(firefox ? { browser: '1', report: 'legacy' } : {}) }),
            { testId: `fidelity-${i}`, workDir, timeoutMs: 120_000 }), trustStore, ...(firefox ? { browser: 'firefox' as const } : {}) });
          const handshakes = await (await fetch(site.url('/_fixture/tls-handshakes'))).json() as HandshakeBytes[];
          const fidelity = originsFidelity(result.har.log.entries, link, result.metrics.onload_time, handshakes.at(-1)!,
            firefox ? 'firefox' : 'chrome');
          for (const c of fidelity.checks) checks.set(c.what, [...(checks.get(c.what) ?? []), c]);
          onloads.push(fidelity.onload);
        } finally {
          await rm(workDir, { recursive: true, force: true });
        }
      }
      console.log(`\nthrottle ${throttle} (down/up Kbit/s, round trip ms): median of ${runs} loads`);
      console.log('phase                          measured    truth   ratio   within 10 % + 15 ms');
      for (const [what, cs] of checks) {
        // The browser's own work a phase may hold (the TLS certificate check) is allowed to the median as to each load.
        const c: PhaseCheck = { what, measured: median(cs.map((x) => x.measured)), truth: median(cs.map((x) => x.truth)),
          clientMs: cs[0]!.clientMs };
        const ok = withinGoal(c);
        if (!ok) failed++;
        console.log(`${what.padEnd(30)} ${c.measured.toFixed(0).padStart(8)} ${c.truth.toFixed(0).padStart(8)} ` +
          `${(c.truth > 0 ? (c.measured / c.truth).toFixed(2) : '-').padStart(7)}   ${ok ? 'yes' : 'NO'}` +
          (c.clientMs ? ` (and up to ${c.clientMs} ms of the browser's own)` : ''));
      }
      const o = { measured: median(onloads.map((x) => x.measured)), lowerBound: median(onloads.map((x) => x.lowerBound)),
        browserMs: median(onloads.map((x) => x.browserMs)), linkBound: median(onloads.map((x) => x.lowerBound - x.browserMs)) };
      const ratio = o.measured / o.lowerBound;
      const ok = ratio >= 1 && ratio <= 1.25;
      if (!ok) failed++;
      console.log(`${'onload vs its lower bound'.padEnd(30)} ${o.measured.toFixed(0).padStart(8)} ${o.lowerBound.toFixed(0).padStart(8)} ` +
        `${ratio.toFixed(2).padStart(7)}   ${ok ? 'yes (1.00-1.25)' : 'NO (goal 1.00-1.25)'}`);
      // The bound's two parts apart: what the link requires, and the browser's own work between requests.
      console.log(`${'  of which the browser\'s own'.padEnd(30)} ${''.padStart(8)} ${o.browserMs.toFixed(0).padStart(8)}   ` +
        `(onload vs the link's ${o.linkBound.toFixed(0)} alone: ${(o.measured / o.linkBound).toFixed(2)})`);
    }
  } finally {
    await trustStore.close();
    await site.close();
  }
  console.log(failed === 0 ? '\nevery figure within its goal' : `\n${failed} figure(s) outside the goal`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
