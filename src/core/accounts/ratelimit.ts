import type { Store } from '../../store/db.js';
import { outageOf } from '../../store/health.js';
import { deleteWindowsBefore, takeWindowUnits } from '../../store/rate-limits.js';
import { clock } from '../clock.js';

export interface RateLimitState {
  limit: number;
  windowSeconds: number;
  remaining: number;
  /** Seconds until the window ends. */
  reset: number;
  exceeded: boolean;
}

/** What one process knows of an account's current window. */
interface Window {
  start: number;
  /** Requests this process took from the shared count in this window, and how many of them it has used. */
  taken: number;
  used: number;
  /** The shared count (every process) as of this process's last lease. */
  total: number;
  /** The shared count reached the limit: refuse without asking the database again until the window ends. */
  exhausted: boolean;
  lease?: Promise<void>;
}

/** The most one lease takes: the shared count is a 32-bit integer, and a plan's limit may be any size. */
const MAX_LEASE = 10_000;

/**
 * Fixed-window rate limit, shared through the store by every API process on one database, without a database
 * write per request: a process leases requests from the window's shared count in blocks of 1 % of what is left
 * (at least 1, at most MAX_LEASE) and hands them out from memory.
 * - Exact on one process: it holds every lease, so the n-th request of a window is refused exactly when n > limit.
 * - Across processes the limit is never exceeded (leases are taken atomically and never beyond the limit); what
 *   other processes hold leased and unused can refuse a request early, at most 1 % of the limit per process.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly store: Store) {}

  async hit(accountId: string, limit: number, windowSeconds: number): Promise<RateLimitState> {
    const windowMs = windowSeconds * 1000;
    const now = clock.now();
    const start = Math.floor(now / windowMs) * windowMs;
    const state = (counted: boolean, w: Window): RateLimitState => ({
      limit,
      windowSeconds,
      // Units taken but not yet used by this process are still there to use.
      remaining: Math.max(0, limit - Math.min(limit, w.total) + (w.taken - w.used)),
      reset: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
      exceeded: !counted,
    });
    for (;;) {
      const w = this.window(accountId, start);
      if (w.used < w.taken) {
        w.used++;
        return state(true, w);
      }
      if (w.exhausted) return state(false, w);
      // One lease at a time per account; requests that arrive meanwhile wait for it, then take from it.
      w.lease ??= this.lease(accountId, w, limit).finally(() => (w.lease = undefined));
      await w.lease;
    }
  }

  private window(accountId: string, start: number): Window {
    let w = this.windows.get(accountId);
    if (!w || w.start !== start) {
      if (this.windows.size > 10_000) this.forgetEndedWindows(start);
      w = { start, taken: 0, used: 0, total: 0, exhausted: false };
      this.windows.set(accountId, w);
    }
    return w;
  }

  private async lease(accountId: string, w: Window, limit: number): Promise<void> {
    const left = Math.max(0, limit - w.total);
    const units = Math.min(MAX_LEASE, Math.max(1, Math.floor(left / 100)));
    let total: number;
    try {
      total = await takeWindowUnits(this.store.db, accountId, w.start, units);
    } catch (err) {
      // A full disk must not stop reads: the lease is this process's alone until the store takes writes again
      // (said once by the store's health). A database that is away fails the request as before.
      if (outageOf(err)?.kind !== 'storage') throw err;
      this.store.health.noticed(err);
      total = w.total + units;
    }
    const before = total - units;
    const granted = Math.max(0, Math.min(units, limit - before));
    w.taken += granted;
    w.total = total;
    if (granted < units) w.exhausted = true;
  }

  private forgetEndedWindows(current: number): void {
    for (const [id, w] of this.windows) if (w.start < current && !w.lease) this.windows.delete(id);
  }
}

/** Drop windows that have ended (called by the sweeper). */
export async function sweepRateLimits(store: Store, olderThanMs = 3_600_000): Promise<void> {
  await deleteWindowsBefore(store.db, clock.now() - olderThanMs);
}
