/**
 * One load's shared state, handed from phase to phase as Lighthouse's navigation runner hands its context: planned
 * from the spec (planLoad), set up (setup.ts), navigated and gathered by Lighthouse (navigate.ts), collected
 * (collect.ts) and cleaned up (cleanup.ts).
 */
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import type { Config } from 'lighthouse';
import type { LighthouseFetch } from '../lighthouse.js';
import type { RunSpec } from '../types.js';
import type { LaunchAhead, LaunchSettings } from '../launch-ahead.js';
import type { GuardThread } from '../conditions/guard-thread.js';
import type { Emulation } from '../conditions/emulation.js';
import { adblockEngine, adblockJudge } from '../conditions/adblock.js';
import { needsInterceptor, type Interceptor, type InterceptorOptions } from '../conditions/interceptor.js';
import type { LoadWait } from '../load-wait.js';
import type { RawFrame, Screencast } from '../capture/filmstrip.js';
import type { PageExtent } from '../capture/screenshot.js';
import type { PageTimings } from '../capture/timings.js';
import type { CpuSample } from '../host-load.js';
import type { CpuUsed } from '../cpu-calibration.js';
import type { PageFacts } from '../../analysis/facts.js';
import { RunDeadline } from './deadline.js';
import type { StepReplayer } from '../journey/replay.js';
import { measuredSteps, type MeasuredStep, type Recording } from '../journey/recording.js';

/** The longest a load waits for the page (Lighthouse goes on with a warning after it): within the run time limit. */
export const loadWaitLimit = (timeoutMs: number): number => Math.max(5000, Math.min(60_000, Math.round(timeoutMs * 0.6)));

/**
 * The run's phases (RunResult.phases, read by benchmarks and logs): each named phase took the time since the one
 * before it ended; a few more durations overlap them (`observation`, `video_encode`, Lighthouse's own steps).
 */
export class PhaseTimer {
  readonly phases: Record<string, number> = {};
  private readonly started = performance.now();
  private phaseStart = this.started;

  /** Ends the phase under way: `name` took the time since the previous phase ended. */
  end(name: string): void {
    const now = performance.now();
    this.phases[name] = Math.round(now - this.phaseStart);
    this.phaseStart = now;
  }

  /** The next phase starts now (what happened meanwhile is no phase's time). */
  restart(): void {
    this.phaseStart = performance.now();
  }

  /** The run's whole time, from the timer's creation. */
  finish(): void {
    this.phases.total = Math.round(performance.now() - this.started);
  }
}

/**
 * The steps of the load: a journey's measured steps (runner/journey/recording.ts), or, for a plain test, the one
 * navigation to its URL: one path for both.
 */
export interface StepPlan {
  recording: Recording;
  measured: MeasuredStep[];
  /** Index into `measured` of the navigation whose figures the report gives. */
  reportStep: number;
  secrets: Readonly<Record<string, string>>;
  /** A test with a journey (its errors and results name steps); false for the plain navigation. */
  journey: boolean;
}

export function stepPlan(spec: Pick<RunSpec, 'conditions'>): StepPlan {
  const { journey, url } = spec.conditions;
  if (!journey) {
    const recording: Recording = { title: url, steps: [{ type: 'navigate', url } as Recording['steps'][number]] };
    return { recording, measured: measuredSteps(recording), reportStep: 0, secrets: {}, journey: false };
  }
  const measured = measuredSteps(journey.recording);
  const reportStep = measured.findIndex((m) => m.mode === 'navigation' && m.steps[0] === journey.measuredStep);
  if (reportStep < 0) throw new Error(`journey step ${journey.measuredStep} is not a navigation step`);
  return { recording: journey.recording, measured, reportStep, secrets: journey.secrets, journey: true };
}

/** What the request interceptor does (interceptor.ts); the browser is launched to suit it. */
export type LoadFilters = Pick<InterceptorOptions, 'allowUrl' | 'blockUrl' | 'adblock' | 'auth'>;

/** What a load knows before it has a browser: the spec and what follows from it. */
export interface LoadPlan {
  readonly spec: RunSpec;
  readonly filters: LoadFilters;
  readonly launchSettings: LaunchSettings;
  /** Cross-site iframes stay in the page's process, so the interceptor sees their requests too. */
  readonly sameProcessFrames: boolean;
  /** The agent's browsers launched ahead, when this load may take one. */
  readonly ahead: LaunchAhead | undefined;
  readonly deadline: RunDeadline;
  readonly timer: PhaseTimer;
  /** The load wait's limit (loadWaitLimit). */
  readonly maxWaitMs: number;
  readonly steps: StepPlan;
}

