import type { Store } from '../store/db.js';
import { countRequest, deleteWindowsBefore } from '../store/rate-limits.js';
import { clock } from './clock.js';

export interface RateLimitState {
  limit: number;
  windowSeconds: number;
  remaining: number;
  /** Seconds until the window ends. */
  reset: number;
  exceeded: boolean;
}

/**
 * Fixed-window counter kept in the store, so every API process on one database shares it.
 * One upsert per request: insert the window's row or add one to it, and read the new count back.
 */
export async function hitRateLimit(store: Store, accountId: string, limit: number, windowSeconds: number): Promise<RateLimitState> {
  const windowMs = windowSeconds * 1000;
  const now = clock.now();
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const count = await countRequest(store.db, accountId, windowStart);
  return {
    limit,
    windowSeconds,
    remaining: Math.max(0, limit - count),
    reset: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
    exceeded: count > limit,
  };
}

/** Drop windows that have ended (called by the sweeper). */
export async function sweepRateLimits(store: Store, olderThanMs = 3_600_000): Promise<void> {
  await deleteWindowsBefore(store.db, clock.now() - olderThanMs);
}
