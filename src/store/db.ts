import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationProvider, type PostgresPool, type PostgresPoolClient, type SqliteDatabase, type SqliteStatement, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import { migrations } from './migrations/index.js';
import { statementName } from './prepared.js';
import { loadSecretKey, SecretBox } from './secret-box.js';
import { StoreHealth } from './health.js';

import type { Engine, RootDb } from './handles.js';

export type { Db, Engine, RootDb, Trx } from './handles.js';

export interface Store {
  db: Kysely<Database>;
  engine: Engine;
  /** Encrypts the stored secrets (core/options/stored-options.ts). */
  box: SecretBox;
  /** The database away or the disk full: said once, answered 503, watched until back (health.ts). */
  health: StoreHealth;
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
  /** New tests are refused with less free space than this under dataDir (WEBGAUGE_MIN_FREE_MB; 0: never). */
  minFreeMb?: number;
}

/** How long SQLite waits for another writer's lock: short write contention is absorbed, a held lock is an outage. */
const SQLITE_BUSY_MS = 5000;
/** ... and while the file is known to be locked (its wait blocks the process): health.ts tries again every second. */
const SQLITE_BUSY_IN_OUTAGE_MS = 200;

/** The SQLite database of a data directory (the embedded default). */
export const sqliteFile = (dataDir: string): string => join(dataDir, 'webgauge.sqlite');

export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  // First, so a bad key stops the start before anything is opened.
  const box = new SecretBox(loadSecretKey(opts.dataDir, opts.secretKey));
  let db: Kysely<Database>;
  let engine: Engine;
  let lockWait: ((outage: boolean) => void) | undefined;
  let health: StoreHealth | undefined;
  let databaseFile: string | undefined;
  if (opts.databaseUrl) {
    engine = 'postgres';
    // A server that does not answer at all (a cut network) is an outage after 5 s, not a request hanging forever.
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10, connectionTimeoutMillis: 5000 });
    // An idle connection cut by the server (restart, failover, terminate) must not crash the process: the pool
    // drops it and opens a new one on the next query.
    // An outage is said once by the store's health (below), not once per pooled connection.
    pool.on('error', (err) => {
      if (!health?.noticed(err)) process.stderr.write(`webgauge: PostgreSQL connection lost: ${err.message}\n`);
    });
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
    databaseFile = file;
    const sqlite = new SQLite(file);
    // WAL lets readers run beside the single writer; busy_timeout absorbs short write contention.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_MS}`);
    lockWait = (outage) => sqlite.pragma(`busy_timeout = ${outage ? SQLITE_BUSY_IN_OUTAGE_MS : SQLITE_BUSY_MS}`);
    sqlite.pragma('foreign_keys = ON');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  }
  await migrate(db);
  const watch = new StoreHealth(db, Object.keys(migrations), { dataDir: opts.dataDir, minFreeMb: opts.minFreeMb ?? 0, databaseFile }, lockWait);
  health = watch;
  return {
    db, engine, box, health: watch,
    close: async () => {
      watch.close();
      await db.destroy();
    },
  };
}

/**
 * Kysely's SQLite driver prepares every query anew, and preparing costs about as much as running a short query.
 * The service runs the same few hundred SQL texts over and over: keep their prepared statements (least recently
 * used dropped past `max`). A statement still being iterated (`busy`) is not shared.
 */
function withStatementCache(sqlite: SQLite.Database, max = 500): SqliteDatabase {
  const cache = new LRUCache<string, SQLite.Statement>({ max });
  // SQLite rolls a transaction back itself after some errors (SQLITE_FULL, SQLITE_IOERR): Kysely's own rollback would
  // then fail ("no transaction is active") and hide the error that matters (the disk is full) behind its own.
  const rollback = sqlite.prepare('rollback');
  const rollbackIfOpen: SqliteStatement = {
    reader: false,
    all: () => [],
    run: () => (sqlite.inTransaction ? rollback.run() : { changes: 0, lastInsertRowid: 0 }),
    iterate: () => [][Symbol.iterator](),
  };
  // A deferred transaction that reads, then writes, fails at once with SQLITE_BUSY (no busy wait) when another
  // process (the CLI beside a running service) wrote in between: a transaction takes the write lock as it begins,
  // so it waits its turn like a single statement does.
  const beginImmediate = sqlite.prepare('begin immediate');
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      if (text === 'rollback') return rollbackIfOpen;
      if (text === 'begin') return beginImmediate;
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
