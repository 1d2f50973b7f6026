/**
 * A scan per device (docs/scans.md "Devices"): a scan request names its devices (`devices`, default the one its options
 * name); each device gets a scan of its own whose pages' tests carry that `device_class`, so every result (pages, site
 * figures, history, comparison, alerts) is keyed by the device and a URL's desktop and phone pages are two pages.
 */
import type { AnalysisOptions } from '../options/analysis-options.js';
import { ApiError, eachEntry, show } from '../errors.js';
import { DEVICE_CLASS_IDS, defaultDeviceClass, isDeviceClass, type DeviceClass } from '../vocabulary/device-classes.js';
import { DEVICE_NAME_WORDS, deviceClassNamed } from '../vocabulary/device-names.js';

/** One device of a scan request: the class, and the options each page's test gets as that device. */
export interface DeviceScan {
  device: DeviceClass;
  options: AnalysisOptions;
}

const bad = (detail: string) => new ApiError('E40004', detail);

/**
 * `devices` of a scan request: device classes (or `phone`), each once, at least one; undefined when not given. Every
 * bad entry is named.
 */
export function parseDevices(raw: unknown): DeviceClass[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  const fix = `give an array of ${DEVICE_NAME_WORDS}, e.g. ["desktop", "phone-mid"]`;
  if (!Array.isArray(raw)) throw bad(`devices must be an array of device classes; got ${show(raw)}: ${fix}`);
  if (raw.length === 0) throw bad(`devices is empty: ${fix}, or leave devices out for the one device the options name`);
  if (raw.length > DEVICE_CLASS_IDS.length) throw bad(`devices has ${raw.length} entries; there are ${DEVICE_CLASS_IDS.length} device classes: ${fix}`);
  const seen = new Set<DeviceClass>();
  return eachEntry('devices', raw as unknown[], (v, at) => {
    const d = typeof v === 'string' ? deviceClassNamed(v) : undefined;
    if (d === undefined) throw bad(`${at} ${show(v)} is no device class; use ${DEVICE_NAME_WORDS}`);
    if (seen.has(d)) throw bad(`${at} ${show(v)} is ${d}, already listed: each device is scanned once`);
    seen.add(d);
    return d;
  });
}

/**
 * The options of a test that runs as `device`: `device_class` set, or left out when it is the options' default (a
 * device's test is then the same page as one that never named a class). 400 E40004 for a phone in a browser that
 * cannot slow its CPU (a schedule whose browser changed since it was made).
 */
export function optionsForDevice(o: AnalysisOptions, device: DeviceClass, cpuThrottle: boolean): AnalysisOptions {
  if (device !== 'desktop' && !cpuThrottle) {
    throw bad(`browser "${o.browser}" cannot run a test as ${device}: it cannot slow its CPU to a phone's (GET /browsers, cpu_throttle); ` +
      'scan this browser as desktop, or use a browser whose cpu_throttle is true');
  }
  return { ...o, device_class: device === defaultDeviceClass(o, cpuThrottle) ? undefined : device };
}

/** A schedule's devices as stored (JSON array of classes); a row that says nothing readable scans as a desktop. */
export function readScheduleDevices(text: string): DeviceClass[] {
  try {
    const v: unknown = JSON.parse(text);
    const list = Array.isArray(v) ? v.filter(isDeviceClass) : [];
    return list.length > 0 ? list : ['desktop'];
  } catch {
    return ['desktop'];
  }
}
