import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApp, type App, type AppOverrides } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createAccount, type CreateAccountInput } from '../../src/core/accounts/accounts.js';

export type EngineName = 'sqlite' | 'postgres';

let warned = false;
/**
 * The engines the suite runs on: SQLite always; PostgreSQL when WEBGAUGE_TEST_PG_URL is set (scripts/test.sh
 * starts or finds one and sets it). Without it the PostgreSQL half is skipped, loudly.
 */
export function engines(): EngineName[] {
  if (process.env.WEBGAUGE_TEST_PG_URL) return ['sqlite', 'postgres'];
  if (!warned) {
    warned = true;
    process.stderr.write('\n*** WEBGAUGE_TEST_PG_URL is not set: PostgreSQL tests are SKIPPED. Run `bash scripts/test.sh` to include them. ***\n\n');
  }
  return ['sqlite'];
}

/** A fresh, empty PostgreSQL database for one test server; dropped on close. */
export async function freshPgDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.WEBGAUGE_TEST_PG_URL!;
  const name = `webgauge_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestServer {
  app: App;
  config: Config;
  base: string;
  api: string;
  /** The API key of a pro account created for the test. */
  key: string;
  account(input: Omit<CreateAccountInput, 'email'> & { email?: string }): Promise<string>;
  close(): Promise<void>;
}

export interface ServerOptions {
  engine: EngineName;
  agentSlots?: number;
  allowPrivateTargets?: boolean;
  leaseMs?: number;
  env?: Record<string, string>;
  /** Another server whose database and data folder this one uses too (two API processes of one service). */
  sharing?: TestServer;
  /** Passed to createApp (say, an artifact store whose writes fail). */
  overrides?: AppOverrides;
  /**
   * The run guard (agent/host-check.ts), on by default in the service, is off unless asked for: the suite's own
   * processes load the machine, and a load repeated because of them would change what tests count.
   */
  runGuard?: boolean;
}

export async function startServer(opts: ServerOptions): Promise<TestServer> {
  const shared = opts.sharing?.config;
  const dataDir = shared?.dataDir ?? (await mkdtemp(join(tmpdir(), 'webgauge-test-')));
  const pgdb = shared || opts.engine !== 'postgres' ? undefined : await freshPgDatabase();
  const databaseUrl = shared ? shared.databaseUrl : pgdb?.url;
  const config = loadConfig({
    WEBGAUGE_DATA_DIR: dataDir,
    WEBGAUGE_PORT: '0',
    WEBGAUGE_AGENT_SLOTS: String(opts.agentSlots ?? 0),
    WEBGAUGE_ALLOW_PRIVATE_TARGETS: opts.allowPrivateTargets === false ? '0' : '1',
    WEBGAUGE_LOG_LEVEL: process.env.WEBGAUGE_TEST_LOG_LEVEL ?? 'silent',
    WEBGAUGE_LEASE_MS: String(opts.leaseMs ?? 30_000),
    WEBGAUGE_RUN_GUARD: opts.runGuard ? '1' : '0',
    ...(databaseUrl ? { WEBGAUGE_DATABASE_URL: databaseUrl } : {}),
    ...opts.env,
  });
  const app = await createApp(config, opts.overrides);
  const address = await app.server.listen({ host: '127.0.0.1', port: 0 });
  let n = 0;
  const account: TestServer['account'] = async (input) => {
    const { apiKey } = await createAccount(app.store.db, config.plans, { email: input.email ?? `user${++n}-${Date.now()}@example.test`, ...input });
    return apiKey;
  };
  const key = opts.sharing?.key ?? (await account({ plan: 'pro' }));
  return {
    app,
    config,
    base: address,
    api: `${address}/api/2.0`,
    key,
    account,
    async close() {
      await app.close();
      if (shared) return; // the server shared with cleans up
      await pgdb?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Res {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** A request to the API as a client makes it: Basic auth with the key, JSON:API body. */
export async function call(
  server: { api: string },
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; contentType?: string | null; headers?: Record<string, string> } = {},
): Promise<Res> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== null && opts.key !== undefined) headers.authorization = `Basic ${Buffer.from(`${opts.key}:`).toString('base64')}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    if (opts.contentType !== null) headers['content-type'] = opts.contentType ?? 'application/vnd.api+json';
  }
  const res = await fetch(path.startsWith('http') ? path : server.api + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Poll a test until it leaves queued/started (3 s is the spec's interval; tests poll faster). */
export async function waitForTest(server: { api: string }, key: string, id: string, timeoutMs = 90_000, everyMs = 250): Promise<Res> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(server, 'GET', `/tests/${id}`, { key });
    // Polled faster than the key's rate limit allows: wait as the answer says, as a client does.
    if (res.status === 429) {
      if (Date.now() > deadline) throw new Error(`test ${id}: still rate limited after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    const state = res.body?.data?.attributes?.state;
    if (state !== 'queued' && state !== 'started') return res;
    if (Date.now() > deadline) throw new Error(`test ${id} still ${state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function errorOf(res: Res): { status: string; code: string; title: string; detail?: string } {
  return res.body?.errors?.[0];
}
