/** When an agent calibrates its CPU again, and what a load of a device class is given (runner/cpu-calibration.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { calibrationStale, cpuUsed, RECALIBRATE_WHEN_MOVED, UNSETTLED_RETRY_MS, type CpuCalibration } from '../../../src/runner/cpu-calibration.js';

const at = 1_000_000;
const calibration: CpuCalibration = {
  hostIndex: 2900, at, settled: true,
  settings: [{ target: 1000, rate: 2.9, measured: 990, reachable: true }, { target: 264, rate: 1, measured: 2900, reachable: false }],
};

describe('calibrating again', () => {
  test('none yet, or the host\'s reading moved more than 10 %: calibrate', () => {
    assert.equal(RECALIBRATE_WHEN_MOVED, 0.1);
    assert.equal(calibrationStale(undefined, 2900, at), true);
    assert.equal(calibrationStale(calibration, 2900 * 1.09, at + 1), false);
    assert.equal(calibrationStale(calibration, 2900 * 0.89, at + 1), true, 'a slower machine or governor');
    assert.equal(calibrationStale(calibration, 2900 * 1.11, at + 1), true);
    assert.equal(calibrationStale(calibration, undefined, at + 10 * UNSETTLED_RETRY_MS), false, 'no reading: the calibration stands');
  });
  test('a calibration that missed a target is used, and made again a minute later, not in a loop', () => {
    const unsettled = { ...calibration, settled: false };
    assert.equal(calibrationStale(unsettled, 2900, at + UNSETTLED_RETRY_MS - 1), false);
    assert.equal(calibrationStale(unsettled, 2900, at + UNSETTLED_RETRY_MS), true);
  });
});

describe('the CPU a load is given', () => {
  test('a reached target: its rate; one out of reach: no throttling, and it says so', () => {
    assert.deepEqual(cpuUsed('phone-mid', calibration, 1000), { deviceClass: 'phone-mid', target: 1000, rate: 2.9, hostIndex: 2900, measured: 990, reachable: true });
    assert.deepEqual(cpuUsed('phone-low', calibration, 264), { deviceClass: 'phone-low', target: 264, rate: 1, hostIndex: 2900, measured: 2900, reachable: false });
    assert.equal(cpuUsed('phone-mid', calibration, 500), undefined, 'a target the calibration did not make: the load calibrates itself');
  });
});
