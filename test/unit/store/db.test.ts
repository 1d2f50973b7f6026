/**
 * SQLite shared by several processes (store/db.ts; the CLI beside a running service): a transaction that reads, then
 * writes, must wait for another process's write like a single statement does, not fail at once with SQLITE_BUSY.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openStore, sqliteFile } from '../../../src/store/db.js';

test('a read-then-write transaction is not undone by another process writing in between', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-trx-'));
  const store = await openStore({ dataDir: dir });
  // Another process's connection: it does not wait (busy_timeout 0), so what it meets shows at once.
  const other = new SQLite(sqliteFile(dir));
  other.pragma('busy_timeout = 0');
  try {
    let otherWrote: boolean | undefined;
    await store.db.transaction().execute(async (trx) => {
      await sql`select count(*) from kysely_migration`.execute(trx);
      try {
        other.prepare(`update kysely_migration_lock set is_locked = is_locked where id = 'migration_lock'`).run();
        otherWrote = true;
      } catch (err) {
        assert.equal((err as { code?: string }).code, 'SQLITE_BUSY');
        otherWrote = false;
      }
      // Before: SQLITE_BUSY here (the snapshot read above is stale and SQLite does not wait for a stale snapshot).
      await sql`update kysely_migration_lock set is_locked = is_locked where id = 'migration_lock'`.execute(trx);
    });
    assert.equal(otherWrote, false, 'the transaction held the write lock from its start');
  } finally {
    other.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
