/**
 * `webgauge restore --from DIR`: a backup (backup.ts) put into an empty data directory. Everything that can be
 * refused is refused before anything is written, and nothing is ever written over: the data directory must hold
 * no database, no artifacts and no key. The database is then opened as the service opens it, which applies the
 * migrations this version has beyond the backup's, and SQLite checks its integrity. For PostgreSQL the operator
 * runs the printed pg_restore into an empty database.
 */
import { constants } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, rename, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import { copyArtifactTree, type CopiedArtifacts } from '../artifacts/copy.js';
import { artifactsRoot } from '../artifacts/store.js';
import { byteSize, plural } from '../lib/words.js';
import { BACKUP_FILES, BackupError, parseManifest, pgRestoreCommand, type BackupManifest, type OperatorCommand } from './backup-format.js';
import { keyCheck, seconds, storeFacts, withPostgres, writePrivateFile, type DataLocation, type StoreFacts } from './backup.js';
import { openStore, redactUrl, sqliteFile } from './db.js';
import { migrations as knownMigrations } from './migrations/index.js';
import { parseSecretKey, SecretKeyError, secretKeyFile } from './secret-box.js';

const exists = async (path: string): Promise<boolean> => (await stat(path).catch(() => undefined)) !== undefined;

async function readManifest(from: string): Promise<BackupManifest> {
  const file = join(from, BACKUP_FILES.manifest);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') {
      throw new BackupError(`${from} is not a Webgauge backup: it has no ${BACKUP_FILES.manifest} (a backup writes it last, ` +
        'so an unfinished backup has none either)');
    }
    throw err;
  }
  return parseManifest(text, file);
}

/** The backup is one this version can restore into the configured store, and its files are all there. */
async function checkBackup(from: string, m: BackupManifest, to: DataLocation): Promise<void> {
  const unknown = m.migrations.filter((name) => !(name in knownMigrations));
  if (unknown.length > 0) {
    throw new BackupError(`this backup was made by a newer Webgauge (its database has migration ${unknown.join(', ')}, ` +
      'which this version does not know): restore it with that version or a newer one');
  }
  if (m.engine === 'sqlite' && to.databaseUrl) {
    throw new BackupError('this is a backup of a SQLite service: unset WEBGAUGE_DATABASE_URL to restore it into the data directory');
  }
  if (m.engine === 'postgres' && !to.databaseUrl) {
    throw new BackupError('this is a backup of a PostgreSQL service: set WEBGAUGE_DATABASE_URL to the new, empty database ' +
      'to restore it into');
  }
  const needed = [
    ...(m.engine === 'sqlite' ? [m.database.file] : []),
    ...(m.counts.artifact_files > 0 ? [BACKUP_FILES.artifacts] : []),
  ];
  for (const name of needed) {
    if (!(await exists(join(from, name)))) throw new BackupError(`the backup ${from} is incomplete: ${name} is missing`);
  }
  // The key may be kept apart from the rest of the backup (docs/operations.md "Backups"): it comes back for the restore.
  if (m.secret_key.included && m.secret_key.file && !(await exists(join(from, m.secret_key.file)))) {
    throw new BackupError(`the backup's key ${m.secret_key.file} is not in ${from}: if it is kept apart from the backup, put it back ` +
      'there, then restore');
  }
}

/** The backup's key, or the one given in WEBGAUGE_SECRET_KEY, is the key the backup's secrets were sealed with. */
async function checkKey(from: string, m: BackupManifest, to: DataLocation): Promise<Buffer | undefined> {
  const given = to.secretKey ? parseSecretKey(to.secretKey, 'WEBGAUGE_SECRET_KEY') : undefined;
  if (given && keyCheck(given) !== m.secret_key.check) {
    throw new BackupError('WEBGAUGE_SECRET_KEY is set to another key than the backed-up service\'s: ' +
      (m.secret_key.included ? 'unset it (the backup\'s secret.key is restored) or set it to the backed-up key'
        : 'set it to the key that service was given'));
  }
  if (!m.secret_key.included) {
    if (!given) {
      throw new BackupError('the backed-up service had its secret key in WEBGAUGE_SECRET_KEY, so the backup does not hold it: ' +
        'set WEBGAUGE_SECRET_KEY to that key, for this restore and for the service');
    }
    return undefined;
  }
  const file = join(from, m.secret_key.file!);
  const text = await readFile(file);
  let key: Buffer;
  try {
    key = parseSecretKey(text.toString('utf8'), file);
  } catch (err) {
    if (err instanceof SecretKeyError) throw new BackupError(`the backup's key is damaged: ${err.message}`);
    throw err;
  }
  if (keyCheck(key) !== m.secret_key.check) throw new BackupError(`${file} is not the key this backup was made with (its check differs)`);
  return text;
}

