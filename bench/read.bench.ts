/**
 * `npm run bench -- read`: the authenticated report read against a bare Fastify route serving the same body,
 * in the same run, on SQLite and on PostgreSQL (when WEBGAUGE_TEST_PG_URL is set).
 *
 * Load comes from autocannon in a child process (16 connections, BENCH_SECONDS each, default 10), so the client
 * does not share the server's event loop. Cells:
 *   webgauge  GET /api/2.0/reports/{id}                 full path: key check, rate limit, report, tags, JSON
 *   webgauge  same, with If-None-Match (304)             what a client that keeps the ETag pays
 *   bare      GET /reports/:id on a plain Fastify         the same body and Content-Type, nothing else
 * The bare cell runs before and after the service's cells; each service figure is given as a fraction of their
 * mean.
 *
 * The account's plan comes from a plans file (WEBGAUGE_PLANS_FILE, as an operator writes it) with a rate limit
 * high enough for the bench: every request still goes through the rate limiter.
 * The service logs at WEBGAUGE_LOG_LEVEL (default here `warn`; bare Fastify logs nothing); BENCH_LOG_LEVEL=info
 * measures with one log line per request.
 */
import { spawn } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { authenticate } from '../src/core/accounts/accounts.js';
import { startServer, type EngineName } from '../test/helpers/server.js';
import { seedReports } from './lib/seed-reports.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

interface Cell {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** autocannon against `url` with `headers`; its JSON summary. */
function cannon(name: string, url: string, headers: Record<string, string>): Promise<Cell> {
  const args = [AUTOCANNON, '-j', '-c', String(CONNECTIONS), '-d', String(SECONDS), '--warmup', '[', '-c', String(CONNECTIONS), '-d', '2', ']'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}`));
      // With --warmup autocannon prints the warm-up's summary first: the last line is the measured one.
      const r = JSON.parse(out.trim().split('\n').pop()!) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; '2xx': number; '3xx': number };
      // A 304 is the expected answer of the conditional cell: count it as served, not as a failure.
      const served = name.includes('304') ? r.non2xx - r['3xx'] : r.non2xx;
      resolve({ name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: served, errors: r.errors });
    });
  });
}

async function bareFastify(body: string, type: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify();
  app.get('/reports/:id', async (_req, reply) => reply.type(type).send(body));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `${address}/reports/bench`, close: () => app.close() };
}

async function benchEngine(engine: EngineName, plansFile: string): Promise<Cell[]> {
  const server = await startServer({ engine, agentSlots: 0, env: { WEBGAUGE_PLANS_FILE: plansFile, WEBGAUGE_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' } });
  try {
    const key = await server.account({ plan: 'bench' });
    const accountId = (await authenticate(server.app.store.db, server.config.plans, key))!.accountId;
    const { reportIds } = await seedReports(server.app.store, accountId, 1000, 100);
    const auth = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
    const url = `${server.api}/reports/${reportIds[500]}`;
    const first = await fetch(url, { headers: { authorization: auth } });
    const body = await first.text();
    if (first.status !== 200) throw new Error(`GET ${url} answered ${first.status}: ${body}`);
    const etag = first.headers.get('etag');
    const bare = await bareFastify(body, first.headers.get('content-type') ?? 'application/json');
    try {
      // The floor is measured before and after the service, so that a machine getting busier or quieter during
      // the run moves both sides of the ratio alike.
      const floor = `${engine} bare Fastify, same body (${body.length} B)`;
      const cells: Cell[] = [await cannon(`${floor}, before`, bare.url, { authorization: auth })];
      cells.push(await cannon(`${engine} webgauge GET /reports/{id}`, url, { authorization: auth }));
      if (etag) cells.push(await cannon(`${engine} webgauge GET /reports/{id} 304`, url, { authorization: auth, 'if-none-match': etag }));
      else console.log(`[${engine}] no ETag on the report: the 304 cell is skipped`);
      cells.push(await cannon(`${floor}, after`, bare.url, { authorization: auth }));
      return cells;
    } finally {
      await bare.close();
    }
  } finally {
    await server.close();
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'webgauge-bench-'));
  const plansFile = join(dir, 'plans.json');
  writeFileSync(plansFile, JSON.stringify({ bench: { extends: 'pro', rate_limit: 100_000_000 } }));
  const engines: EngineName[] = process.env.WEBGAUGE_TEST_PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  if (engines.length === 1) console.log('WEBGAUGE_TEST_PG_URL is not set: PostgreSQL is skipped.');
  const all: Cell[][] = [];
  for (const e of engines) all.push(await benchEngine(e, plansFile));
  console.log(`\nautocannon, ${CONNECTIONS} connections, ${SECONDS} s per cell after 2 s warm-up; service log level ${process.env.BENCH_LOG_LEVEL ?? 'warn'}`);
  console.log(`${'cell'.padEnd(52)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}  failed  vs bare`);
  for (const cells of all) {
    const floors = [cells[0], cells[cells.length - 1]];
    const floor = (floors[0].rps + floors[1].rps) / 2;
    for (const c of cells) {
      const ratio = floors.includes(c) ? '' : `1/${(floor / c.rps).toFixed(1)} of the mean floor`;
      console.log(`${c.name.padEnd(52)} ${c.rps.toFixed(0).padStart(8)} ${String(c.p50).padStart(7)} ${String(c.p99).padStart(7)}  ${String(c.non2xx + c.errors).padStart(6)}  ${ratio}`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
