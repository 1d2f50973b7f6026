/**
 * `npm run bench -- web`: the web app's server-side render time with one account holding 10,000 pages (and their
 * reports), on SQLite and on PostgreSQL (when WEBGAUGE_TEST_PG_URL is set), and what each screen sends.
 *   - render time of GET /pages (first page, a URL filter, a deep page, sorted by URL) and GET /pages/{id}, measured
 *     at the client one request at a time (so it is the server's time plus a loopback round trip), p50 and p95 of
 *     BENCH_RENDERS requests each;
 *   - the floor in the same run: a bare Fastify route answering an HTML body of the same size;
 *   - bytes per screen: HTML and the script, raw and gzip-compressed.
 *
 *   BENCH_PAGES=10000 BENCH_REPORTS=50000 BENCH_RENDERS=200 npm run bench -- web
 */
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { authenticate } from '../src/core/accounts/accounts.js';
import { CLIENT_SCRIPT_FILE, CLIENT_SCRIPT_PATH, STYLESHEET_PATH } from '../src/web/assets.js';
import { REPORT_CSS } from '../src/report/style.js';
import { APP_CSS } from '../src/web/style.js';
import { readFileSync } from 'node:fs';
import { engines, startServer, type EngineName } from '../test/helpers/server.js';
import { pageUrl, seedReports } from './lib/seed-reports.js';
import { seedFieldSite } from './lib/seed-field.js';
import { seedPage } from '../test/helpers/seed.js';

const PAGES = Number(process.env.BENCH_PAGES ?? 10_000);
const REPORTS = Number(process.env.BENCH_REPORTS ?? 50_000);
const RENDERS = Number(process.env.BENCH_RENDERS ?? 200);

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function timeGets(url: string, headers: Record<string, string>): Promise<{ p50: number; p95: number; bytes: number; status: number }> {
  const times: number[] = [];
  let bytes = 0;
  let status = 0;
  for (let i = 0; i < RENDERS; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.arrayBuffer();
    times.push(performance.now() - t0);
    bytes = body.byteLength;
    status = res.status;
  }
  return { p50: pct(times, 50), p95: pct(times, 95), bytes, status };
}

async function floor(bytes: number): Promise<{ p50: number; p95: number }> {
  const app = Fastify();
  const html = `<!doctype html>${'x'.repeat(Math.max(0, bytes - 15))}`;
  app.get('/', async (_req, reply) => reply.type('text/html; charset=utf-8').send(html));
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const r = await timeGets(`${base}/`, {});
    return { p50: r.p50, p95: r.p95 };
  } finally {
    await app.close();
  }
}

async function benchEngine(engine: EngineName): Promise<string[]> {
  // Every beacon of the seeding comes from this one address: no per-address limit.
  const server = await startServer({ engine, agentSlots: 0, env: { WEBGAUGE_FIELD_CLIENT_RATE: '10000000', WEBGAUGE_FIELD_SITE_RATE: '10000000' } });
  try {
    const accountId = (await authenticate(server.app.store.db, server.config.plans, server.key))!.accountId;
    const t0 = Date.now();
    const { pageIds } = await seedReports(server.app.store, accountId, REPORTS, PAGES);
    console.log(`[${engine}] seeded ${PAGES} pages, ${REPORTS} reports in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const signIn = await fetch(`${server.base}/sign-in`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.base },
      body: new URLSearchParams({ api_key: server.key }).toString(),
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    if (!cookie) throw new Error(`sign-in gave no cookie (${signIn.status})`);
    // A report and its page as the app shows them, before and after its site has real visitors (issue 51): 100 views of
    // each of the 200 pages of its origin over 28 days.
    // The seeded reports carry no stored options a report screen could read: the measured report is one a test stores.
    const origin = new URL(pageUrl(0)).origin;
    const report = `/reports/${(await seedPage(server.app.store, accountId, { url: pageUrl(0) })).reportId}`;
    const screens: [string, string][] = [
      ['report (no field site)', report],
      ['page view (no field site)', `/pages/${pageIds[0]}`],
      ['field: seed', ''],
      ['report, lab beside field', report],
      ['page view, lab beside field', `/pages/${pageIds[0]}`],
      ['pages (first 50, newest test first)', '/pages'],
      ['pages, URL filter "item-12"', '/pages?url=item-12'],
      ['pages, page 150 of 200', '/pages?page=150'],
      ['pages sorted by URL', '/pages?sort=url'],
      ['page view (charts, reports)', `/pages/${pageIds[0]}`],
      ['analyze', '/'],
    ];
    const rows: string[] = [];
    for (const [name, path] of screens) {
      if (path === '') {
        const paths = Array.from({ length: PAGES }, (_, i) => pageUrl(i)).filter((u) => u.startsWith(`${origin}/`)).map((u) => new URL(u).pathname);
        const t1 = Date.now();
        await seedFieldSite(server, origin, paths, 100);
        console.log(`[${engine}] ${paths.length * 100} page views of ${paths.length} paths of ${origin} over 28 days seeded in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
        continue;
      }
      const r = await timeGets(`${server.base}${path}`, { cookie });
      if (r.status !== 200) throw new Error(`${path} answered ${r.status}`);
      const html = Buffer.from(await (await fetch(`${server.base}${path}`, { headers: { cookie } })).arrayBuffer());
      const f = await floor(r.bytes);
      rows.push(`| ${engine} | ${name} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${f.p50.toFixed(1)} | ${(r.p50 / f.p50).toFixed(1)}× | ` +
        `${(html.length / 1024).toFixed(1)} / ${(gzipSync(html).length / 1024).toFixed(1)} |`);
    }
    return rows;
  } finally {
    await server.close();
  }
}

const script = readFileSync(CLIENT_SCRIPT_FILE);
console.log(`script ${CLIENT_SCRIPT_PATH}: ${script.length} B, ${gzipSync(script).length} B gzip (the same on every screen; the only script)`);
const css = Buffer.from(REPORT_CSS + APP_CSS);
console.log(`stylesheet ${STYLESHEET_PATH}: ${css.length} B, ${gzipSync(css).length} B gzip (the same on every screen, cached for a year)`);
const rows: string[] = [];
for (const e of engines()) rows.push(...(await benchEngine(e)));
console.log(`\n${RENDERS} requests each, one at a time; times in ms at the client; floor: a bare Fastify route answering as many bytes\n`);
console.log('| engine | screen | p50 | p95 | floor p50 | ratio | HTML KB raw / gzip |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
