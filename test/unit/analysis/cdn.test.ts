/** CDN detection (analysis/cdn.ts): by the headers an edge adds and by the host's name. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { servedByCdn } from '../../../src/analysis/cdn.js';
import { entry } from '../../fixtures/analysis.js';

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
