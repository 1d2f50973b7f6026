/** The pages repository. */
import type { Selectable } from 'kysely';
import type { Db } from './db.js';
import type { PagesTable } from './schema.js';

export type PageRow = Selectable<PagesTable>;

/** The account's live page IDs among `ids` (as getPage: a page without valid reports is gone). */
export async function livePageIds(db: Db, accountId: string, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 100) {
    const rows = await db
      .selectFrom('pages')
      .select('id')
      .where('account_id', '=', accountId)
      .where('report_count', '>', 0)
      .where('id', 'in', ids.slice(i, i + 100))
      .execute();
    for (const r of rows) found.add(r.id);
  }
  return found;
}

/** The account's page row, whatever its reports (getPage in core adds the "has a valid report" rule). */
export function findAccountPage(db: Db, accountId: string, id: string): Promise<PageRow | undefined> {
  return db.selectFrom('pages').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}
