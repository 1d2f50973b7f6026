/**
 * Site scans (docs/scans.md): a scan is started here (its credits reserved, its start page checked against the
 * target policy), discovered and queued by its work's stages (scan-work.ts lists them), read and cancelled here. A
 * scan's pages are ordinary tests.
 */
import type { AnalysisOptions } from '../options/analysis-options.js';
import { adjustCredits, fromTenths, spendCredits, type Principal } from '../accounts/accounts.js';
import { assertOwnerRole } from '../accounts/roles.js';
import { testCostTenths } from '../accounts/pricing.js';
import { assertAllowedTarget } from '../tests/targets.js';
import { assertRoomForTests, failTest, type TestIntake } from '../tests/tests.js';
import { withRunsUpTo } from '../options/analysis-options.js';
import { storeOptions } from '../options/stored-options.js';
import { reportExpiry } from '../reports/reports.js';
import { clock } from '../clock.js';
import { newId } from '../ids.js';
import { ApiError } from '../errors.js';
import { lockAccount } from '../../store/locks.js';
import type { Db, Store, Trx } from '../../store/db.js';
import {
  allScanPages, getScanRow, scanOfTestRow, scanTemplates, insertScan, queuedScanTestIds, scanPageCounts, scanTestTimes, updateScan, updateScanPage,
  type ScanPageRow, type ScanRow,
} from '../../store/scans.js';
import { countScanPages, queryScanPages, queryScans } from '../../store/lists.js';
import type { ListPage, ListQuery } from '../../store/list-query.js';
import { SCAN_PAGES_LIST, SCANS_LIST } from '../vocabulary/lists.js';
import type { ScanSettings } from './scan-request.js';
import { scanPace, type ScanPace } from './scan-pace.js';

export type { ScanRow, ScanPageRow, ScanSettings };

/** Wakes the scans' work (discovery, following pages) in this process. */
export interface ScanIntake extends TestIntake {
  wakeScans(): void;
}

export interface StartedScan {
  scan: ScanRow;
  creditsLeft: number;
  creditsReserved: number;
}

/** 404 for a scan this account does not have (or no longer has: a scan is kept as long as its reports). */
export function scanNotFound(id: string): ApiError {
  return new ApiError('E40400', `No scan with ID ${id} in this account.`);
}

/** A scan started by a schedule (scan-schedules.ts): the schedule, and its part of the scan's transaction. */
export interface ScheduledStart {
  scheduleId: string;
  /**
   * Runs in the scan's transaction after the account's lock and before the charge: stores the new schedule, or claims
   * the slot (throw to abort: nothing is charged or stored). `scanId` is the scan's to be.
   */
  within(trx: Trx, scanId: string): Promise<void>;
}

/**
 * Start a scan: the role, the target policy for the start page (before anything is charged), then in one transaction
 * the credits of `max_pages` tests reserved (402 E40201 when the account has fewer; nothing is created) and the scan
 * stored as `discovering`. Discovery runs in the background (discovery-run.ts). A schedule's scan carries its ID and
 * commits with the schedule's own change (`scheduled.within`), or not at all.
 */
export async function requestScan(intake: ScanIntake, principal: Principal, options: AnalysisOptions, settings: ScanSettings,
  scheduled?: ScheduledStart): Promise<StartedScan> {
  assertOwnerRole(principal, 'start scans');
  await assertAllowedTarget(options.url, intake.policy, options.dns);
  await assertRoomForTests(intake.store);
  const store = intake.store;
  options = withRunsUpTo(options, principal.plan.maxRuns);
  const cost = testCostTenths(options);
  const started = await store.db.transaction().execute(async (trx) => {
    await lockAccount(trx, store.engine, principal.accountId);
    const id = newId();
    await scheduled?.within(trx, id);
    const credits = await spendCredits(trx, principal, cost * settings.max_pages,
      `This scan (max_pages ${settings.max_pages} × ${fromTenths(cost)} credits a page, reserved now, the unused given back after discovery)`);
    const now = clock.now();
    const scan: ScanRow = {
      id, account_id: principal.accountId, url: options.url, site: null, source: settings.source, state: 'discovering',
      error: null, options: storeOptions(store.box, options), settings: JSON.stringify(settings), location: options.location,
      browser: options.browser, created: now, started: null, finished: null, expires: reportExpiry(now, options.retention),
      found: 0, skipped: '{}', discovery_errors: '[]', cost_tenths: cost, reserved_tenths: credits.chargedTenths,
      lease_owner: null, lease_expires: null, figures: null, schedule_id: scheduled?.scheduleId ?? null, alerts: null,
    };
    await insertScan(trx, scan);
    return { scan, creditsLeft: fromTenths(credits.leftTenths), creditsReserved: fromTenths(cost * settings.max_pages) };
  });
  intake.wakeScans();
  return started;
}

