/** The pages repository. */
import type { Insertable, Selectable } from 'kysely';
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

/** The account's page if it has at least one valid report. */
export function getLivePage(db: Db, accountId: string, id: string): Promise<PageRow | undefined> {
  return db
    .selectFrom('pages')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('report_count', '>', 0)
    .executeTakeFirst();
}

/**
 * The ID of the account's page for this URL and options fingerprint, created when missing; its stored options
 * become `page.options` either way (a page's settings are those of its last report's test).
 */
export async function upsertPage(db: Db, page: Insertable<PagesTable>): Promise<string> {
  await db.insertInto('pages').values(page).onConflict((oc) => oc.columns(['account_id', 'url', 'fingerprint']).doNothing()).execute();
  const id = await pageIdFor(db, page.account_id, page.url, page.fingerprint);
  if (id === undefined) throw new Error(`page of ${page.url} neither inserted nor found`);
  await db.updateTable('pages').set({ options: page.options }).where('id', '=', id).execute();
  return id;
}

export async function setPageStats(db: Db, pageId: string, stats: Pick<PageRow, 'report_count' | 'latest_report_id' | 'latest_report_time'>):
  Promise<void> {
  await db.updateTable('pages').set(stats).where('id', '=', pageId).execute();
}

export async function deletePageRow(db: Db, pageId: string): Promise<void> {
  // The page's alert conditions and their history go with it.
  await db.deleteFrom('alert_events').where('page_id', '=', pageId).execute();
  await db.deleteFrom('alert_conditions').where('page_id', '=', pageId).execute();
  await db.deleteFrom('pages').where('id', '=', pageId).execute();
}

/** The account's page for this URL and options fingerprint, if there is one. */
export async function pageIdFor(db: Db, accountId: string, url: string, fingerprint: string): Promise<string | undefined> {
  const page = await db
    .selectFrom('pages')
    .select('id')
    .where('account_id', '=', accountId)
    .where('url', '=', url)
    .where('fingerprint', '=', fingerprint)
    .executeTakeFirst();
  return page?.id;
}

/** How many of the account's pages are live (as getLivePage: with at least one valid report). */
export async function countLivePages(db: Db, accountId: string): Promise<number> {
  const row = await db.selectFrom('pages').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId).where('report_count', '>', 0).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The account's live pages of this URL (with at least one valid report), newest test first: a page's siblings are among them. */
export function livePagesOfUrl(db: Db, accountId: string, url: string, limit = 50): Promise<PageRow[]> {
  return db.selectFrom('pages').selectAll().where('account_id', '=', accountId).where('url', '=', url).where('report_count', '>', 0)
    .orderBy('latest_report_time', 'desc').orderBy('id').limit(limit).execute();
}
