/**
 * The scan schedules' scheduler: starts each schedule's scan once per slot of its frequency, through requestScan like
 * POST /scans, so it is checked and charged like one and queues like any other scan (no special turn in the queue).
 *
 * Exactly once per slot, across processes and restarts, as the monitor does (slots.ts): the slot is claimed by
 * `update scan_schedules set next_run = <next>, last_scan_id = <scan> where id = ? and next_run = <due> and frequency = <freq>`
 * inside the transaction that stores the scan and reserves its credits, so claim and scan commit together or not at
 * all, and of two schedulers only one can move `next_run` off the value both read. Slots missed while no scheduler
 * ran collapse into one run (nextSlot skips to the first slot after now).
 *
 * A slot that cannot run (credits short, the site now refused by the target policy, the plan no longer offering the
 * frequency, the account gone, or any other refusal) is skipped: `skipped_at` and `skip_reason` say which and why, and
 * the next slot stays on the grid.
 */
import type { Catalog } from '../core/catalog/catalog.js';
import { readOptions } from '../core/options/stored-options.js';
import type { Principal } from '../core/accounts/accounts.js';
import { assertFrequencyOnPlan, nextSlot } from '../core/pages/monitoring.js';
import type { MonitoredFrequency } from '../core/vocabulary/frequencies.js';
import type { PlanRegistry } from '../core/accounts/plans.js';
import { readScanSettings, type ScanSettings } from '../core/scans/scan-request.js';
import { requestScan, type ScanIntake } from '../core/scans/scans.js';
import { optionsForDevice, readScheduleDevices, type DeviceScan } from '../core/scans/scan-devices.js';
import { dueScanSchedules, moveScheduleSlotIfUnchanged, type ScanScheduleRow, type ScheduleSlotMove } from '../store/scan-schedules.js';
import { SlotScheduler, type Claim, type DueSlot, type SlotLog } from './slots.js';

export type ScanScheduleLog = SlotLog;

export interface ScanScheduleOptions {
  /** The store, the target policy and the wake-ups a scan needs (the API's own intake). */
  intake: ScanIntake;
  plans: PlanRegistry;
  /** Whether a schedule's browser can slow its CPU: each device's options are made for it (scan-devices.ts). */
  catalog: Pick<Catalog, 'browser'>;
  log?: ScanScheduleLog;
  intervalMs?: number;
  /** Due schedules read per query. */
  batchSize?: number;
  /** Queries per tick at most, so one tick stays bounded; the rest waits for the next tick. */
  maxBatches?: number;
}

export interface ScheduleTickResult {
  started: number;
  skipped: number;
  /** Slots another scheduler claimed first (or that the owner changed under us). */
  lost: number;
  errors: number;
}

type ScheduleSlot = DueSlot<ScanScheduleRow, ScheduleSlotMove>;

/** What a schedule's slot starts: a scan of the schedule's stored request for each of its devices. */
interface ScheduledScan {
  devices: DeviceScan[];
  settings: ScanSettings;
}

export class ScanScheduleJob extends SlotScheduler<ScanScheduleRow, ScheduleSlotMove, ScheduledScan, ScheduleTickResult> {
  constructor(private readonly o: ScanScheduleOptions) {
    super({
      ...o, store: o.intake.store, batchSize: o.batchSize ?? 50,
      words: { slot: 'scheduled scan', started: 'started', row: 'schedule', idKey: 'scheduleId', tick: 'scan schedule tick' },
      outcomes: { started: 0, skipped: 0, lost: 0, errors: 0 },
    });
  }

  protected dueRows(now: number, limit: number, exclude: string[]): Promise<ScanScheduleRow[]> {
    return dueScanSchedules(this.o.intake.store.db, now, limit, exclude);
  }

  protected slotOf(s: ScanScheduleRow, now: number): ScheduleSlot {
    const freq = s.frequency as MonitoredFrequency;
    const due = s.next_run!;
    const next = nextSlot(freq, s.anchor, now);
    return {
      row: s, id: s.id, accountId: s.account_id, due, now, next,
      moveIfUnchanged: (db, set) => moveScheduleSlotIfUnchanged(db, s.id, due, freq, set),
      skipped: (reason) => ({ next_run: next, skipped_at: due, skip_reason: reason }),
    };
  }

  protected async read(s: ScanScheduleRow): Promise<ScheduledScan> {
    const options = readOptions(this.o.intake.store.box, s.options);
    const cpuThrottle = this.o.catalog.browser(options.browser)?.cpu_throttle ?? false;
    return {
      devices: readScheduleDevices(s.devices).map((device) => ({ device, options: optionsForDevice(options, device, cpuThrottle) })),
      settings: readScanSettings(s.settings),
    };
  }

  protected async startSlot(slot: ScheduleSlot, scan: ScheduledScan, principal: Principal, claim: Claim<ScheduleSlotMove>): Promise<void> {
    // The plan may have changed since the schedule was made.
    assertFrequencyOnPlan(principal.plan, slot.row.frequency as MonitoredFrequency, 'scanning');
    // Every device's scan, or none: their credits are reserved together.
    await requestScan(this.o.intake, principal, scan.devices, scan.settings, {
      scheduleId: slot.id,
      within: (trx, scanId) => claim(trx, { next_run: slot.next, last_scan_id: scanId }),
    });
  }
}
