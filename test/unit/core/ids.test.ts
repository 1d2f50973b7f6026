/** The IDs this server makes (core/ids.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { couldBeId, newId } from '../../../src/core/ids.js';

test('new IDs are 12 URL-safe characters, all different, and never start with "-" (a command line would read an option)', () => {
  // Without the rule one ID in 64 started with "-": among 20,000 the chance that none would is e^-312.
  const ids = Array.from({ length: 20_000 }, () => newId());
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) {
    assert.match(id, /^[A-Za-z0-9_][A-Za-z0-9_-]{11}$/);
    assert.ok(couldBeId(id), id);
  }
});
