/**
 * `npm run bench -- lists`: read endpoints of one account holding 1,000,000 reports over 10,000 pages, on SQLite and on
 * PostgreSQL (when WEBGAUGE_TEST_PG_URL is set). Prints the query plans of the list queries (the exact SQL the
 * service runs), the latency of each query alone as core runs it (1,000 in a row, no HTTP), then requests/s and
 * p50/p95/p99 latency at two concurrency levels of:
 *   GET /reports/{id}
 *   GET /pages?filter[url]=<substring>
 *   GET /pages/{id}/reports?filter[performance_score:gte]=50&sort=-created
 *
 * The load runs in a worker thread so the client does not share the server's event loop (the server is the
 * in-process test server, as the other benches use). Rows are inserted directly, shaped as completeTest makes them
 * (bench/lib/seed-reports.ts).
 * The pro plan's rate limit (960/60 s) would stop the bench within a second: the bench account is on a plan of a
 * plans file with the largest limit one takes; every request still goes through the rate limiter.
 *
 *   BENCH_SECONDS=5 BENCH_REPORTS=1000000 BENCH_PAGES=10000 npm run bench -- lists
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CompiledQuery } from 'kysely';
import { parseListQuery } from '../src/api/query.js';
import { authenticate } from '../src/core/accounts/accounts.js';
import { clock } from '../src/core/clock.js';
import { listScopes } from '../src/store/lists.js';
import { listPageReports, listPages } from '../src/core/pages/pages.js';
import { getReport } from '../src/core/reports/reports.js';
import { listQueryBuilder } from '../src/store/list-query.js';
import { PAGES_LIST, REPORTS_LIST } from '../src/core/vocabulary/lists.js';
import { startServer, type EngineName, type TestServer } from '../test/helpers/server.js';
import type { Store } from '../src/store/db.js';
import { seedReports } from './lib/seed-reports.js';

const REPORTS = Number(process.env.BENCH_REPORTS ?? 1_000_000);
const PAGES = Number(process.env.BENCH_PAGES ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const LEVELS = [1, 8];
const QUERY_RUNS = 1000;

/** The plans of the two list queries, from the builders the service runs. */
async function plans(store: Store, accountId: string, pageId: string): Promise<string[]> {
  const pagesQ = parseListQuery(PAGES_LIST, { 'filter[url]': 'item-12' });
  const reportsQ = parseListQuery(REPORTS_LIST, { 'filter[performance_score:gte]': '50', sort: '-created' });
  const queries = {
    'pages?filter[url]': listQueryBuilder(listScopes.pages(store.db, accountId), PAGES_LIST, pagesQ, store.engine).compile(),
    'pages/{id}/reports?filter&sort': listQueryBuilder(listScopes.pageReports(store.db, accountId, pageId, clock.now()), REPORTS_LIST, reportsQ, store.engine).compile(),
    'pages (default sort)': listQueryBuilder(listScopes.pages(store.db, accountId), PAGES_LIST, parseListQuery(PAGES_LIST, {}), store.engine).compile(),
  };
  const out: string[] = [];
  for (const [name, q] of Object.entries(queries)) {
    const prefix = store.engine === 'sqlite' ? 'explain query plan ' : 'explain ';
    const { rows } = await store.db.executeQuery(CompiledQuery.raw(prefix + q.sql, [...q.parameters]));
    const lines = (rows as Record<string, unknown>[]).map((r) => String(r.detail ?? r['QUERY PLAN'] ?? JSON.stringify(r)));
    out.push(`  ${name}:`, ...lines.map((l) => `    ${l}`));
  }
  return out;
}

