import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { servedByCdn } from '../../../src/analysis/cdn.js';
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

describe('CDN detection', () => {
  it('recognises a CDN by the headers its edge adds', () => {
    assert.equal(servedByCdn(entry('https://www.example.com/a.js', { headers: { 'cf-ray': '8a-FRA' } })), true);
    assert.equal(servedByCdn(entry('https://www.example.com/a.js', { headers: { 'x-served-by': 'cache-fra19120-FRA' } })), true);
    assert.equal(servedByCdn(entry('https://www.example.com/a.js', { headers: { server: 'cloudflare' } })), true);
    assert.equal(servedByCdn(entry('https://www.example.com/a.js', { headers: { via: '1.1 abc.cloudfront.net (CloudFront)' } })), true);
  });

  it('recognises well-known CDN hostnames and cdn-named hosts', () => {
    assert.equal(servedByCdn(entry('https://d111111abcdef8.cloudfront.net/a.js')), true);
    assert.equal(servedByCdn(entry('https://cdn.jsdelivr.net/npm/x.js')), true);
    assert.equal(servedByCdn(entry('https://cdn2.example.com/a.js')), true);
  });

  it('does not take an origin server for a CDN', () => {
    assert.equal(servedByCdn(entry('https://www.example.com/a.js', { headers: { server: 'nginx', 'x-cache': 'HIT' } })), false);
    assert.equal(servedByCdn(entry('https://cdn-example.com/a.js')), false);
  });
});
