/**
 * `webgauge backup --to DIR`: a consistent copy of a running service's data, without stopping it. The database
 * first, then the artifacts, then the key: a report's files are written before its row is committed
 * (core/reports/reports.ts), so every report in the copied database finds its files among the artifacts copied
 * after it (a report completed in between leaves files without a row, which nothing reads). SQLite is copied with
 * its online backup API on a connection of our own; for PostgreSQL the operator runs the printed pg_dump.
 */
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve, isAbsolute } from 'node:path';
import SQLite from 'better-sqlite3';
import { DEFAULT_MIGRATION_TABLE, Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import { copyArtifactTree } from '../artifacts/copy.js';
import { artifactsRoot } from '../artifacts/store.js';
import { byteSize, plural } from '../lib/words.js';
import {
  BACKUP_FILES, BackupError, KEY_CHECK_TEXT, newManifest, pgDumpCommand, shellQuote, type BackupManifest, type OperatorCommand,
} from './backup-format.js';
import { redactUrl, sqliteFile } from './db.js';
import type { Database } from './schema.js';
import { parseSecretKey, SecretBox, SecretKeyError, secretKeyFile } from './secret-box.js';

/** Where a service keeps its data: what `webgauge backup` and `webgauge restore` are given (from the configuration). */
export interface DataLocation {
  dataDir: string;
  /** PostgreSQL; absent: the SQLite file in dataDir. */
  databaseUrl?: string;
  /** WEBGAUGE_SECRET_KEY; absent: secret.key in dataDir. */
  secretKey?: string;
}

export interface StoreFacts {
  migrations: string[];
  accounts: number;
  reports: number;
}

/** The migrations a database has had and how many accounts and reports it holds. */
export async function storeFacts(db: Kysely<Database>): Promise<StoreFacts> {
  const applied = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)} order by name`.execute(db);
  const count = async (table: 'accounts' | 'reports') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return { migrations: applied.rows.map((r) => r.name), accounts: await count('accounts'), reports: await count('reports') };
}

/** The key's check for the manifest (a MAC of a fixed text: it says whether a key is this one, and nothing of it). */
export const keyCheck = (key: Buffer): string => new SecretBox(key).mac(KEY_CHECK_TEXT);

type ServiceKey = { source: 'environment'; key: Buffer } | { source: 'file'; key: Buffer; file: string };

/** The key the service uses, as the service finds it (secret-box.ts), without ever creating one. */
async function serviceKey(from: DataLocation): Promise<ServiceKey> {
  if (from.secretKey) return { source: 'environment', key: parseSecretKey(from.secretKey, 'WEBGAUGE_SECRET_KEY') };
  const file = secretKeyFile(from.dataDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new BackupError(`no secret key to back up: ${file} does not exist and WEBGAUGE_SECRET_KEY is not set. ` +
      'If the service is given WEBGAUGE_SECRET_KEY, give it to this command too');
  }
  try {
    return { source: 'file', key: parseSecretKey(text, file), file };
  } catch (err) {
    if (err instanceof SecretKeyError) throw new BackupError(err.message);
    throw err;
  }
}

/** A path inside (or equal to) another. */
export const isWithin = (path: string, folder: string): boolean => {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The backup's folder, resolved: it must be new or empty, and not inside the data it backs up. */
async function checkDestination(to: string, dataDir: string): Promise<string> {
  const dir = resolve(to);
  if (isWithin(dir, dataDir)) {
    throw new BackupError(`${dir} is inside the data directory ${dataDir}: give --to a folder outside it (on another disk, ideally)`);
  }
  try {
    const entries = await readdir(dir);
    if (entries.length > 0) {
      throw new BackupError(`${dir} is not empty: give --to a new or empty folder (a backup is never written over anything)`);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new BackupError(`${dir} is a file: give --to a new or empty folder`);
    if (code !== 'ENOENT') throw err;
  }
  return dir;
}

/** The data directory holds a SQLite database (checked before anything is written). */
async function checkSqliteSource(dataDir: string): Promise<void> {
  const file = sqliteFile(dataDir);
  const found = await stat(file).catch(() => undefined);
  if (!found?.isFile()) {
    throw new BackupError(`no SQLite database at ${file}: is WEBGAUGE_DATA_DIR the service's? ` +
      '(For PostgreSQL, set WEBGAUGE_DATABASE_URL as the service has it.)');
  }
}