/** The load loop, in a worker: `concurrency` clients for `seconds`, each request its own URL from the list. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { urls, auth, concurrency, seconds } = workerData;
const latencies = []; const statuses = {}; let i = 0;
const end = Date.now() + seconds * 1000;
async function client() {
  while (Date.now() < end) {
    const url = urls[i++ % urls.length];
    const t0 = performance.now();
    const res = await fetch(url, { headers: { authorization: auth } });
    await res.arrayBuffer();
    const ms = performance.now() - t0;
    statuses[res.status] = (statuses[res.status] || 0) + 1;
    if (res.status === 200) latencies.push(ms);
  }
}
Promise.all(Array.from({ length: concurrency }, client)).then(() => parentPort.postMessage({ latencies, statuses }));
`;

interface LoadResult {
  latencies: number[];
  statuses: Record<string, number>;
}

function load(urls: string[], key: string, concurrency: number): Promise<LoadResult> {
  const auth = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { urls, auth, concurrency, seconds: SECONDS } });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

async function benchEngine(engine: EngineName, plansFile: string): Promise<string[]> {
  const server: TestServer = await startServer({ engine, agentSlots: 0, env: { WEBGAUGE_PLANS_FILE: plansFile } });
  const rows: string[] = [];
  try {
    const key = await server.account({ plan: 'bench' });
    const accountId = (await authenticate(server.app.store.db, server.config.plans, key))!.accountId;
    const t0 = Date.now();
    const { reportIds, pageIds } = await seedReports(server.app.store, accountId, REPORTS, PAGES,
      (n) => process.stdout.write(`\r[${engine}] ${n} reports written`));
    process.stdout.write('\n');
    console.log(`[${engine}] seeded ${REPORTS} reports over ${PAGES} pages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    console.log(`[${engine}] query plans:\n${(await plans(server.app.store, accountId, pageIds[0])).join('\n')}`);
    const pick = <T>(xs: T[], n: number) => Array.from({ length: n }, (_, i) => xs[(i * 7919) % xs.length]);
    // The queries alone, as core runs them (no HTTP), one after the other.
    const db = server.app.store.db;
    const queries: [string, (i: number) => Promise<unknown>][] = [
      ['query: report by id (+ page tags)', (i) => getReport(db, accountId, reportIds[(i * 7919) % reportIds.length])],
      ['query: pages filter[url]', (i) => listPages(db, accountId, parseListQuery(PAGES_LIST, { 'filter[url]': `item-${(i % 200) + 10}` }))],
      ['query: page reports filter&sort', (i) => listPageReports(db, accountId, pageIds[(i * 7919) % pageIds.length],
        parseListQuery(REPORTS_LIST, { 'filter[performance_score:gte]': '50', sort: '-created' }))],
    ];
    for (const [name, run] of queries) {
      for (let i = 0; i < 50; i++) await run(i);
      const ms: number[] = [];
      for (let i = 0; i < QUERY_RUNS; i++) {
        const t = performance.now();
        await run(i);
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      rows.push([engine.padEnd(8), name.padEnd(38), '   1', String(QUERY_RUNS).padStart(7), (QUERY_RUNS / (ms.reduce((a, b) => a + b, 0) / 1000)).toFixed(0).padStart(7),
        pct(ms, 50).toFixed(2).padStart(7), pct(ms, 95).toFixed(2).padStart(7), pct(ms, 99).toFixed(2).padStart(7), '  -'].join(' '));
    }
    const endpoints: [string, string[]][] = [
      ['GET /reports/{id}', pick(reportIds, 2000).map((id) => `${server.api}/reports/${id}`)],
      ['GET /pages?filter[url]=…', Array.from({ length: 200 }, (_, i) => `${server.api}/pages?filter[url]=item-${i + 10}`)],
      ['GET /pages/{id}/reports?filter…&sort…', pick(pageIds, 500).map((id) => `${server.api}/pages/${id}/reports?filter[performance_score:gte]=50&sort=-created`)],
    ];
    for (const [name, urls] of endpoints) {
      await load(urls.slice(0, 20), key, 1); // warm-up
      for (const c of LEVELS) {
        const r = await load(urls, key, c);
        const sorted = [...r.latencies].sort((a, b) => a - b);
        const ok = r.statuses['200'] ?? 0;
        const other = Object.entries(r.statuses).filter(([s]) => s !== '200').map(([s, n]) => `${s}×${n}`).join(' ') || '-';
        rows.push(
          [engine.padEnd(8), name.padEnd(38), String(c).padStart(4), String(ok).padStart(7), (ok / SECONDS).toFixed(0).padStart(7),
            pct(sorted, 50).toFixed(1).padStart(7), pct(sorted, 95).toFixed(1).padStart(7), pct(sorted, 99).toFixed(1).padStart(7), `  ${other}`].join(' '),
        );
      }
    }
  } finally {
    await server.close();
  }
  return rows;
}

async function main() {
  // The bench account's plan, as an operator writes it: the largest rate limit a plans file takes (see the header).
  const plansFile = join(mkdtempSync(join(tmpdir(), 'webgauge-bench-')), 'plans.json');
  writeFileSync(plansFile, JSON.stringify({ bench: { extends: 'pro', rate_limit: 1_000_000_000 } }));
  const engines: EngineName[] = process.env.WEBGAUGE_TEST_PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  if (engines.length === 1) console.log('WEBGAUGE_TEST_PG_URL is not set: PostgreSQL is skipped.');
  const rows: string[] = [];
  for (const e of engines) rows.push(...(await benchEngine(e, plansFile)));
  console.log(`\n${REPORTS} reports / ${PAGES} pages in one account, ${SECONDS} s per cell, load from a worker thread`);
  console.log(`${'engine'.padEnd(8)} ${'endpoint'.padEnd(38)} conc      ok   req/s  p50 ms  p95 ms  p99 ms   other statuses`);
  for (const r of rows) console.log(r);
  console.log('(only 200 responses count in req/s and latency; 429 on the report list is E42902, one filtered or sorted report-list query per account at a time)');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
