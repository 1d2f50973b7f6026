/**
 * Lighthouse 13 as a library over our own page: configuration for observed (not simulated) metrics and
 * the read-out of the metrics the report needs.
 */
import type { Config, DevtoolsLog, Result } from 'lighthouse';
import log from 'lighthouse-logger';
import { nonSimulatedSettingsOverrides } from 'lighthouse/core/config/constants.js';
import { initializeConfig } from 'lighthouse/core/config/config.js';
import { getBenchmarkIndex } from 'lighthouse/core/gather/driver/environment.js';
import * as LighthouseTraceEngine from 'lighthouse/core/lib/trace-engine.js';
import { Driver } from 'lighthouse/core/gather/driver.js';
import { _cleanup, _navigation, _setup } from 'lighthouse/core/gather/navigation-runner.js';
import { finalizeArtifacts, getBaseArtifacts } from 'lighthouse/core/gather/base-artifacts.js';
import { awaitArtifacts, collectPhaseArtifacts, getEmptyArtifactState } from 'lighthouse/core/gather/runner-helpers.js';
import { enableAsyncStacks, prepareTargetForTimespanMode } from 'lighthouse/core/gather/driver/prepare.js';
import { Runner } from 'lighthouse/core/runner.js';
import type { Page } from 'puppeteer-core';
import type { Emulation } from './conditions/emulation.js';
import { lighthouseThrottling, type Throttle } from './conditions/throttle.js';
import { feedsLighthouse, type RunOptions } from './conditions/types.js';

/**
 * Lighthouse 13.5.0 is pinned and patched (patches/lighthouse+13.5.0.patch, applied by `postinstall` through
 * patch-package, which fails the install if the patch no longer applies):
 * - observed (non-simulated) runs no longer raise every quiet window to at least 5.25 s: we wait for the load
 *   ourselves (load-wait.ts: 2 s of network silence, then only as long as observed TTI needs), so that floor
 *   would only add dead time to each run;
 * - the ~1 s CPU benchmark of the host (environment.benchmarkIndex) is measured once per process, or given by us
 *   (provideBenchmarkIndex): it describes the machine, not the page, and only the simulator we do not run
 *   depends on it;
 * - each ICU message formatter is made once per process (formatting an audit's strings made a new one per call,
 *   ~0.15 s of every report's audits);
 * - the image gatherer's 5 s budget is a deadline, not a timer (the timer stayed pending 5 s after every load and
 *   kept a process that had finished its work alive that long);
 * - the trace engine parses one trace at a time per process (its insights' parse and the CLS check's): it keeps
 *   the trace it parses in module state and awaits mid-parse, so two loads audited at once (an agent's two slots)
 *   mixed their traces (one page's insights given to the other, or none: 'No navigations insights found').
 * speedline-core 1.4.3, under Lighthouse's speed-index, is patched too (patches/speedline-core+1.4.3.patch): the
 * white frame it puts before the first screenshot is made once per size instead of encoded and decoded per report,
 * and the first frame is decoded once (same speed index, ~70 ms less a report).
 * Running unpatched would silently make every test ~6 s slower, so refuse to.
 */
export function assertLighthousePatched(): void {
  const floors = Object.values(nonSimulatedSettingsOverrides as Record<string, number>);
  const patched = floors.length > 0 && floors.every((v) => v === 0) &&
    (getBenchmarkIndex as { webgaugePatched?: boolean }).webgaugePatched === true &&
    typeof (LighthouseTraceEngine as { oneTraceAtATime?: unknown }).oneTraceAtATime === 'function';
  if (!patched) {
    throw new Error('Lighthouse is not patched: run `npm ci` (its postinstall applies patches/lighthouse+13.5.0.patch ' +
      'with patch-package); if Lighthouse was upgraded, port the patch to the new version first');
  }
}
assertLighthousePatched();

export interface LighthouseSetup {
  emulation: Emulation;
  throttle: Throttle | undefined;
  /** The CPU throttling rate we apply during the load (recorded in the result's settings; 1 or absent: none). */
  cpuRate?: number;
  /** Upper bound for the load itself (Lighthouse continues with a warning after it). */
  maxWaitForLoadMs: number;
  /**
   * What Lighthouse gathers and audits: `performance`, its report; `metrics`, the trace and devtools log with only
   * the `metrics` audit (a journey without Lighthouse's report: its steps' figures); `network`, the devtools log
   * alone (the HAR; a plain test without Lighthouse's report): no trace recorded during the load, nothing computed
   * after it but the network records.
   */
  gather: LighthouseGather;
}

