/** A discovered URL's normal form and the site it belongs to (discovery/url.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeUrl, Site } from '../../../src/discovery/url.js';

test('normalisation: lower-case host, no default port, no fragment, no query unless kept (then sorted), dot segments', () => {
  assert.equal(normalizeUrl('HTTP://Example.COM:80/a/./b/../c?z=1&a=2#f', undefined, false), 'http://example.com/a/c');
  assert.equal(normalizeUrl('https://example.com:443/p?z=1&a=2#f', undefined, true), 'https://example.com/p?a=2&z=1');
  assert.equal(normalizeUrl('https://u:p@example.com/', undefined, false), 'https://example.com/');
  assert.equal(normalizeUrl('http://2130706433/', undefined, false), 'http://127.0.0.1/');
  assert.equal(normalizeUrl('mailto:a@b.c', undefined, false), undefined);
  assert.equal(normalizeUrl('../x', 'http://e.com/a/b/', false), 'http://e.com/a/x');
  const site = new Site('https://e.com/');
  assert.equal(site.own('http://e.com/a'), 'https://e.com/a', 'http and https of the same host are one site');
  assert.equal(site.own('http://e.com:8080/a'), undefined);
  assert.equal(site.own('https://www.e.com/a'), undefined);
  assert.ok(site.mayAuthenticate('https://e.com') && !site.mayAuthenticate('http://e.com'), 'credentials never go down to http');
  assert.ok(new Site('http://e.com/').mayAuthenticate('https://e.com'));
});
