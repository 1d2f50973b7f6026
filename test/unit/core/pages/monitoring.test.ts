/** The monitoring slot grid and body parsing (core/pages/monitoring.ts), without a store. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../../../src/core/errors.js';
import { nextSlot, parseFrequency as parseFrequencyWord } from '../../../../src/core/pages/monitoring.js';
import { monitorFrequency } from '../../../../src/api/resource-body.js';

/** What POST /pages/{id}/monitoring does with a body: the API unwraps it, core reads the frequency. */
const parseFrequency = (b: unknown) => parseFrequencyWord(monitorFrequency(b));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (iso: string) => Date.parse(iso);

describe('nextSlot', () => {
  const anchor = at('2024-01-31T10:00:00Z');

  test('fixed frequencies: the first grid point strictly after the given time', () => {
    assert.equal(nextSlot('hourly', anchor, anchor), anchor + HOUR);
    assert.equal(nextSlot('hourly', anchor, anchor + HOUR), anchor + 2 * HOUR, 'a slot that is due now is not returned again');
    assert.equal(nextSlot('daily', anchor, anchor + DAY - 1), anchor + DAY);
    assert.equal(nextSlot('weekly', anchor, anchor + 3 * DAY), anchor + 7 * DAY);
  });

  test('missed slots collapse: after five hours down the next hourly slot is the sixth', () => {
    assert.equal(nextSlot('hourly', anchor, anchor + 5 * HOUR + 1), anchor + 6 * HOUR);
  });

  test('monthly follows calendar months from the anchor, clamping to the month end', () => {
    assert.equal(nextSlot('monthly', anchor, anchor), at('2024-02-29T10:00:00Z'));
    assert.equal(nextSlot('monthly', anchor, at('2024-02-29T10:00:00Z')), at('2024-03-31T10:00:00Z'));
    assert.equal(nextSlot('monthly', anchor, at('2024-04-01T00:00:00Z')), at('2024-04-30T10:00:00Z'));
    assert.equal(nextSlot('monthly', anchor, at('2025-01-31T09:59:59Z')), at('2025-01-31T10:00:00Z'));
  });
});

describe('parseFrequency', () => {
  const body = (frequency: unknown) => ({ data: { type: 'performance_monitor', attributes: { frequency } } });

  test('accepts the spec values; none means no', () => {
    for (const f of ['no', 'hourly', 'daily', 'weekly', 'monthly'] as const) assert.equal(parseFrequency(body(f)), f);
    assert.equal(parseFrequency(body('none')), 'no');
    assert.equal(parseFrequency(body(' Weekly ')), 'weekly');
  });

  test('anything else is E4001', () => {
    for (const b of [body('yearly'), body(undefined), body(1), {}, null, { data: { type: 'test', attributes: { frequency: 'daily' } } }]) {
      assert.throws(() => parseFrequency(b), (e: unknown) => e instanceof ApiError && e.code === 'E4001');
    }
  });
});
