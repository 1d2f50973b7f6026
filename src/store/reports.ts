/** The reports repository. A report is valid until `expires`; reads that serve users pass `now`. */
import type { Insertable, Selectable } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Db } from './db.js';
import { compiledQuery } from './prepared.js';
import type { ReportsTable } from './schema.js';
import { pageTagIdsOf, splitTagIds } from './tags.js';

export type ReportRow = Selectable<ReportsTable>;
export type NewReport = Insertable<ReportsTable>;
/** A report as the API serves it: with the tag IDs of its page (the only part of a report that changes). */
export type ReportWithTags = ReportRow & { pageTags: string[] };

export async function insertReport(db: Db, report: NewReport): Promise<void> {
  await db.insertInto('reports').values(report).execute();
}

// Every API read of a report runs one of these, compiled once. A report row never changes once written, so a row
// read before is kept (`keptRows`) and the database is asked only whether the report is still there and valid, and
// its page's tags; the first read takes the row and the tags in the same round trip.
const TAGS = pageTagIdsOf('reports.page_id').as('page_tag_ids');
const validReport = compiledQuery(2, (db, id: string, now: number) =>
  db.selectFrom('reports').selectAll().select(TAGS).where('id', '=', id).where('expires', '>', now));
const validReportOfAccount = compiledQuery(3, (db, id: string, now: number, accountId: string) =>
  db.selectFrom('reports').selectAll().select(TAGS).where('id', '=', id).where('account_id', '=', accountId).where('expires', '>', now));
const validTags = compiledQuery(2, (db, id: string, now: number) =>
  db.selectFrom('reports').select(TAGS).where('id', '=', id).where('expires', '>', now));
const validTagsOfAccount = compiledQuery(3, (db, id: string, now: number, accountId: string) =>
  db.selectFrom('reports').select(TAGS).where('id', '=', id).where('account_id', '=', accountId).where('expires', '>', now));

/** Report rows read before, per database handle. */
const keptRows = new WeakMap<Db, LRUCache<string, ReportRow>>();
const rowsOf = (db: Db) => keptRows.get(db) ?? keptRows.set(db, new LRUCache<string, ReportRow>({ max: 2_000 })).get(db)!;

/** A valid report by ID, of the account when one is given, with its page's tags. */
export async function getValidReport(db: Db, id: string, now: number, accountId?: string): Promise<ReportWithTags | undefined> {
  const rows = rowsOf(db);
  const kept = rows.get(id);
  if (kept) {
    const [valid] = accountId === undefined ? await validTags(db, id, now) : await validTagsOfAccount(db, id, now, accountId);
    if (!valid) return undefined;
    return { ...kept, pageTags: splitTagIds(valid.page_tag_ids) };
  }
  const [row] = accountId === undefined ? await validReport(db, id, now) : await validReportOfAccount(db, id, now, accountId);
  if (!row) return undefined;
  const { page_tag_ids, ...report } = row;
  rows.set(id, report);
  return { ...report, pageTags: splitTagIds(page_tag_ids) };
}

/** Valid reports of the account among `ids` (any order; missing, expired and other accounts' IDs left out), in one query. */
export async function validReportsByIds(db: Db, accountId: string, ids: string[], now: number): Promise<ReportRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('reports').selectAll().where('id', 'in', [...new Set(ids)]).where('account_id', '=', accountId)
    .where('expires', '>', now).execute();
}

/** Reports past their expiry at `now` (the account's, when one is given), earliest expiry first. */
export function expiredReports(db: Db, now: number, limit: number, accountId?: string): Promise<Pick<ReportRow, 'id' | 'page_id'>[]> {
  let q = db.selectFrom('reports').select(['id', 'page_id']);
  if (accountId !== undefined) q = q.where('account_id', '=', accountId);
  return q.where('expires', '<=', now).orderBy('expires').limit(limit).execute();
}

export async function deleteReports(db: Db, ids: string[]): Promise<void> {
  await db.deleteFrom('reports').where('id', 'in', ids).execute();
  forgetRows(db, ids);
}

/** Kept rows are only a shortcut (validity is always asked), but deleted ones need not take room. */
function forgetRows(db: Db, ids: string[]): void {
  const rows = keptRows.get(db);
  if (rows) for (const id of ids) rows.delete(id);
}

/** Delete a page's reports; returns exactly the IDs deleted (a report committed meanwhile included). */
export async function deleteReportsOfPage(db: Db, pageId: string): Promise<string[]> {
  const ids = (await db.deleteFrom('reports').where('page_id', '=', pageId).returning('id').execute()).map((r) => r.id);
  forgetRows(db, ids);
  return ids;
}

/** How many valid reports a page has at `now`, and the latest of them. */
export async function pageReportStats(db: Db, pageId: string, now: number):
  Promise<{ count: number; latest?: Pick<ReportRow, 'id' | 'created'> }> {
  const stats = await db
    .selectFrom('reports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('page_id', '=', pageId)
    .where('expires', '>', now)
    .executeTakeFirstOrThrow();
  const count = Number(stats.n);
  if (count === 0) return { count };
  const latest = await db
    .selectFrom('reports')
    .select(['id', 'created'])
    .where('page_id', '=', pageId)
    .where('expires', '>', now)
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  return { count, latest };
}

/** The `resources` column: a JSON array of the artifact names the report has. */
export function resourceNames(report: Pick<ReportRow, 'resources'>): string[] {
  const names: unknown = JSON.parse(report.resources);
  if (!Array.isArray(names) || !names.every((n): n is string => typeof n === 'string')) {
    throw new Error(`report resources are not a list of names: ${report.resources.slice(0, 100)}`);
  }
  return names;
}

/** How many reports the account made after `since` (the reports outlive their tests, which are kept 24 hours). */
export async function countReportsSince(db: Db, accountId: string, since: number): Promise<number> {
  const row = await db.selectFrom('reports').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId).where('created', '>', since).executeTakeFirstOrThrow();
  return Number(row.n);
}
