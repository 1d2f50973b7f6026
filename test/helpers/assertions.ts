import assert from 'node:assert/strict';
import { call, errorOf, type Res, type TestServer } from './server.js';

/** A spec error response: exact status and code, string status/code/title, a non-empty detail, no data. */
export function assertError(res: Res, status: number, code: string) {
  assert.equal(res.status, status, `HTTP status (body: ${res.text.slice(0, 300)})`);
  assert.ok(Array.isArray(res.body?.errors) && res.body.errors.length > 0, `non-empty errors array in ${res.text.slice(0, 300)}`);
  assert.equal(res.body.data, undefined, 'an error body has no data');
  const e = errorOf(res);
  assert.equal(e.code, code, `errors[0].code (detail: ${e.detail})`);
  assert.equal(e.status, String(status), 'errors[0].status is the HTTP status as a string');
  assert.equal(typeof e.title, 'string');
  assert.ok(e.title.length > 0, 'errors[0].title is not empty');
  assert.equal(typeof e.detail, 'string', 'errors[0].detail is a string');
  assert.ok(e.detail!.trim().length > 0, 'errors[0].detail is not empty: it says what to fix');
  return e;
}

/** A success body: the status, `data` present, `errors` absent. Returns `data`. */
export function assertData(res: Res, status = 200) {
  assert.equal(res.status, status, `HTTP status (body: ${res.text.slice(0, 300)})`);
  assert.notEqual(res.body?.data, undefined, 'success body has data');
  assert.equal(res.body.errors, undefined, 'success body has no errors');
  return res.body.data;
}

export const isInt = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v);

export async function creditsOf(s: TestServer, key: string): Promise<number> {
  return assertData(await call(s, 'GET', '/status', { key })).attributes.api_credits;
}

/** What `f` gives once it gives something (not undefined or false), asked every 100 ms; an error after `timeoutMs`. */
export async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
