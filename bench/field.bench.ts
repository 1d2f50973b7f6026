/**
 * `npm run bench -- field` (issue 50, point 7), on SQLite and on PostgreSQL (when WEBGAUGE_TEST_PG_URL is set):
 *
 * 1. ingest: real beacon bodies (a few hundred paths, every metric with its attribution, mobile and desktop user agents)
 *    POSTed by autocannon in a child process at BENCH_CONNECTIONS (64) against the service's beacon endpoint, and
 *    against a bare Fastify route that reads the same text/plain body and answers 204, in the same run (bare, service,
 *    bare). Every service answer must be a 204: each one is a committed row (group commit).
 * 2. summary: a site with 10 million page views over 90 days, seeded straight into its rollups (the rows the rollup
 *    job writes, made by the same rollupKeysOf and FieldSketch; raw views are not read by the summary), then the
 *    summary over 28 and 90 days, for one device, one template, and a breakdown by template, each BENCH_READS times.
 *    The day a sample of exact values was kept for is checked: its p75 against the exact nearest-rank p75.
 * 3. bytes: per raw page view and per rollup row, as the engine stores them (tables and their indexes).
 * 4. flood: a beacon flood from one address at the default limits for BENCH_FLOOD_SECONDS (600) against a service in a
 *    child process, its memory (RSS) sampled every 10 s: flat, or not.
 * BENCH_FIELD=ingest,summary,bytes,flood picks cases.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import Fastify from 'fastify';
import { nearestRank, readFieldBreakdown, readFieldSummary } from '../src/core/field/figures.js';
import { DAY, rollupKeysOf, startOfDay } from '../src/core/field/rollup.js';
import { FieldSketch, placeView } from '../src/core/field/sketch.js';
import { fieldSiteOf, type FieldSite } from '../src/core/field/sites.js';
import type { Store } from '../src/store/db.js';
import type { RollupKey } from '../src/store/field.js';
import { call, startServer, type EngineName, type TestServer } from '../test/helpers/server.js';
import { startChildService } from '../test/helpers/child-service.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const READS = Number(process.env.BENCH_READS ?? 50);
const VIEWS = Number(process.env.BENCH_FIELD_VIEWS ?? 10_000_000);
const FLOOD_SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 600);
const CASES = (process.env.BENCH_FIELD ?? 'ingest,summary,bytes,flood').split(',');
const ORIGIN = 'https://shop.example';
const here = new URL('.', import.meta.url).pathname;
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon');

const UAS = [
  'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
];

/** A beacon as the snippet sends it: every metric, its attribution, one of a few hundred paths. */
function beaconBody(i: number): string {
  const lcp = 800 + ((i * 7919) % 4000);
  const path = ['/', `/blog/post-${i % 150}`, `/p/${1000 + (i % 200)}`, '/checkout', `/docs/guide-${i % 40}`][i % 5];
  return JSON.stringify({
    v: 1, url: `${ORIGIN}${path}`, nav: i % 10 === 0 ? 'back-forward-cache' : 'navigate', ect: ['4g', '3g', '4g', '4g'][i % 4], rtt: 50 + (i % 300),
    vw: i % 2 ? 412 : 1366, vh: i % 2 ? 823 : 768,
    lcp: { v: lcp, el: 'main>div.hero>img#banner', src: `${ORIGIN}/img/hero-${i % 3}.jpg`, ttfb: 280.4, delay: 120.1, load: lcp - 600, render: 199.5 },
    inp: i % 3 ? { v: 60 + ((i * 37) % 500), el: 'button#add-to-cart', type: 'pointer', delay: 12.3, proc: 140.2, pres: 30.1,
      script: { src: `${ORIGIN}/js/app.4f2a.js`, fn: 'onAddToCart', dur: 130.5, part: 'processing-duration' } } : undefined,
    cls: { v: ((i * 13) % 40) / 100, el: 'div.ad-slot', shift: 0.05, t: 1500.2 }, fcp: { v: Math.round(lcp * 0.6) },
    ttfb: { v: 200 + ((i * 11) % 900), wait: 5.1, cache: 0, dns: 20.2, conn: 40.3, req: 150.4 },
  });
}

