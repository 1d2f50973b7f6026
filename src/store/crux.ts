/** Google's CrUX answers kept (migration 021): read and written by core/field/crux.ts only. */
import type { Selectable } from 'kysely';
import type { Db } from './db.js';
import type { CruxCacheTable } from './schema.js';

export type CruxCacheRow = Selectable<CruxCacheTable>;

export function cachedCrux(db: Db, kind: string, key: string, formFactor: string): Promise<CruxCacheRow | undefined> {
  return db.selectFrom('crux_cache').selectAll().where('kind', '=', kind).where('key', '=', key).where('form_factor', '=', formFactor).executeTakeFirst();
}

export async function keepCrux(db: Db, row: CruxCacheRow): Promise<void> {
  await db.insertInto('crux_cache').values(row)
    .onConflict((oc) => oc.columns(['kind', 'key', 'form_factor']).doUpdateSet({ day: row.day, body: row.body, fetched: row.fetched })).execute();
}
