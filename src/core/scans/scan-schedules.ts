/**
 * Scheduled scans (docs/scans.md "Scheduled scans"): the request of POST /scans stored once, with a frequency of
 * monitoring's table. Creating a schedule starts its first scan now; the next ones start on the slot grid from then
 * (anchor + k × interval, calendar months for monthly), each slot claimed once by the scheduler
 * (scheduler/scan-schedules.ts). A schedule's scans are ordinary scans with `schedule_id` set: the settings stored once
 * give the same discovery and the same sampled pages each time, and they queue like any other scan.
 */
import type { AnalysisOptions } from '../options/analysis-options.js';
import type { Principal } from '../accounts/accounts.js';
import type { Plan } from '../accounts/plans.js';
import { assertOwnerRole } from '../accounts/roles.js';
import { assertFrequencyOnPlan, nextSlot, parseFrequency } from '../pages/monitoring.js';
import { given, servedOptions, type Attrs, type OptionsContext } from '../options/options.js';
import { readOptions, storeOptions } from '../options/stored-options.js';
import { SECRET_OPTIONS } from '../vocabulary/options.js';
import { planFrequencies, type MonitoredFrequency } from '../vocabulary/frequencies.js';
import { clock } from '../clock.js';
import { ApiError, show } from '../errors.js';
import { newId } from '../ids.js';
import type { Store } from '../../store/db.js';
import { lockAccount } from '../../store/locks.js';
import {
  accountScanSchedules, countScanSchedules, deleteScanSchedule, getScanScheduleRow, insertScanSchedule, keptScanStates,
  updateScanSchedule, type ScanScheduleRow,
} from '../../store/scan-schedules.js';
import { parseScanRequest, readScanSettings, type ScanRequest, type ScanSettings } from './scan-request.js';
import { readScheduleDevices } from './scan-devices.js';
import type { DeviceClass } from '../vocabulary/device-classes.js';
import { requestScan, type ScanIntake, type StartedScan } from './scans.js';

export type { ScanScheduleRow };

/** Schedules an account may keep: each repeats a whole site's scan, and the list answers them all. */
export const MAX_SCAN_SCHEDULES = 100;

export interface ScheduleRequest extends ScanRequest {
  frequency: MonitoredFrequency;
}

/** What PATCH changes: the frequency (a new grid from now) and whether it is paused. */
export interface ScheduleChange {
  frequency?: MonitoredFrequency;
  paused?: boolean;
}

export function scheduleNotFound(id: string): ApiError {
  return new ApiError('E40400', `No scan schedule with ID ${id} in this account.`);
}

/** A frequency that repeats and that the plan offers: 400 E4001 otherwise (`no` included), 403 E40303 for hourly without it. */
export function parseScheduleFrequency(raw: unknown, plan: Plan): MonitoredFrequency {
  const f = parseFrequency(raw);
  if (f === 'no') {
    throw new ApiError('E4001', `frequency ${show(raw)} repeats nothing: POST /scans starts a scan once; a schedule repeats ` +
      `${planFrequencies(plan)}.`);
  }
  assertFrequencyOnPlan(plan, f, 'scanning');
  return f;
}

/** POST /scan_schedules' attributes: `frequency`, then every attribute of POST /scans under its own parser. */
export function parseScheduleRequest(a: Readonly<Attrs>, ctx: OptionsContext): ScheduleRequest {
  const { frequency, ...scan } = a;
  const parsedFrequency = parseScheduleFrequency(frequency, ctx.plan);
  return { ...parseScanRequest(scan, ctx), frequency: parsedFrequency };
}

const CHANGEABLE = ['frequency', 'paused'];

/** PATCH's attributes: `frequency` and `paused` only (what is scanned stays, so its scans sample the same pages). */
export function parseScheduleChange(a: Readonly<Attrs>, plan: Plan): ScheduleChange {
  const other = Object.keys(a).filter((k) => !CHANGEABLE.includes(k));
  if (other.length > 0) {
    throw new ApiError('E4001', `${other.map((k) => JSON.stringify(k)).join(', ')} cannot change: a schedule scans the same way each ` +
      'time (so its scans sample the same pages); change frequency or paused, or delete the schedule and create another.');
  }
  const change: ScheduleChange = {};
  if (given(a.frequency)) change.frequency = parseScheduleFrequency(a.frequency, plan);
  if (a.paused !== undefined) {
    if (typeof a.paused !== 'boolean') throw new ApiError('E4001', `paused must be true or false; got ${show(a.paused)}.`);
    change.paused = a.paused;
  }
  if (change.frequency === undefined && change.paused === undefined) {
    throw new ApiError('E4001', 'Nothing to change: give frequency (hourly, daily, weekly or monthly) or paused (true or false).');
  }
  return change;
}

/**
 * Create a schedule and start its first scan now, in one transaction: the scan's checks and charge are requestScan's
 * (402 E40201 when credits are short, 403 E40303 past MAX_SCAN_SCHEDULES), and on any refusal neither the schedule
 * nor the scan is stored. The grid starts now: the next scan is one interval later.
 */
