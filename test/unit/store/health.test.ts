/** What counts as an outage (the database away, the disk full) and what stays a bug: store/health.ts outageOf. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outageOf } from '../../../src/store/health.js';

const err = (props: Record<string, unknown>, message = 'x'): Error => Object.assign(new Error(message), props);

test('PostgreSQL away: refused or lost connections, shutdown states, pg\'s own messages', () => {
  assert.equal(outageOf(err({ code: 'ECONNREFUSED', syscall: 'connect' }))?.kind, 'database');
  assert.equal(outageOf(err({ code: '57P01' }))?.kind, 'database');
  assert.equal(outageOf(err({ code: '08006' }))?.kind, 'database');
  assert.equal(outageOf(new Error('Connection terminated unexpectedly'))?.kind, 'database');
  assert.equal(outageOf(new Error('timeout exceeded when trying to connect'))?.kind, 'database');
});

test('SQLite: a lock held elsewhere and an unreadable file are outages; a constraint is a bug', () => {
  assert.deepEqual(outageOf(err({ code: 'SQLITE_BUSY' })), { kind: 'database', reason: 'the database file is locked by another process' });
  assert.equal(outageOf(err({ code: 'SQLITE_IOERR_READ' }))?.kind, 'database');
  assert.equal(outageOf(err({ code: 'SQLITE_CONSTRAINT_UNIQUE' })), undefined);
});

test('a full disk is storage, with the path where the write failed', () => {
  assert.deepEqual(outageOf(err({ code: 'ENOSPC', path: '/data/artifacts/x' })), { kind: 'storage', code: 'ENOSPC', path: '/data/artifacts/x' });
  assert.equal(outageOf(err({ code: 'SQLITE_FULL' }))?.kind, 'storage');
  assert.equal(outageOf(new Error('wrapped', { cause: err({ code: 'EDQUOT' }) }))?.kind, 'storage');
});

test('not outages: a webhook target refusing fetch, a syntax error, a plain error', () => {
  assert.equal(outageOf(new TypeError('fetch failed', { cause: err({ code: 'ECONNREFUSED', syscall: 'connect' }) })), undefined);
  assert.equal(outageOf(err({ code: '42601' })), undefined);
  assert.equal(outageOf(new Error('boom')), undefined);
  assert.equal(outageOf(undefined), undefined);
});
