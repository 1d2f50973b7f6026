/**
 * A phone's CPU on this host, as Chrome DevTools calibrates it (CalibrationController, Chrome 134+): Lighthouse's
 * BenchmarkIndex is measured under CPU throttling (CDP Emulation.setCPUThrottlingRate) and the rate is adjusted
 * until the benchmark scores as the target device (within ±5 %). The same target then means the same phone on a
 * fast host and a slow one, with different rates. A host slower than a target cannot reach it (a rate under 1
 * would be a faster CPU): its loads run unthrottled, and their reports say so.
 *
 * The benchmark is time-boxed (about 1 s a run, throttled or not), so a calibration is at most MAX_RUNS s of
 * benchmark. The agent calibrates while idle, in a browser launched ahead (launch-ahead.ts), and stops between two
 * runs when a load wants that browser (`stop`): a queued test waits at most one benchmark run.
 */
import type { CDPSession, Page } from 'puppeteer-core';
import { pageFunctions } from 'lighthouse/core/lib/page-functions.js';

/** How close to its target a calibrated benchmark must be. */
export const CALIBRATION_TOLERANCE = 0.05;
/** Benchmark runs in one calibration (about 1 s each): the host's reading aside, at most this many. */
export const MAX_RUNS = 5;
/** Runs per target: a first guess from the host's index, then corrections. */
const RUNS_PER_TARGET = 3;

/** What a target came to on this host. */
export interface CpuSetting {
  target: number;
  /** The throttling rate (1: none). */
  rate: number;
  /** BenchmarkIndex measured under `rate`. */
  measured: number;
  /** false: the host is slower than the target, and loads run unthrottled. */
  reachable: boolean;
}

export interface CpuCalibration {
  /** The host's BenchmarkIndex without throttling, when calibrated. */
  hostIndex: number;
  /** Date.now() when made. */
  at: number;
  settings: CpuSetting[];
  /**
   * Every reachable target was met within CALIBRATION_TOLERANCE. A calibration that was not (a busy moment: another
   * process took the CPU from a run) is used, and made again when the agent is idle UNSETTLED_RETRY_MS later.
   */
  settled: boolean;
}

/** The rate of each target, measured in `page` (its CPU throttling is back to none afterwards). */
export async function calibrateCpu(page: Page, targets: readonly number[], o: { hostIndex?: number; stop?: () => boolean } = {}):
Promise<CpuCalibration | undefined> {
  const session = await page.createCDPSession();
  try {
    return await calibrateIn(page, session, targets, o);
  } finally {
    await session.send('Emulation.setCPUThrottlingRate', { rate: 1 }).catch(() => undefined);
    await session.detach().catch(() => undefined);
  }
}

async function calibrateIn(page: Page, session: CDPSession, targets: readonly number[], o: { hostIndex?: number; stop?: () => boolean }):
Promise<CpuCalibration | undefined> {
  let runs = 0;
  const benchmark = async (rate: number): Promise<number> => {
    runs++;
    await session.send('Emulation.setCPUThrottlingRate', { rate });
    return page.evaluate(pageFunctions.computeBenchmarkIndex);
  };
  const hostIndex = o.hostIndex ?? await benchmark(1);
  // How the benchmark answers to throttling here: the rate a target needs over the plain host/target ratio.
  let correction = 1;
  const settings: CpuSetting[] = [];
  for (const target of [...targets].sort((a, b) => b - a)) {
    if (hostIndex <= target * (1 + CALIBRATION_TOLERANCE)) {
      settings.push({ target, rate: 1, measured: hostIndex, reachable: hostIndex >= target * (1 - CALIBRATION_TOLERANCE) });
      continue;
    }
    let rate = (hostIndex / target) * correction;
    let best: CpuSetting | undefined;
    for (let n = 0; n < RUNS_PER_TARGET && runs < MAX_RUNS + (o.hostIndex === undefined ? 1 : 0); n++) {
      if (o.stop?.()) return undefined;
      const measured = await benchmark(rate);
      if (!best || Math.abs(measured - target) < Math.abs(best.measured - target)) best = { target, rate: round(rate), measured, reachable: true };
      if (Math.abs(measured - target) <= target * CALIBRATION_TOLERANCE) break;
      // The index falls about as the rate rises: scale the rate by how far the benchmark is from its target.
      rate = Math.max(1, rate * (measured / target));
    }
    if (!best) return undefined;
    correction = best.rate / (hostIndex / target) * (best.measured / target);
    settings.push(best);
  }
  const settled = settings.every((s) => !s.reachable || Math.abs(s.measured - s.target) <= s.target * CALIBRATION_TOLERANCE);
  return { hostIndex, at: Date.now(), settings: settings.sort((a, b) => targets.indexOf(a.target) - targets.indexOf(b.target)), settled };
}

const round = (rate: number): number => Math.round(rate * 100) / 100;

/** The setting of a target in a calibration, if the calibration has it. */
export function settingFor(calibration: CpuCalibration | undefined, target: number): CpuSetting | undefined {
  return calibration?.settings.find((s) => s.target === target);
}

/** Whether the host moved enough since the calibration that it must be made again (another machine, a new governor). */
export function calibrationStale(calibration: CpuCalibration | undefined, hostIndex: number | undefined, now = Date.now()): boolean {
  if (!calibration) return true;
  if (!calibration.settled && now - calibration.at >= UNSETTLED_RETRY_MS) return true;
  return hostIndex !== undefined && Math.abs(hostIndex - calibration.hostIndex) > calibration.hostIndex * RECALIBRATE_WHEN_MOVED;
}

/** A host reading this far from the calibration's (10 %) calls for a new calibration. */
export const RECALIBRATE_WHEN_MOVED = 0.1;
/** An unsettled calibration is made again this long after (while idle): not in a loop on a host that stays busy. */
export const UNSETTLED_RETRY_MS = 60_000;

/**
 * The CPU a load of a device class runs on: the agent's calibration of its target, and the host's index; what
 * the report says of the device's CPU (RunResult.cpu).
 */
export interface CpuUsed {
  deviceClass: string;
  target: number;
  /** The rate applied for the whole load (1: none). */
  rate: number;
  /** The host's BenchmarkIndex unthrottled, at calibration. */
  hostIndex: number;
  /** BenchmarkIndex measured under `rate`. */
  measured: number;
  /** false: the host is slower than the target; the load ran unthrottled. */
  reachable: boolean;
}

export function cpuUsed(deviceClass: string, calibration: CpuCalibration, target: number): CpuUsed | undefined {
  const s = settingFor(calibration, target);
  return s && { deviceClass, target, rate: s.reachable ? s.rate : 1, hostIndex: calibration.hostIndex, measured: s.measured,
    reachable: s.reachable };
}
