/**
 * The device classes a test runs as (the `device_class` option, a Webgauge extension): the one table. A class is a
 * CPU (a target for Lighthouse's BenchmarkIndex that the agent calibrates its CPU throttling rate to, as Chrome
 * DevTools does: `../shared/notes/field-facts.md` §5), a default link and a screen. The options parser, the load's
 * conditions, the agent's calibration, the report and the app's Analyze menu read it.
 */
import { orList } from '../../lib/words.js';

export interface DeviceClassSpec {
  id: string;
  /** As people read it: the Analyze menu, the report. */
  label: string;
  /**
   * The BenchmarkIndex the CPU is throttled to (DevTools' calibration targets: 1000 "like a Pixel 5", 264 "like a
   * Moto G Power 2022"); none: the host's own CPU.
   */
  cpuTarget?: number;
  /** What it is like, for the report: "like a Pixel 5". */
  like?: string;
  /** The device in a sentence: "desktop", "mid-tier phone" (alert e-mails, comparison notes, a CPU's name). */
  noun: string;
  /** The link a test gets when it names none (`down/up/latency`, as the `throttle` option). */
  defaultThrottle?: string;
  /** A phone's screen when the test names no device nor a size. */
  phoneScreen?: true;
}

/** Lighthouse's mobile "slow 4G" (150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up) as the `throttle` option writes it. */
export const SLOW_4G = '1600/750/150';

export const DEVICE_CLASSES = [
  { id: 'desktop', label: 'Desktop', noun: 'desktop' },
  { id: 'phone-mid', label: 'Phone (mid-tier)', noun: 'mid-tier phone', cpuTarget: 1000, like: 'like a Pixel 5', defaultThrottle: SLOW_4G,
    phoneScreen: true },
  { id: 'phone-low', label: 'Phone (low-tier)', noun: 'low-tier phone', cpuTarget: 264, like: 'like a Moto G Power 2022',
    defaultThrottle: SLOW_4G, phoneScreen: true },
] as const satisfies readonly DeviceClassSpec[];

export type DeviceClass = (typeof DEVICE_CLASSES)[number]['id'];

export const DEVICE_CLASS_IDS: readonly DeviceClass[] = DEVICE_CLASSES.map((c) => c.id);
/** "desktop, phone-mid or phone-low". */
export const DEVICE_CLASS_WORDS = orList(DEVICE_CLASS_IDS.map((id) => `"${id}"`));

export const isDeviceClass = (s: unknown): s is DeviceClass => typeof s === 'string' && (DEVICE_CLASS_IDS as readonly string[]).includes(s);

export const deviceClassSpec = (id: DeviceClass): DeviceClassSpec => DEVICE_CLASSES.find((c) => c.id === id)!;

/** The classes whose CPU is calibrated, with their targets: what an agent calibrates to. */
export const CPU_TARGETS: readonly { deviceClass: DeviceClass; target: number }[] = (DEVICE_CLASSES as readonly DeviceClassSpec[])
  .filter((c) => c.cpuTarget !== undefined).map((c) => ({ deviceClass: c.id as DeviceClass, target: c.cpuTarget! }));

/**
 * A test's class when its options name none: a simulated device is a mid-tier phone (its CPU and link too) in a
 * browser that can slow its CPU; anything else is a desktop. `device_class: "desktop"` keeps a device's screen on
 * the host's CPU.
 */
export function defaultDeviceClass(o: { simulate_device?: string }, cpuThrottle: boolean): DeviceClass {
  return o.simulate_device !== undefined && cpuThrottle ? 'phone-mid' : 'desktop';
}

/** The class a test runs as: its options' `device_class`, or the default for them. */
export function deviceClassOf(o: { simulate_device?: string; device_class?: DeviceClass }, cpuThrottle: boolean): DeviceClass {
  return o.device_class ?? defaultDeviceClass(o, cpuThrottle);
}

/** The same basis read from a report's API attributes (the gate reads reports over HTTP; another server gives none: null). */
export function attributesCpuBasis(a: Readonly<Record<string, unknown>>): number | null {
  return a.cpu_target_reached === true && typeof a.cpu_benchmark_target === 'number' ? a.cpu_benchmark_target : null;
}

/** "a mid-tier phone's CPU (benchmark 1000)", "the test agent's own CPU". */
export function cpuBasisName(basis: number | null): string {
  if (basis === null) return 'the test agent\'s own CPU';
  const cls = (DEVICE_CLASSES as readonly DeviceClassSpec[]).find((c) => c.cpuTarget === basis);
  return `${cls ? `a ${cls.noun}'s CPU` : 'a CPU'} (benchmark ${basis})`;
}
