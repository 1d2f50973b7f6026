/**
 * What the runner is given about a test: the options it reads and the load's conditions. Defined here, in the
 * runner, because the runner imports nothing from core, store, api or web; core builds values of these types
 * (core/options/analysis-options.ts AnalysisOptions is a RunOptions, core/options/conditions.ts makes the LoadConditions).
 */
import type { DnsOverride } from '../../net/resolve.js';
import type { Recording } from '../journey/recording.js';

/** The test options the runner reads: what the load produces (report, video), where it ends, the emulated screen. */
export interface RunOptions {
  url: string;
  /** Which reports the load feeds: contains "lighthouse" and/or "legacy", or is "none". */
  report: string;
  video: 0 | 1;
  stop_onload: 0 | 1;
  user_agent?: string;
  browser_width?: number;
  browser_height?: number;
  browser_dppx?: number;
  browser_rotate: 0 | 1;
  /** Page loads behind the report: absent for one. */
  runs?: number;
}

/** Whether the load feeds a Lighthouse report (its audits, images, score; TTI's window); journeys always do. */
export const feedsLighthouse = (options: Pick<RunOptions, 'report'>): boolean => options.report.includes('lighthouse');

/** The figures of a `throttle` value: download and upload in Kbit/s, latency in ms. */
export interface ThrottleFigures {
  downloadKbps: number;
  uploadKbps: number;
  latencyMs: number;
}

/** A cookie set in the browser before the load, host-only for the tested URL (docs/api.md "Test options": cookies). */
export interface TestCookie {
  name: string;
  value: string;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

export interface LoadConditions {
  url: string;
  /** The link: the test's `throttle`, else its device class's default link (vocabulary/device-classes.ts). */
  throttle?: ThrottleFigures;
  /** The device class the load runs as (vocabulary/device-classes.ts): its CPU target, and a phone's screen. */
  device: DeviceConditions;
  cookies: TestCookie[];
  dns: DnsOverride[];
  allowUrl: string[];
  blockUrl: string[];
  adblock: boolean;
  auth?: { username: string; password: string };
  /** The load ends at the end of onload instead of at fully loaded. */
  stopOnload: boolean;
  /** A journey (a Recorder recording replayed step by step); without one, the load is the navigation to `url`. */
  journey?: JourneyConditions;
}

/** What the runner needs of a device class: the agent throttles the CPU to `cpuTarget` by its calibration. */
export interface DeviceConditions {
  deviceClass: string;
  /** The BenchmarkIndex the CPU is slowed to; none: the host's CPU. */
  cpuTarget?: number;
  /** Without a simulated device or a size: Lighthouse's mobile screen and a mobile Chrome user agent. */
  phoneScreen: boolean;
}

export interface JourneyConditions {
  recording: Recording;
  /** Values of its `{{secrets.NAME}}` placeholders, filled in as each step runs. */
  secrets: Record<string, string>;
  /** The navigation step (index into the recording's steps) whose figures the report gives. */
  measuredStep: number;
}
