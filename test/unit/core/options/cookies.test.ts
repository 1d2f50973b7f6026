/**
 * One cookie string of the `cookies` option (core/options/cookies.ts): the parts the runner sets, the canonical text a
 * page's identity reads, and what is refused (the parser's messages through POST /tests: options.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalCookie, parseCookie } from '../../../../src/core/options/cookies.js';

test('parseCookie gives the runner the parts', () => {
  assert.deepEqual(parseCookie('id=x=y; Path=/; Secure; SameSite=None; Expires=Thu, 01 Jan 2026 00:00:00 GMT'), {
    name: 'id', value: 'x=y', path: '/', secure: true, sameSite: 'None', expires: 1767225600,
  });
});

test('the canonical text drops cosmetic differences: spacing, case of attribute names, a leading dot of the domain', () => {
  const a = canonicalCookie(parseCookie('id=1;path=/;  SECURE; domain=.Example.com; samesite=lax'));
  assert.equal(a, 'id=1; Domain=example.com; Path=/; Secure; SameSite=Lax');
  assert.equal(canonicalCookie(parseCookie(a)), a, 'canonical text reads back as itself');
});

test('a second cookie in one string, an unknown attribute or a bad Expires is refused, saying what is expected', () => {
  assert.throws(() => parseCookie('a=1; b=2'), /"b=2" is not a cookie attribute; expected name=value/);
  assert.throws(() => parseCookie('novalue'), /is not a cookie: expected name=value/);
  assert.throws(() => parseCookie('a=1; Expires=soon'), /Expires must be an HTTP date/);
});
