/** The queue signal (core/tests/queue-signal.ts): what wakes the agents' waiting claims when a test is queued. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueueSignal } from '../../../../src/core/tests/queue-signal.js';

describe('the queue signal', () => {
  test('wakes every waiting claim at once; a wait without news ends at its time', async () => {
    const signal = new QueueSignal();
    const waits = [signal.wait(5_000), signal.wait(5_000)];
    // Timed from the notice, not from the waits: this file shares its process with the other unit files, whose
    // loading may hold the event loop for a second before the timer fires.
    let notifiedAt = Infinity;
    setTimeout(() => {
      notifiedAt = Date.now();
      signal.notify();
    }, 20);
    await Promise.all(waits);
    assert.ok(Date.now() - notifiedAt < 1_000, `woken ${Date.now() - notifiedAt} ms after the notice`);
    const t1 = Date.now();
    await signal.wait(50);
    assert.ok(Date.now() - t1 >= 45);
    const gone = new AbortController();
    const aborted = signal.wait(5_000, gone.signal);
    gone.abort();
    await aborted;
  });
});
