/**
 * The scan schedules' scheduler: starts each schedule's scan once per slot of its frequency, through requestScan like
 * POST /scans, so it is checked and charged like one and queues like any other scan (no special turn in the queue).
 *
 * Exactly once per slot, across processes and restarts, as the monitor does (monitor.ts): the slot is claimed by
 * `update scan_schedules set next_run = <next>, last_scan_id = <scan> where id = ? and next_run = <due> and frequency = <freq>`
 * inside the transaction that stores the scan and reserves its credits, so claim and scan commit together or not at
 * all, and of two schedulers only one can move `next_run` off the value both read. Slots missed while no scheduler
 * ran collapse into one run (nextSlot skips to the first slot after now).
 *
 * A slot that cannot run (credits short, the site now refused by the target policy, the plan no longer offering the
 * frequency, the account gone, or any other refusal) is skipped: `skipped_at` and `skip_reason` say which and why, and
 * the next slot stays on the grid.
 */
import { PeriodicJob } from '../lib/periodic-job.js';
import type { AnalysisOptions } from '../core/options/analysis-options.js';
import { readOptions } from '../core/options/stored-options.js';
import { clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import { accountPrincipal, assertFrequencyOnPlan, nextSlot } from '../core/pages/monitoring.js';
import type { MonitoredFrequency } from '../core/vocabulary/frequencies.js';
import type { PlanRegistry } from '../core/accounts/plans.js';
import { readScanSettings, type ScanSettings } from '../core/scans/scan-request.js';
import { requestScan, type ScanIntake } from '../core/scans/scans.js';
import type { Db } from '../store/db.js';
import { dueScanSchedules, moveScheduleSlotIfUnchanged, type ScanScheduleRow, type ScheduleSlotMove } from '../store/scan-schedules.js';

export interface ScanScheduleLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ScanScheduleOptions {
  /** The store, the target policy and the wake-ups a scan needs (the API's own intake). */
  intake: ScanIntake;
  plans: PlanRegistry;
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

/** Thrown inside the scan's transaction when the slot is no longer ours: rolls the scan back. */
class SlotTaken extends Error {}

const quiet: ScanScheduleLog = { info() {}, warn() {}, error() {} };

export class ScanScheduleJob extends PeriodicJob<ScheduleTickResult> {
  private readonly log: ScanScheduleLog;

  constructor(private readonly o: ScanScheduleOptions) {
    super({ intervalMs: o.intervalMs ?? 30_000, log: o.log ?? quiet, failure: 'scan schedule tick failed', outages: o.intake.store.health });
    this.log = o.log ?? quiet;
  }

  protected runOnce(): Promise<ScheduleTickResult> {
    return this.runTick();
  }

  /** Start a scan for every due slot. Overlapping calls on one instance share the tick in progress. */
  tick(): Promise<ScheduleTickResult> {
    return this.run();
  }

  private async runTick(): Promise<ScheduleTickResult> {
    const result: ScheduleTickResult = { started: 0, skipped: 0, lost: 0, errors: 0 };
    const batchSize = this.o.batchSize ?? 50;
    const failed = new Set<string>();
    for (let b = 0; b < (this.o.maxBatches ?? 20); b++) {
      // Schedules that failed unexpectedly stay due; leave them to the next tick instead of reading them again.
      const due = await dueScanSchedules(this.o.intake.store.db, clock.now(), batchSize, [...failed]);
      for (const s of due) {
        const outcome = await this.runSlot(s);
        result[outcome] += 1;
        if (outcome === 'errors') failed.add(s.id);
      }
      if (due.length < batchSize) break;
    }
    if (result.started || result.skipped || result.errors) this.log.info(result, 'scan schedule tick');
    return result;
  }

  private async runSlot(s: ScanScheduleRow): Promise<keyof ScheduleTickResult> {
    const { store } = this.o.intake;
    const freq = s.frequency as MonitoredFrequency;
    const due = s.next_run!;
    const next = nextSlot(freq, s.anchor, clock.now());
    const moveIfUnchanged = (db: Db, set: ScheduleSlotMove): Promise<boolean> => moveScheduleSlotIfUnchanged(db, s.id, due, freq, set);
    const skip = async (reason: string): Promise<keyof ScheduleTickResult> => {
      const moved = await moveIfUnchanged(store.db, { next_run: next, skipped_at: due, skip_reason: reason });
      if (moved) this.log.warn({ scheduleId: s.id, due, reason }, 'scheduled scan skipped');
      return moved ? 'skipped' : 'lost';
    };

    let options: AnalysisOptions;
    let settings: ScanSettings;
    try {
      options = readOptions(store.box, s.options);
      settings = readScanSettings(s.settings);
    } catch (err) {
      return skip(`The schedule's stored options are unreadable: ${(err as Error).message}`);
    }
    const principal = await accountPrincipal(store.db, this.o.plans, s.account_id);
    if (!principal) return skip('The account that owns the schedule no longer exists.');

    try {
      // The plan may have changed since the schedule was made.
      assertFrequencyOnPlan(principal.plan, freq, 'scanning');
      await requestScan(this.o.intake, principal, options, settings, {
        scheduleId: s.id,
        within: async (trx, scanId) => {
          if (!(await moveIfUnchanged(trx, { next_run: next, last_scan_id: scanId }))) throw new SlotTaken();
        },
      });
      return 'started';
    } catch (err) {
      if (err instanceof SlotTaken) return 'lost';
      if (err instanceof ApiError) return skip(err.detail ?? err.title);
      if (store.health.noticed(err)) return 'errors';
      this.log.error({ err, scheduleId: s.id }, 'scheduled scan could not be started; retrying next tick');
      return 'errors';
    }
  }
}
