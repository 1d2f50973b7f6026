/** What a report keeps of the device it ran as (core/reports/device-cpu.ts) and the screen a phone class gets (runner/conditions/emulation.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cpuBasis, cpuBasisName, deviceCpuOf, deviceCpuText, readDeviceCpu, storedDeviceCpu } from '../../../../src/core/reports/device-cpu.js';
import { resolveEmulation } from '../../../../src/runner/conditions/emulation.js';
import type { RunOptions } from '../../../../src/runner/types.js';

const cpu = { deviceClass: 'phone-mid', target: 1000, rate: 2.8765, hostIndex: 2876.5, measured: 987.5, reachable: true };

describe('a report\'s device and CPU', () => {
  test('a phone keeps its target, rate, host benchmark and the benchmark under the rate', () => {
    assert.deepEqual(deviceCpuOf({ deviceClass: 'phone-mid', cpu }), {
      device_class: 'phone-mid', cpu_benchmark_target: 1000, cpu_throttling_rate: 2.88, host_benchmark_index: 2877,
      cpu_benchmark_index: 988, cpu_target_reached: true,
    });
    assert.deepEqual(deviceCpuOf({ deviceClass: 'desktop' }), { device_class: 'desktop' });
    assert.equal(deviceCpuOf({}), null, 'an agent before device classes says nothing: nothing is claimed');
  });
  test('what an agent sends that is not of the expected shape is dropped, not stored', () => {
    assert.deepEqual(deviceCpuOf({ deviceClass: 'phone-mid', cpu: { ...cpu, rate: Number.NaN } }), { device_class: 'phone-mid' });
    assert.deepEqual(deviceCpuOf({ deviceClass: 'phone-mid', cpu: { ...cpu, target: 264 } }), { device_class: 'phone-mid' },
      'a target that is not the class\'s');
    assert.equal(deviceCpuOf({ deviceClass: 'tablet-xl', cpu }), null);
    assert.equal(readDeviceCpu('{"device_class":"x"}'), undefined);
    assert.equal(readDeviceCpu('not json'), undefined);
  });
  test('the CPU basis: a reached phone target compares only with itself; the agent\'s own CPU is one basis', () => {
    assert.equal(cpuBasis(storedDeviceCpu({ deviceClass: 'phone-mid', cpu })), 1000);
    assert.equal(cpuBasis(storedDeviceCpu({ deviceClass: 'phone-mid', cpu: { ...cpu, rate: 1, reachable: false } })), null);
    assert.equal(cpuBasis(storedDeviceCpu({ deviceClass: 'desktop' })), null);
    assert.equal(cpuBasis(null), null, 'reports before device classes ran on the agent\'s CPU');
    assert.equal(cpuBasisName(1000), 'a mid-tier phone\'s CPU (benchmark 1000)');
    assert.equal(cpuBasisName(null), 'the test agent\'s own CPU');
  });
  test('the report\'s words say the target, what was measured and the rate, or that the device was out of reach', () => {
    assert.equal(deviceCpuText(deviceCpuOf({ deviceClass: 'phone-mid', cpu })!),
      'like a Pixel 5: benchmark 1000 targeted, 988 measured; the test agent\'s CPU (benchmark 2,877) slowed 2.88×');
    assert.match(deviceCpuText(deviceCpuOf({ deviceClass: 'phone-low', cpu: { ...cpu, target: 264, hostIndex: 200, measured: 200, rate: 1, reachable: false } })!),
      /like a Moto G Power 2022 \(benchmark 264\): not reachable on this test agent, whose CPU is slower \(benchmark 200\)/);
  });
});

describe('a phone class\'s screen', () => {
  const options = { url: 'https://example.com/', report: 'lighthouse', video: 0, stop_onload: 0, browser_rotate: 0 } as RunOptions;
  const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/143.0.7499.40 Safari/537.36';
  test('without a device: Lighthouse\'s mobile screen and a mobile Chrome of this browser\'s version', () => {
    const e = resolveEmulation(options, undefined, ua, undefined, true);
    assert.deepEqual([e.width, e.height, e.dppx, e.mobile, e.formFactor], [412, 823, 1.75, true, 'mobile']);
    assert.match(e.userAgent, /Android .* Chrome\/143\.0\.0\.0 Mobile Safari/);
  });
  test('a simulated device, a size or a user agent of the test win', () => {
    const device = { id: 'pixel-5', width: 393, height: 851, dppx: 2.75, userAgent: 'Pixel UA', mobile: true };
    assert.equal(resolveEmulation(options, device, ua, undefined, true).width, 393);
    const sized = resolveEmulation({ ...options, browser_width: 500, browser_height: 900, user_agent: 'Mine' }, undefined, ua, undefined, true);
    assert.deepEqual([sized.width, sized.height, sized.userAgent], [500, 900, 'Mine']);
    assert.equal(resolveEmulation(options, undefined, ua).width, 1366, 'a desktop stays a desktop');
  });
});
