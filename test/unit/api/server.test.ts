/**
 * The server's query string parser (api/server.ts parseQuery): raw brackets kept in keys, repeated keys as arrays,
 * percent-encoding and + decoded.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuery } from '../../../src/api/server.js';

describe('query string parsing', () => {
  it('keeps raw brackets in keys and makes repeated keys arrays', () => {
    assert.deepEqual(parseQuery('filter[state]=completed&sort=created&sort=-finished'), {
      'filter[state]': 'completed',
      sort: ['created', '-finished'],
    });
  });
  it('decodes percent-encoded brackets and + as a space', () => {
    assert.deepEqual(parseQuery('filter%5Bstate%5D=a+,b'), { 'filter[state]': 'a ,b' });
  });
  it('accepts an empty query string', () => {
    assert.deepEqual(parseQuery(''), {});
  });
});

