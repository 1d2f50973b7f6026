/** The web app's sessions repository (migration 010). */
import type { Db } from './db.js';
import type { SessionsTable } from './schema.js';

export async function insertSession(db: Db, row: SessionsTable): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export function sessionByHash(db: Db, tokenHash: string, now: number): Promise<SessionsTable | undefined> {
  return db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).where('expires', '>', now).executeTakeFirst();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

export async function deleteExpiredSessions(db: Db, now: number): Promise<void> {
  await db.deleteFrom('sessions').where('expires', '<=', now).execute();
}

/** End the account's sessions, but the one whose token hash is `keep` (the person who made the change). */
export async function deleteSessionsOf(db: Db, accountId: string, keep?: string): Promise<void> {
  let q = db.deleteFrom('sessions').where('account_id', '=', accountId);
  if (keep) q = q.where('token_hash', '!=', keep);
  await q.execute();
}
