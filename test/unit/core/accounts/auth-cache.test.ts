/** The key cache (core/accounts/auth-cache.ts): an API key's principal kept for a few seconds, asked once at a time. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PLANS } from '../../../../src/core/accounts/plans.js';
import { accountsChanged, PrincipalCache } from '../../../../src/core/accounts/auth-cache.js';
import type { Principal } from '../../../../src/core/accounts/accounts.js';

describe('PrincipalCache', () => {
  const principal = (key: string): Principal => ({
    accountId: `acc-${key}`, keyAccountId: `acc-${key}`, apiKey: key, email: `${key}@example.test`, role: 'owner', plan: PLANS.pro, emailValidated: true,
  });

  test('asks once per key while an entry is fresh, again after the TTL; concurrent first requests share one lookup', async () => {
    const asked: string[] = [];
    const cache = new PrincipalCache(async (key) => {
      asked.push(key);
      await new Promise((r) => setTimeout(r, 5));
      return principal(key);
    }, 80);
    const first = await Promise.all([cache.get('k1'), cache.get('k1'), cache.get('k1')]);
    assert.deepEqual(first.map((p) => p?.accountId), ['acc-k1', 'acc-k1', 'acc-k1']);
    await cache.get('k1');
    assert.deepEqual(asked, ['k1']);
    await new Promise((r) => setTimeout(r, 120));
    await cache.get('k1');
    assert.deepEqual(asked, ['k1', 'k1']);
  });

  test('an unknown key is asked every time (a key made elsewhere works at once); a change in this process empties it', async () => {
    let known = false;
    let lookups = 0;
    const cache = new PrincipalCache(async (key) => {
      lookups++;
      return known ? principal(key) : null;
    }, 5_000);
    assert.equal(await cache.get('k2'), null);
    known = true;
    assert.equal((await cache.get('k2'))?.accountId, 'acc-k2');
    await cache.get('k2');
    assert.equal(lookups, 2);
    known = false;
    accountsChanged();
    assert.equal(await cache.get('k2'), null, 'forgotten at once');
  });

  test('refuses to keep entries longer than the 5 s the API promises', () => {
    assert.throws(() => new PrincipalCache(async () => null, 5_001), /5000 ms at most/);
  });
});
