/**
 * The HAR helpers the analyses share (analysis/har.ts): headers, cache lifetime, resource kinds, compressible types,
 * sites, the main document's redirect chain.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cacheLifetime, header, isCompressible, kindOf, mainDocumentChain, redirectTarget, sameSite, siteOf,
} from '../../../src/analysis/har.js';
import { doc, entry, har, PAGE } from '../../fixtures/analysis.js';

describe('HAR helpers', () => {
  it('reads headers case-insensitively and joins repeats', () => {
    const headers = [{ name: 'Vary', value: 'Origin' }, { name: 'vary', value: 'Accept-Encoding' }];
    assert.equal(header(headers, 'VARY'), 'Origin, Accept-Encoding');
    assert.equal(header(headers, 'etag'), undefined);
  });

  it('takes the cache lifetime from max-age before Expires, and none from no-store', () => {
    assert.equal(cacheLifetime(entry('a', { headers: { 'cache-control': 'public, max-age=600', expires: 'Tue, 01 Jan 2030 00:00:00 GMT' } })), 600);
    assert.equal(cacheLifetime(entry('a', { headers: { expires: 'Tue, 02 Jan 2024 00:00:00 GMT' } })), 86400);
    assert.equal(cacheLifetime(entry('a', { headers: { 'cache-control': 'no-store, max-age=600' } })), 0);
    assert.equal(cacheLifetime(entry('a', { headers: { expires: '0' } })), 0);
    assert.equal(cacheLifetime(entry('a')), 0);
  });

  it('falls back to the MIME type when the HAR has no resource type', () => {
    const e = entry('https://x/a', { mime: 'text/css' });
    delete e._resourceType;
    assert.equal(kindOf(e), 'stylesheet');
    assert.equal(kindOf(entry('https://x/b', { type: 'fetch' })), 'xhr');
  });

  it('tells compressible text from already-compressed formats', () => {
    assert.equal(isCompressible(entry('a', { mime: 'application/javascript; charset=utf-8' })), true);
    assert.equal(isCompressible(entry('a', { mime: 'image/svg+xml' })), true);
    assert.equal(isCompressible(entry('a', { mime: 'image/png' })), false);
    assert.equal(isCompressible(entry('a', { mime: 'font/woff2' })), false);
  });

  it('groups hosts by registrable domain, country second levels and IPs included', () => {
    assert.equal(siteOf('static.shop.example.co.uk'), 'example.co.uk');
    assert.equal(siteOf('cdn.example.com'), 'example.com');
    assert.equal(siteOf('127.0.0.1'), '127.0.0.1');
    assert.equal(sameSite('https://img.example.com/a.png', PAGE), true);
    assert.equal(sameSite('https://example.org/a.png', PAGE), false);
  });

  it('follows the main document through its redirect chain', () => {
    const chain = mainDocumentChain(har(
      entry('http://example.com/', { type: 'document', status: 301, redirectTo: 'https://example.com/' }),
      entry('https://example.com/', { type: 'document', status: 302, redirectTo: '/home' }),
      entry('https://example.com/home', { type: 'document' }),
      entry('https://example.com/a.js', { type: 'script' }),
    ));
    assert.deepEqual(chain.map((e) => e.request.url), ['http://example.com/', 'https://example.com/', 'https://example.com/home']);
    assert.equal(redirectTarget(chain[1]), 'https://example.com/home');
  });

  it('has no main document in an empty HAR', () => {
    assert.deepEqual(mainDocumentChain(har()), []);
    assert.deepEqual(mainDocumentChain(undefined), []);
    assert.equal(mainDocumentChain(har(doc())).length, 1);
  });
});

