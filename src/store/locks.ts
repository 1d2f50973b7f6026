import type { Transaction } from 'kysely';
import type { Engine } from './db.js';
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
