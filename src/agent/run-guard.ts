/**
 * The run guard: a load measured while the agent's host was slow or busy says more about the host than about
 * the page, so it is discarded and the page loaded again (at most `maxExtraLoads` more per test).
 * - Slow: the load's benchmark index (Lighthouse's CPU benchmark in the load's browser, right before it) is below
 *   `minBenchmarkRatio` (70 %) of the agent's baseline. The baseline is the median of the agent's recent readings:
 *   three in a fresh browser when the agent starts, then the reading of every load during which the host was
 *   otherwise idle, so the baseline follows the host (a slower machine, a new CPU governor) but not contention.
 * - Busy: other processes of the host used more than max(0.25, cores − `freeCores`) CPU cores on average during
 *   the load (runner/host-load.ts), i.e. less than `freeCores` (1.5) cores were left to a load whose browser and
 *   Lighthouse together use up to about that many. The benchmark runs on one core, so a hog on another core does
 *   not slow it: this check is the one that sees it.
 */
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { median } from '../analysis/statistics.js';
import type { HostMeasurement } from '../runner/types.js';

export interface RunGuardSettings {
  /** A load whose benchmark index is below this share of the baseline is discarded; 0 turns the check off. */
  minBenchmarkRatio: number;
  /** CPU cores a load needs left to it; 0 turns the busy check off. */
  freeCores: number;
  /** Loads beyond the test's runs, to replace discarded ones. */
  maxExtraLoads: number;
}

export const DEFAULT_RUN_GUARD: RunGuardSettings = { minBenchmarkRatio: 0.7, freeCores: 1.5, maxExtraLoads: 2 };

/** How many recent readings the baseline is the median of. */
const BASELINE_WINDOW = 9;
const START_SAMPLES = 3;

export class RunQualityGuard {
  private readonly readings: number[] = [];
  private ready: Promise<void> = Promise.resolve();
  /** Most CPU other processes may use during a load. */
  readonly busyBound: number;

  constructor(
    readonly settings: RunGuardSettings,
    /** Lighthouse's benchmark index in a fresh browser, `samples` times, median (runner/benchmark.ts). */
    private readonly measure: (samples: number) => Promise<number>,
    private readonly log: Logger,
    cores = availableParallelism(),
  ) {
    this.busyBound = Math.max(0.25, Math.round((cores - settings.freeCores) * 100) / 100);
  }

  /** Measures the baseline in the background; loads wait for it (baseline()). */
  start(): void {
    this.ready = this.measure(START_SAMPLES).then(
      (index) => {
        this.readings.push(index);
        this.log.info({ benchmarkIndex: index, busyBound: this.busyBound }, 'run guard: agent benchmark index measured');
      },
      (err: unknown) => this.log.warn({ err }, 'run guard: the benchmark index could not be measured; the first loads set the baseline'),
    );
  }

  /** The agent's baseline benchmark index now (undefined until there is a reading). */
  async baseline(): Promise<number | undefined> {
    await this.ready;
    return this.readings.length > 0 ? median(this.readings) : undefined;
  }

  /** Why the load must be discarded, or null to keep it. */
  verdict(host: HostMeasurement | undefined, baseline: number | undefined): string | null {
    const others = host?.otherCpuCores;
    if (this.settings.freeCores > 0 && others !== undefined && others > this.busyBound) {
      return `the host was busy: other processes used ${others.toFixed(2)} CPU cores during the load ` +
        `(at most ${this.busyBound.toFixed(2)} leave the load the ${this.settings.freeCores} cores it needs)`;
    }
    const index = host?.benchmarkIndex;
    if (this.settings.minBenchmarkRatio > 0 && index !== undefined && baseline !== undefined &&
      index < this.settings.minBenchmarkRatio * baseline) {
      return `the host was slow: benchmark index ${Math.round(index)}, below ` +
        `${Math.round(this.settings.minBenchmarkRatio * 100)} % of the agent's baseline ${Math.round(baseline)}`;
    }
    return null;
  }

  /** A reading taken while no other process competed for the CPU describes the host: it joins the baseline. */
  learn(host: HostMeasurement | undefined): void {
    const index = host?.benchmarkIndex;
    if (index === undefined || !(index > 0)) return;
    if (host?.otherCpuCores !== undefined && host.otherCpuCores > this.busyBound) return;
    this.readings.push(index);
    if (this.readings.length > BASELINE_WINDOW) this.readings.shift();
  }
}
