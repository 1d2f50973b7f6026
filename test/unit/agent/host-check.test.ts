/**
 * The run guard (agent/host-check.ts): a load on a busy or slow host is discarded, against the agent's baseline; the
 * host's load from other processes read from /proc (runner/host-load.ts) is what it judges.
 */
import { cpus } from 'node:os';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { DEFAULT_HOST_CHECK, READ_WHEN_IDLE_EVERY_MS, READING_VALID_MS, RETRY_READING_MS, HostQualityCheck } from '../../../src/agent/host-check.js';
import { otherCpuCores, sampleCpu } from '../../../src/runner/host-load.js';

describe('the run guard', () => {
  const log = pino({ level: 'silent' });
  const reading = (benchmarkIndex: number, otherCpuCores = 0, at = Date.now()) => ({ benchmarkIndex, otherCpuCores, at });
  const guard = (baseline: number, cores = 2) => {
    const g = new HostQualityCheck(DEFAULT_HOST_CHECK, log, cores);
    g.record(reading(baseline));
    return g;
  };
  test('a load on a busy host is discarded: less than 1.5 free cores (0.5 of 2, 6.5 of 8; at least 0.25)', () => {
    assert.equal(guard(1000).busyBound, 0.5);
    assert.equal(guard(1000, 8).busyBound, 6.5);
    assert.equal(guard(1000, 1).busyBound, 0.25);
    const g = guard(1000);
    const b = g.baseline();
    assert.equal(g.verdict({ benchmarkIndex: 1000, otherCpuCores: 0.1 }, b), null);
    assert.match(g.verdict({ benchmarkIndex: 1000, otherCpuCores: 0.98 }, b) ?? '', /the host was busy: other processes used 0\.98 CPU cores/);
  });
  test('a load whose benchmark index is below 70 % of the baseline is discarded', () => {
    const g = guard(1000);
    const b = g.baseline();
    assert.equal(g.verdict({ benchmarkIndex: 700, otherCpuCores: 0 }, b), null);
    assert.equal(g.isSlow({ benchmarkIndex: 700, otherCpuCores: 0 }, b), false);
    assert.match(g.verdict({ benchmarkIndex: 690, otherCpuCores: 0 }, b) ?? '', /benchmark index 690, below 70 % of the agent's baseline 1000/);
    assert.equal(g.isSlow({ benchmarkIndex: 690, otherCpuCores: 0 }, b), true);
  });
  test('the first reading is the baseline of the first load: an idle host never reads slow', () => {
    const g = new HostQualityCheck(DEFAULT_HOST_CHECK, log, 2);
    assert.equal(g.baseline(), undefined);
    assert.equal(g.currentReading(), undefined, 'no reading yet: the load reads the host itself');
    g.record(reading(1250));
    assert.equal(g.verdict({ benchmarkIndex: g.currentReading(), otherCpuCores: 0 }, g.baseline()), null);
  });
  test('the baseline follows readings of an otherwise idle host, not of a contended one', () => {
    const g = guard(1000);
    for (let i = 0; i < 9; i++) g.record(reading(400, 1.5));
    assert.equal(g.baseline(), 1000);
    assert.equal(g.currentReading(), 1000, 'a disturbed reading is dropped; the last clean one stays');
    for (let i = 0; i < 5; i++) g.record(reading(600, 0.1));
    assert.equal(g.baseline(), 600);
    assert.equal(g.currentReading(), 600);
  });
  test('a reading describes the host for ten minutes; an idle agent reads again after a minute', () => {
    const g = new HostQualityCheck(DEFAULT_HOST_CHECK, log, 2);
    const t = Date.now();
    assert.equal(g.wantsReading(t), true);
    // The attempt's time is given, as the checks' are: a busy machine's milliseconds between the lines change nothing.
    g.record(reading(1000, 5, t), t);
    assert.equal(g.wantsReading(t + RETRY_READING_MS - 1), false, 'a disturbed reading: the next try comes later');
    assert.equal(g.wantsReading(t + RETRY_READING_MS + 50), true, 'but sooner than a minute');
    g.record(reading(1000, 0, t), t);
    assert.equal(g.wantsReading(t + READ_WHEN_IDLE_EVERY_MS - 1), false);
    assert.equal(g.wantsReading(t + READ_WHEN_IDLE_EVERY_MS), true);
    assert.equal(g.currentReading(t + READING_VALID_MS), 1000);
    assert.equal(g.currentReading(t + READING_VALID_MS + 1), undefined);
  });
  test('host load: other processes\' CPU is the host\'s minus this process\'s (Linux /proc)', async () => {
    const a = await sampleCpu(undefined);
    assert.ok(a, '/proc/stat is readable on Linux');
    // This process busy for 300 ms of its own CPU time (however long a loaded machine takes to give it): not "other".
    const t = performance.now();
    const cpu0 = process.cpuUsage();
    const ownMs = () => { const u = process.cpuUsage(cpu0); return (u.user + u.system) / 1000; };
    while (ownMs() < 300 && performance.now() - t < 10_000) { /* busy */ }
    const b = (await sampleCpu(undefined))!;
    const others = otherCpuCores(a, b)!;
    const ownCores = (b.ownTicks - a.ownTicks) / 100 / ((b.at - a.at) / 1000);
    assert.ok(b.ownTicks - a.ownTicks >= 20, `own ticks ${b.ownTicks - a.ownTicks}`);
    // What the host did besides this process fits in the cores left: this process's time is not counted twice.
    assert.ok(others >= 0 && others + ownCores <= cpus().length + 0.3, `others ${others}, own ${ownCores} of ${cpus().length} cores`);
  });
});