interface Cell {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** autocannon in a child (bench/lib: the programmatic API, to send varied bodies and user agents). */
function cannon(name: string, url: string, seconds = SECONDS, connections = CONNECTIONS, headers: Record<string, string> = {}): Promise<Cell> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'field.bench.ts'), 'cannon', url, String(seconds), String(connections), JSON.stringify(headers)],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}`));
      const r = JSON.parse(out.trim().split('\n').pop()!) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
      resolve({ name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors });
    });
  });
}

/** The child's side: POST beacons (each request its own body and user agent) for `seconds`; prints autocannon's summary. */
async function runCannon(url: string, seconds: number, connections: number, headers: Record<string, string>): Promise<void> {
  const autocannon = (await import(AUTOCANNON)).default as (o: object) => Promise<object>;
  const bodies = Array.from({ length: 997 }, (_, i) => beaconBody(i));
  let n = 0;
  const requests = [{ method: 'POST', setupRequest: (req: Record<string, unknown>) => {
    const i = n++;
    return { ...req, body: bodies[i % bodies.length], headers: { 'content-type': 'text/plain;charset=UTF-8', origin: ORIGIN, 'user-agent': UAS[i % UAS.length], ...headers } };
  } }];
  await autocannon({ url, connections, duration: 2, requests });
  const result = await autocannon({ url, connections, duration: seconds, requests });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function bareServer(): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false, bodyLimit: 16_384 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/field/beacon/:site', async (_req, reply) => reply.code(204).send());
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `${url}/field/beacon/bare`, close: () => app.close() };
}

async function siteOf(server: TestServer): Promise<FieldSite> {
  const res = await call(server, 'POST', '/field_sites', { key: server.key, body: { data: { type: 'field_site', attributes: { name: 'Bench', origins: [ORIGIN] } } } });
  if (res.status !== 201) throw new Error(res.text);
  return fieldSiteOf((await server.app.store.db.selectFrom('field_sites').selectAll().where('id', '=', res.body.data.id).executeTakeFirstOrThrow()));
}

const row = (cells: (string | number)[]) => console.log(cells.map((c) => String(c).padEnd(16)).join(''));
const fmt = (n: number, d = 0) => n.toLocaleString('en', { maximumFractionDigits: d, minimumFractionDigits: d });

async function ingest(engine: EngineName): Promise<void> {
  const server = await startServer({ engine, env: { WEBGAUGE_FIELD_SITE_RATE: '10000000', WEBGAUGE_FIELD_CLIENT_RATE: '10000000', WEBGAUGE_LOG_LEVEL: 'warn' } });
  const bare = await bareServer();
  try {
    const site = await siteOf(server);
    if (process.env.BENCH_NO_ROLLUP) await server.app.field.rollup.stop();
    const url = `${server.base}/field/beacon/${site.id}`;
    const cells = process.env.BENCH_ONLY_SERVICE ? [await cannon('webgauge', url), await cannon('webgauge', url), await cannon('webgauge', url), await cannon('webgauge', url)]
      : [await cannon('bare', bare.url), await cannon('webgauge', url), await cannon('bare', bare.url), await cannon('webgauge', url)];
    const bareRps = (cells[0]!.rps + cells[2]!.rps) / 2;
    console.log(`\ningest on ${engine} (${CONNECTIONS} connections, ${SECONDS} s each after 2 s of warm-up)`);
    row(['cell', 'req/s', '÷ bare', 'p50 ms', 'p99 ms', 'non-2xx', 'errors']);
    for (const c of cells) row([c.name, fmt(c.rps), (c.rps / bareRps).toFixed(2), c.p50, c.p99, c.non2xx, c.errors]);
    const stored = Number((await server.app.store.db.selectFrom('field_views').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    console.log(`rows stored: ${fmt(stored)} (every 204 is one)`);
  } finally {
    await bare.close();
    await server.close();
  }
}

/** A small seeded random (mulberry32): the same site every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The day rollups of VIEWS page views over 90 days, written as the rollup job writes them; the exact LCPs of one day kept. */
async function seedSite(store: Store, site: FieldSite): Promise<{ sampleDay: number; sampleLcps: number[]; seconds: number }> {
  const t0 = performance.now();
  const rnd = random(7);
  const logNormal = (median: number, sigma: number) => median * Math.exp(sigma * Math.sqrt(-2 * Math.log(rnd() || 1e-9)) * Math.cos(2 * Math.PI * rnd()));
  const devices = ['mobile', 'mobile', 'desktop', 'desktop', 'tablet'];
  const connections = ['4g', '4g', '4g', '3g', 'unknown', '2g', 'slow-2g'];
  const browsers = ['Chrome', 'Chrome', 'Safari', 'Edge', 'Firefox', 'Samsung Internet'];
  const templates = Array.from({ length: 20 }, (_, i) => (i === 0 ? '/' : `/section-${i}/:slug`));
  const today = startOfDay(Date.now());
  const perDay = Math.floor(VIEWS / 90);
  const sampleDay = today - 10 * DAY;
  const sampleLcps: number[] = [];
  let written = 0;
  for (let d = 89; d >= 0; d--) {
    const day = today - d * DAY;
    const sketches = new Map<string, { key: RollupKey; sketch: FieldSketch }>();
    // The finest rows of the day: the full key and each tracked path; the other cuts are merged from the full key.
    for (let i = 0; i < perDay; i++) {
      const device = devices[Math.floor(rnd() * devices.length)]!;
      const path = Math.floor(rnd() * 1000);
      const template = templates[path % 20]!;
      const view = {
        received: day + Math.floor(rnd() * DAY * 0.999), device, connection: connections[Math.floor(rnd() * connections.length)]!,
        browser: browsers[Math.floor(rnd() * browsers.length)]!,
      };
      const factor = device === 'mobile' ? 1.4 : 1;
      const values = {
        lcp: logNormal(2000 * factor, 0.5), inp: rnd() < 0.6 ? logNormal(150 * factor, 0.7) : null, cls: rnd() < 0.7 ? rnd() * 0.05 : rnd() * 0.5,
        fcp: logNormal(1300 * factor, 0.45), ttfb: logNormal(500, 0.6),
      };
      if (day === sampleDay) sampleLcps.push(values.lcp);
      // The day's full key and path rows, as rollupKeysOf makes them (checked once below); the other cuts are merged from the full key's.
      const placed = placeView(values);
      const pathName = `${template === '/' ? '/' : template.replace(':slug', '')}page-${path}`;
      for (const cut of ['full', 'path'] as const) {
        const id = cut === 'full' ? `f ${device} ${template} ${view.connection} ${view.browser}` : `p ${device} ${pathName}`;
        let e = sketches.get(id);
        if (!e) {
          const key = rollupKeysOf(site.id, view, template, pathName).find((k) => k.grain === 'day' && k.cut === cut)!;
          sketches.set(id, (e = { key, sketch: new FieldSketch() }));
        }
        e.sketch.addPlaced(placed);
      }
    }
    for (const { key, sketch } of [...sketches.values()].filter((e) => e.key.cut === 'full')) {
      for (const cut of ['site', 'template', 'connection', 'browser'] as const) {
        const k: RollupKey = { ...key, cut, template: cut === 'template' ? key.template : '', connection: cut === 'connection' ? key.connection : '', browser: cut === 'browser' ? key.browser : '' };
        const id = `${k.cut} ${k.device} ${k.template} ${k.path} ${k.connection} ${k.browser}`;
        let e = sketches.get(id);
        if (!e) sketches.set(id, (e = { key: k, sketch: new FieldSketch() }));
        e.sketch.merge(sketch);
      }
    }
    const rows = [...sketches.values()].map(({ key, sketch }) => ({ ...key, views: sketch.views, sketch: sketch.encode() }));
    await store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) await trx.insertInto('field_rollups').values(rows.slice(i, i + 500)).execute();
    });
    written += rows.length;
  }
  console.log(`seeded ${fmt(perDay * 90)} page views over 90 days: ${fmt(written)} day rollup rows in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return { sampleDay, sampleLcps, seconds: (performance.now() - t0) / 1000 };
}

