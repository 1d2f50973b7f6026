import { sql } from 'kysely';
import type { Db } from './db.js';

/**
 * Take `units` more of the account's window (insert the window's row or add to it) and return the window's new
 * total. Concurrent callers are serialised by the row (PostgreSQL) or the single writer (SQLite), so each sees the
 * total before its own units as `total - units`.
 */
export async function takeWindowUnits(db: Db, accountId: string, windowStart: number, units: number): Promise<number> {
  const row = await sql<{ count: number }>`
    insert into rate_limits (account_id, window_start, count) values (${accountId}, ${windowStart}, ${units})
    on conflict (account_id, window_start) do update set count = rate_limits.count + ${units}
    returning count`.execute(db);
  return Number(row.rows[0]?.count ?? units);
}

/** Drop the windows that started before `before`. */
export async function deleteWindowsBefore(db: Db, before: number): Promise<void> {
  await db.deleteFrom('rate_limits').where('window_start', '<', before).execute();
}
