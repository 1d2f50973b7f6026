/**
 * A scan per device (core/scans/scan-devices.ts): the `devices` list read (and how a device may be written, core/vocabulary/
 * device-names.ts, the rule the gate's --device and --budget share), each device's options, a schedule's stored devices.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { optionsForDevice, parseDevices, readScheduleDevices } from '../../../../src/core/scans/scan-devices.js';
import { deviceClassNamed, deviceInWords } from '../../../../src/core/vocabulary/device-names.js';
import { ApiError } from '../../../../src/core/errors.js';
import type { AnalysisOptions } from '../../../../src/core/options/analysis-options.js';

const refusal = (f: () => unknown): ApiError => {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
  assert.fail('not refused');
};

describe('devices of a scan request', () => {
  test('device classes in the order asked; phone is a mid-tier phone; absent is none asked', () => {
    assert.deepEqual(parseDevices(['phone', 'desktop']), ['phone-mid', 'desktop']);
    assert.deepEqual(parseDevices([' Phone-Low ']), ['phone-low']);
    assert.equal(parseDevices(undefined), undefined);
    assert.equal(parseDevices(null), undefined);
  });

  test('refused with what to fix: not a list, empty, unknown (each named), twice, more than there are', () => {
    assert.match(refusal(() => parseDevices('desktop')).detail!, /devices must be an array of device classes; got "desktop": give an array of/);
    assert.match(refusal(() => parseDevices([])).detail!, /devices is empty/);
    const unknown = refusal(() => parseDevices(['desktop', 'tablet', '__proto__']));
    assert.equal(unknown.code, 'E40004');
    assert.match(unknown.detail!, /^2 entries of devices are refused: devices\[1\] "tablet" is no device class; .*devices\[2\] "__proto__" is no device class/);
    assert.match(refusal(() => parseDevices(['phone-mid', 'phone'])).detail!, /devices\[1\] "phone" is phone-mid, already listed/);
    assert.match(refusal(() => parseDevices(['desktop', 'phone', 'phone-low', 'desktop'])).detail!, /devices has 4 entries; there are 3 device classes/);
  });

  test('names: an ID or phone; anything else (prototype keys included) is none', () => {
    assert.equal(deviceClassNamed('phone'), 'phone-mid');
    assert.equal(deviceClassNamed('DESKTOP'), 'desktop');
    for (const n of ['tablet', 'constructor', 'toString', '']) assert.equal(deviceClassNamed(n), undefined, n);
    assert.equal(deviceInWords('phone-low'), 'low-tier phone');
  });
});

describe('each device\'s options', () => {
  const o = { url: 'https://example.com/', location: '1', browser: '3', report: 'lighthouse', retention: 1 } as unknown as AnalysisOptions;
  test('the class is named unless it is the options\' default (the page stays the one a test without a class made)', () => {
    assert.equal(optionsForDevice(o, 'desktop', true).device_class, undefined);
    assert.equal(optionsForDevice(o, 'phone-mid', true).device_class, 'phone-mid');
    const device = { ...o, simulate_device: 'pixel-5' };
    assert.equal(optionsForDevice(device, 'phone-mid', true).device_class, undefined, 'a simulated device is a mid-tier phone by default');
    assert.equal(optionsForDevice(device, 'desktop', true).device_class, 'desktop');
    assert.equal(optionsForDevice({ ...o, device_class: 'phone-low' }, 'desktop', true).device_class, undefined, 'the options\' own class is replaced');
  });

  test('a phone in a browser that cannot slow its CPU is refused', () => {
    const err = refusal(() => optionsForDevice({ ...o, browser: '1' }, 'phone-mid', false));
    assert.equal(err.code, 'E40004');
    assert.match(err.detail!, /browser "1" cannot run a test as phone-mid/);
    assert.equal(optionsForDevice({ ...o, browser: '1', simulate_device: 'pixel-5' }, 'desktop', false).device_class, undefined);
  });

  test('a schedule\'s stored devices; an unreadable row scans as a desktop', () => {
    assert.deepEqual(readScheduleDevices('["desktop","phone-mid"]'), ['desktop', 'phone-mid']);
    assert.deepEqual(readScheduleDevices('nonsense'), ['desktop']);
    assert.deepEqual(readScheduleDevices('["tablet"]'), ['desktop']);
  });
});
