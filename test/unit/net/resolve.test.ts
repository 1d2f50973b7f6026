/** A host's addresses as a load resolves them (net/resolve.ts): localhost, IP literals and a test's dns overrides. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolveHost } from '../../../src/net/resolve.js';

describe('resolveHost', () => {
  test('localhost is loopback without DNS; IP literals are themselves; overrides win', async () => {
    assert.deepEqual(await resolveHost('app.localhost'), { addresses: ['127.0.0.1', '::1'], source: 'dns' });
    assert.deepEqual(await resolveHost('[::1]'), { addresses: ['::1'], source: 'dns' });
    assert.deepEqual(await resolveHost('a.test', [{ host: '*.test', ip: '10.0.0.1' }]), { addresses: ['10.0.0.1'], source: 'override' });
    assert.deepEqual(await resolveHost('nothing.invalid'), { addresses: [], source: 'dns' });
  });
});
