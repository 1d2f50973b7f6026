/**
 * Account passwords (the web app signs people in with e-mail and password; issue 11). Stored as scrypt
 * (node:crypto, memory-hard: N = 2^15, r = 8, p = 1, 32-byte key, 16-byte random salt) in one self-describing
 * string, `scrypt$15$8$1$<salt>$<key>` (base64url), so the parameters can be raised later without breaking old
 * hashes. Rules as NIST SP 800-63B puts them: 8 to 1024 characters, no composition rules.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

export class PasswordError extends Error {}

function scrypt(password: string, salt: Buffer, keylen: number, o: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCallback(password, salt, keylen, o, (err, key) => (err ? reject(err) : resolve(key))));
}

const costOf = (logN: number, r: number, p: number): ScryptOptions =>
  ({ N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 1024 * 1024 });

/** Why a password cannot be used, or null. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `a password needs at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `a password has at most ${PASSWORD_MAX} characters`;
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) throw new PasswordError(problem);
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize('NFC'), salt, KEY_BYTES, costOf(LOG_N, R, P));
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether the password is the one the stored hash was made from (false for any malformed hash). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every(Number.isSafeInteger) || logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (salt.length < 16 || expected.length !== KEY_BYTES || [...password].length > PASSWORD_MAX) return false;
  const key = await scrypt(password.normalize('NFC'), salt, KEY_BYTES, costOf(logN, r, p));
  return timingSafeEqual(key, expected);
}
