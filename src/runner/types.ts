import type { LoadConditions, RunOptions } from './conditions/types.js';
import type { RunMetrics } from './metrics.js';
import type { TargetPolicy } from '../net/policy.js';
import type { BrowserSandbox } from './browser.js';
import type { PageFacts } from '../analysis/facts.js';
import type { Har } from './capture/har.js';
import type { TrustStore } from './trust-store.js';
import type { LaunchAhead } from './launch-ahead.js';
import type { JourneyResult } from './journey/result.js';
import type { CpuUsed } from './cpu-calibration.js';

export type { CpuUsed };

/** A simulated device as the runner needs it (resolved from the catalogue by core). */
export interface DeviceProfile {
  id: string;
  width: number;
  height: number;
  dppx: number;
  userAgent: string;
  mobile: boolean;
}

/** Everything the runner needs for one page load. It knows nothing of accounts, credits or HTTP. */
export interface RunSpec {
  testId: string;
  /** The test's options, for what the load produces (report type, video) and the emulated screen. */
  options: RunOptions;
  /** The load's conditions, parsed once by core from the same options (core/options/conditions.ts). */
  conditions: LoadConditions;
  device?: DeviceProfile;
  /** The browser that loads the page (the catalog's `browser`); Chrome when absent. */
  browser?: 'chrome' | 'firefox';
  chromePath: string;
  /** Firefox for `browser: 'firefox'` (firefox/launch.ts DEFAULT_FIREFOX_PATH when absent). */
  firefoxPath?: string;
  /** Who the browser runs as, sandboxed; default: browser.ts defaultSandbox(). */
  sandbox?: BrowserSandbox;
  /** Which non-public destinations the load may reach (every connection of the browser is checked). */
  policy: TargetPolicy;
  /** Scratch directory for this run; the runner may write here and the caller removes it. */
  workDir: string;
  /** Hard upper bound for the whole run. */
  timeoutMs: number;
  /** Aborted when the agent loses its lease or the server stops. */
  signal?: AbortSignal;
  /** Operator filter-list files for `adblock=1`, used with Webgauge's own list (WEBGAUGE_ADBLOCK_LIST). */
  adblockLists?: readonly string[];
  /** The operator's extra CA certificates (WEBGAUGE_EXTRA_CA_CERTS), trusted by the test browser. */
  trustStore?: TrustStore;
  /** ffmpeg for `video=1`; default /usr/bin/ffmpeg. */
  ffmpegPath?: string;
  /**
   * Measure the host around the load (benchmark index before it, other processes' CPU during it): the input of the
   * agent's host-quality check.
   */
  measureHost?: boolean;
  /**
   * The host's benchmark index as the agent read it while idle (launch-ahead.ts readHost), reported for this load.
   * Without it, a load that measures the host reads it in its own browser right before the navigation.
   */
  benchmarkIndex?: number;
  /**
   * The CPU of the load's device class as the agent calibrated it on its host (cpu-calibration.ts). A load of a class
   * with a CPU target and none given calibrates in its own browser, before the navigation.
   */
  cpu?: CpuUsed;
  /** The agent's browsers launched ahead: the load takes one (the agent launches the next once the test's result is stored). */
  ahead?: LaunchAhead;
  /** Another load of the same test follows this one at once: its browser is launched as soon as this load is measured. */
  anotherLoadFollows?: boolean;
  /** Told as the load enters each of its phases, in order (the agent reports them: the test's progress screen shows them). */
  onPhase?: (phase: LoadPhase) => void;
}

/**
 * A load's phases, in order: its browser taken or launched and set up; the page loading (a journey's steps); the load
 * over and what was captured analysed (Lighthouse's audits, the HAR, the film; Firefox: the captures alone).
 */
export const LOAD_PHASES = ['launching', 'loading', 'auditing'] as const;
export type LoadPhase = (typeof LOAD_PHASES)[number];

/** What the host was like when the page loaded (host-load.ts), for the agent's host-quality check. */
export interface HostMeasurement {
  /** Lighthouse's benchmark index of this browser, measured right before the load. */
  benchmarkIndex?: number;
  /** CPU cores used by other processes during the load, on average (Linux). */
  otherCpuCores?: number;
}

export type { LighthouseMetrics, LoadMetrics, RunMetrics } from './metrics.js';
export type { LoadConditions, RunOptions } from './conditions/types.js';

export interface FilmstripFrame {
  /** Milliseconds since navigation start. */
  timestamp: number;
  jpeg: Buffer;
}

/** An image of the page as the browser received it (for the optimized-images archive). */
export interface CapturedImage {
  url: string;
  /** Lower-case MIME type without parameters, e.g. `image/jpeg`. */
  mimeType: string;
  body: Buffer;
}

export interface RunResult {
  finalUrl: string;
  userAgent: string;
  metrics: RunMetrics;
  /** Full Lighthouse result (LHR), when Lighthouse ran. */
  lighthouse?: Record<string, unknown>;
  /** HAR 1.2, credentials scrubbed, contents trimmed. */
  har: Har;
  screenshot: Buffer;
  filmstrip: FilmstripFrame[];
  /** H.264 mp4 of the load, when the test asked for `video`. */
  video?: Buffer;
  /** Images of the page (Lighthouse reports only), bounded: see capture/images.ts. */
  images?: CapturedImage[];
  /** What the page's DOM showed after the load (collect-facts.ts), for the structure audits and legacy rules. */
  facts?: PageFacts;
  /** Decoded response bodies (HTML, CSS, JS, images) by URL, legacy reports only, bounded: see capture/bodies.ts. */
  bodies?: Map<string, Buffer>;
  /** Timing of the run's phases, for benchmarks and logs. */
  phases: Record<string, number>;
  /** Things the user should know about the load (cookies not set, load time limit hit, Lighthouse warnings). */
  warnings?: string[];
  /** With spec.measureHost. */
  host?: HostMeasurement;
  /** The device class the load ran as (conditions.device). */
  deviceClass?: string;
  /** The device class's CPU the load ran on (a class with a CPU target). */
  cpu?: CpuUsed;
  /**
   * A journey's steps, each with its figures, and Lighthouse's FlowResult. The report's figures (metrics, lighthouse,
   * screenshot) are those of its measured step; `har` holds every step, a HAR page each.
   */
  journey?: JourneyResult;
}

/** A failure the user can act on (DNS, refused connection, HTTP auth needed, timeout...). */
export class RunError extends Error {
  constructor(message: string, readonly progress?: JourneyProgress) {
    super(message);
    this.name = 'RunError';
  }
}

/** How far a journey got before it failed: shown with the test's error. */
export interface JourneyProgress {
  /** The measured steps that completed, with what is known of them without their audits. */
  completed: { index: number; steps: number[]; name: string; mode: 'navigation' | 'timespan'; url?: string; duration: number }[];
  /** The screen the moment the journey failed (JPEG), when the browser could still show it. */
  screenshot?: Buffer;
}