const ALL_PAGES = 0x7fffffff;

/**
 * The SQLite database copied through SQLite's online backup API, on a connection of our own beside the service's.
 * All pages go in one step: one read transaction, so one snapshot, and a write of the service meanwhile (WAL lets
 * it go on) cannot make the backup start over. The copy is then made a single file (rollback journal) and read.
 */
async function copySqlite(dataDir: string, target: string): Promise<StoreFacts & { bytes: number }> {
  const live = new SQLite(sqliteFile(dataDir), { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 5000');
    await live.backup(target, { progress: () => ALL_PAGES });
  } finally {
    live.close();
  }
  await chmod(target, 0o600);
  const copy = new SQLite(target, { fileMustExist: true });
  copy.pragma('journal_mode = DELETE');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: copy }) });
  try {
    return { ...(await storeFacts(db)), bytes: (await stat(target)).size };
  } finally {
    await db.destroy();
  }
}

/** A PostgreSQL database opened for a few reads, without migrating it (the running service owns its schema). */
export async function withPostgres<T>(databaseUrl: string, fn: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool.on('error', () => undefined); // a connection cut while idle: the next query says so
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    try {
      await sql`select 1`.execute(db);
    } catch (err) {
      throw new BackupError(`cannot connect to PostgreSQL at ${redactUrl(databaseUrl)}: ${(err as Error).message}`);
    }
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

async function postgresFacts(databaseUrl: string): Promise<StoreFacts> {
  return withPostgres(databaseUrl, async (db) => {
    try {
      return await storeFacts(db);
    } catch (err) {
      throw new BackupError(`the PostgreSQL database at ${redactUrl(databaseUrl)} is not a Webgauge database (${(err as Error).message})`);
    }
  });
}

/** A file of the backup written whole under its name, private (0600). */
export async function writePrivateFile(path: string, data: string | Buffer): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomUUID()}`;
  await writeFile(tmp, data, { mode: 0o600, flag: 'wx' });
  await rename(tmp, path);
}

export interface BackupOutcome {
  dir: string;
  dataDir: string;
  manifest: BackupManifest;
  /** SQLite: the database file's size. */
  databaseBytes?: number;
  /** PostgreSQL: the dump the operator takes now. */
  pgDump?: OperatorCommand;
  /** Artifact files and folders removed by the service during the copy (the expiry sweep), left out. */
  vanished: number;
  seconds: number;
}

/** Backs up a service's data into `to` (a new or empty folder), the service running or not. */
export async function backUp(from: DataLocation, to: string): Promise<BackupOutcome> {
  const started = performance.now();
  const created = new Date().toISOString();
  const dataDir = resolve(from.dataDir);
  // Everything that can be refused is, before anything is written.
  const dir = await checkDestination(to, dataDir);
  const key = await serviceKey(from);
  const pgFacts = from.databaseUrl ? await postgresFacts(from.databaseUrl) : undefined;
  if (!from.databaseUrl) await checkSqliteSource(dataDir);

  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  } catch (err) {
    throw new BackupError(`cannot create the backup folder ${dir}: ${(err as Error).message}`);
  }
  try {
    let facts: StoreFacts;
    let database: BackupManifest['database'];
    let databaseBytes: number | undefined;
    let pgDump: OperatorCommand | undefined;
    if (pgFacts && from.databaseUrl) {
      facts = pgFacts;
      pgDump = pgDumpCommand(from.databaseUrl, join(dir, BACKUP_FILES.pgDump));
      database = {
        file: BACKUP_FILES.pgDump, command: pgDump.command,
        note: 'webgauge backup does not dump PostgreSQL: run the command right after it (reports completed in between ' +
          'have rows but no files); counts and migrations are the database\'s when the files were copied',
      };
    } else {
      const copied = await copySqlite(dataDir, join(dir, BACKUP_FILES.sqlite));
      facts = copied;
      databaseBytes = copied.bytes;
      database = { file: BACKUP_FILES.sqlite };
    }
    const artifacts = await copyArtifactTree(artifactsRoot(dataDir), join(dir, BACKUP_FILES.artifacts));
    let secretKey: BackupManifest['secret_key'];
    if (key.source === 'file') {
      await writePrivateFile(join(dir, BACKUP_FILES.secretKey), await readFile(key.file));
      secretKey = { included: true, source: 'file', file: BACKUP_FILES.secretKey, check: keyCheck(key.key) };
    } else {
      secretKey = {
        included: false, source: 'environment', check: keyCheck(key.key),
        note: 'the key is in WEBGAUGE_SECRET_KEY, not in this backup: keep it with the backup. Without it the stored test ' +
          'secrets (HTTP auth passwords, cookies, journeys) cannot be decrypted',
      };
    }
    const manifest = newManifest({
      engine: from.databaseUrl ? 'postgres' : 'sqlite',
      created,
      migrations: facts.migrations,
      counts: { accounts: facts.accounts, reports: facts.reports, artifact_files: artifacts.files, artifact_bytes: artifacts.bytes },
      database,
      secret_key: secretKey,
    });
    // Last: a folder with a manifest is a whole backup.
    await writePrivateFile(join(dir, BACKUP_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
    return { dir, dataDir, manifest, databaseBytes, pgDump, vanished: artifacts.vanished, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`the backup failed: ${(err as Error).message}. ${dir} is unfinished (it has no ${BACKUP_FILES.manifest}): ` +
      'remove it before trying again');
  }
}

/** "0.42 s", "12.3 s". */
export const seconds = (s: number): string => `${s.toFixed(s < 10 ? 2 : 1)} s`;

/** What `webgauge backup` prints. */
export function describeBackup(o: BackupOutcome): string {
  const m = o.manifest;
  const c = m.counts;
  const lines = [`Backed up ${o.dataDir} (${m.engine}) to ${o.dir} in ${seconds(o.seconds)}:`];
  const contents = `${plural(c.accounts, 'account')}, ${plural(c.reports, 'report')}; ${plural(m.migrations.length, 'migration')}` +
    (m.migrations.length ? `, the last ${m.migrations.at(-1)}` : '');
  lines.push(m.engine === 'sqlite'
    ? `  database    ${BACKUP_FILES.sqlite}, ${byteSize(o.databaseBytes ?? 0)}, through SQLite's online backup: ${contents}`
    : `  database    NOT COPIED (PostgreSQL: take its dump below); it holds ${contents}`);
  lines.push(`  artifacts   ${plural(c.artifact_files, 'file')}, ${byteSize(c.artifact_bytes)}` +
    (o.vanished ? ` (${plural(o.vanished, 'file or folder', 'files or folders')} removed by the service during the copy left out)` : ''));
  lines.push(m.secret_key.included
    ? `  secret key  ${BACKUP_FILES.secretKey}: keep it with the database; the tests' stored secrets cannot be decrypted without it`
    : '  secret key  NOT IN THE BACKUP: it is in WEBGAUGE_SECRET_KEY. Keep that key with this backup: without it the ' +
      'stored test secrets cannot be decrypted');
  lines.push(`  manifest    ${BACKUP_FILES.manifest}`);
  if (o.pgDump) {
    lines.push('', `Now take the database's dump into the backup (custom format; pg_dump of the server's major version or newer):`,
      `  ${o.pgDump.command}`);
    if (o.pgDump.passwordNote) lines.push(`  (${o.pgDump.passwordNote})`);
  }
  const into = ['WEBGAUGE_DATA_DIR=<new empty folder>', ...(m.engine === 'postgres' ? ['WEBGAUGE_DATABASE_URL=<new empty database>'] : []),
    ...(m.secret_key.included ? [] : ['WEBGAUGE_SECRET_KEY=<the same key>'])];
  lines.push('', `Restore with: ${into.join(' ')} webgauge restore --from ${shellQuote(o.dir)}`);
  return `${lines.join('\n')}\n`;
}
