/**
 * Who an API key is, remembered for a moment so that a busy client does not cost a database lookup per request.
 *
 * The promise the API keeps (docs/api.md "The read path": Keys): a key regenerated, or an account changed, stops working at once in
 * the process that changed it and within `ttlMs` (at most 5 s) in every other process sharing the database.
 * - In this process every account change (core/accounts/accounts.ts) bumps `accountsEpoch`, which empties every cache.
 * - Other processes see the change when the entry expires.
 * Only keys that authenticated are remembered: a key created by the CLI works at once everywhere.
 */
import { LRUCache } from 'lru-cache';

/** The longest any process may keep trusting what it read about a key (the promise above). */
export const AUTH_CACHE_MAX_MS = 5_000;

let epoch = 0;

/** Call after any change to an account (key, plan, team, validation): every cache in this process forgets. */
export function accountsChanged(): void {
  epoch++;
}

/** `P` is who a key is (core/accounts/accounts.ts's Principal): this cache only keeps it. */
export class PrincipalCache<P extends object> {
  /** By API key (each request carries it in memory anyway; hashing it per request would cost more than the
   *  lookup); null when entries are not kept (ttl 0). */
  private readonly entries: LRUCache<string, P> | null;
  private readonly pending = new Map<string, Promise<P | null>>();
  private seenEpoch = epoch;

  constructor(
    private readonly lookup: (apiKey: string) => Promise<P | null>,
    ttlMs: number,
    maxEntries = 10_000,
  ) {
    if (ttlMs > AUTH_CACHE_MAX_MS) throw new Error(`the key cache may keep an entry ${AUTH_CACHE_MAX_MS} ms at most, not ${ttlMs}`);
    this.entries = ttlMs > 0 ? new LRUCache({ max: maxEntries, ttl: ttlMs }) : null;
  }

  async get(apiKey: string): Promise<P | null> {
    if (this.seenEpoch !== epoch) {
      this.entries?.clear();
      this.pending.clear();
      this.seenEpoch = epoch;
    }
    const hit = this.entries?.get(apiKey);
    if (hit) return hit;
    // Concurrent first requests of one key share one lookup.
    const inFlight = this.pending.get(apiKey);
    if (inFlight) return inFlight;
    const startedEpoch = epoch;
    const p = this.lookup(apiKey).then(
      (principal) => {
        this.pending.delete(apiKey);
        // A change that happened while the lookup ran may not be in what it read: do not remember it.
        if (principal && startedEpoch === epoch) this.entries?.set(apiKey, principal);
        return principal;
      },
      (err: unknown) => {
        this.pending.delete(apiKey);
        throw err;
      },
    );
    this.pending.set(apiKey, p);
    return p;
  }
}