async function timed(n: number, f: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  await f();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n * 0.5)]!, p95: times[Math.min(n - 1, Math.ceil(n * 0.95) - 1)]! };
}

async function summary(engine: EngineName): Promise<void> {
  const server = await startServer({ engine, env: { WEBGAUGE_LOG_LEVEL: 'warn' } });
  try {
    await server.app.field.rollup.stop();
    const site = await siteOf(server);
    const { sampleDay, sampleLcps } = await seedSite(server.app.store, site);
    const db = server.app.store.db;
    const whole = await readFieldSummary(db, site, { days: 90, filters: {} });
    console.log(`\nsummary on ${engine}: ${fmt(whole.figures.views)} page views in 90 days; LCP p75 ${fmt(whole.figures.metrics.lcp.p75!)} ms`);
    row(['read', 'p50 ms', 'p95 ms', 'goal']);
    for (const [name, f] of [
      ['28 days', () => readFieldSummary(db, site, { days: 28, filters: {} })],
      ['90 days', () => readFieldSummary(db, site, { days: 90, filters: {} })],
      ['90 d, mobile', () => readFieldSummary(db, site, { days: 90, filters: { device: 'mobile' } })],
      ['90 d, template', () => readFieldSummary(db, site, { days: 90, filters: { template: '/section-3/:slug' } })],
      ['90 d, 3 filters', () => readFieldSummary(db, site, { days: 90, filters: { template: '/section-3/:slug', browser: 'Safari', connection: '4g' } })],
      ['by template 28d', () => readFieldBreakdown(db, site, { days: 28, filters: {} }, 'template')],
    ] as const) {
      const t = await timed(READS, f);
      row([name, t.p50.toFixed(1), t.p95.toFixed(1), name.startsWith('by') ? '' : '≤ 100 p95']);
    }
    // The day with its exact values: the rollups' p75 of that day alone against the exact one. Read through a window
    // that ends that day (the clock set to its end).
    const one = await readFieldSummary(db, site, { days: 1, filters: {} }, sampleDay + DAY - 1);
    const exact = nearestRank(sampleLcps, 0.75);
    console.log(`one day's LCP p75: ${one.figures.metrics.lcp.p75!.toFixed(1)} ms from the rollups, ${exact.toFixed(1)} ms exact ` +
      `(${(((one.figures.metrics.lcp.p75! - exact) / exact) * 100).toFixed(2)} %; ${fmt(sampleLcps.length)} views)`);
  } finally {
    await server.close();
  }
}