/** Nothing of a service is in the data directory yet: a restore never writes over a database, artifacts or a key. */
async function checkEmptyDataDir(dataDir: string, engine: BackupManifest['engine']): Promise<void> {
  const found: string[] = [];
  if (engine === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm']) if (await exists(sqliteFile(dataDir) + suffix)) found.push(`a database (${sqliteFile(dataDir)}${suffix})`);
  }
  const artifacts = await readdir(artifactsRoot(dataDir)).catch(() => []);
  if (artifacts.length > 0) found.push(`artifacts (${artifactsRoot(dataDir)})`);
  if (await exists(secretKeyFile(dataDir))) found.push(`a key (${secretKeyFile(dataDir)})`);
  if (found.length > 0) {
    throw new BackupError(`the data directory ${dataDir} already holds ${found.join(', ')}: restore into a new, empty one ` +
      '(set WEBGAUGE_DATA_DIR); nothing was changed');
  }
}

async function checkEmptyPostgres(databaseUrl: string): Promise<void> {
  const tables = await withPostgres(databaseUrl, async (db) => Number((await sql<{ n: string | number }>`select count(*) as n
    from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')`.execute(db)).rows[0]?.n ?? 0));
  if (tables > 0) {
    throw new BackupError(`the database at ${redactUrl(databaseUrl)} is not empty (${plural(tables, 'table')}): restore into a ` +
      'new, empty database (createdb ...); nothing was changed');
  }
}

/** The SQLite file copied under a temporary name, then renamed: a half-copied file never looks like a database. */
async function restoreSqliteFile(from: string, dataDir: string, name: string): Promise<void> {
  const target = sqliteFile(dataDir);
  const tmp = `${target}.restoring-${process.pid}`;
  await copyFile(join(from, name), tmp, constants.COPYFILE_EXCL);
  await chmod(tmp, 0o600);
  await rename(tmp, target);
}

export interface RestoreOutcome {
  from: string;
  dataDir: string;
  manifest: BackupManifest;
  artifacts: CopiedArtifacts;
  keyRestored: boolean;
  /** SQLite: the restored database as the service now sees it, and the migrations it was brought forward by. */
  database?: StoreFacts & { newMigrations: string[]; integrity: string };
  /** PostgreSQL: the command that restores the dump, and whether the dump is in the backup folder. */
  pgRestore?: OperatorCommand & { dumpFound: boolean };
  seconds: number;
}

