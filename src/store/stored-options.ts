/** The `options` column of tests, reports and pages, for the one-off sealing of secrets stored in the clear. */
import type { Db } from './db.js';

export type OptionsTable = 'tests' | 'reports' | 'pages';

/** Rows whose options may hold secrets in the clear (an HTTP auth password, or cookies); the caller checks. */
export function rowsMaybeHoldingSecrets(db: Db, table: OptionsTable): Promise<{ id: string; options: string }[]> {
  return db.selectFrom(table).select(['id', 'options'])
    .where((eb) => eb.or([eb('options', 'like', '%"httpauth_password"%'), eb('options', 'not like', '%"cookies":[]%')]))
    .execute();
}

/**
 * Replace a row's options (and, for tests and pages, its fingerprint) only if they are still `previous`: a
 * concurrent writer's row is already sealed. Returns how many rows changed (0 or 1).
 */
export async function rewriteOptions(db: Db, table: OptionsTable, id: string, previous: string, options: string, fingerprint: string):
  Promise<number> {
  const res = table === 'reports'
    ? await db.updateTable(table).set({ options }).where('id', '=', id).where('options', '=', previous).executeTakeFirst()
    : await db.updateTable(table).set({ options, fingerprint }).where('id', '=', id).where('options', '=', previous).executeTakeFirst();
  return Number(res.numUpdatedRows);
}
