/**
 * The service's bad days, told apart from its bugs: the database away (PostgreSQL stopped or unreachable, a SQLite
 * file locked by another process or unreadable) and the data directory out of space. Errors of those kinds are not
 * a 500 and not a stack trace a request: `StoreHealth.noticed` says each outage once in the log, watches the database
 * until it answers again and says that once too; the edges answer 503 with Retry-After (api/errors.ts). `readiness`
 * is what GET /readyz reports; `roomForTests` is why a new test may be refused while space is low.
 */
import { statfs } from 'node:fs/promises';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What went wrong, when it is the database or the disk and not the code. */
export type Outage =
  | { kind: 'database'; reason: string }
  | { kind: 'storage'; code: string; path?: string };

/** PostgreSQL's SQLSTATEs of a server that cannot serve now (class 08: connection exception; 57P0x: shutting down). */
const PG_AWAY_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** The messages pg gives a connection that died or never came (they carry no code). */
const PG_AWAY_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;
const NET_AWAY = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'EPIPE']);
const STORAGE_FULL = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/** Plain words for the log and the 503's detail; no address, file name or engine message reaches a client. */
function sqliteReason(code: string): string | undefined {
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'the database file is locked by another process';
  if (/^SQLITE_(CANTOPEN|IOERR|NOTADB|READONLY|CORRUPT|PERM|AUTH|PROTOCOL)/.test(code)) return 'the database file cannot be read or written';
  return undefined;
}

/** The outage an error is a sign of (the error itself or its causes), or undefined when it is not one. */
export function outageOf(err: unknown): Outage | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, path, message, syscall } = e as { code?: unknown; path?: unknown; message?: unknown; syscall?: unknown };
    if (typeof code === 'string') {
      if (STORAGE_FULL.has(code)) return { kind: 'storage', code, path: typeof path === 'string' ? path : undefined };
      const sqlite = code.startsWith('SQLITE_') ? sqliteReason(code) : undefined;
      if (sqlite) return { kind: 'database', reason: sqlite };
      if (code.startsWith('08') || PG_AWAY_STATES.has(code)) return { kind: 'database', reason: 'the database server is not accepting connections' };
      // Only pg's own failed connection (thrown as it is): a socket error of something else (fetch's, to a webhook's
      // target, arrives as the cause of a TypeError) is not the database.
      if (depth === 0 && NET_AWAY.has(code) && (syscall === 'connect' || syscall === 'read' || syscall === 'write' || syscall === 'getaddrinfo')) {
        return { kind: 'database', reason: 'the database server cannot be reached' };
      }
    }
    if (typeof message === 'string' && PG_AWAY_MESSAGES.test(message)) return { kind: 'database', reason: 'the connection to the database server was lost' };
  }
  return undefined;
}

/** Where the service says its outages (pino's logger, or standard error before the server's logger exists). */
export interface HealthLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

const stderrLog: HealthLog = {
  warn: (obj, msg) => process.stderr.write(`webgauge: ${msg} ${JSON.stringify(obj)}\n`),
  error: (obj, msg) => process.stderr.write(`webgauge: ${msg} ${JSON.stringify(obj)}\n`),
  info: (obj, msg) => process.stderr.write(`webgauge: ${msg} ${JSON.stringify(obj)}\n`),
};

export interface Readiness {
  ready: boolean;
  /** What is wrong, in words that reveal nothing of accounts, tests or configuration. */
  reasons: string[];
}

export interface StoreHealthOptions {
  /** The data directory: the SQLite file and the artifacts live under it. */
  dataDir: string;
  /** New tests are refused below this much free space there (WEBGAUGE_MIN_FREE_MB). */
  minFreeMb: number;
  /** The SQLite file (SQLITE_FULL names no path). */
  databaseFile?: string;
  /** How often a database that went away is tried again. */
  probeMs?: number;
}

const MIB = 1024 * 1024;

