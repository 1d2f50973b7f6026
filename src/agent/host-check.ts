/**
 * The host-quality check (what docs/api.md "The run guard" and WEBGAUGE_RUN_GUARD call "the run guard"; not the run's deadline,
 * runner/load/deadline.ts, nor the connection guard, runner/conditions/connection-guard.ts): a load measured while
 * the agent's host was slow or busy says more about the host than about the page, so it is discarded and the page
 * loaded again (at most `maxExtraLoads` more per test).
 * - Slow: the benchmark index reported for the load is below `minBenchmarkRatio` (70 %) of the agent's baseline.
 *   Every reading is taken the same way (runner/launch-ahead.ts readHost): Lighthouse's CPU benchmark, one sample,
 *   in a browser launched ahead, while no load of this agent runs. The agent reads the host when it starts and
 *   again when it is idle and its last reading is a minute old; a load reports the latest reading of the last
 *   `READING_VALID_MS`, and reads the host itself (in its browser, before the navigation) only when there is none
 *   or the load before it was discarded as slow. The baseline is the median of the recent readings taken while
 *   other processes left the host alone, so it follows the host (a slower machine, a new CPU governor) but not
 *   contention; the first reading is the baseline of the first load, so an idle host never reads slow.
 * - Busy: other processes of the host used more than max(0.25, cores − `freeCores`) CPU cores on average during
 *   the load (runner/host-load.ts), i.e. less than `freeCores` (1.5) cores were left to a load whose browser and
 *   Lighthouse together use up to about that many. The benchmark runs on one core, so a hog on another core does
 *   not slow it: this check is the one that sees it.
 */
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { median } from '../analysis/statistics.js';
import type { HostMeasurement } from '../runner/types.js';
import type { HostReading } from '../runner/launch-ahead.js';

export interface HostCheckSettings {
  /** A load whose benchmark index is below this share of the baseline is discarded; 0 turns the check off. */
  minBenchmarkRatio: number;
  /** CPU cores a load needs left to it; 0 turns the busy check off. */
  freeCores: number;
  /** Loads beyond the test's runs, to replace discarded ones. */
  maxExtraLoads: number;
}

export const DEFAULT_HOST_CHECK: HostCheckSettings = { minBenchmarkRatio: 0.7, freeCores: 1.5, maxExtraLoads: 2 };

/** How many recent readings the baseline is the median of. */
const BASELINE_WINDOW = 9;
/** How long a reading describes the host for the loads after it. */
export const READING_VALID_MS = 10 * 60_000;
/** An idle agent reads the host again when its last reading is this old (and tries at most this often). */
export const READ_WHEN_IDLE_EVERY_MS = 60_000;
/** An idle agent without a clean reading (every one so far was disturbed) tries again this often. */
export const RETRY_READING_MS = 10_000;

export class HostQualityCheck {
  private readonly readings: number[] = [];
  private latest: HostReading | undefined;
  private lastAttempt = -Infinity;
  /** Most CPU other processes may use during a load (or a reading). */
  readonly busyBound: number;

  constructor(
    readonly settings: HostCheckSettings,
    private readonly log: Logger,
    cores = availableParallelism(),
  ) {
    this.busyBound = Math.max(0.25, Math.round((cores - settings.freeCores) * 100) / 100);
  }

  /** Whether an idle agent should read the host now. */
  wantsReading(now = Date.now()): boolean {
    const every = this.currentReading(now) === undefined ? RETRY_READING_MS : READ_WHEN_IDLE_EVERY_MS;
    return now - Math.max(this.latest?.at ?? -Infinity, this.lastAttempt) >= every;
  }

  /**
   * A reading of the host: it joins the baseline when other processes left the host alone meanwhile, and is the
   * index the next loads report. A disturbed reading is dropped (the last clean one stays).
   */
  record(reading: HostReading | undefined, now = Date.now()): void {
    this.lastAttempt = now;
    if (!reading || !(reading.benchmarkIndex > 0)) return;
    if (reading.otherCpuCores !== undefined && reading.otherCpuCores > this.busyBound) {
      this.log.info({ benchmarkIndex: reading.benchmarkIndex, otherCpuCores: reading.otherCpuCores },
        'run guard: a reading of the host taken while other processes were busy was dropped');
      return;
    }
    this.latest = reading;
    this.readings.push(reading.benchmarkIndex);
    if (this.readings.length > BASELINE_WINDOW) this.readings.shift();
    this.log.debug({ benchmarkIndex: reading.benchmarkIndex, baseline: this.baseline() }, 'run guard: host read');
  }

  /** The index a load reports: the latest clean reading, if recent enough; else the load reads the host itself. */
  currentReading(now = Date.now()): number | undefined {
    return this.latest && now - this.latest.at <= READING_VALID_MS ? this.latest.benchmarkIndex : undefined;
  }

  /** The agent's baseline benchmark index now (undefined until there is a reading). */
  baseline(): number | undefined {
    return this.readings.length > 0 ? median(this.readings) : undefined;
  }

  /** Why the load must be discarded, or null to keep it. */
  verdict(host: HostMeasurement | undefined, baseline: number | undefined): string | null {
    const others = host?.otherCpuCores;
    if (this.settings.freeCores > 0 && others !== undefined && others > this.busyBound) {
      return `the host was busy: other processes used ${others.toFixed(2)} CPU cores during the load ` +
        `(at most ${this.busyBound.toFixed(2)} leave the load the ${this.settings.freeCores} cores it needs)`;
    }
    if (this.isSlow(host, baseline)) {
      return `the host was slow: benchmark index ${Math.round(host!.benchmarkIndex!)}, below ` +
        `${Math.round(this.settings.minBenchmarkRatio * 100)} % of the agent's baseline ${Math.round(baseline!)}`;
    }
    return null;
  }

  /** Whether the load's benchmark index is below the share of the baseline a load needs. */
  isSlow(host: HostMeasurement | undefined, baseline: number | undefined): boolean {
    const index = host?.benchmarkIndex;
    return this.settings.minBenchmarkRatio > 0 && index !== undefined && baseline !== undefined &&
      index < this.settings.minBenchmarkRatio * baseline;
  }
}
