import type { Transaction } from 'kysely';
import type { Db, Engine } from './db.js';
import type { Database } from './schema.js';

/**
 * Serialise this transaction with the account's other writers. PostgreSQL: lock the account row until the
 * transaction ends; every caller takes it first, so all account-then-page orders agree and cannot deadlock.
 * SQLite needs nothing: a transaction that writes holds the database's one write lock.
 */
export async function lockAccount(trx: Transaction<Database>, engine: Engine, accountId: string): Promise<void> {
  if (engine !== 'postgres') return;
  await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
}

/**
 * The account's report-list lock (migration 002): insert it, or take over one that expired, in one statement.
 * False when another query of the account holds it.
 */
export async function takeReportListLock(db: Db, accountId: string, token: string, now: number, expires: number): Promise<boolean> {
  const got = await db
    .insertInto('report_list_locks')
    .values({ account_id: accountId, token, expires })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ token, expires }).where('report_list_locks.expires', '<=', now))
    .returning('token')
    .executeTakeFirst();
  return got !== undefined;
}

/** Release the report-list lock if it is still ours. */
export async function releaseReportListLock(db: Db, accountId: string, token: string): Promise<void> {
  await db.deleteFrom('report_list_locks').where('account_id', '=', accountId).where('token', '=', token).execute();
}

/**
 * A PDF's generation slot (migration 004): take it for this account, or take over one that expired, in one
 * statement. False when a live slot of this PDF exists (another process generates it).
 */
export async function takePdfSlot(db: Db, pdfKey: string, accountId: string, token: string, now: number, expires: number): Promise<boolean> {
  const slot = await db
    .insertInto('pdf_generations')
    .values({ pdf_key: pdfKey, account_id: accountId, token, expires })
    .onConflict((oc) => oc.column('pdf_key').doUpdateSet({ account_id: accountId, token, expires }).where('pdf_generations.expires', '<=', now))
    .returning('token')
    .executeTakeFirst();
  return slot !== undefined;
}

/** How many live PDF slots the account holds. */
export async function countPdfSlots(db: Db, accountId: string, now: number): Promise<number> {
  const running = await db
    .selectFrom('pdf_generations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('expires', '>', now)
    .executeTakeFirstOrThrow();
  return Number(running.n);
}

/** Extend our slot's life. */
export async function renewPdfSlot(db: Db, pdfKey: string, token: string, expires: number): Promise<void> {
  await db.updateTable('pdf_generations').set({ expires }).where('pdf_key', '=', pdfKey).where('token', '=', token).execute();
}

/** Free our slot (someone else's, after a takeover, stays). */
export async function freePdfSlot(db: Db, pdfKey: string, token: string): Promise<void> {
  await db.deleteFrom('pdf_generations').where('pdf_key', '=', pdfKey).where('token', '=', token).execute();
}

/** When the PDF's slot expires; undefined when there is none. */
export async function pdfSlotExpiry(db: Db, pdfKey: string): Promise<number | undefined> {
  const slot = await db.selectFrom('pdf_generations').select('expires').where('pdf_key', '=', pdfKey).executeTakeFirst();
  return slot?.expires;
}
