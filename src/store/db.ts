import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationProvider, type PostgresPool, type PostgresPoolClient, type SqliteDatabase, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import { migrations } from './migrations/index.js';
import { statementName } from './prepared.js';
import { loadSecretKey, SecretBox } from './secret-box.js';

import type { Engine, RootDb } from './handles.js';

export type { Db, Engine, RootDb, Trx } from './handles.js';

export interface Store {
  db: Kysely<Database>;
  engine: Engine;
  /** Encrypts the stored secrets (core/options/stored-options.ts). */
  box: SecretBox;
  close(): Promise<void>;
}

// int8 (bigint) and numeric come back as strings from pg by default; our values are ms timestamps and
// counts that fit a double exactly.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));

export interface OpenStoreOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Override the SQLite file (tests use a temporary one). */
  sqliteFile?: string;
  poolSize?: number;
  /** WEBGAUGE_SECRET_KEY; without it, `secret.key` in dataDir (created at first start). */
  secretKey?: string;
}

/** The SQLite database of a data directory (the embedded default). */
export const sqliteFile = (dataDir: string): string => join(dataDir, 'webgauge.sqlite');

export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  // First, so a bad key stops the start before anything is opened.
  const box = new SecretBox(loadSecretKey(opts.dataDir, opts.secretKey));
  let db: Kysely<Database>;
  let engine: Engine;
  if (opts.databaseUrl) {
    engine = 'postgres';
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
    // An idle connection cut by the server (restart, failover, terminate) must not crash the process: the pool
    // drops it and opens a new one on the next query.
    pool.on('error', (err) => process.stderr.write(`webgauge: PostgreSQL connection lost: ${err.message}\n`));
    // Fail fast with a clear message instead of on the first request.
    try {
      const client = await pool.connect();
      client.release();
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new Error(`Cannot connect to PostgreSQL at ${redactUrl(opts.databaseUrl)}: ${(err as Error).message}`);
    }
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withPreparedStatements(pool) }) });
  } else {
    engine = 'sqlite';
    mkdirSync(opts.dataDir, { recursive: true });
    const file = opts.sqliteFile ?? sqliteFile(opts.dataDir);
    const sqlite = new SQLite(file);
    // WAL lets readers run beside the single writer; busy_timeout absorbs short write contention.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  }
  await migrate(db);
  return { db, engine, box, close: () => db.destroy() };
}

/**
 * Kysely's SQLite driver prepares every query anew, and preparing costs about as much as running a short query.
 * The service runs the same few hundred SQL texts over and over: keep their prepared statements (least recently
 * used dropped past `max`). A statement still being iterated (`busy`) is not shared.
 */
function withStatementCache(sqlite: SQLite.Database, max = 500): SqliteDatabase {
  const cache = new LRUCache<string, SQLite.Statement>({ max });
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      const cached = cache.get(text);
      if (cached && !cached.busy) return cached;
      const stmt = sqlite.prepare(text);
      if (!cached) cache.set(text, stmt);
      return stmt;
    },
  };
}

/**
 * The queries compiled once (prepared.ts) run as named statements: PostgreSQL parses and plans each once per
 * connection instead of on every request. Any other SQL goes as Kysely sends it.
 */
function withPreparedStatements(pool: pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      // Kysely calls query(sql, parameters) (and query(cursor) for streams, which we pass on untouched).
      const passOn = client.query.bind(client) as unknown as PostgresPoolClient['query'];
      const query = ((text: string, values: readonly unknown[]) => {
        const name = typeof text === 'string' ? statementName(text) : undefined;
        return name ? client.query({ name, text, values: [...values] }) : passOn(text, values);
      }) as unknown as PostgresPoolClient['query'];
      return { query, release: () => client.release() };
    },
    end: () => pool.end(),
  };
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`);
  }
}

/** The URL for messages and logs: its password (in the user part or libpq's `password` parameter) masked. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return u.toString();
  } catch {
    return '<invalid url>';
  }
}
