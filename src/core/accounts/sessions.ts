/**
 * Web app sign-in: sessions, their CSRF token, and the limit on sign-in attempts.
 *
 * - A session is a random 256-bit token in an HttpOnly cookie; the store keeps only its SHA-256, so a copy of the
 *   database signs no one in. Sessions last SESSION_TTL_MS from sign-in; signing out deletes the row. A new API key
 *   or password ends the account's other sessions (core/accounts/accounts.ts): a leaked credential's session goes with it.
 * - The CSRF token of a session is derived from its token (HMAC), so it needs no storage and changes with the
 *   session; every state-changing form carries it.
 * - Sign-in attempts are counted per e-mail address and per client address (shared through the store by every
 *   process, core/accounts/ratelimit.ts): past the limit every attempt is refused until the window ends, right or wrong,
 *   so guessing a password costs hours, not seconds.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hashSessionToken, sha256Hex } from '../ids.js';
import type { RootDb } from '../../store/db.js';
import { deleteExpiredSessions, deleteSession, insertSession, sessionByHash } from '../../store/sessions.js';
import { accountByPassword, authenticate, principalOfAccount, type Principal } from './accounts.js';
import { clock } from '../clock.js';
import type { PlanRegistry } from './plans.js';
import type { RateLimiter } from './ratelimit.js';

export const SESSION_TTL_MS = 14 * 86_400_000;
/** Sign-in attempts allowed per e-mail address, and per client address, in one window. */
export const SIGN_IN_LIMIT = { perEmail: 10, perClient: 30, windowSeconds: 900 } as const;

export async function createSession(db: RootDb, accountId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  await insertSession(db, { token_hash: hashSessionToken(token), account_id: accountId, created: now, expires: now + SESSION_TTL_MS });
  return token;
}

/** The principal of a live session; null for an unknown, expired or malformed token, or a deleted account. */
export async function sessionPrincipal(db: RootDb, plans: PlanRegistry, token: string): Promise<Principal | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const row = await sessionByHash(db, hashSessionToken(token), clock.now());
  return row ? principalOfAccount(db, plans, row.account_id) : null;
}

export async function endSession(db: RootDb, token: string): Promise<void> {
  await deleteSession(db, hashSessionToken(token));
}

export async function sweepSessions(db: RootDb): Promise<void> {
  await deleteExpiredSessions(db, clock.now());
}

export function csrfToken(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('webgauge csrf').digest('base64url');
}

export function csrfTokenValid(sessionToken: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const want = Buffer.from(csrfToken(sessionToken));
  const got = Buffer.from(given);
  return got.length === want.length && timingSafeEqual(got, want);
}

export type SignInOutcome =
  | { ok: true; accountId: string }
  | { ok: false; reason: 'wrong' | 'limited'; retryAfterSeconds?: number };

export type Credentials = { email: string; password: string } | { apiKey: string };

/** Check credentials, counting the attempt first (a refused attempt does not even look at them). */
export async function signIn(db: RootDb, plans: PlanRegistry, limiter: RateLimiter, credentials: Credentials, client: string):
  Promise<SignInOutcome> {
  const { perEmail, perClient, windowSeconds } = SIGN_IN_LIMIT;
  // Counted under a hash: whatever was typed, the counter's key has one size.
  const byClient = await limiter.hit(`sign-in client ${sha256Hex(client)}`, perClient, windowSeconds);
  const byEmail = 'email' in credentials
    ? await limiter.hit(`sign-in email ${sha256Hex(credentials.email.trim().toLowerCase())}`, perEmail, windowSeconds)
    : undefined;
  if (byClient.exceeded || byEmail?.exceeded) {
    return { ok: false, reason: 'limited', retryAfterSeconds: Math.max(byClient.exceeded ? byClient.reset : 0, byEmail?.exceeded ? byEmail.reset : 0) };
  }
  if ('email' in credentials) {
    const id = await accountByPassword(db, credentials.email, credentials.password);
    return id ? { ok: true, accountId: id } : { ok: false, reason: 'wrong' };
  }
  const principal = credentials.apiKey.trim() ? await authenticate(db, plans, credentials.apiKey.trim()) : null;
  return principal ? { ok: true, accountId: principal.keyAccountId } : { ok: false, reason: 'wrong' };
}
