/**
 * `npm run bench -- connections`: what the connection guard costs each new connection the browser opens.
 * A page with images from 8 host names (all 127.0.0.1) is loaded by the same Chromium launch, alternately
 * through the guard (in its thread, as a test runs it) and directly with the host names mapped by Chromium
 * itself (the floor); the connect phase of every new connection is read from the browser's own timing.
 *
 *   BENCH_RUNS=5 npm run bench -- connections
 */
import { createServer } from 'node:http';
import type { Protocol } from 'puppeteer-core';
import { closeBrowser, launchBrowser } from '../src/runner/browser.js';
import { GuardThread } from '../src/runner/conditions/guard-thread.js';
import { TargetPolicy } from '../src/net/policy.js';
import { CHROME } from '../test/helpers/run-spec.js';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const hosts = Array.from({ length: 8 }, (_, i) => `h${i}.test`);

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(1);
  return `${at(0.5).padStart(7)} ${at(0.9).padStart(7)} ${s.at(-1)!.toFixed(1).padStart(7)}   (${s.length} connections)`;
}

async function load(port: number, flags: string[]): Promise<number[]> {
  const browser = await launchBrowser({ chromePath: CHROME, flags, protocolTimeoutMs: 30_000 });
  try {
    const page = (await browser.pages())[0]!;
    const session = await page.createCDPSession();
    await session.send('Network.enable');
    const connects: number[] = [];
    session.on('Network.responseReceived', (e: Protocol.Network.ResponseReceivedEvent) => {
      const t = e.response.timing;
      if (t && t.connectStart >= 0 && e.response.url.endsWith('/i.png')) connects.push(t.connectEnd - t.connectStart);
    });
    await page.goto(`http://main.test:${port}/`, { waitUntil: 'networkidle0' });
    return connects;
  } finally {
    await closeBrowser(browser);
  }
}

async function main() {
  const server = createServer((req, res) => {
    if (req.url === '/') {
      res.setHeader('Content-Type', 'text/html');
      return res.end(`<h1>connections</h1>${hosts.map((h) => `<img src="http://${h}:${port}/i.png">`).join('')}`);
    }
    res.end('x');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const names = ['main.test', ...hosts];
  const direct = [`--host-resolver-rules=${names.map((h) => `MAP ${h} 127.0.0.1`).join(', ')}`];
  const guarded: number[] = [];
  const floor: number[] = [];
  try {
    await load(port, direct); // warm-up
    for (let i = 0; i < runs; i++) {
      const guard = await GuardThread.start(new TargetPolicy({ allowAll: false, allowTargets: '127.0.0.1' }),
        names.map((host) => ({ host, ip: '127.0.0.1' })));
      try {
        guarded.push(...await load(port, guard.browserFlags()));
      } finally {
        await guard.close();
      }
      floor.push(...await load(port, direct));
    }
  } finally {
    server.close();
  }
  console.log(`\nconnect time of each new connection (ms), ${runs} loads each, interleaved, 8 hosts on 127.0.0.1`);
  console.log('what                                   median     p90     max');
  console.log(`through the connection guard (SOCKS5) ${stats(guarded)}`);
  console.log(`direct, Chromium's own mapping        ${stats(floor)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
