import { randomBytes, createHash } from 'node:crypto';

/**
 * Random, URL-safe, unguessable IDs: 9 bytes = 72 bits, 12 base64url characters. Never with a leading '-' (one
 * in 64 did): a command line reads such an ID as an option (`webgauge agent token revoke -Xy…` exited 2).
 */
export function newId(): string {
  for (;;) {
    const id = randomBytes(9).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
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

/** The longest path ID accepted; IDs this server makes are 12 characters, catalogue IDs are short slugs. */
export const MAX_ID_LENGTH = 128;

/**
 * No ID has a control character; PostgreSQL text cannot even hold NUL, so such an ID is refused (with the
 * route's not-found code) before it reaches a query. (A JSON Schema pattern: the API's path parameters use it.)
 */
export const ID_PATTERN = '^[^\\u0000-\\u001f\\u007f]*$';
const ID = new RegExp(ID_PATTERN);

/** Could `s` be an ID at all? The rule of the API's path parameters, for the web app and the public report page. */
export const couldBeId = (s: string): boolean => s.length >= 1 && s.length <= MAX_ID_LENGTH && ID.test(s);

/** No column holds control characters (PostgreSQL text cannot hold NUL at all), so no ID, filter or search has one. */
const CONTROL = /[\u0000-\u001f\u007f]/;
export const hasControlCharacter = (s: string): boolean => CONTROL.test(s);
