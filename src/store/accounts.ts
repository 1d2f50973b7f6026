/** The accounts repository. */
import type { Db } from './db.js';
import type { AccountsTable } from './schema.js';

/** Who an account is (monitored tests run as the page's owning account). */
export function accountIdentity(db: Db, id: string): Promise<Pick<AccountsTable, 'id' | 'email' | 'plan'> | undefined> {
  return db.selectFrom('accounts').select(['id', 'email', 'plan']).where('id', '=', id).executeTakeFirst();
}
