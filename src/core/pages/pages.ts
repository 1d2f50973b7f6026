import type { ArtifactStore } from '../../artifacts/store.js';
import type { Store } from '../../store/db.js';
import type { ListPage, ListQuery } from '../../store/list-query.js';
import { queryPageReports, queryPages, queryTests } from '../../store/lists.js';
import { deletePageRow, getLivePage, type PageRow } from '../../store/pages.js';
import { deleteReports, deleteReportsOfPage, expiredReports } from '../../store/reports.js';
import type { Db, RootDb } from '../../store/db.js';
import { clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { refreshPage, type ReportRow } from '../reports/reports.js';
import { unlinkPage } from '../../store/tags.js';
import { TEST_RETENTION_MS, type TestRow } from '../tests/tests.js';
import { releaseReportListLock, takeReportListLock } from '../../store/locks.js';
import { assertOwnerRole } from '../accounts/roles.js';
import type { Principal } from '../accounts/accounts.js';
import { PAGES_LIST, REPORTS_LIST, TESTS_LIST } from '../vocabulary/lists.js';

/**
 * Pages (spec 1.2, 2.3, 4.3) and the three lists (4.1 tests, 4.3 pages and a page's reports).
 *
 * Expiry: a page's `report_count`, `latest_report` and `latest_report_time` are stored and kept by refreshPage.
 * Reports expire by time, so before any page read the account's reports past `expires` are removed the way the
 * scheduler's sweep removes them (files, rows, refreshPage, and a page left without reports is deleted). The
 * steady-state cost is one index probe (reports_account_expires) that finds nothing; the stored columns then stay
 * exact, and lists can filter and sort on them through indexes. Report reads filter on `expires` as well.
 */

export type { PageRow };

const EXPIRY_BATCH = 500;

/** Remove this account's expired reports now (files first, as the sweep does); returns how many. */
export async function expireDueReports(store: Store, artifacts: ArtifactStore, accountId: string): Promise<number> {
  const now = clock.now();
  let total = 0;
  for (;;) {
    const due = await expiredReports(store.db, now, EXPIRY_BATCH, accountId);
    if (due.length === 0) return total;
    for (const r of due) await artifacts.removePrefix(r.id);
    const byPage = new Map<string, string[]>();
    for (const r of due) byPage.set(r.page_id, [...(byPage.get(r.page_id) ?? []), r.id]);
    // One small transaction per page: it locks one page's reports and then its row, as completeTest and the
    // sweep do, so concurrent writers cannot deadlock on PostgreSQL.
    for (const [pageId, ids] of byPage) {
      await store.db.transaction().execute(async (trx) => {
        await deleteReports(trx, ids);
        if (!(await refreshPage(trx, pageId))) await unlinkPage(trx, pageId);
      });
    }
    total += due.length;
    if (due.length < EXPIRY_BATCH) return total;
  }
}

/** A page of the account that has at least one valid report (call expireDueReports first). */
/** The account's page as GET /pages/{id} finds it (reports due to expire removed first), or 404 E40402. */
export async function requirePage(store: Store, artifacts: ArtifactStore, accountId: string, id: string): Promise<PageRow> {
  await expireDueReports(store, artifacts, accountId);
  const page = await getPage(store.db, accountId, id);
  if (!page) throw pageNotFound(id);
  return page;
}

export function pageNotFound(id: string): ApiError {
  return new ApiError('E40402', `No page with ID ${id} in this account (a page goes when its last report expires or is deleted).`);
}

export async function getPage(db: Db, accountId: string, id: string): Promise<PageRow | undefined> {
  return getLivePage(db, accountId, id);
}

/** DELETE /pages/{id}: the page, all its reports (rows, then files) and its tag links. */
/** Deletes a page with its reports and their files; only the Owner role may. */
export async function deletePage(store: Store, artifacts: ArtifactStore, principal: Pick<Principal, 'role'>, page: PageRow): Promise<number> {
  assertOwnerRole(principal, 'delete pages');
  const removed = await store.db.transaction().execute(async (trx) => {
    // `returning` names exactly the rows deleted, including a report committed meanwhile by completeTest.
    const ids = await deleteReportsOfPage(trx, page.id);
    await unlinkPage(trx, page.id);
    await deletePageRow(trx, page.id);
    return ids;
  });
  for (const id of removed) await artifacts.removePrefix(id);
  return removed.length;
}

export function listPages(db: RootDb, accountId: string, q: ListQuery): Promise<ListPage<PageRow>> {
  return queryPages(db, accountId, PAGES_LIST, q);
}

export function listPageReports(db: RootDb, accountId: string, pageId: string, q: ListQuery): Promise<ListPage<ReportRow>> {
  return queryPageReports(db, accountId, pageId, clock.now(), REPORTS_LIST, q);
}

export function listTests(db: RootDb, accountId: string, q: ListQuery): Promise<ListPage<TestRow>> {
  return queryTests(db, accountId, clock.now() - TEST_RETENTION_MS, TESTS_LIST, q);
}

/** A lock older than this belongs to a process that died mid-query; the next query takes it over. */
export const REPORT_LIST_LOCK_STALE_MS = 30_000;

/**
 * Run a filtered or sorted report-list query holding the account's lock (spec 4.3, 429 E42902). The lock is a
 * row of report_list_locks (migration 002), so it holds across API processes sharing the database: insert it,
 * or take over a stale one, in one statement; release it (only our own token) when the query ends.
 */
export async function withReportListLock<T>(db: RootDb, accountId: string, run: () => Promise<T>): Promise<T> {
  const token = newId();
  const now = clock.now();
  if (!(await takeReportListLock(db, accountId, token, now, now + REPORT_LIST_LOCK_STALE_MS))) {
    throw new ApiError('E42902', 'Another filtered or sorted report-list query of this account is running; retry when it has finished.', {
      'Retry-After': '1',
    });
  }
  try {
    return await run();
  } finally {
    await releaseReportListLock(db, accountId, token);
  }
}
