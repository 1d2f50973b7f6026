/** The accounts repository. */
import type { Db } from './db.js';
import type { AccountsTable } from './schema.js';

/** Who an account is (monitored tests run as the page's owning account). */
export function accountIdentity(db: Db, id: string): Promise<Pick<AccountsTable, 'id' | 'email' | 'plan'> | undefined> {
  return db.selectFrom('accounts').select(['id', 'email', 'plan']).where('id', '=', id).executeTakeFirst();
}

export function accountByEmail(db: Db, email: string): Promise<Pick<AccountsTable, 'id' | 'team_owner_id'> | undefined> {
  return db.selectFrom('accounts').select(['id', 'team_owner_id']).where('email', '=', email).executeTakeFirst();
}

export function accountById(db: Db, id: string): Promise<AccountsTable | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export function accountByKeyHash(db: Db, apiKeyHash: string): Promise<AccountsTable | undefined> {
  return db.selectFrom('accounts').selectAll().where('api_key_hash', '=', apiKeyHash).executeTakeFirst();
}

export async function insertAccount(db: Db, account: AccountsTable): Promise<void> {
  await db.insertInto('accounts').values(account).execute();
}

/** Replace the account's credentials (a new API key's hash, a new password's hash). */
export async function setAccountSecrets(db: Db, id: string, set: Partial<Pick<AccountsTable, 'api_key_hash' | 'password_hash'>>): Promise<void> {
  await db.updateTable('accounts').set(set).where('id', '=', id).execute();
}

/** Change the account of this e-mail; false when there is none. */
export async function updateAccountByEmail(db: Db, email: string, set: Partial<Pick<AccountsTable, 'plan' | 'credits_tenths'>>):
  Promise<boolean> {
  const res = await db.updateTable('accounts').set(set).where('email', '=', email).executeTakeFirst();
  return Number(res.numUpdatedRows) !== 0;
}

export interface AccountListRow extends Pick<AccountsTable, 'email' | 'plan' | 'credits_tenths' | 'role'> {
  /** The team owner's e-mail. */
  team_of: string | null;
}

/** Every account with its team owner's e-mail, oldest first. */
export function listAccountRows(db: Db): Promise<AccountListRow[]> {
  return db
    .selectFrom('accounts as a')
    .leftJoin('accounts as o', 'o.id', 'a.team_owner_id')
    .select(['a.email', 'a.plan', 'a.credits_tenths', 'a.role', 'o.email as team_of'])
    .orderBy('a.created')
    .orderBy('a.email')
    .execute();
}

export async function countAccountRows(db: Db): Promise<number> {
  const row = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export function creditBalance(db: Db, accountId: string): Promise<Pick<AccountsTable, 'credits_tenths' | 'credits_refilled_at'>> {
  return db.selectFrom('accounts').select(['credits_tenths', 'credits_refilled_at']).where('id', '=', accountId).executeTakeFirstOrThrow();
}

export async function setCreditBalance(db: Db, accountId: string, balance: Pick<AccountsTable, 'credits_tenths' | 'credits_refilled_at'>):
  Promise<void> {
  await db.updateTable('accounts').set(balance).where('id', '=', accountId).execute();
}

/** Add `deltaTenths` (negative to charge) to the balance in one statement. */
export async function addCredits(db: Db, accountId: string, deltaTenths: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set((eb) => ({ credits_tenths: eb('credits_tenths', '+', deltaTenths) }))
    .where('id', '=', accountId)
    .execute();
}

export function passwordHashByEmail(db: Db, email: string): Promise<Pick<AccountsTable, 'id' | 'password_hash'> | undefined> {
  return db.selectFrom('accounts').select(['id', 'password_hash']).where('email', '=', email).executeTakeFirst();
}
