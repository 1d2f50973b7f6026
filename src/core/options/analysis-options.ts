/**
 * The normalised analysis options of a test: what POST /tests accepted, with defaults filled in.
 * Stored with the test and the report, returned by the `analysis-options` resource, and hashed into the
 * page fingerprint. Optional fields are absent (not undefined) when the user did not give them. What each option
 * is (kind, pro only, capability, identity, secret) is the options table's (vocabulary/options.ts).
 */
import type { ReportType } from '../vocabulary/report-types.js';
import type { Retention } from '../vocabulary/retentions.js';
import type { DeviceClass } from '../vocabulary/device-classes.js';
import type { Recording } from '../../runner/journey/recording.js';

export type { ReportType, Retention };
export type Flag = 0 | 1;

export interface AnalysisOptions {
  url: string;
  location: string;
  browser: string;
  report: ReportType;
  retention: Retention;
  httpauth_username?: string;
  httpauth_password?: string;
  adblock: Flag;
  cookies: string[];
  video: Flag;
  stop_onload: Flag;
  /** `down/up/latency`: Kbit/s, Kbit/s, ms. */
  throttle?: string;
  allow_url: string[];
  block_url: string[];
  /** `host:ip` overrides. */
  dns: string[];
  simulate_device?: string;
  /**
   * The device class (vocabulary/device-classes.ts): its CPU, default link and screen. Absent when it is the
   * default for the other options (defaultDeviceClass): a simulated device is a mid-tier phone, else a desktop.
   */
  device_class?: DeviceClass;
  user_agent?: string;
  browser_width?: number;
  browser_height?: number;
  browser_dppx?: number;
  browser_rotate: Flag;
  /** Page loads behind the report (Webgauge's extension): absent for one, 2 to the plan's max_runs otherwise. */
  runs?: number;
  /** A Chrome DevTools Recorder recording replayed and measured step by step (core/options/journey.ts); `url` is its first navigation. */
  journey?: Recording;
  /** Values of the journey's `{{secrets.NAME}}` placeholders: write-only, sealed at rest, filled in at run time only. */
  journey_secrets?: Record<string, string>;
  /** The navigation step (index into the journey's steps) whose figures the report gives; set whenever `journey` is. */
  journey_measured_step?: number;
}

/** How many times the page is loaded for one test (1 when the test did not ask for more). */
export const runCount = (o: Pick<AnalysisOptions, 'runs'>): number => o.runs ?? 1;

/**
 * Retests and monitored tests repeat stored options: an account since moved to a plan with fewer runs per test
 * gets its plan's most (POST /tests refuses more with E40004 instead).
 */
export function withRunsUpTo(o: AnalysisOptions, maxRuns: number): AnalysisOptions {
  if (runCount(o) <= maxRuns) return o;
  const { runs: _dropped, ...rest } = o;
  return maxRuns > 1 ? { ...rest, runs: maxRuns } : rest;
}