export class StoreHealth {
  private log: HealthLog = stderrLog;
  private downSince: number | undefined;
  private probe: NodeJS.Timeout | undefined;
  /** The storage outage already said (its path), until space is back. */
  private storageFull: string | undefined;
  private free: { at: number; mb: number } | undefined;
  private migrationsCurrent = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ourMigrations: readonly string[],
    private readonly o: StoreHealthOptions,
    /**
     * SQLite's wait for a lock blocks the whole process (better-sqlite3 is synchronous): while the file is known to be
     * locked, each request waits briefly instead of the usual busy timeout (db.ts).
     */
    private readonly lockWait?: (outage: boolean) => void,
  ) {}

  useLog(log: HealthLog): void {
    this.log = log;
  }

  /** Is the database known to be away (said in the log, not yet seen back)? */
  get databaseDown(): boolean {
    return this.downSince !== undefined;
  }

  /**
   * An error met somewhere: if it is an outage, it is said in the log once (not once a request) and true is
   * returned, so the caller answers 503 or tries later without logging it again; otherwise false.
   */
  noticed(err: unknown): boolean {
    const outage = outageOf(err);
    if (!outage) return false;
    if (outage.kind === 'storage') {
      const path = outage.path ?? (outage.code === 'SQLITE_FULL' ? this.o.databaseFile : undefined) ?? this.o.dataDir;
      if (this.storageFull === undefined) {
        this.storageFull = path;
        // SQLite's SQLITE_FULL is its ENOSPC: the operator reads one word for one problem.
        this.log.error({ path, code: outage.code }, 'out of storage: a write under the data directory failed with ENOSPC (no space left ' +
          'on device); tests cannot be stored until space is freed');
      }
      this.free = undefined; // measure again at the next question
      return true;
    }
    if (this.downSince === undefined) {
      this.downSince = Date.now();
      this.log.error({ reason: outage.reason }, 'database unavailable: requests that need it answer 503 until it is back');
      this.lockWait?.(true);
      this.probe = setInterval(() => void this.answers(), this.o.probeMs ?? 1000);
      this.probe.unref();
    }
    return true;
  }

  /**
   * Does the database take a write now (a lock held by another process lets SQLite's readers through, not its
   * writers)? A database that was away and answers is said to be back, once.
   */
  private async answers(timeoutMs = 2000): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        // A write that changes nothing, on the row Kysely's migrator keeps.
        sql`update kysely_migration_lock set is_locked = is_locked where id = 'migration_lock'`.execute(this.db),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout exceeded when trying to connect')), timeoutMs))),
      ]);
    } catch (err) {
      const outage = outageOf(err);
      if (outage?.kind === 'database') {
        this.noticed(err);
        return outage.reason;
      }
      return 'the database answers with errors';
    } finally {
      clearTimeout(timer);
    }
    if (this.downSince !== undefined) {
      this.log.info({ downMs: Date.now() - this.downSince }, 'database available again');
      this.downSince = undefined;
      this.lockWait?.(false);
      clearInterval(this.probe);
      this.probe = undefined;
    }
    return undefined;
  }

  /** Free space under the data directory in MiB, measured at most once a second. */
  async freeMb(): Promise<number> {
    const now = Date.now();
    if (!this.free || now - this.free.at > 1000) {
      const s = await statfs(this.o.dataDir);
      this.free = { at: now, mb: (s.bavail * s.bsize) / MIB };
      if (this.storageFull !== undefined && this.free.mb >= this.o.minFreeMb) {
        this.log.info({ path: this.storageFull, freeMb: Math.floor(this.free.mb) }, 'storage available again');
        this.storageFull = undefined;
      }
    }
    return this.free.mb;
  }

  /** Why a new test cannot be taken now (free space below WEBGAUGE_MIN_FREE_MB), or undefined. */
  async roomForTests(): Promise<string | undefined> {
    const mb = await this.freeMb();
    return mb < this.o.minFreeMb ? 'the service is low on storage' : undefined;
  }

  /** All of ours applied, and none the code does not know (a newer Webgauge's)? Once true, it stays true. */
  private async migrationsReady(): Promise<string | undefined> {
    if (this.migrationsCurrent) return undefined;
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(this.db);
    const applied = new Set(rows.rows.map((r) => r.name));
    if (this.ourMigrations.some((m) => !applied.has(m))) return 'database migrations are not applied (run webgauge migrate)';
    if ([...applied].some((m) => !this.ourMigrations.includes(m))) return 'the database was migrated by a newer version of Webgauge';
    this.migrationsCurrent = true;
    return undefined;
  }

  /** What GET /readyz tells: the database answers, its migrations are current, the data directory has room. */
  async readiness(): Promise<Readiness> {
    const reasons: string[] = [];
    const database = await this.answers();
    if (database) reasons.push(`database unavailable: ${database}`);
    else {
      const migrations = await this.migrationsReady().catch(() => 'database migrations cannot be read');
      if (migrations) reasons.push(migrations);
    }
    const room = await this.roomForTests().catch(() => 'the data directory cannot be measured');
    if (room) reasons.push(room);
    return { ready: reasons.length === 0, reasons };
  }

  close(): void {
    clearInterval(this.probe);
    this.probe = undefined;
  }
}