export type LighthouseGather = 'performance' | 'metrics' | 'network';

/** What Lighthouse gathers for a load: its report when the test asks for one; else a journey's metrics, or the network. */
export function lighthouseGather(o: { options: Pick<RunOptions, 'report'>; journey: boolean }): LighthouseGather {
  return feedsLighthouse(o.options) ? 'performance' : o.journey ? 'metrics' : 'network';
}

const ONLY: Record<LighthouseGather, Config['settings']> = {
  performance: { onlyCategories: ['performance'] },
  metrics: { onlyAudits: ['metrics'] },
  network: { onlyAudits: ['network-requests'] },
};

export function lighthouseConfig(setup: LighthouseSetup): Config {
  const { emulation } = setup;
  return {
    extends: 'lighthouse:default',
    settings: {
      ...ONLY[setup.gather],
      // The form factor selects the desktop or mobile scoring curves.
      formFactor: emulation.formFactor,
      screenEmulation: {
        mobile: emulation.mobile,
        width: emulation.width,
        height: emulation.height,
        deviceScaleFactor: emulation.dppx,
        disabled: false,
      },
      // The UA (and matching client hints) is set on our own page session (run.ts); Lighthouse's override
      // would add client hints claiming macOS or a Moto G whatever the UA says.
      emulatedUserAgent: false,
      ...lighthouseThrottling(setup.throttle, setup.cpuRate),
      // Our requestor holds the navigation open until the load is over; Lighthouse only waits for onload.
      // (No FCP wait: a page that never paints is reported as NO_FCP after its load, not after 30 s.)
      networkQuietThresholdMs: 0,
      cpuQuietThresholdMs: 0,
      pauseAfterLoadMs: 0,
      pauseAfterFcpMs: 0,
      maxWaitForLoad: setup.maxWaitForLoadMs,
      // Not used by any performance audit (only for element thumbnails in the HTML report); costs ~0.3 s.
      disableFullPageScreenshot: true,
      // bf-cache's gatherer navigates away and back after the load: a second load would break the
      // "one load" rule (timings, screenshot and server logs would describe the reload).
      skipAudits: ['bf-cache'],
      locale: 'en-US',
    },
  };
}

/** The host's benchmark index, read by the agent off the load's critical path: Lighthouse reports it, never measures it. */
export function provideBenchmarkIndex(value: number): void {
  (getBenchmarkIndex as unknown as { webgaugeProvide(v: number): void }).webgaugeProvide(value);
}

export interface LighthouseRun {
  lhr: Result;
  devtoolsLog: DevtoolsLog;
}

type ResolvedConfig = Awaited<ReturnType<typeof initializeConfig>>['resolvedConfig'];

/**
 * Resolving a configuration takes Lighthouse ~0.3 s (mostly formatting its messages), the same work for every load
 * of the same settings: it is done once per distinct configuration (a handful: desktop or mobile, throttled or not)
 * and the result copied per load. Gatherers keep the state of the load they gather, so each load gets instances of
 * its own; settings, categories and groups are copied, as Lighthouse writes into them while it reports.
 */
const resolvedConfigs = new Map<string, Promise<ResolvedConfig>>();
const RESOLVED_CONFIGS_KEPT = 16;

/** Lighthouse's gather modes we run: a page load, or a span of interactions (journeys). */
type GatherMode = 'navigation' | 'timespan';

async function resolvedConfigFor(config: Config, mode: GatherMode = 'navigation'): Promise<ResolvedConfig> {
  const key = `${mode} ${JSON.stringify(config)}`;
  let resolved = resolvedConfigs.get(key);
  if (!resolved) {
    resolved = initializeConfig(mode, config, {}).then((r) => r.resolvedConfig);
    resolved.catch(() => resolvedConfigs.delete(key));
    resolvedConfigs.set(key, resolved);
    if (resolvedConfigs.size > RESOLVED_CONFIGS_KEPT) resolvedConfigs.delete(resolvedConfigs.keys().next().value!);
  }
  const base = await resolved;
  return {
    ...base,
    settings: structuredClone(base.settings),
    categories: base.categories && structuredClone(base.categories),
    groups: base.groups && structuredClone(base.groups),
    artifacts: base.artifacts?.map((a: { gatherer: { implementation?: new () => unknown } }) =>
      ({ ...a, gatherer: { ...a.gatherer, instance: new a.gatherer.implementation!() } })),
  } as ResolvedConfig;
}

