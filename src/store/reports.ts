/** The reports repository. A report is valid until `expires`; reads that serve users pass `now`. */
import type { Insertable, Selectable } from 'kysely';
import type { Db } from './db.js';
import type { ReportsTable } from './schema.js';

export type ReportRow = Selectable<ReportsTable>;
export type NewReport = Insertable<ReportsTable>;

export async function insertReport(db: Db, report: NewReport): Promise<void> {
  await db.insertInto('reports').values(report).execute();
}

/** A valid report by ID, of the account when one is given. */
export function getValidReport(db: Db, id: string, now: number, accountId?: string): Promise<ReportRow | undefined> {
  let q = db.selectFrom('reports').selectAll().where('id', '=', id);
  if (accountId !== undefined) q = q.where('account_id', '=', accountId);
  return q.where('expires', '>', now).executeTakeFirst();
}

/** Reports past their expiry at `now` (the account's, when one is given), earliest expiry first. */
export function expiredReports(db: Db, now: number, limit: number, accountId?: string): Promise<Pick<ReportRow, 'id' | 'page_id'>[]> {
  let q = db.selectFrom('reports').select(['id', 'page_id']);
  if (accountId !== undefined) q = q.where('account_id', '=', accountId);
  return q.where('expires', '<=', now).orderBy('expires').limit(limit).execute();
}

export async function deleteReports(db: Db, ids: string[]): Promise<void> {
  await db.deleteFrom('reports').where('id', 'in', ids).execute();
}

/** Delete a page's reports; returns exactly the IDs deleted (a report committed meanwhile included). */
export async function deleteReportsOfPage(db: Db, pageId: string): Promise<string[]> {
  const rows = await db.deleteFrom('reports').where('page_id', '=', pageId).returning('id').execute();
  return rows.map((r) => r.id);
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
