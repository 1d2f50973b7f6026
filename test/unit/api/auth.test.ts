/** The API key of a request (api/auth.ts apiKeyFrom): HTTP Basic, the key as the user name. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiKeyFrom } from '../../../src/api/auth.js';

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
