/** The options' table (core/vocabulary/options.ts): one row per option, in the order of the normalised options. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { publicOptions } from '../../../../src/core/options/options.js';
import { CAPABILITY_NAMES, IDENTITY_OPTIONS, OPTIONS, PRO_OPTIONS, SECRET_OPTIONS, WRITE_ONLY_OPTIONS } from '../../../../src/core/vocabulary/options.js';

test('options: one row per option, in the order of the normalised options', () => {
  const names = OPTIONS.map((o) => o.name);
  assert.equal(new Set(names).size, names.length);
  const all = Object.fromEntries([...names].reverse().map((n) => [n, 1]));
  assert.deepEqual(Object.keys(publicOptions(all as never)), names);
  assert.deepEqual([...PRO_OPTIONS], ['dns', 'simulate_device', 'user_agent', 'browser_width', 'browser_height', 'browser_dppx', 'browser_rotate']);
  assert.deepEqual([...SECRET_OPTIONS], ['httpauth_password', 'cookies', 'journey', 'journey_secrets']);
  assert.deepEqual([...WRITE_ONLY_OPTIONS], ['journey_secrets']);
  assert.deepEqual(names.filter((n) => !IDENTITY_OPTIONS.includes(n)), ['retention', 'httpauth_password', 'video', 'runs', 'journey_secrets']);
  // Every capability an option needs is described, and every described one is needed by an option.
  const needed = new Set(OPTIONS.flatMap((o) => ('capability' in o ? [o.capability] : [])));
  assert.deepEqual(new Set(CAPABILITY_NAMES.map(([c]) => c)), needed);
});
