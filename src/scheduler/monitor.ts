/**
 * The monitoring scheduler: runs each monitored page as a `monitored` test once per slot of its frequency,
 * through startTest like any API test, so it is charged like one (credits, concurrency limit).
 *
 * Exactly once per slot, across processes and restarts: the slot is claimed by
 * `update pages set monitor_next_run = <next> where id = ? and monitor_next_run = <due> and monitored = <freq>`
 * inside the transaction that queues the test, so claim and test commit together or not at all, and of two
 * schedulers only one can move `monitor_next_run` off the value both read. Slots missed while no scheduler ran
 * collapse into one run (nextSlot skips to the first slot after now).
 *
 * When a slot cannot run: credits short (or any other refusal) → the slot is skipped and the reason stored on
 * the page (`monitor_skipped_at`, `monitor_skip_reason`); too many tests pending (E42900) → retried every
 * RETRY_MS until the next slot is due.
 */
import { PeriodicJob } from '../lib/periodic-job.js';
import type { AnalysisOptions } from '../core/options/analysis-options.js';
import { readOptions } from '../core/options/stored-options.js';
import { clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import { accountPrincipal, nextSlot, type Frequency } from '../core/pages/monitoring.js';
import { assertAllowedTest } from '../core/tests/targets.js';
import type { TargetPolicy } from '../net/policy.js';
import type { PlanRegistry } from '../core/accounts/plans.js';
import { startTest } from '../core/tests/tests.js';
import type { Db, Store } from '../store/db.js';
import { lockAccount } from '../store/locks.js';
import { duePages, moveSlotIfUnchanged, type DuePage, type SlotMove } from '../store/monitoring.js';

export const RETRY_MS = 60_000;

export interface MonitorLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface MonitorOptions {
  store: Store;
  targetPolicy: TargetPolicy;
  plans: PlanRegistry;
  /** Wake the in-process agent after queueing. */
  notifyQueued?: () => void;
  log?: MonitorLog;
  intervalMs?: number;
  /** Due pages read per query. */
  batchSize?: number;
  /** Queries per tick at most, so one tick stays bounded; the rest waits for the next tick. */
  maxBatches?: number;
}

export interface TickResult {
  queued: number;
  skipped: number;
  retried: number;
  /** Slots another scheduler claimed first (or that changed under us). */
  lost: number;
  errors: number;
}

/** Thrown inside the queueing transaction when the slot is no longer ours: rolls the test back. */
class SlotTaken extends Error {}

const quiet: MonitorLog = { info() {}, warn() {}, error() {} };

export class MonitorScheduler extends PeriodicJob<TickResult> {
  private readonly log: MonitorLog;

  constructor(private readonly o: MonitorOptions) {
    super({ intervalMs: o.intervalMs ?? 30_000, log: o.log ?? quiet, failure: 'monitor tick failed', outages: o.store.health });
    this.log = o.log ?? quiet;
  }

  protected runOnce(): Promise<TickResult> {
    return this.runTick();
  }

  /** Queue a test for every due slot. Overlapping calls on one instance share the tick in progress. */
  tick(): Promise<TickResult> {
    return this.run();
  }

  private async runTick(): Promise<TickResult> {
    const result: TickResult = { queued: 0, skipped: 0, retried: 0, lost: 0, errors: 0 };
    const batchSize = this.o.batchSize ?? 100;
    const failed = new Set<string>();
    for (let b = 0; b < (this.o.maxBatches ?? 20); b++) {
      // Pages that failed unexpectedly stay due; leave them to the next tick instead of reading them again.
      const due = await duePages(this.o.store.db, clock.now(), batchSize, [...failed]);
      for (const page of due) {
        const outcome = await this.runSlot(page);
        result[outcome] += 1;
        if (outcome === 'errors') failed.add(page.id);
      }
      if (due.length < batchSize) break;
    }
    if (result.queued || result.skipped || result.errors) this.log.info(result, 'monitor tick');
    return result;
  }

  private async runSlot(page: DuePage): Promise<keyof TickResult> {
    const { store } = this.o;
    const freq = page.monitored as Exclude<Frequency, 'no'>;
    const due = page.monitor_next_run!;
    const now = clock.now();
    const next = nextSlot(freq, page.monitor_anchor ?? due, now);
    /** Move the schedule only if it is still the one we read (another scheduler may have moved it). */
    const moveIfUnchanged = (db: Db, set: SlotMove): Promise<boolean> => moveSlotIfUnchanged(db, page.id, due, freq, set);
    const skip = async (reason: string) => {
      const moved = await moveIfUnchanged(store.db, { monitor_next_run: next, monitor_skipped_at: due, monitor_skip_reason: reason });
      if (moved) this.log.warn({ pageId: page.id, due, reason }, 'monitored test skipped');
      return moved ? 'skipped' : 'lost';
    };

    let options: AnalysisOptions;
    try {
      options = readOptions(store.box, page.options);
      await assertAllowedTest(options, this.o.targetPolicy);
    } catch (err) {
      return skip(err instanceof ApiError ? (err.detail ?? err.title) : `The page's stored options are unreadable: ${(err as Error).message}`);
    }
    const principal = await accountPrincipal(store.db, this.o.plans, page.account_id);
    if (!principal) return skip('The account that owns the page no longer exists.');

    try {
      await startTest(store, principal, options, 'monitored', async (trx) => {
        // Account row first, then the page: the lock order of setMonitoring, so the two cannot deadlock.
        await lockAccount(trx, store.engine, page.account_id);
        if (!(await moveIfUnchanged(trx, { monitor_next_run: next }))) throw new SlotTaken();
      });
      this.o.notifyQueued?.();
      return 'queued';
    } catch (err) {
      if (err instanceof SlotTaken) return 'lost';
      if (err instanceof ApiError && err.code === 'E42900') {
        // The account's tests are all busy: try again shortly, but never past the next slot.
        return (await moveIfUnchanged(store.db, { monitor_next_run: Math.min(now + RETRY_MS, next) })) ? 'retried' : 'lost';
      }
      if (err instanceof ApiError) return skip(err.detail ?? err.title);
      if (store.health.noticed(err)) return 'errors';
      this.log.error({ err, pageId: page.id }, 'monitored test could not be queued; retrying next tick');
      return 'errors';
    }
  }
}
