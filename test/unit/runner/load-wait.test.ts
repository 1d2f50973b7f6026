/** The load wait's view of the main thread's tasks the page cannot observe (runner/load-wait.ts MainThreadSampler). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CDPSession } from 'puppeteer-core';
import { MainThreadSampler } from '../../../src/runner/load-wait.js';

/** A session whose renderer reports these totals of task time (ms), one per Performance.getMetrics. */
function sessionReporting(totalsMs: number[]) {
  const sent: string[] = [];
  let next = 0;
  const session = {
    send: async (method: string) => {
      sent.push(method);
      if (method !== 'Performance.getMetrics') return {};
      const total = totalsMs[Math.min(next++, totalsMs.length - 1)]!;
      return { metrics: [{ name: 'Timestamp', value: 1 }, { name: 'TaskDuration', value: total / 1000 }] };
    },
  } as unknown as Pick<CDPSession, 'send'>;
  return { session, sent, samples: () => next };
}

const until = async (ok: () => boolean) => {
  while (!ok()) await new Promise((resolve) => setTimeout(resolve, 1));
};

test('an interval with 50 ms of task time counts as a long task; short tasks and a new renderer do not', async () => {
  // Short tasks (10, 30 ms), a new renderer's total starting again (-> 5), then 49 ms: never busy.
  const quiet = sessionReporting([100, 110, 140, 5, 54]);
  const calm = new MainThreadSampler(quiet.session, 1);
  calm.start();
  await until(() => quiet.samples() >= 5);
  calm.stop();
  assert.equal(calm.lastBusyAt(), 0);

  const busy = sessionReporting([100, 110, 160, 170]);
  const sampler = new MainThreadSampler(busy.session, 1);
  const before = Date.now();
  sampler.start();
  await until(() => busy.samples() >= 4);
  sampler.stop();
  assert.ok(sampler.lastBusyAt() >= before, `the 50 ms interval was seen: ${sampler.lastBusyAt()}`);
  await until(() => busy.sent.includes('Performance.disable'));
  assert.equal(busy.sent[0], 'Performance.enable');
});

test('a stopped sampler asks the page nothing more', async () => {
  const { session, sent } = sessionReporting([0]);
  const sampler = new MainThreadSampler(session, 1);
  sampler.stop();
  sampler.start();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(sent, []);
});
