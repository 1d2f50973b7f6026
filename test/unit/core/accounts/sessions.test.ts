/** Web app sessions (core/accounts/sessions.ts): tokens kept hashed, their CSRF token, expiry, and the sign-in limit. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createAccount, regenerateKeyOf, setPassword } from '../../../../src/core/accounts/accounts.js';
import { clock } from '../../../../src/core/clock.js';
import { PlanRegistry } from '../../../../src/core/accounts/plans.js';
import { RateLimiter } from '../../../../src/core/accounts/ratelimit.js';
import {
  createSession, csrfToken, csrfTokenValid, endSession, sessionPrincipal, SESSION_TTL_MS, SIGN_IN_LIMIT, signIn, sweepSessions,
} from '../../../../src/core/accounts/sessions.js';
import { openStore, type Store } from '../../../../src/store/db.js';

/** Put the clock at `t` (ms). */
function setClock(t: number): void {
  clock.reset();
  clock.advance(t - Date.now());
}

describe('web app sessions', () => {
  let dir: string;
  let store: Store;
  const plans = new PlanRegistry();
  let accountId: string;
  let apiKey: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webgauge-sessions-'));
    store = await openStore({ dataDir: dir });
    ({ id: accountId, apiKey } = await createAccount(store.db, plans, { email: 'web@example.com', plan: 'basic' }));
    await setPassword(store.db, 'web@example.com', 'long enough password');
  });

  after(async () => {
    clock.reset();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('a session names its account; the store keeps only a hash of the token; sign-out ends it', async () => {
    const token = await createSession(store.db, accountId);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const p = await sessionPrincipal(store.db, plans, token);
    assert.equal(p?.accountId, accountId);
    assert.equal(p?.email, 'web@example.com');
    assert.equal(p?.apiKey, '', 'a session does not know the API key');
    const rows = await store.db.selectFrom('sessions').selectAll().execute();
    assert.ok(rows.every((r) => r.token_hash !== token && !r.token_hash.includes(token)));
    await endSession(store.db, token);
    assert.equal(await sessionPrincipal(store.db, plans, token), null);
  });

  test('malformed and unknown tokens are nobody (a NUL or an SQL fragment is not even looked up)', async () => {
    for (const t of ['', 'x', "' or 1=1 --", 'a\u0000b', 'A'.repeat(43), 'A'.repeat(44)]) {
      assert.equal(await sessionPrincipal(store.db, plans, t), null, JSON.stringify(t));
    }
  });

  test(`a session ends ${SESSION_TTL_MS / 86_400_000} days after sign-in, and the sweep removes it`, async () => {
    const token = await createSession(store.db, accountId);
    const now = Date.now();
    setClock(now + SESSION_TTL_MS - 1000);
    assert.ok(await sessionPrincipal(store.db, plans, token));
    setClock(now + SESSION_TTL_MS + 1000);
    assert.equal(await sessionPrincipal(store.db, plans, token), null);
    await sweepSessions(store.db);
    clock.reset();
    assert.equal(await sessionPrincipal(store.db, plans, token), null, 'swept, so gone even with the clock back');
  });

  test('the CSRF token is tied to its session and compared whole', async () => {
    const a = await createSession(store.db, accountId);
    const b = await createSession(store.db, accountId);
    assert.notEqual(csrfToken(a), csrfToken(b));
    assert.equal(csrfTokenValid(a, csrfToken(a)), true);
    assert.equal(csrfTokenValid(a, csrfToken(b)), false);
    assert.equal(csrfTokenValid(a, csrfToken(a).slice(0, -1)), false);
    assert.equal(csrfTokenValid(a, undefined), false);
    assert.equal(csrfTokenValid(a, ''), false);
  });

  test('password and API key sign in; wrong ones do not', async () => {
    const limiter = new RateLimiter(store);
    assert.deepEqual(await signIn(store.db, plans, limiter, { email: 'WEB@example.com ', password: 'long enough password' }, 'c1'), { ok: true, accountId });
    assert.deepEqual(await signIn(store.db, plans, limiter, { apiKey }, 'c1'), { ok: true, accountId });
    assert.equal((await signIn(store.db, plans, limiter, { email: 'web@example.com', password: 'long enough passworD' }, 'c1')).ok, false);
    assert.equal((await signIn(store.db, plans, limiter, { email: 'nobody@example.com', password: 'long enough password' }, 'c1')).ok, false);
    assert.equal((await signIn(store.db, plans, limiter, { apiKey: 'f'.repeat(32) }, 'c1')).ok, false);
    assert.equal((await signIn(store.db, plans, limiter, { apiKey: '  ' }, 'c1')).ok, false);
  });

  test(`past ${SIGN_IN_LIMIT.perEmail} attempts for one e-mail every attempt is refused, the right password too, until the window ends`, async () => {
    const limiter = new RateLimiter(store);
    const email = 'web@example.com';
    setClock(Date.UTC(2030, 0, 1));
    for (let i = 0; i < SIGN_IN_LIMIT.perEmail; i++) {
      const r = await signIn(store.db, plans, limiter, { email, password: `wrong ${i} password` }, `client ${i}`);
      assert.deepEqual(r, { ok: false, reason: 'wrong' }, `attempt ${i + 1}`);
    }
    const refused = await signIn(store.db, plans, limiter, { email, password: 'long enough password' }, 'fresh client');
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.reason, 'limited');
    assert.ok(!refused.ok && refused.retryAfterSeconds! > 0 && refused.retryAfterSeconds! <= SIGN_IN_LIMIT.windowSeconds);
    // The API key still signs in from another client: the limit is on guessing this e-mail's password.
    assert.equal((await signIn(store.db, plans, limiter, { apiKey }, 'fresh client')).ok, true);
    setClock(Date.UTC(2030, 0, 1) + SIGN_IN_LIMIT.windowSeconds * 1000);
    assert.equal((await signIn(store.db, plans, limiter, { email, password: 'long enough password' }, 'fresh client')).ok, true);
    clock.reset();
  });

  test(`one client address gets ${SIGN_IN_LIMIT.perClient} attempts per window, whatever it tries`, async () => {
    const limiter = new RateLimiter(store);
    setClock(Date.UTC(2031, 0, 1));
    for (let i = 0; i < SIGN_IN_LIMIT.perClient; i++) {
      assert.equal((await signIn(store.db, plans, limiter, { email: `user${i}@example.com`, password: 'whatever password' }, 'busy')).ok, false);
    }
    const r = await signIn(store.db, plans, limiter, { apiKey }, 'busy');
    assert.equal(!r.ok && r.reason, 'limited');
    clock.reset();
  });

  test('a new API key ends the account\'s other sessions (the asker\'s stays); a new password ends them all', async () => {
    const mine = await createSession(store.db, accountId);
    const other = await createSession(store.db, accountId);
    const { id: elsewhere } = await createAccount(store.db, plans, { email: 'bystander@example.com', plan: 'basic' });
    const bystander = await createSession(store.db, elsewhere);
    apiKey = await regenerateKeyOf(store.db, accountId, mine);
    assert.ok(await sessionPrincipal(store.db, plans, mine), 'the session that asked stays');
    assert.equal(await sessionPrincipal(store.db, plans, other), null, 'another session (maybe opened with the old key) ends');
    assert.ok(await sessionPrincipal(store.db, plans, bystander), 'other accounts are untouched');
    await setPassword(store.db, 'web@example.com', 'another long password');
    assert.equal(await sessionPrincipal(store.db, plans, mine), null);
    assert.ok(await sessionPrincipal(store.db, plans, bystander));
    await setPassword(store.db, 'web@example.com', 'long enough password');
  });
});
