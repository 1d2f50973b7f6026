/**
 * The rate limiter's leases (core/accounts/ratelimit.ts), against a real SQLite store in a temporary folder (several
 * RateLimiter instances on one store are several API processes on one database). The key cache is auth-cache.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { clock } from '../../../../src/core/clock.js';
import { RateLimiter } from '../../../../src/core/accounts/ratelimit.js';
import { sql } from 'kysely';
import { openStore, type Store } from '../../../../src/store/db.js';

describe('RateLimiter', () => {
  let dir: string;
  let store: Store;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webgauge-ratelimit-'));
    store = await openStore({ dataDir: dir });
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('one process: the n-th request is refused exactly when n > limit, with exact Remaining and few writes', async () => {
    const limiter = new RateLimiter(store);
    const states = [];
    for (let i = 0; i < 1001; i++) states.push(await limiter.hit('acc-one', 1000, 60));
    assert.deepEqual(states.slice(0, 1000).map((s) => s.remaining), Array.from({ length: 1000 }, (_, i) => 999 - i));
    assert.ok(states.slice(0, 1000).every((s) => !s.exceeded));
    assert.equal(states[1000].exceeded, true);
    assert.equal(states[1000].remaining, 0);
    const row = await store.db.selectFrom('rate_limits').select('count').where('account_id', '=', 'acc-one').executeTakeFirstOrThrow();
    assert.equal(row.count, 1001, 'the shared count holds every lease, the last one refused');
  });

  test('concurrent requests of one process share a lease and still stop at the limit', async () => {
    const limiter = new RateLimiter(store);
    const states = await Promise.all(Array.from({ length: 300 }, () => limiter.hit('acc-burst', 250, 60)));
    assert.equal(states.filter((s) => !s.exceeded).length, 250);
  });

  test('three processes: never above the limit, at most 2 % below it, whatever the interleaving', async () => {
    // All in one window: on the real clock a window that ended mid-loop (a busy machine makes the loop slower) let a
    // new window's requests in, and the count looked like one window's.
    clock.advance(Date.UTC(2030, 0, 2, 12, 0, 0) - clock.now());
    try {
      for (const limit of [100, 960, 5000]) {
        const nodes = [new RateLimiter(store), new RateLimiter(store), new RateLimiter(store)];
        let admitted = 0;
        // Uneven, concurrent traffic: node 0 gets half of it.
        for (let i = 0; i < limit * 1.5; i += 6) {
          const burst = await Promise.all([0, 0, 0, 1, 1, 2].map((n) => nodes[n].hit(`acc-${limit}`, limit, 60)));
          admitted += burst.filter((s) => !s.exceeded).length;
        }
        assert.ok(admitted <= limit, `limit ${limit}: ${admitted} admitted`);
        assert.ok(admitted >= Math.floor(limit * 0.98), `limit ${limit}: ${admitted} admitted`);
      }
    } finally {
      clock.reset();
    }
  });

  test("a full disk does not stop reads: a lease SQLite has no room for is this process's alone, said once", async () => {
    const full = await openStore({ dataDir: await mkdtemp(join(dir, 'full-')) });
    const said: string[] = [];
    full.health.useLog({ error: (_o, msg) => said.push(msg), info: (_o, msg) => said.push(msg), warn: (_o, msg) => said.push(msg) });
    // All in one window: on the real clock a minute that ended between the first request and the 11th let it in (a CI run).
    clock.advance(Date.UTC(2030, 0, 3, 12, 0, 0) - clock.now());
    try {
      // SQLite's own limit on the file's pages: a write that needs one more page fails with SQLITE_FULL, as on a full disk.
      const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(full.db)).rows[0]!.page_count;
      await sql.raw(`pragma max_page_count = ${pages}`).execute(full.db);
      const limiter = new RateLimiter(full);
      const states = [];
      for (let i = 0; i < 500; i++) states.push(await limiter.hit(`acc-full-${i}`, 10, 60));
      assert.ok(states.every((s) => !s.exceeded && s.remaining === 9));
      assert.equal(said.filter((m) => m.startsWith('out of storage')).length, 1, said.join('\n'));
      // Still this process's count: the 11th request of an account is refused.
      for (let i = 0; i < 9; i++) await limiter.hit('acc-full-0', 10, 60);
      assert.equal((await limiter.hit('acc-full-0', 10, 60)).exceeded, true);
    } finally {
      clock.reset();
      await full.close();
    }
  });

  test('a new window starts afresh; Reset counts down to its end', async () => {
    const limiter = new RateLimiter(store);
    const at = (ms: number) => clock.advance(ms - clock.now());
    at(Date.UTC(2030, 0, 1, 12, 0, 10));
    try {
      for (let i = 0; i < 3; i++) await limiter.hit('acc-window', 3, 60);
      const refused = await limiter.hit('acc-window', 3, 60);
      assert.equal(refused.exceeded, true);
      assert.equal(refused.reset, 50);
      at(Date.UTC(2030, 0, 1, 12, 1, 0));
      const next = await limiter.hit('acc-window', 3, 60);
      assert.equal(next.exceeded, false);
      assert.equal(next.remaining, 2);
      assert.equal(next.reset, 60);
    } finally {
      clock.reset();
    }
  });
});

