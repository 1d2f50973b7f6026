/**
 * Site scans (docs/scans.md): a scan is started here (its credits reserved, its start page checked against the
 * target policy), discovered and queued by its work's stages (scan-work.ts lists them), read and cancelled here. A
 * scan's pages are ordinary tests.
 */
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
  allScanPages, getScanRow, scanOfTestRow, siblingScanRows, scanTemplates, insertScan, queuedScanTestIds, scanPageCounts, scanTestTimes, updateScan, updateScanPage,
  type ScanPageRow, type ScanRow,
} from '../../store/scans.js';
import { countScanPages, queryScanPages, queryScans } from '../../store/lists.js';
import type { ListPage, ListQuery } from '../../store/list-query.js';
import { SCAN_PAGES_LIST, SCANS_LIST } from '../vocabulary/lists.js';
import type { ScanSettings } from './scan-request.js';
import type { DeviceScan } from './scan-devices.js';
import { DEVICE_CLASS_IDS, type DeviceClass } from '../vocabulary/device-classes.js';
import { scanPace, type ScanPace } from './scan-pace.js';

export type { ScanRow, ScanPageRow, ScanSettings };

/** Wakes the scans' work (discovery, following pages) in this process. */
export interface ScanIntake extends TestIntake {
  wakeScans(): void;
}

export interface StartedScan {
  /** The first device's scan (the one a client that asked for one device gets). */
  scan: ScanRow;
  /** One scan per device, in the order asked (the first is `scan`). */
  scans: ScanRow[];
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
   * Runs in the scans' transaction after the account's lock and before the charge: stores the new schedule, or claims
   * the slot (throw to abort: nothing is charged or stored). `scanId` is the first device's scan to be.
   */
  within(trx: Trx, scanId: string): Promise<void>;
}

/**
 * Start a scan, one per device (`devices`: each device's options, scan-devices.ts): the role, the target policy for the
 * start page (before anything is charged), then in one transaction the credits of `max_pages` tests of every device
 * reserved (402 E40201 when the account has fewer; nothing is created) and each scan stored as `discovering`, the
 * scans of several devices siblings (one `scan_set`). Discovery runs in the background (discovery-run.ts). A
 * schedule's scans carry its ID and commit with the schedule's own change (`scheduled.within`), or not at all.
 */
export async function requestScan(intake: ScanIntake, principal: Principal, devices: readonly DeviceScan[], settings: ScanSettings,
  scheduled?: ScheduledStart): Promise<StartedScan> {
  assertOwnerRole(principal, 'start scans');
  const first = devices[0];
  if (!first) throw new Error('requestScan: no device');
  // One site, one target policy: the devices differ only in how their pages load.
  await assertAllowedTarget(first.options.url, intake.policy, first.options.dns);
  await assertRoomForTests(intake.store);
  const store = intake.store;
  const runs = devices.map((d) => {
    const options = withRunsUpTo(d.options, principal.plan.maxRuns);
    return { device: d.device, options, cost: testCostTenths(options) };
  });
  const totalTenths = runs.reduce((sum, r) => sum + r.cost * settings.max_pages, 0);
  const what = runs.length === 1
    ? `This scan (max_pages ${settings.max_pages} × ${fromTenths(runs[0]!.cost)} credits a page`
    : `These ${runs.length} scans (${runs.map((r) => r.device).join(', ')}: max_pages ${settings.max_pages} each, ` +
      `${runs.map((r) => fromTenths(r.cost)).join(' + ')} credits a page`;
  const started = await store.db.transaction().execute(async (trx) => {
    await lockAccount(trx, store.engine, principal.accountId);
    const ids = runs.map(() => newId());
    await scheduled?.within(trx, ids[0]!);
    const credits = await spendCredits(trx, principal, totalTenths, `${what}, reserved now, the unused given back after discovery)`);
    const now = clock.now();
    const scanSet = runs.length > 1 ? newId() : null;
    const scans: ScanRow[] = [];
    for (const [i, { device, options, cost }] of runs.entries()) {
      const scan: ScanRow = {
        id: ids[i]!, account_id: principal.accountId, url: options.url, site: null, source: settings.source, state: 'discovering',
        error: null, options: storeOptions(store.box, options), settings: JSON.stringify(settings), location: options.location,
        browser: options.browser, created: now, started: null, finished: null, expires: reportExpiry(now, options.retention),
        found: 0, skipped: '{}', discovery_errors: '[]', cost_tenths: cost, // What this scan holds of the charge (nothing on a plan whose credits are unlimited).
        reserved_tenths: credits.chargedTenths === 0 ? 0 : cost * settings.max_pages,
        lease_owner: null, lease_expires: null, figures: null, schedule_id: scheduled?.scheduleId ?? null, alerts: null,
        device_class: device, scan_set: scanSet,
      };
      await insertScan(trx, scan);
      scans.push(scan);
    }
    return { scan: scans[0]!, scans, creditsLeft: fromTenths(credits.leftTenths), creditsReserved: fromTenths(totalTenths) };
  });
  intake.wakeScans();
  return started;
}

export async function getScan(db: Db, accountId: string, id: string): Promise<ScanRow> {
  const scan = await getScanRow(db, accountId, id, clock.now());
  if (!scan) throw scanNotFound(id);
  return scan;
}

/**
 * The other scans one request started beside this one (one per device), in the device classes' order (they were
 * stored in one instant); none for a scan of one device.
 */
export async function siblingScans(db: Db, scan: Pick<ScanRow, 'id' | 'scan_set' | 'account_id'>): Promise<ScanRow[]> {
  const rows = await siblingScanRows(db, scan.account_id, scan, clock.now());
  const order = (r: ScanRow) => DEVICE_CLASS_IDS.indexOf(r.device_class as DeviceClass);
  return rows.sort((a, b) => order(a) - order(b));
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
