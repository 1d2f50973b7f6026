/**
 * Where a test is (issue 48, "every wait shows where it is"): its phases in order, what the progress screen calls
 * each, and the estimate of how long a test takes at its location, from the location's recently completed tests.
 * The agent reports a started test's phase with its lease renewals (agent/agent.ts, docs/agent-protocol.md), so a remote
 * agent's test shows its phase as a local one's does.
 */
import { median } from '../../analysis/statistics.js';
import { LOAD_PHASES, type LoadPhase } from '../../runner/types.js';
import { plural } from '../../lib/words.js';

/** A started test's phases as its agent reports them: a load's (runner/types.ts LOAD_PHASES), then the result stored. */
export const TEST_PHASES = [...LOAD_PHASES, 'storing'] as const satisfies readonly string[];
export type TestPhase = (typeof TEST_PHASES)[number];

/** What the agent reports: the phase, and which of the test's loads it is in (from 1). */
export interface PhaseReport {
  phase: TestPhase;
  run: number;
}

/** The most loads a test makes (runs and the host-quality check's extra loads), the bound of a reported `run`. */
const MAX_RUN = 100;

export const isTestPhase = (v: unknown): v is TestPhase => typeof v === 'string' && (TEST_PHASES as readonly string[]).includes(v);

/** A phase report as it came (from a remote agent), checked; undefined when it is not one. */
export function checkedPhaseReport(phase: unknown, run: unknown): PhaseReport | undefined {
  return isTestPhase(phase) && typeof run === 'number' && Number.isSafeInteger(run) && run >= 1 && run <= MAX_RUN
    ? { phase, run } : undefined;
}

/**
 * The steps of a test's progress as the screen lists them, in order: queued, the agent's phases, completed. `started`
 * stands for a started test no phase was reported of yet (its agent is setting out).
 */
export const PROGRESS_STEPS = ['queued', ...TEST_PHASES] as const;
export type ProgressStep = (typeof PROGRESS_STEPS)[number];

const STEP_NAMES: Record<ProgressStep, string> = {
  queued: 'Queued',
  launching: 'Launching the browser',
  loading: 'Loading the page',
  auditing: 'Lighthouse audits',
  storing: 'Storing the results',
};

/** A step's name on the screen (Firefox runs no Lighthouse: its captures are read instead). */
export function stepName(step: ProgressStep, firefox = false): string {
  return step === 'auditing' && firefox ? 'Reading the captures' : STEP_NAMES[step];
}

/** Where a queued or started test is among PROGRESS_STEPS (a started test not heard from yet: launching). */
export function currentStep(state: string, phase: string | null | undefined): ProgressStep | undefined {
  if (state === 'queued') return 'queued';
  if (state !== 'started') return undefined;
  return isTestPhase(phase) ? phase : 'launching';
}

/** The status line of a started test: its phase, and which load when it loads the page more than once. */
export function startedLabel(phase: string | null | undefined, run: number | null | undefined, runs: number, firefox = false): string {
  if (!isTestPhase(phase)) return 'Started: the agent is setting out';
  const name = stepName(phase, firefox);
  const said = name.startsWith('Lighthouse') ? name : name[0]!.toLowerCase() + name.slice(1);
  return runs > 1 && phase !== 'storing' && run ? `Started: load ${run} of ${runs}, ${said}` : `Started: ${said}`;
}

/** "8 s", "1 min 05 s", "1 h 02 min": a wait as a person reads it (the client script ticks it in the same words). */
export function durationText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor(s / 60) % 60).padStart(2, '0')} min`;
}

/** How many of the location's latest completed tests the estimate reads, and how far back (the tests' retention). */
export const ESTIMATE_TESTS = 20;

export interface Estimate {
  /** The median duration (ms) from an agent taking a test to its result stored. */
  ms: number;
  /** Of how many tests. */
  tests: number;
}

/** The estimate from the durations of the location's latest completed tests; none without any. */
export function estimateOf(durations: readonly number[]): Estimate | undefined {
  const usable = durations.filter((d) => Number.isFinite(d) && d >= 0).slice(0, ESTIMATE_TESTS);
  return usable.length === 0 ? undefined : { ms: median(usable), tests: usable.length };
}

/** "about 25 s": rounded as a person would say it (to the second below 10 s, to 5 s below a minute, then to 10 s). */
export function aboutText(ms: number): string {
  const s = ms / 1000;
  const rounded = s < 10 ? Math.max(1, Math.round(s)) : s < 60 ? Math.round(s / 5) * 5 : Math.round(s / 10) * 10;
  return `about ${durationText(rounded * 1000).replace(/ 00 s$/, '')}`;
}

/** "A test at Local takes about 25 s once an agent has it (the median of its last 12 completed tests)." */
export function estimateText(e: Estimate, locationName: string): string {
  const of = e.tests === 1 ? 'the one test completed there lately' : `the median of its last ${plural(e.tests, 'completed test')}`;
  return `A test at ${locationName} takes ${aboutText(e.ms)} once an agent has it (${of}).`;
}
