/**
 * How a list of devices is written where a scan takes several (POST /scans' `devices`, `webgauge scan --device`,
 * `--budget DEVICE:NAME=VALUE`): a device class's ID (device-classes.ts), or `phone`, the short name of a mid-tier
 * phone. One rule for the API, the app and the gate.
 */
import { DEVICE_CLASS_IDS, deviceClassSpec, isDeviceClass, type DeviceClass } from './device-classes.js';
import { orList } from '../../lib/words.js';

/** Short names: `phone` is the phone people mean when they say one (Lighthouse's mobile: a mid-tier phone). */
export const DEVICE_ALIASES: Readonly<Record<string, DeviceClass>> = { phone: 'phone-mid' };

/** "desktop, phone-mid, phone-low or phone (phone-mid)": what a device may be written as. */
export const DEVICE_NAME_WORDS = orList([...DEVICE_CLASS_IDS, ...Object.entries(DEVICE_ALIASES).map(([a, id]) => `${a} (${id})`)]);

/** A device in a sentence: "desktop", "mid-tier phone" (alert e-mails, comparison notes). */
export const deviceInWords = (d: string): string => (isDeviceClass(d) ? deviceClassSpec(d).noun : d);

/** The device class a name names (an ID or a short name; case and spaces around ignored), or undefined. */
export function deviceClassNamed(name: string): DeviceClass | undefined {
  const s = name.trim().toLowerCase();
  return isDeviceClass(s) ? s : Object.hasOwn(DEVICE_ALIASES, s) ? DEVICE_ALIASES[s] : undefined;
}
