/**
 * What a backup folder's manifest must be for a restore to take it (store/backup-format.ts), and the PostgreSQL
 * commands a backup and a restore print (run through a real shell, to show they reach pg_dump/pg_restore as meant), the
 * database URL without its password (store/db.ts redactUrl).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import {
  BACKUP_FORMAT_VERSION, BackupError, newManifest, parseManifest, pgDumpCommand, pgRestoreCommand, shellQuote, type BackupManifest,
} from '../../../src/store/backup-format.js';
import { redactUrl } from '../../../src/store/db.js';

const good = (): BackupManifest => newManifest({
  engine: 'sqlite',
  created: '2025-01-02T03:04:05.000Z',
  migrations: ['001_initial', '002_lists'],
  counts: { accounts: 2, reports: 5, artifact_files: 40, artifact_bytes: 123456 },
  database: { file: 'webgauge.sqlite' },
  secret_key: { included: true, source: 'file', file: 'secret.key', check: 'ab'.repeat(32) },
});

/** The words a shell makes of a command line. */
const shellWords = (line: string): string[] =>
  execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' }).split('\0').slice(0, -1);

describe('the backup manifest', () => {
  test('a manifest as a backup writes it is read back as it was', () => {
    const m = good();
    assert.deepEqual(parseManifest(JSON.stringify(m), 'm.json'), m);
    assert.equal(m.version, BACKUP_FORMAT_VERSION);
  });

  test('a file that is no manifest, or not a Webgauge one, is refused saying so', () => {
    assert.throws(() => parseManifest('{"format":', 'x/m.json'), (e: unknown) => e instanceof BackupError && /x\/m\.json is not a Webgauge backup manifest: it is not JSON/.test(e.message));
    assert.throws(() => parseManifest('{"format":"other-backup","version":1}', 'm.json'), /not a Webgauge backup manifest \(it has no "format": "webgauge-backup"\)/);
    assert.throws(() => parseManifest('[]', 'm.json'), /not a Webgauge backup manifest/);
  });

  test('a format version this Webgauge does not know is refused; a newer one says to use a newer Webgauge', () => {
    assert.throws(() => parseManifest(JSON.stringify({ ...good(), version: BACKUP_FORMAT_VERSION + 1 }), 'm.json'),
      /format version 2; this Webgauge restores version 1 only: restore it with the Webgauge that made it, or a newer one/);
    assert.throws(() => parseManifest(JSON.stringify({ ...good(), version: '1' }), 'm.json'), /format version "1"; this Webgauge restores version 1 only$/);
  });

  test('a damaged manifest is refused with what is wrong, and never names a file outside the backup', () => {
    const damaged: [Partial<Record<keyof BackupManifest, unknown>>, RegExp][] = [
      [{ engine: 'mysql' }, /"engine" must be "sqlite" or "postgres"/],
      [{ created: 'yesterday' }, /"created" is not a date/],
      [{ migrations: [1] }, /"migrations" is not a list of names/],
      [{ counts: { accounts: 1, reports: -1, artifact_files: 0, artifact_bytes: 0 } }, /"counts" must hold/],
      [{ database: { file: '../../etc/passwd' } }, /"database\.file" is not a file name/],
      [{ secret_key: { included: true, source: 'file', file: '/root/key', check: 'ab'.repeat(32) } }, /"secret_key\.file" is not a file name/],
      [{ secret_key: { included: false, source: 'environment', check: 'short' } }, /"secret_key" must say/],
    ];
    for (const [change, message] of damaged) {
      assert.throws(() => parseManifest(JSON.stringify({ ...good(), ...change }), 'm.json'), (e: unknown) =>
        e instanceof BackupError && e.message.startsWith('m.json is damaged: ') && message.test(e.message), JSON.stringify(change));
    }
  });
});

describe('the PostgreSQL commands', () => {
  test('pg_dump: custom format into the backup folder, the URL without its password, which the note sends to PGPASSWORD', () => {
    const { command, passwordNote } = pgDumpCommand('postgres://svc:s3cr%27et@db.example:5432/webgauge?sslmode=require&password=other', "/backups/it's here/webgauge.pgdump");
    assert.doesNotMatch(command, /s3cr|other/);
    assert.deepEqual(shellWords(command), ['pg_dump', '--format=custom', "--file=/backups/it's here/webgauge.pgdump",
      '--dbname=postgres://svc@db.example:5432/webgauge?sslmode=require']);
    assert.match(passwordNote ?? '', /PGPASSWORD or ~\/\.pgpass/);
  });

  test('pg_restore: into the given database, owned by its user, stopping at the first error; no note without a password', () => {
    const { command, passwordNote } = pgRestoreCommand('postgres://postgres@127.0.0.1:5432/restored', '/b/webgauge.pgdump');
    assert.deepEqual(shellWords(command), ['pg_restore', '--no-owner', '--exit-on-error', '--dbname=postgres://postgres@127.0.0.1:5432/restored', '/b/webgauge.pgdump']);
    assert.equal(passwordNote, undefined);
  });

  test('shellQuote leaves plain words alone and quotes the rest so that the shell gives them back unchanged', () => {
    assert.equal(shellQuote('/var/backups/webgauge-1'), '/var/backups/webgauge-1');
    for (const word of ["it's", 'a b', '$HOME', 'x;rm -rf y', '`id`', 'a\\b', '*']) assert.deepEqual(shellWords(shellQuote(word)), [word]);
  });

  test('an unparsable database URL is a BackupError, not a stack trace', () => {
    assert.throws(() => pgDumpCommand('postgres://a b', '/b/d'), (e: unknown) => e instanceof BackupError && /not a valid URL/.test(e.message));
  });

  test('redactUrl masks the password of the user part and of the password parameter', () => {
    const shown = redactUrl('postgres://svc:pw1@db/webgauge?password=pw2&sslmode=require');
    assert.doesNotMatch(shown, /pw1|pw2/);
    assert.match(shown, /svc:\*\*\*@db\/webgauge\?password=\*\*\*&sslmode=require/);
  });
});

