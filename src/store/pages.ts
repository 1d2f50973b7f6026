/** The pages repository. */
import type { Db } from './db.js';

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
