/**
 * The three lists (spec 4.1 tests, 4.3 pages and a page's reports): the rows each list may show, before the
 * query's own filters (the scope of the account and of validity), run through list-query.ts.
 */
import type { Kysely, Selectable } from 'kysely';
import { filterCondition, runListQuery, type ListPage, type ListQuery, type ListSpec } from './list-query.js';
import type { Database, PagesTable, ReportsTable, ScanPagesTable, ScansTable, TestsTable } from './schema.js';
import { engineOf } from './engine.js';

export const listScopes = {
  /** GET /pages: the account's pages with at least one valid report. */
  pages: (db: Kysely<Database>, accountId: string) =>
    db.selectFrom('pages').selectAll('pages').where('pages.account_id', '=', accountId).where('pages.report_count', '>', 0),
  /** GET /pages/{id}/reports: the page's reports valid at `now`. */
  pageReports: (db: Kysely<Database>, accountId: string, pageId: string, now: number) =>
    db
      .selectFrom('reports')
      .selectAll('reports')
      .where('reports.page_id', '=', pageId)
      .where('reports.account_id', '=', accountId)
      .where('reports.expires', '>', now),
  /** GET /tests: tests created after `createdAfter` (their retention); only `source` = api unless the query filters on source. */
  tests: (db: Kysely<Database>, accountId: string, createdAfter: number, q: ListQuery) => {
    const base = db
      .selectFrom('tests')
      .selectAll('tests')
      .where('tests.account_id', '=', accountId)
      .where('tests.created', '>', createdAfter);
    return q.filters.some((f) => f.attr === 'source') ? base : base.where('tests.source', '=', 'api');
  },
};

export function queryPages(db: Kysely<Database>, accountId: string, spec: ListSpec<'pages'>, q: ListQuery): Promise<ListPage<Selectable<PagesTable>>> {
  return runListQuery(listScopes.pages(db, accountId), spec, q, engineOf(db));
}

export function queryPageReports(db: Kysely<Database>, accountId: string, pageId: string, now: number, spec: ListSpec<'reports'>, q: ListQuery):
  Promise<ListPage<Selectable<ReportsTable>>> {
  return runListQuery(listScopes.pageReports(db, accountId, pageId, now), spec, q, engineOf(db));
}

export function queryTests(db: Kysely<Database>, accountId: string, createdAfter: number, spec: ListSpec<'tests'>, q: ListQuery):
  Promise<ListPage<Selectable<TestsTable>>> {
  return runListQuery(listScopes.tests(db, accountId, createdAfter, q), spec, q, engineOf(db));
}

/** GET /scans/{id}/pages: the pages of one scan of the account. */
export function queryScanPages(db: Kysely<Database>, accountId: string, scanId: string, spec: ListSpec<'scan_pages'>, q: ListQuery):
  Promise<ListPage<Selectable<ScanPagesTable>>> {
  const scope = db.selectFrom('scan_pages').selectAll('scan_pages').where('scan_pages.scan_id', '=', scanId)
    .where('scan_pages.account_id', '=', accountId);
  return runListQuery(scope, spec, q, engineOf(db));
}

/** How many pages of one scan of the account the query's filters keep (the app's filtered list says it). */
export async function countScanPages(db: Kysely<Database>, accountId: string, scanId: string, spec: ListSpec<'scan_pages'>, q: ListQuery): Promise<number> {
  const where = filterCondition(spec, q, engineOf(db));
  const scope = db.selectFrom('scan_pages').select((eb) => eb.fn.countAll<number | string>().as('n')).where('scan_pages.scan_id', '=', scanId)
    .where('scan_pages.account_id', '=', accountId);
  const row = await (where ? scope.where(where) : scope).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** GET /scans: the account's scans not yet expired at `now`. */
export function queryScans(db: Kysely<Database>, accountId: string, now: number, spec: ListSpec<'scans'>, q: ListQuery):
  Promise<ListPage<Selectable<ScansTable>>> {
  const scope = db.selectFrom('scans').selectAll('scans').where('scans.account_id', '=', accountId).where('scans.expires', '>', now);
  return runListQuery(scope, spec, q, engineOf(db));
}
