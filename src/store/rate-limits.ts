import { sql } from 'kysely';
import type { Db } from './db.js';

/** Count one request in the account's window (insert the window's row or add one to it); returns the new count. */
export async function countRequest(db: Db, accountId: string, windowStart: number): Promise<number> {
  const row = await sql<{ count: number }>`
    insert into rate_limits (account_id, window_start, count) values (${accountId}, ${windowStart}, 1)
    on conflict (account_id, window_start) do update set count = rate_limits.count + 1
    returning count`.execute(db);
  return Number(row.rows[0]?.count ?? 1);
}

/** Drop the windows that started before `before`. */
export async function deleteWindowsBefore(db: Db, before: number): Promise<void> {
  await db.deleteFrom('rate_limits').where('window_start', '<', before).execute();
}