export async function createScanSchedule(intake: ScanIntake, principal: Principal, req: ScheduleRequest):
Promise<{ schedule: ScanScheduleRow; started: StartedScan }> {
  assertOwnerRole(principal, 'schedule scans');
  const id = newId();
  let schedule: ScanScheduleRow | undefined;
  const first = req.devices[0]!;
  const started = await requestScan(intake, principal, req.devices, req.settings, {
    scheduleId: id,
    within: async (trx, scanId) => {
      if ((await countScanSchedules(trx, principal.accountId)) >= MAX_SCAN_SCHEDULES) {
        throw new ApiError('E40303', `This account has ${MAX_SCAN_SCHEDULES} scan schedules, the most it may keep; delete one first.`);
      }
      const now = clock.now();
      schedule = {
        id, account_id: principal.accountId, url: first.options.url, source: req.settings.source,
        // Stored as given: each scan applies the plan of its day (runs capped by requestScan). The first device's
        // options; each slot gives every device its own (scan-devices.ts optionsForDevice).
        options: storeOptions(intake.store.box, first.options), settings: JSON.stringify(req.settings),
        location: first.options.location, browser: first.options.browser, frequency: req.frequency, anchor: now,
        next_run: nextSlot(req.frequency, now, now), skipped_at: null, skip_reason: null, last_scan_id: scanId, created: now,
        devices: JSON.stringify(req.devices.map((d) => d.device)),
      };
      await insertScanSchedule(trx, schedule);
    },
  });
  return { schedule: schedule!, started };
}

export async function getScanSchedule(store: Store, accountId: string, id: string): Promise<ScanScheduleRow> {
  const row = await getScanScheduleRow(store.db, accountId, id);
  if (!row) throw scheduleNotFound(id);
  return row;
}

/** The account's schedules, newest first (all of them: at most MAX_SCAN_SCHEDULES). */
export function listScanSchedules(store: Store, accountId: string): Promise<ScanScheduleRow[]> {
  return accountScanSchedules(store.db, accountId, MAX_SCAN_SCHEDULES);
}

/**
 * Change the frequency (the grid restarts now, keeping a slot already due sooner, as monitoring does) or pause
 * (no next run) and resume (the grid's next slot after now). Account first, then the schedule: the scheduler's lock
 * order, and a slot it read before this change can no longer be claimed (its claim checks next_run and frequency).
 */
export async function changeScanSchedule(store: Store, principal: Principal, id: string, change: ScheduleChange): Promise<ScanScheduleRow> {
  assertOwnerRole(principal, 'change scan schedules');
  return store.db.transaction().execute(async (trx) => {
    await lockAccount(trx, store.engine, principal.accountId);
    const s = await getScanScheduleRow(trx, principal.accountId, id);
    if (!s) throw scheduleNotFound(id);
    const now = clock.now();
    let { frequency, anchor, next_run: nextRun } = s;
    if (change.frequency !== undefined && change.frequency !== s.frequency) {
      frequency = change.frequency;
      anchor = now;
      nextRun = nextRun === null ? null : Math.min(nextRun, nextSlot(change.frequency, now, now));
    }
    if (change.paused === true) nextRun = null;
    else if (change.paused === false && nextRun === null) nextRun = nextSlot(frequency as MonitoredFrequency, anchor, now);
    await updateScanSchedule(trx, principal.accountId, id, { frequency, anchor, next_run: nextRun });
    return { ...s, frequency, anchor, next_run: nextRun };
  });
}

/** Delete a schedule: no more scans start; its scans stay (kept by their reports' retention, schedule_id as it was). */
export async function removeScanSchedule(store: Store, principal: Principal, id: string): Promise<void> {
  assertOwnerRole(principal, 'delete scan schedules');
  if (!(await deleteScanSchedule(store.db, principal.accountId, id))) throw scheduleNotFound(id);
}

/** A schedule as the API and the app show it; times in milliseconds. Never a secret option (sealed at rest). */
export interface ScheduleView {
  id: string;
  url: string;
  source: string;
  frequency: string;
  /** null: paused. */
  nextRun: number | null;
  anchor: number;
  skippedAt: number | null;
  skipReason: string | null;
  lastScanId: string | null;
  /** The last scan's state; null when it is no longer kept (its reports' retention ran out). */
  lastScanState: string | null;
  created: number;
  location: string;
  browser: string;
  /** The devices each slot scans, one scan each (the first's scan is `lastScanId`). */
  devices: DeviceClass[];
  settings: ScanSettings;
  /** Each scan's test options, as POST /scans takes them, without url and the secret ones (HTTP password, cookies). */
  options: Record<string, unknown>;
}

/** The test options a schedule shows: the served options without the sealed ones (and url, shown on its own). */
export function shownScanOptions(o: AnalysisOptions): Record<string, unknown> {
  const out: Record<string, unknown> = { ...servedOptions(o) };
  for (const k of [...SECRET_OPTIONS, 'url']) delete out[k];
  return out;
}

export async function scheduleViews(store: Store, rows: readonly ScanScheduleRow[]): Promise<ScheduleView[]> {
  const states = await keptScanStates(store.db, rows.map((r) => r.last_scan_id).filter((x): x is string => x !== null), clock.now());
  return rows.map((r) => {
    let options: Record<string, unknown>;
    try {
      options = shownScanOptions(readOptions(store.box, r.options));
    } catch {
      options = {}; // a row this service cannot open (another key): the scheduler says why when its slot comes
    }
    return {
      id: r.id, url: r.url, source: r.source, frequency: r.frequency, nextRun: r.next_run, anchor: r.anchor,
      skippedAt: r.skipped_at, skipReason: r.skip_reason, lastScanId: r.last_scan_id,
      lastScanState: r.last_scan_id === null ? null : (states.get(r.last_scan_id) ?? null),
      created: r.created, location: r.location, browser: r.browser, devices: readScheduleDevices(r.devices),
      settings: readScanSettings(r.settings), options,
    };
  });
}
