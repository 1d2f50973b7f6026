import { randomBytes, createHash } from 'node:crypto';

/** Random, URL-safe, unguessable IDs: 9 bytes = 72 bits, 12 base64url characters. */
export function newId(): string {
  return randomBytes(9).toString('base64url');
}

/** API keys: 32 lowercase hex characters (128 bits), like the keys existing clients expect. */
export function newApiKey(): string {
  return randomBytes(16).toString('hex');
}

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/**
 * Keys (and web app session tokens) are stored as SHA-256: they are random secrets of 128 bits or more, so a fast
 * hash is enough (no dictionary to brute-force) and lets us look them up by the hash in one indexed query.
 */
export const hashApiKey = sha256Hex;
export const hashSessionToken = sha256Hex;
