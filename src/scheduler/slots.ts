/**
 * What every schedule's scheduler does alike (monitored pages: monitor.ts; scan schedules: scan-schedules.ts): each
 * slot of a row's frequency run exactly once. Each kind keeps only what differs: which rows and columns, what a slot
 * starts, and a refusal it handles otherwise than by a skip (monitoring's E42900 retry).
 *
 * Exactly once per slot, across processes and restarts: the slot is claimed by moving the row's next run off the value
 * read, only while the row still holds it at the same frequency (the kind's move-if-unchanged update), inside the
 * transaction that stores what the slot starts, so claim and start commit together or not at all, and of two
 * schedulers only one can move the next run off the value both read (the other counts the slot `lost`). Slots missed
 * while no scheduler ran collapse into one run (nextSlot skips to the first slot after now).
 *
 * A tick reads the due rows in batches (batchSize a query, maxBatches at most, so one tick stays bounded; the rest
 * waits for the next tick), leaving out rows whose slot failed unexpectedly (`errors`: they stay due for the next tick).
 * A slot that cannot run (what it starts unreadable or refused, the account gone, any refusal of its start) is skipped:
 * the next run moves to the next slot and the row keeps when and why.
 */
import { PeriodicJob } from '../lib/periodic-job.js';
import type { Principal } from '../core/accounts/accounts.js';
import type { PlanRegistry } from '../core/accounts/plans.js';
import { clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import { accountPrincipal } from '../core/pages/monitoring.js';
import type { Db, Store } from '../store/db.js';

export interface SlotLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What every tick counts; each kind adds the outcome of a slot that started (`queued`, `started`) and its own. */
export interface SlotOutcomes {
  skipped: number;
  /** Slots another scheduler claimed first (or that changed under us). */
  lost: number;
  errors: number;
}

/** A due row's slot. */
export interface DueSlot<Row, Move> {
  row: Row;
  id: string;
  accountId: string;
  /** The next run read from the row: the slot is ours only while the row still holds it. */
  due: number;
  /** When the slot was taken up. */
  now: number;
  /** The first slot of the row's grid after now. */
  next: number;
  /** Moves the row's schedule (`set`) only if it is still the one read; false when another scheduler or the owner moved it. */
  moveIfUnchanged(db: Db, set: Move): Promise<boolean>;
  /** The move that skips this slot and stores why. */
  skipped(reason: string): Move;
}

/** Claims the slot inside the transaction that stores what it starts (moves its row by `set`): else rolls that back. */
export type Claim<Move> = (trx: Db, set: Move) => Promise<void>;

/** How a kind names things in its log and its skips' reasons. */
export interface SlotWords<Started extends string> {
  /** What a slot starts ('monitored test'), and the outcome of a slot that started it ('queued'). */
  slot: string;
  started: Started;
  /** The row as a skip's reason names it ('page'), and its ID's key in the log ('pageId'). */
  row: string;
  idKey: string;
  /** The message of a tick that did something ('monitor tick'); a failed tick is logged as '<tick> failed'. */
  tick: string;
}

export interface SlotSchedulerSettings<Result extends SlotOutcomes> {
  store: Store;
  plans: PlanRegistry;
  log?: SlotLog;
  intervalMs?: number;
  /** Due rows read per query. */
  batchSize: number;
  /** Queries per tick at most (default 20). */
  maxBatches?: number;
  words: SlotWords<keyof Result & string>;
  /** A tick's count of each outcome, all 0. */
  outcomes: Result;
}

/** Thrown inside the transaction that starts the slot's work when the slot is no longer ours: rolls that work back. */
class SlotTaken extends Error {}

const quiet: SlotLog = { info() {}, warn() {}, error() {} };

export abstract class SlotScheduler<Row extends { id: string }, Move, Input, Result extends SlotOutcomes> extends PeriodicJob<Result> {
  private readonly log: SlotLog;

  constructor(private readonly slots: SlotSchedulerSettings<Result>) {
    super({ intervalMs: slots.intervalMs ?? 30_000, log: slots.log ?? quiet, failure: `${slots.words.tick} failed`, outages: slots.store.health });
    this.log = slots.log ?? quiet;
  }

  /** The rows whose slot is due at `now`, earliest first, at most `limit`, leaving out `exclude`. */
  protected abstract dueRows(now: number, limit: number, exclude: string[]): Promise<Row[]>;

  /** The row's slot, taken up `now`. */
  protected abstract slotOf(row: Row, now: number): DueSlot<Row, Move>;

  /** What the slot starts, read from its row; what this throws skips the slot (an ApiError with its detail). */
  protected abstract read(row: Row): Promise<Input>;

  /** Starts what the slot starts, calling `claim` in the transaction that stores it; an ApiError skips the slot. */
  protected abstract startSlot(slot: DueSlot<Row, Move>, input: Input, principal: Principal, claim: Claim<Move>): Promise<void>;

  /** The outcome of a refusal of the start that this kind does not skip; undefined: skip it. */
  protected refused(_slot: DueSlot<Row, Move>, _err: unknown): Promise<keyof Result | undefined> {
    return Promise.resolve(undefined);
  }

  /** Run every due slot. Overlapping calls on one instance share the tick in progress. */
  tick(): Promise<Result> {
    return this.run();
  }

  protected async runOnce(): Promise<Result> {
    const { batchSize, words } = this.slots;
    const result = { ...this.slots.outcomes };
    const counts = result as unknown as Record<keyof Result, number>;
    const failed = new Set<string>();
    for (let b = 0; b < (this.slots.maxBatches ?? 20); b++) {
      // Rows that failed unexpectedly stay due; leave them to the next tick instead of reading them again.
      const due = await this.dueRows(clock.now(), batchSize, [...failed]);
      for (const row of due) {
        const outcome = await this.runSlot(row);
        counts[outcome] += 1;
        if (outcome === 'errors') failed.add(row.id);
      }
      if (due.length < batchSize) break;
    }
    if (counts[words.started] || result.skipped || result.errors) this.log.info(result, words.tick);
    return result;
  }

  private async runSlot(row: Row): Promise<keyof Result> {
    const { store, words } = this.slots;
    const slot = this.slotOf(row, clock.now());
    const skip = async (reason: string): Promise<keyof Result> => {
      const moved = await slot.moveIfUnchanged(store.db, slot.skipped(reason));
      if (moved) this.log.warn({ [words.idKey]: slot.id, due: slot.due, reason }, `${words.slot} skipped`);
      return moved ? 'skipped' : 'lost';
    };

    let input: Input;
    try {
      input = await this.read(row);
    } catch (err) {
      return skip(err instanceof ApiError ? (err.detail ?? err.title) : `The ${words.row}'s stored options are unreadable: ${(err as Error).message}`);
    }
    const principal = await accountPrincipal(store.db, this.slots.plans, slot.accountId);
    if (!principal) return skip(`The account that owns the ${words.row} no longer exists.`);

    try {
      await this.startSlot(slot, input, principal, async (trx, set) => {
        if (!(await slot.moveIfUnchanged(trx, set))) throw new SlotTaken();
      });
      return words.started;
    } catch (err) {
      if (err instanceof SlotTaken) return 'lost';
      const outcome = await this.refused(slot, err);
      if (outcome) return outcome;
      if (err instanceof ApiError) return skip(err.detail ?? err.title);
      if (store.health.noticed(err)) return 'errors';
      const what = `${words.slot} could not be ${words.started}`;
      this.log.error({ err, [words.idKey]: slot.id }, `${what}; retrying next tick`);
      return 'errors';
    }
  }
}