/** Resolves a configuration ahead of its first load (at start), so that load does not pay for it either. */
export async function warmLighthouse(config: Config, mode: GatherMode = 'navigation'): Promise<void> {
  await resolvedConfigFor(config, mode);
}

/** A load gathered by Lighthouse; its audits run when asked for, beside whatever the caller does meanwhile. */
export interface LighthouseGathered {
  devtoolsLog: DevtoolsLog;
  /** Lighthouse's audits of the gathered load (pure computation: the page is no longer needed). */
  audit(): Promise<Result>;
}

/** What Lighthouse's fetcher (its SourceMaps gatherer) gets after the load: the runner's fetch (after-load-fetch.ts). */
export type LighthouseFetch = (url: string, options?: { timeout: number }) => Promise<{ content: string | null; status: number | null }>;

/** Lighthouse's fetches go through `fetch` (the browser's guard is sealed after the load). */
function fetchThrough(driver: Driver, fetch: LighthouseFetch | undefined): void {
  const fetcher = (driver as unknown as { fetcher?: { fetchResource: LighthouseFetch } }).fetcher;
  if (fetch && fetcher) fetcher.fetchResource = fetch;
}

/**
 * Lighthouse navigation mode over our page, as `lighthouse.navigation()` runs it, with the resolved configuration
 * from resolvedConfigFor and the audits left to the caller. `requestor` performs the navigation and resolves when
 * the load is over.
 */
export async function gatherLighthouse(page: Page, requestor: () => Promise<void>, config: Config, fetch?: LighthouseFetch):
Promise<LighthouseGathered> {
  log.setLevel('silent');
  const resolvedConfig = await resolvedConfigFor(config);
  const computedCache = new Map();
  const runnerOptions = { resolvedConfig, computedCache };
  // Lighthouse types the page with its own copy of puppeteer-core's declarations; it is the same package.
  const lhPage = page as unknown as ConstructorParameters<typeof Driver>[0];
  const artifacts = await Runner.gather(async () => {
    const driver = new Driver(lhPage);
    const context = { driver, page: lhPage, resolvedConfig, requestor, computedCache, lhBrowser: undefined, lhPage: undefined };
    const { baseArtifacts } = await _setup(context);
    fetchThrough(driver, fetch);
    const gathered = await _navigation({ ...context, baseArtifacts });
    await _cleanup(context);
    return finalizeArtifacts(baseArtifacts, gathered);
  }, runnerOptions);
  return gatheredOf(artifacts, runnerOptions);
}

/** A timespan under way (journeys): Lighthouse's instrumentation runs until `end`. */
export interface LighthouseTimespan {
  end(): Promise<LighthouseGathered>;
}

/**
 * Lighthouse's timespan mode over our page, as `startTimespanGather` runs it (user-flow.js), with the resolved
 * configuration from resolvedConfigFor (the same settings as the navigations) and the audits left to the caller.
 */
export async function startTimespan(page: Page, config: Config, fetch?: LighthouseFetch): Promise<LighthouseTimespan> {
  log.setLevel('silent');
  const resolvedConfig = await resolvedConfigFor(config, 'timespan');
  const lhPage = page as unknown as ConstructorParameters<typeof Driver>[0];
  const driver = new Driver(lhPage);
  await driver.connect();
  fetchThrough(driver, fetch);
  const computedCache = new Map();
  const baseArtifacts = await getBaseArtifacts(resolvedConfig, driver, { gatherMode: 'timespan' });
  const artifactState = getEmptyArtifactState();
  const phaseOptions = {
    driver, page: lhPage, artifactDefinitions: resolvedConfig.artifacts ?? [], artifactState, baseArtifacts, computedCache,
    gatherMode: 'timespan' as const, settings: resolvedConfig.settings,
  };
  await prepareTargetForTimespanMode(driver, resolvedConfig.settings);
  const disableAsyncStacks = await enableAsyncStacks(driver.defaultSession);
  await collectPhaseArtifacts({ phase: 'startInstrumentation', ...phaseOptions });
  await collectPhaseArtifacts({ phase: 'startSensitiveInstrumentation', ...phaseOptions });
  return {
    async end() {
      const runnerOptions = { resolvedConfig, computedCache };
      const artifacts = await Runner.gather(async () => {
        baseArtifacts.URL = { finalDisplayedUrl: await driver.url() };
        await collectPhaseArtifacts({ phase: 'stopSensitiveInstrumentation', ...phaseOptions });
        await collectPhaseArtifacts({ phase: 'stopInstrumentation', ...phaseOptions });
        await disableAsyncStacks();
        await collectPhaseArtifacts({ phase: 'getArtifact', ...phaseOptions });
        await driver.disconnect();
        return finalizeArtifacts(baseArtifacts, await awaitArtifacts(artifactState));
      }, runnerOptions);
      return gatheredOf(artifacts, runnerOptions);
    },
  };
}

