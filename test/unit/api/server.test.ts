import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiKeyFrom } from '../../../src/api/auth.js';
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

describe('API key from the Authorization header', () => {
  const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
  it('takes the user name and ignores the empty password', () => {
    assert.equal(apiKeyFrom(basic('abc123:')), 'abc123');
  });
  it('accepts a key sent without the colon', () => {
    assert.equal(apiKeyFrom(basic('abc123')), 'abc123');
  });
  it('finds no key in other schemes or empty credentials', () => {
    assert.equal(apiKeyFrom('Bearer abc'), undefined);
    assert.equal(apiKeyFrom(basic(':')), undefined);
    assert.equal(apiKeyFrom(undefined), undefined);
  });
});
