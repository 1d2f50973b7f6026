import { sql } from 'kysely';
import type { Store } from '../store/db.js';
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
  const row = await sql<{ count: number }>`
    insert into rate_limits (account_id, window_start, count) values (${accountId}, ${windowStart}, 1)
    on conflict (account_id, window_start) do update set count = rate_limits.count + 1
    returning count`.execute(store.db);
  const count = Number(row.rows[0]?.count ?? 1);
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
  await store.db.deleteFrom('rate_limits').where('window_start', '<', clock.now() - olderThanMs).execute();
}
