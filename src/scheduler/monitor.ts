/**
 * The monitoring scheduler: runs each monitored page as a `monitored` test once per slot of its frequency,
 * through startTest like any API test, so it is charged like one (credits, concurrency limit).
 *
 * Exactly once per slot, across processes and restarts (slots.ts, as every schedule): the slot is claimed by
 * `update pages set monitor_next_run = <next> where id = ? and monitor_next_run = <due> and monitored = <freq>`
 * inside the transaction that queues the test, so claim and test commit together or not at all, and of two
 * schedulers only one can move `monitor_next_run` off the value both read. Slots missed while no scheduler ran
 * collapse into one run (nextSlot skips to the first slot after now).
 *
 * When a slot cannot run: credits short (or any other refusal) → the slot is skipped and the reason stored on
 * the page (`monitor_skipped_at`, `monitor_skip_reason`); too many tests pending (E42900) → retried every
 * RETRY_MS until the next slot is due.
 */
import type { AnalysisOptions } from '../core/options/analysis-options.js';
import { readOptions } from '../core/options/stored-options.js';
import type { Principal } from '../core/accounts/accounts.js';
import { ApiError } from '../core/errors.js';
import { nextSlot } from '../core/pages/monitoring.js';
import { assertAllowedTest } from '../core/tests/targets.js';
import type { MonitoredFrequency } from '../core/vocabulary/frequencies.js';
import type { TargetPolicy } from '../net/policy.js';
import type { PlanRegistry } from '../core/accounts/plans.js';
import { startTest } from '../core/tests/tests.js';
import type { Store } from '../store/db.js';
import { lockAccount } from '../store/locks.js';
import { duePages, moveSlotIfUnchanged, type DuePage, type SlotMove } from '../store/monitoring.js';
import { SlotScheduler, type Claim, type DueSlot, type SlotLog } from './slots.js';

export const RETRY_MS = 60_000;

export type MonitorLog = SlotLog;

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

type PageSlot = DueSlot<DuePage, SlotMove>;

export class MonitorScheduler extends SlotScheduler<DuePage, SlotMove, AnalysisOptions, TickResult> {
  constructor(private readonly o: MonitorOptions) {
    super({
      ...o, batchSize: o.batchSize ?? 100,
      words: { slot: 'monitored test', started: 'queued', row: 'page', idKey: 'pageId', tick: 'monitor tick' },
      outcomes: { queued: 0, skipped: 0, retried: 0, lost: 0, errors: 0 },
    });
  }

  protected dueRows(now: number, limit: number, exclude: string[]): Promise<DuePage[]> {
    return duePages(this.o.store.db, now, limit, exclude);
  }

  protected slotOf(page: DuePage, now: number): PageSlot {
    const freq = page.monitored as MonitoredFrequency;
    const due = page.monitor_next_run!;
    const next = nextSlot(freq, page.monitor_anchor ?? due, now);
    return {
      row: page, id: page.id, accountId: page.account_id, due, now, next,
      moveIfUnchanged: (db, set) => moveSlotIfUnchanged(db, page.id, due, freq, set),
      skipped: (reason) => ({ monitor_next_run: next, monitor_skipped_at: due, monitor_skip_reason: reason }),
    };
  }

  /** The page's options, checked against the target policy (a refusal skips the slot). */
  protected async read(page: DuePage): Promise<AnalysisOptions> {
    const options = readOptions(this.o.store.box, page.options);
    await assertAllowedTest(options, this.o.targetPolicy);
    return options;
  }

  protected async startSlot(slot: PageSlot, options: AnalysisOptions, principal: Principal, claim: Claim<SlotMove>): Promise<void> {
    const { store } = this.o;
    await startTest(store, principal, options, 'monitored', async (trx) => {
      // Account row first, then the page: the lock order of setMonitoring, so the two cannot deadlock.
      await lockAccount(trx, store.engine, slot.accountId);
      await claim(trx, { monitor_next_run: slot.next });
    });
    this.o.notifyQueued?.();
  }

  /** The account's tests are all busy (E42900): try again shortly, but never past the next slot. */
  protected override async refused(slot: PageSlot, err: unknown): Promise<keyof TickResult | undefined> {
    if (!(err instanceof ApiError && err.code === 'E42900')) return undefined;
    return (await slot.moveIfUnchanged(this.o.store.db, { monitor_next_run: Math.min(slot.now + RETRY_MS, slot.next) })) ? 'retried' : 'lost';
  }
}