/** Restores the backup in `from` into the store of `to` (its data directory empty; for PostgreSQL, its database too). */
export async function restoreBackup(to: DataLocation, fromDir: string): Promise<RestoreOutcome> {
  const started = performance.now();
  const from = resolve(fromDir);
  const dataDir = resolve(to.dataDir);
  const manifest = await readManifest(from);
  await checkBackup(from, manifest, to);
  const key = await checkKey(from, manifest, to);
  await checkEmptyDataDir(dataDir, manifest.engine);
  if (to.databaseUrl) await checkEmptyPostgres(to.databaseUrl);

  const outcome: RestoreOutcome = { from, dataDir, manifest, artifacts: { files: 0, bytes: 0, vanished: 0 }, keyRestored: false, seconds: 0 };
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await chmod(dataDir, 0o700);
    if (manifest.engine === 'sqlite') await restoreSqliteFile(from, dataDir, manifest.database.file);
    outcome.artifacts = await copyArtifactTree(join(from, BACKUP_FILES.artifacts), artifactsRoot(dataDir));
    const { artifact_files: files, artifact_bytes: bytes } = manifest.counts;
    if (outcome.artifacts.files !== files || outcome.artifacts.bytes !== bytes) {
      throw new BackupError(`the backup's artifacts are ${plural(outcome.artifacts.files, 'file')} of ${outcome.artifacts.bytes} bytes, ` +
        `but its manifest lists ${plural(files, 'file')} of ${bytes} bytes: the backup folder was changed or damaged since`);
    }
    if (key) {
      await writePrivateFile(secretKeyFile(dataDir), key);
      outcome.keyRestored = true;
    }
    if (manifest.engine === 'sqlite') {
      outcome.database = await openRestored(dataDir, to.secretKey, manifest);
    } else {
      const dump = join(from, manifest.database.file);
      outcome.pgRestore = { ...pgRestoreCommand(to.databaseUrl!, dump), dumpFound: await exists(dump) };
    }
  } catch (err) {
    const restored = [BACKUP_FILES.sqlite, BACKUP_FILES.artifacts, BACKUP_FILES.secretKey].map((n) => join(dataDir, n)).join(', ');
    throw new BackupError(`the restore failed: ${(err as Error).message}. ${dataDir} now holds part of the backup: remove what ` +
      `the restore wrote there (${restored}) before trying again`);
  }
  outcome.seconds = (performance.now() - started) / 1000;
  return outcome;
}

/** The restored database opened as the service opens it (migrations applied), then checked by SQLite. */
async function openRestored(dataDir: string, secretKey: string | undefined, manifest: BackupManifest): Promise<NonNullable<RestoreOutcome['database']>> {
  const store = await openStore({ dataDir, secretKey });
  try {
    const facts = await storeFacts(store.db);
    const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(store.db);
    const integrity = check.rows.map((r) => r.integrity_check).join('; ');
    if (integrity !== 'ok') throw new BackupError(`the restored database fails SQLite's integrity check: ${integrity.slice(0, 500)}`);
    return { ...facts, integrity, newMigrations: facts.migrations.filter((n) => !manifest.migrations.includes(n)) };
  } finally {
    await store.close();
  }
}

/** What `webgauge restore` prints. */
export function describeRestore(o: RestoreOutcome): string {
  const m = o.manifest;
  const what = m.engine === 'sqlite' ? 'the sqlite backup' : 'the files of the postgres backup';
  const lines = [`Restored ${what} of ${m.created} from ${o.from} into ${o.dataDir} in ${seconds(o.seconds)}:`];
  if (o.database) {
    const d = o.database;
    const sameCounts = d.accounts === m.counts.accounts && d.reports === m.counts.reports;
    lines.push(`  database    ${plural(d.accounts, 'account')}, ${plural(d.reports, 'report')}` +
      `${sameCounts ? '' : ` (the backup's manifest says ${m.counts.accounts} and ${m.counts.reports})`}; ` +
      (d.newMigrations.length ? `brought up to date by ${plural(d.newMigrations.length, 'migration')} (${d.newMigrations.join(', ')})`
        : `${plural(d.migrations.length, 'migration')}, up to date`) +
      `; integrity check: ${d.integrity}`);
  } else {
    lines.push('  database    NOT YET: restore the dump with the command below');
  }
  lines.push(`  artifacts   ${plural(o.artifacts.files, 'file')}, ${byteSize(o.artifacts.bytes)} (as the manifest lists)`);
  lines.push(o.keyRestored ? `  secret key  ${secretKeyFile(o.dataDir)}`
    : '  secret key  from WEBGAUGE_SECRET_KEY (checked against the backup\'s): give the service the same');
  if (o.pgRestore) {
    lines.push('', 'Now restore the database into the empty database, then start the service (it applies newer migrations at start):',
      `  ${o.pgRestore.command}`);
    if (o.pgRestore.passwordNote) lines.push(`  (${o.pgRestore.passwordNote})`);
    if (!o.pgRestore.dumpFound) {
      lines.push(`  (the dump is not in the backup folder: take the one made with ${m.database.command ? `\`${m.database.command}\`` : 'pg_dump'})`);
    }
  } else {
    lines.push('', `Start the service with WEBGAUGE_DATA_DIR=${o.dataDir}.`);
  }
  return `${lines.join('\n')}\n`;
}