async function bytes(engine: EngineName): Promise<void> {
  const server = await startServer({ engine, env: { WEBGAUGE_FIELD_SITE_RATE: '10000000', WEBGAUGE_FIELD_CLIENT_RATE: '10000000', WEBGAUGE_LOG_LEVEL: 'warn' } });
  try {
    await server.app.field.rollup.stop();
    const site = await siteOf(server);
    const n = 100_000;
    const url = `${server.base}/field/beacon/${site.id}`;
    for (let i = 0; i < n; i += 500) {
      await Promise.all(Array.from({ length: 500 }, (_, j) => fetch(url, { method: 'POST', body: beaconBody(i + j),
        headers: { 'content-type': 'text/plain', origin: ORIGIN, 'user-agent': UAS[(i + j) % UAS.length]! } }).then((r) => r.arrayBuffer())));
    }
    // Spread over 24 hours, as a day of a site's traffic (the rollups' hour rows): received moved back by up to a day.
    const db = server.app.store.db;
    await (engine === 'postgres' ? sql`update field_views set received = received - floor(random() * 86400000)::bigint`
      : sql`update field_views set received = received - abs(random()) % 86400000`).execute(db);
    await server.app.field.rollup.flush();
    const rollups = Number((await db.selectFrom('field_rollups').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const size = async (table: string) => {
      if (engine === 'postgres') return Number((await sql<{ b: string }>`select pg_total_relation_size(${table}) as b`.execute(db)).rows[0]!.b);
      const r = await sql<{ b: number }>`select sum(pgsize) as b from dbstat where name = ${table} or name in (select name from sqlite_master where tbl_name = ${table} and type = 'index')`.execute(db);
      return Number(r.rows[0]!.b);
    };
    const viewBytes = await size('field_views');
    const rollupBytes = await size('field_rollups');
    console.log(`\nbytes on ${engine}: ${fmt(viewBytes / n)} B per raw page view (${fmt(n)} views, indexes included); ` +
      `${fmt(rollupBytes / rollups)} B per rollup row (${fmt(rollups)} rows: their hours and day, six cuts, three devices)`);
  } finally {
    await server.close();
  }
}

async function flood(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'webgauge-field-flood-'));
  const service = await startChildService(dataDir, { WEBGAUGE_AGENT_SLOTS: '0', WEBGAUGE_LOG_LEVEL: 'warn' });
  try {
    const site = await call(service, 'POST', '/field_sites', { key: service.key, body: { data: { type: 'field_site', attributes: { name: 'Flood', origins: [ORIGIN] } } } });
    const url = `${service.api.replace(/\/api\/2\.0$/, '')}/field/beacon/${site.body.data.id}`;
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${(service.proc as ChildProcess).pid}/status`, 'utf8'))![1]) / 1024;
    const samples: number[] = [rss()];
    const timer = setInterval(() => samples.push(rss()), 10_000);
    const cell = await cannon('flood', url, FLOOD_SECONDS, 16);
    clearInterval(timer);
    samples.push(rss());
    const warm = samples.slice(Math.min(3, samples.length - 1));
    const half = Math.floor(warm.length / 2);
    const mean = (a: number[]) => a.reduce((s, x) => s + x, 0) / Math.max(1, a.length);
    console.log(`\nflood for ${FLOOD_SECONDS} s at the default limits (one address): ${fmt(cell.rps)} req/s, ${fmt(cell.non2xx)} non-2xx of ` +
      `${fmt(cell.rps * FLOOD_SECONDS)} (429s), p99 ${cell.p99} ms`);
    console.log(`service RSS (MiB) every 10 s: first ${samples[0]!.toFixed(0)}, after warm-up ${warm[0]!.toFixed(0)}, max ${Math.max(...samples).toFixed(0)}, last ` +
      `${samples.at(-1)!.toFixed(0)}; mean of the first half after warm-up ${mean(warm.slice(0, half)).toFixed(1)}, of the second ${mean(warm.slice(half)).toFixed(1)}`);
    const counts = await call(service, 'GET', `/field_sites/${site.body.data.id}/intake?days=1`, { key: service.key });
    console.log(`counted: ${JSON.stringify(counts.body.data.attributes)}`);
  } finally {
    await service.stop();
  }
}

if (process.argv[2] === 'cannon') {
  await runCannon(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]), JSON.parse(process.argv[6] ?? '{}') as Record<string, string>);
} else {
  const engines: EngineName[] = process.env.WEBGAUGE_TEST_PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  if (!process.env.WEBGAUGE_TEST_PG_URL) console.log('WEBGAUGE_TEST_PG_URL is not set: SQLite only');
  for (const engine of engines) {
    if (CASES.includes('ingest')) await ingest(engine);
    if (CASES.includes('summary')) await summary(engine);
    if (CASES.includes('bytes')) await bytes(engine);
  }
  if (CASES.includes('flood')) await flood();
}
