/**
 * A page's siblings across devices (issue 49): the account's pages of the same URL whose identity options are the
 * same but for the device (`device_class` and `simulate_device`): the URL's desktop page and its phone pages. A
 * device's test is a page of its own (optionsFingerprint), so the page view links them and shows their figures side by
 * side, and offers to test or monitor the page as its other devices. Only the account's own pages are read.
 */
import type { Store } from '../../store/db.js';
import { livePagesOfUrl, type PageRow } from '../../store/pages.js';
import type { Catalog } from '../catalog/catalog.js';
import type { AnalysisOptions } from '../options/analysis-options.js';
import { readOptions, storedFingerprint } from '../options/stored-options.js';
import { DEVICE_CLASS_IDS, defaultDeviceClass, deviceClassOf, type DeviceClass } from '../vocabulary/device-classes.js';

/** A page and the device its tests run as. */
export interface DevicePage {
  page: PageRow;
  device: DeviceClass;
}

/** Whether the page's browser can slow its CPU to a phone's (a browser the catalog no longer offers: no). */
export const cpuThrottleOf = (catalog: Catalog, browser: string): boolean => catalog.browser(browser)?.cpu_throttle === true;

/** The device a page's tests run as: its options' class, or the default for them in its browser. */
export function deviceOfPage(catalog: Catalog, page: PageRow, options: AnalysisOptions): DeviceClass {
  return deviceClassOf(options, cpuThrottleOf(catalog, page.browser));
}

/** What pages of one URL on different devices share: the stored fingerprint of their options without the device. */
function acrossDevices(store: Store, options: AnalysisOptions): string {
  return storedFingerprint(store.box, { ...options, device_class: undefined, simulate_device: undefined });
}

/**
 * The page's device and its siblings, one page per other device (the most recently tested where a device has several,
 * e.g. two simulated phones of one class), in the device table's order. A page whose stored options cannot be read is
 * left out.
 */
export async function deviceSiblings(store: Store, catalog: Catalog, accountId: string, page: PageRow):
Promise<{ device: DeviceClass; siblings: DevicePage[] }> {
  const options = readOptions(store.box, page.options);
  const device = deviceOfPage(catalog, page, options);
  const key = acrossDevices(store, options);
  const byDevice = new Map<DeviceClass, PageRow>();
  for (const other of await livePagesOfUrl(store.db, accountId, page.url)) {
    if (other.id === page.id) continue;
    let o: AnalysisOptions;
    try {
      o = readOptions(store.box, other.options);
    } catch {
      continue;
    }
    const d = deviceOfPage(catalog, other, o);
    // Newest first: the first page of a device is its most recently tested.
    if (d === device || byDevice.has(d) || acrossDevices(store, o) !== key) continue;
    byDevice.set(d, other);
  }
  return { device, siblings: DEVICE_CLASS_IDS.filter((d) => byDevice.has(d)).map((d) => ({ device: d, page: byDevice.get(d)! })) };
}

/**
 * The options of the page's test as another device: `device_class` set (left out when it is the default for the
 * options), a desktop without the simulated phone screen; undefined when the browser cannot run the device (a phone in
 * a browser that cannot slow its CPU).
 */
export function optionsAsDevice(catalog: Catalog, page: PageRow, options: AnalysisOptions, device: DeviceClass): AnalysisOptions | undefined {
  const cpuThrottle = cpuThrottleOf(catalog, page.browser);
  if (device !== 'desktop' && !cpuThrottle) return undefined;
  const base: AnalysisOptions = device === 'desktop' ? { ...options, simulate_device: undefined } : options;
  return { ...base, device_class: device === defaultDeviceClass(base, cpuThrottle) ? undefined : device };
}