export async function getScan(db: Db, accountId: string, id: string): Promise<ScanRow> {
  const scan = await getScanRow(db, accountId, id, clock.now());
  if (!scan) throw scanNotFound(id);
  return scan;
}

/** The account's scan a test was one page of (a report of source scan names its test), or undefined. */
export function scanOfTest(db: Db, accountId: string, testId: string): Promise<ScanRow | undefined> {
  return scanOfTestRow(db, accountId, testId, clock.now());
}

export function listScans(db: Db, accountId: string, q: ListQuery): Promise<ListPage<ScanRow>> {
  return queryScans(db, accountId, clock.now(), SCANS_LIST, q);
}

/** How many of the scan's pages are in each state (total included). */
export async function scanProgress(db: Db, scanId: string): Promise<Record<'total' | 'queued' | 'started' | 'completed' | 'failed' | 'cancelled', number>> {
  const c = await scanPageCounts(db, scanId);
  const n = (k: string) => c[k] ?? 0;
  return {
    total: Object.values(c).reduce((a, b) => a + b, 0),
    queued: n('queued'), started: n('started'), completed: n('completed'), failed: n('failed'), cancelled: n('cancelled'),
  };
}

/**
 * A running scan's pace, as of its last page done (pages a minute since its first page started loading, and the time its
 * pages left take): it changes when a page is done, so the status line and the progress card say the same; none otherwise.
 */
export async function runningScanPace(db: Db, scan: Pick<ScanRow, 'id' | 'state'>, pages: Awaited<ReturnType<typeof scanProgress>>):
  Promise<ScanPace | undefined> {
  if (scan.state !== 'running') return undefined;
  const times = await scanTestTimes(db, scan.id);
  return times.lastFinished === null ? undefined
    : scanPace({ done: pages.completed + pages.failed, left: pages.queued + pages.started, firstStarted: times.firstStarted, now: times.lastFinished });
}

export async function listScanPages(db: Db, accountId: string, scanId: string, q: ListQuery): Promise<ListPage<ScanPageRow>> {
  await getScan(db, accountId, scanId);
  return queryScanPages(db, accountId, scanId, SCAN_PAGES_LIST, q);
}

/** A scan's pages the filters of `q` keep, counted (the app's filtered list says how many of all), and its templates. */
export async function scanPagesMatching(db: Db, accountId: string, scanId: string, q: ListQuery): Promise<{ count: number; templates: string[] }> {
  await getScan(db, accountId, scanId);
  const [count, templates] = await Promise.all([countScanPages(db, accountId, scanId, SCAN_PAGES_LIST, q), scanTemplates(db, scanId)]);
  return { count, templates };
}

export async function scanPages(db: Db, accountId: string, scanId: string): Promise<{ scan: ScanRow; pages: ScanPageRow[] }> {
  const scan = await getScan(db, accountId, scanId);
  return { scan, pages: await allScanPages(db, scanId) };
}

/**
 * Cancel a scan: nothing more is discovered or queued, its queued tests are dropped and refunded (a test already
 * loading finishes), the reports made so far stay. A finished scan is left as it is.
 */
export async function cancelScan(intake: ScanIntake, principal: Principal, id: string): Promise<ScanRow> {
  assertOwnerRole(principal, 'cancel scans');
  const { store } = intake;
  const scan = await getScan(store.db, principal.accountId, id);
  if (scan.state !== 'discovering' && scan.state !== 'running') return scan;
  const cancelled = await store.db.transaction().execute(async (trx) => {
    const now = clock.now();
    if (!(await updateScan(trx, id, ['discovering', 'running'], { state: 'cancelled', reserved_tenths: 0, lease_owner: null, lease_expires: null,
      ...(scan.state === 'discovering' ? { finished: now, figures: null } : {}) }))) return false;
    // Credits still held for pages discovery had not queued go back now.
    if (scan.reserved_tenths > 0) await adjustCredits(trx, scan.account_id, scan.reserved_tenths);
    return true;
  });
  if (cancelled) {
    for (const testId of await queuedScanTestIds(store.db, id)) {
      const dropped = await failTest(store, testId, null,
        'The scan this page belonged to was cancelled before the page was tested; its credits were refunded.', { onlyIfQueued: true });
      if (dropped) await updateScanPage(store.db, testId, { state: 'cancelled', error: null });
    }
    intake.wakeScans();
  }
  return getScan(store.db, principal.accountId, id);
}
