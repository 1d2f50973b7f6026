/**
 * What a backup folder holds and how its manifest reads (`webgauge backup`, `webgauge restore`: backup.ts,
 * restore.ts). The manifest is written last, so a folder without one is no backup, or an unfinished one. Pure: no
 * file is read here.
 */
import type { Engine } from './handles.js';

export const BACKUP_FILES = {
  manifest: 'webgauge-backup.json',
  /** SQLite: the database, a single file in rollback-journal mode (the restore turns WAL back on). */
  sqlite: 'webgauge.sqlite',
  /** PostgreSQL: where the printed pg_dump command writes (webgauge backup does not run it). */
  pgDump: 'webgauge.pgdump',
  artifacts: 'artifacts',
  secretKey: 'secret.key',
} as const;

const FORMAT = 'webgauge-backup';
/** The manifest's version; a restore refuses any other (a newer Webgauge may add what this one cannot restore). */
export const BACKUP_FORMAT_VERSION = 1;

/** A refusal or a failure of the operator's backup or restore: the command says it and exits 2. */
export class BackupError extends Error {}

export interface BackupManifest {
  format: typeof FORMAT;
  version: number;
  engine: Engine;
  /** ISO 8601, when the backup started. */
  created: string;
  /** The database's migrations (SQLite: of the copy; PostgreSQL: of the database when the files were copied). */
  migrations: string[];
  counts: { accounts: number; reports: number; artifact_files: number; artifact_bytes: number };
  /** SQLite: the copied file. PostgreSQL: the dump the operator takes with `command`. */
  database: { file: string; command?: string; note?: string };
  /**
   * `check` is a MAC under the key of a fixed text (SecretBox.mac): it tells whether a key is the backed-up one
   * and reveals nothing of it.
   */
  secret_key: { included: boolean; file?: string; source: 'file' | 'environment'; check: string; note?: string };
}

export const KEY_CHECK_TEXT = 'webgauge backup: is this the key?';

export function newManifest(fields: Omit<BackupManifest, 'format' | 'version'>): BackupManifest {
  return { format: FORMAT, version: BACKUP_FORMAT_VERSION, ...fields };
}

/** The manifest read from `where`, checked; a BackupError says what is wrong with it. */
export function parseManifest(text: string, where: string): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new BackupError(`${where} is not a Webgauge backup manifest: it is not JSON (${(err as Error).message})`);
  }
  const m = value as Partial<BackupManifest> | null;
  if (typeof m !== 'object' || m === null || m.format !== FORMAT) {
    throw new BackupError(`${where} is not a Webgauge backup manifest (it has no "format": "${FORMAT}")`);
  }
  if (m.version !== BACKUP_FORMAT_VERSION) {
    const newer = typeof m.version === 'number' && m.version > BACKUP_FORMAT_VERSION;
    throw new BackupError(`${where} is a backup of format version ${JSON.stringify(m.version)}; this Webgauge restores version ` +
      `${BACKUP_FORMAT_VERSION} only${newer ? ': restore it with the Webgauge that made it, or a newer one' : ''}`);
  }
  const problem = shapeProblem(m);
  if (problem) throw new BackupError(`${where} is damaged: ${problem}`);
  return m as BackupManifest;
}

function shapeProblem(m: Partial<BackupManifest>): string | undefined {
  if (m.engine !== 'sqlite' && m.engine !== 'postgres') return `"engine" must be "sqlite" or "postgres", not ${JSON.stringify(m.engine)}`;
  if (typeof m.created !== 'string' || Number.isNaN(Date.parse(m.created))) return '"created" is not a date';
  if (!Array.isArray(m.migrations) || !m.migrations.every((n) => typeof n === 'string')) return '"migrations" is not a list of names';
  const c = m.counts;
  if (typeof c !== 'object' || c === null || !(['accounts', 'reports', 'artifact_files', 'artifact_bytes'] as const)
    .every((k) => Number.isSafeInteger(c[k]) && c[k] >= 0)) return '"counts" must hold accounts, reports, artifact_files and artifact_bytes';
  if (typeof m.database?.file !== 'string' || !isPlainName(m.database.file)) return '"database.file" is not a file name';
  const k = m.secret_key;
  if (typeof k !== 'object' || k === null || typeof k.included !== 'boolean' || !/^[0-9a-f]{64}$/.test(String(k.check))) {
    return '"secret_key" must say whether the key is included and carry its check';
  }
  if (k.included && (typeof k.file !== 'string' || !isPlainName(k.file))) return '"secret_key.file" is not a file name';
  return undefined;
}

/** A name inside the backup folder: a manifest never points outside it. */
const isPlainName = (name: string): boolean => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name);

/** A word the shell passes on as it is: quoted unless it is made only of characters no shell treats specially. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_/.:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The URL without its password, for a command the operator runs: libpq then takes it from PGPASSWORD or ~/.pgpass
 * (a masked password left in the URL would be sent as the password).
 */
export function withoutPassword(url: string): { url: string; hadPassword: boolean } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new BackupError('WEBGAUGE_DATABASE_URL is not a valid URL');
  }
  const hadPassword = u.password !== '' || u.searchParams.has('password');
  u.password = '';
  u.searchParams.delete('password');
  return { url: u.toString(), hadPassword };
}

export interface OperatorCommand {
  command: string;
  /** Set when the URL's password was left out of the command. */
  passwordNote?: string;
}

const passwordNote = (hadPassword: boolean): string | undefined =>
  hadPassword ? 'the password is left out of the URL: give it in PGPASSWORD or ~/.pgpass' : undefined;

/** The dump of the service's PostgreSQL database, in pg_dump's custom format (what pg_restore reads). */
export function pgDumpCommand(databaseUrl: string, dumpFile: string): OperatorCommand {
  const { url, hadPassword } = withoutPassword(databaseUrl);
  return { command: `pg_dump --format=custom --file=${shellQuote(dumpFile)} --dbname=${shellQuote(url)}`, passwordNote: passwordNote(hadPassword) };
}

/**
 * The dump restored into an empty database. --no-owner: the tables belong to the user of the URL (the service's),
 * whatever role owned them where the dump was taken.
 */
export function pgRestoreCommand(databaseUrl: string, dumpFile: string): OperatorCommand {
  const { url, hadPassword } = withoutPassword(databaseUrl);
  return { command: `pg_restore --no-owner --exit-on-error --dbname=${shellQuote(url)} ${shellQuote(dumpFile)}`, passwordNote: passwordNote(hadPassword) };
}
