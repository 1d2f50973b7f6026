/**
 * The device a report's load ran as, and for a phone the CPU it was slowed to (issue 49): stored with the report
 * (reports.device_cpu, JSON), given as report attributes, shown on the report screen and in the PDF, and the basis
 * on which a page's figures compare: figures of a phone's calibrated CPU do not compare with those of the agent's own
 * CPU (every report before device classes, and a phone whose speed the agent could not reach).
 */
import type { RunResult } from '../../runner/types.js';
import { cpuBasisName, deviceClassSpec, isDeviceClass, type DeviceClass } from '../vocabulary/device-classes.js';

export { cpuBasisName };

/** As stored and as the report's attributes name it. */
export interface DeviceCpu {
  device_class: DeviceClass;
  /** The BenchmarkIndex the CPU was slowed to (a phone class). */
  cpu_benchmark_target?: number;
  /** The CPU throttling rate applied for the load (1: none). */
  cpu_throttling_rate?: number;
  /** The agent host's BenchmarkIndex, unthrottled. */
  host_benchmark_index?: number;
  /** BenchmarkIndex measured under the rate. */
  cpu_benchmark_index?: number;
  /** false: the agent's CPU is slower than the device's; the load ran unthrottled. */
  cpu_target_reached?: boolean;
}

const finite = (v: unknown, min: number, max: number): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : undefined;

/**
 * The stored record of a load (a remote agent's result included: anything not of the expected shape is dropped).
 * Null when the runner said nothing of its device (a result of an agent before device classes).
 */
export function deviceCpuOf(result: Pick<RunResult, 'deviceClass' | 'cpu'>): DeviceCpu | null {
  if (!isDeviceClass(result.deviceClass)) return null;
  const record: DeviceCpu = { device_class: result.deviceClass };
  const cpu = result.cpu;
  const target = deviceClassSpec(result.deviceClass).cpuTarget;
  if (target !== undefined && cpu && cpu.target === target) {
    const rate = finite(cpu.rate, 1, 1000);
    const host = finite(cpu.hostIndex, 0, 1e7);
    const measured = finite(cpu.measured, 0, 1e7);
    if (rate !== undefined && host !== undefined && measured !== undefined) {
      Object.assign(record, { cpu_benchmark_target: target, cpu_throttling_rate: Math.round(rate * 100) / 100,
        host_benchmark_index: Math.round(host), cpu_benchmark_index: Math.round(measured), cpu_target_reached: cpu.reachable === true });
    }
  }
  return record;
}

/** The reports.device_cpu of a load. */
export function storedDeviceCpu(result: Pick<RunResult, 'deviceClass' | 'cpu'>): string | null {
  const record = deviceCpuOf(result);
  return record && JSON.stringify(record);
}

export function readDeviceCpu(json: string | null | undefined): DeviceCpu | undefined {
  if (!json) return undefined;
  try {
    const v = JSON.parse(json) as DeviceCpu;
    return isDeviceClass(v?.device_class) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The CPU a report's figures came from, as a comparable key: the target a phone's CPU was slowed to, or null for the
 * agent's own CPU (desktops, reports before device classes, a phone the agent could not slow to its target).
 */
export function cpuBasis(json: string | null | undefined): number | null {
  const d = readDeviceCpu(json);
  return d?.cpu_target_reached && d.cpu_benchmark_target !== undefined ? d.cpu_benchmark_target : null;
}

/**
 * A phone's CPU in words, for the report screen and PDF: "like a Pixel 5: benchmark 1000 targeted, 987 measured; the
 * test agent's CPU (benchmark 2,877) slowed 2.9×".
 */
export function deviceCpuText(d: DeviceCpu): string {
  const spec = deviceClassSpec(d.device_class);
  if (d.cpu_benchmark_target === undefined) return spec.cpuTarget === undefined ? 'the test agent\'s own' : `a ${spec.noun}'s CPU, not measured`;
  const host = d.host_benchmark_index?.toLocaleString('en-US');
  if (!d.cpu_target_reached) {
    return `${spec.like} (benchmark ${d.cpu_benchmark_target}): not reachable on this test agent, whose CPU is slower (benchmark ` +
      `${host}); the page ran on it unthrottled`;
  }
  return `${spec.like}: benchmark ${d.cpu_benchmark_target} targeted, ${d.cpu_benchmark_index} measured; the test agent's CPU ` +
    `(benchmark ${host}) slowed ${d.cpu_throttling_rate}×`;
}