/** A measured step of the load, as far as it got (navigate.ts): what a failure reports and the film marks. */
export interface StepProgress {
  /** Which recording steps it covers, and how Lighthouse measured them. */
  measured: MeasuredStep;
  /** Its name in the flow report (the recording's title and its steps). */
  name: string;
  /** Epoch ms: when it began, and when its measurement ended (its load's end, or the network's quiet after it). */
  startedAt: number;
  endedAt?: number;
  /** Navigations: the page read when the load was over. */
  loaded?: Promise<LoadedPage>;
}

/** What is read from the live page the moment a navigation's load is over (navigate.ts readStepPage). */
export interface LoadedPage {
  timings: PageTimings;
  /** The document's size at the load's end (whether a screenshot must scroll). */
  extent: PageExtent;
  rumSi: number;
  facts: PageFacts;
}

/** A load set up (setUpLoad): its browser, page and session, and what the phases learn on the way. */
export interface LoadContext extends LoadPlan {
  readonly browser: Browser;
  /** The browser's connection guard (conditions/guard-thread.ts) and its ledger. */
  readonly connections: GuardThread;
  readonly browserPid: number | undefined;
  readonly page: Page;
  readonly session: CDPSession;
  readonly mainFrameId: string;
  readonly emulation: Emulation;
  /** The host's benchmark index reported for the load, if any. */
  readonly benchmarkIndex: number | undefined;
  /** The device class's CPU: its throttling rate is applied from each step's start to its end. */
  readonly cpu: CpuUsed | undefined;
  readonly interceptor: Interceptor;
  readonly screencast: Screencast;
  /** Replays the journey's steps (the plain navigation needs none of it). */
  readonly replayer: StepReplayer;
  /** Lighthouse's configuration of the load: the same settings for every step, navigation or timespan. */
  readonly config: Config;
  /** Lighthouse's fetches after the load (the source maps the load's scripts named): conditions/after-load-fetch.ts. */
  readonly fetchAfterLoad: LighthouseFetch;
  /** The load wait of the navigation under way (each navigation step has its own). */
  loadWait?: LoadWait;
  /** performance.now() when the first navigation was asked for: the start of the page's own observation. */
  observationStartedAt?: number;
  /** The measured steps begun so far, in order. */
  readonly progress: StepProgress[];
  /** Things the user should know about the load, in the order they were learnt. */
  readonly warnings: string[];
  /** The last hop of the main document's redirects so far. */
  mainDocumentUrl: string;
  /** Why the load cannot succeed (the load wait's verdict), once known. */
  failure?: string;
  cpuAtStart?: CpuSample;
  cpuAtEnd?: CpuSample;
  /** Until when (epoch ms) the film shows the screen: the end of the load wait; 0 with stop_onload. */
  observedUntil?: number;
  /** The screencast's frames, once the last step is over. */
  frames?: Promise<RawFrame[]>;
  /** The video, encoding while Lighthouse gathers and audits. */
  video?: Promise<Buffer>;
}

export function planLoad(spec: RunSpec): LoadPlan {
  const timer = new PhaseTimer();
  const { conditions } = spec;
  const adblock = conditions.adblock ? adblockJudge(adblockEngine(spec.adblockLists)) : undefined;
  const filters: LoadFilters = { allowUrl: conditions.allowUrl, blockUrl: conditions.blockUrl, adblock, auth: conditions.auth };
  const launchSettings: LaunchSettings = { chromePath: spec.chromePath, sandbox: spec.sandbox, trustStore: spec.trustStore,
    protocolTimeoutMs: spec.timeoutMs, policy: spec.policy };
  // Such a load launches a browser of its own; any other takes the one the agent launched ahead (launch-ahead.ts),
  // if it has one.
  const sameProcessFrames = needsInterceptor(filters);
  const ahead = spec.ahead && !sameProcessFrames && spec.ahead.fits(launchSettings) ? spec.ahead : undefined;
  const deadline = new RunDeadline(spec.signal, spec.timeoutMs);
  return { spec, filters, launchSettings, sameProcessFrames, ahead, deadline, timer, maxWaitMs: loadWaitLimit(spec.timeoutMs),
    steps: stepPlan(spec) };
}
