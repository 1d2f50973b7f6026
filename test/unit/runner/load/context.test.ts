/**
 * A load's context (runner/load/context.ts): its plan (the browser launched ahead or not, the load wait's limit), the
 * phase timer; and the run's deadline (runner/load/deadline.ts) the plan holds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RunError, type RunSpec } from '../../../../src/runner/types.js';
import { loadWaitLimit, PhaseTimer, planLoad } from '../../../../src/runner/load/context.js';
import { RunDeadline } from '../../../../src/runner/load/deadline.js';
import { LaunchAhead, type LaunchSettings } from '../../../../src/runner/launch-ahead.js';
import { TargetPolicy } from '../../../../src/net/policy.js';

describe('the load\'s plan, timer and deadline', () => {
  const settings: LaunchSettings = { chromePath: '/usr/bin/chromium', protocolTimeoutMs: 30_000, policy: new TargetPolicy({ allowAll: false, allowTargets: '' }) };
  const spec = (conditions: Record<string, unknown>, ahead?: LaunchAhead): RunSpec => ({
    testId: 't1', options: { url: 'https://site.example/' }, chromePath: settings.chromePath, policy: settings.policy,
    workDir: '/tmp', timeoutMs: 30_000, ahead,
    conditions: { allowUrl: [], blockUrl: [], adblock: false, cookies: [], dns: [], ...conditions },
  }) as unknown as RunSpec;

  test('the load wait\'s limit: 60 % of the run\'s, between 5 and 60 s', () => {
    assert.equal(loadWaitLimit(30_000), 18_000);
    assert.equal(loadWaitLimit(4_000), 5000);
    assert.equal(loadWaitLimit(300_000), 60_000);
  });

  test('a load takes the agent\'s browser launched ahead, unless its interceptor needs frames in one process', () => {
    const ahead = new LaunchAhead(settings);
    const plain = planLoad(spec({}, ahead));
    plain.deadline.dispose();
    assert.equal(plain.ahead, ahead);
    assert.equal(plain.sameProcessFrames, false);
    assert.equal(plain.maxWaitMs, 18_000);
    const blocking = planLoad(spec({ blockUrl: ['*.ads.example'] }, ahead));
    blocking.deadline.dispose();
    assert.equal(blocking.ahead, undefined);
    assert.equal(blocking.sameProcessFrames, true);
    assert.deepEqual(blocking.filters.blockUrl, ['*.ads.example']);
    const otherChrome = planLoad({ ...spec({}, ahead), chromePath: '/opt/chrome' });
    otherChrome.deadline.dispose();
    assert.equal(otherChrome.ahead, undefined);
  });

  test('the phase timer: each phase the time since the previous one, the total since the start', async () => {
    const timer = new PhaseTimer();
    await new Promise((resolve) => setTimeout(resolve, 30));
    timer.end('launch');
    timer.end('setup');
    timer.finish();
    assert.deepEqual(Object.keys(timer.phases), ['launch', 'setup', 'total']);
    assert.ok(timer.phases.launch >= 25, `${timer.phases.launch}`);
    assert.ok(timer.phases.setup < 25, `${timer.phases.setup}`);
    assert.ok(timer.phases.total >= timer.phases.launch);
  });

  test('the run\'s deadline: a cancellation rejects the race with the run\'s error', async () => {
    const abort = new AbortController();
    const deadline = new RunDeadline(abort.signal, 60_000);
    const race = deadline.race(new Promise<never>(() => undefined));
    abort.abort();
    await assert.rejects(race, (err: unknown) => err instanceof RunError && err.message === 'The test was cancelled');
    assert.equal(deadline.error?.message, 'The test was cancelled');
    deadline.dispose();
  });

  test('the run\'s deadline: its time limit, in seconds', async () => {
    const deadline = new RunDeadline(undefined, 1400);
    await assert.rejects(deadline.race(new Promise<never>(() => undefined)),
      (err: unknown) => err instanceof RunError && err.message === 'The test did not finish within 1 s');
    deadline.dispose();
  });
});