type RunnerOptions = Parameters<typeof Runner.audit>[1];

/** What the caller takes of gathered artifacts: the devtools log, and the audits when it asks for them. */
function gatheredOf(artifacts: Awaited<ReturnType<typeof Runner.gather>>, runnerOptions: RunnerOptions): LighthouseGathered {
  const withLogs = artifacts as { DevtoolsLog?: DevtoolsLog; DevtoolsLogError?: DevtoolsLog };
  return {
    devtoolsLog: withLogs.DevtoolsLog ?? withLogs.DevtoolsLogError ?? [],
    audit: async () => {
      const result = await Runner.audit(artifacts, runnerOptions);
      if (!result) throw new Error('Lighthouse returned no result');
      return result.lhr;
    },
  };
}

export interface LighthouseMetrics {
  speed_index?: number;
  largest_contentful_paint?: number;
  time_to_interactive?: number;
  total_blocking_time?: number;
  cumulative_layout_shift?: number;
  performance_score?: number;
}

export function lighthouseMetrics(lhr: Result): LighthouseMetrics {
  const value = (id: string): number | undefined => {
    const v = lhr.audits[id]?.numericValue;
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  };
  const rounded = (id: string): number | undefined => {
    const v = value(id);
    return v === undefined ? undefined : Math.round(v);
  };
  const cls = value('cumulative-layout-shift');
  const score = lhr.categories.performance?.score;
  const metrics: LighthouseMetrics = {
    speed_index: rounded('speed-index'),
    largest_contentful_paint: rounded('largest-contentful-paint'),
    time_to_interactive: rounded('interactive'),
    total_blocking_time: rounded('total-blocking-time'),
    cumulative_layout_shift: cls === undefined ? undefined : Math.round(cls * 10_000) / 10_000,
    performance_score: typeof score === 'number' ? Math.round(score * 100) : undefined,
  };
  // Absent, not undefined, when Lighthouse could not compute a metric.
  for (const key of Object.keys(metrics) as (keyof LighthouseMetrics)[]) {
    if (metrics[key] === undefined) delete metrics[key];
  }
  return metrics;
}

/** Navigation start on the protocol's monotonic clock (seconds), as Lighthouse observed it in the trace. */
export function observedNavigationStart(lhr: Result): number | undefined {
  const details = lhr.audits.metrics?.details as { items?: { observedNavigationStartTs?: number }[] } | undefined;
  const ts = details?.items?.[0]?.observedNavigationStartTs;
  return typeof ts === 'number' ? ts / 1e6 : undefined;
}

/** Per-step durations from Lighthouse's own timing entries, for the run's phases. */
export function lighthousePhases(lhr: Result): Record<string, number> {
  // (No 'lh:config': the configuration is resolved once, at the agent's warm-up, not in a load.)
  const pick: Record<string, string> = {
    'lh:gather:getBenchmarkIndex': 'lighthouse_benchmark',
    'lh:driver:navigate': 'lighthouse_navigate',
    'lh:runner:audit': 'lighthouse_audit',
  };
  const phases: Record<string, number> = {};
  let gatherStart: number | undefined;
  let navigateEnd: number | undefined;
  for (const entry of lhr.timing.entries) {
    const name = pick[entry.name];
    if (name) phases[name] = Math.round(entry.duration);
    if (entry.name === 'lh:driver:navigate') navigateEnd = entry.startTime + entry.duration;
    if (entry.name === 'lh:runner:audit') gatherStart = entry.startTime;
  }
  // Artifact collection after the load, up to the audits.
  if (gatherStart !== undefined && navigateEnd !== undefined) {
    phases.lighthouse_gather_after_load = Math.round(gatherStart - navigateEnd);
  }
  return phases;
}
