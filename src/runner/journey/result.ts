/**
 * What a journey's run gives besides the report step's figures: every measured step with its own figures (a
 * navigation's as a plain test's, a timespan's interaction figures), Lighthouse's FlowResult, and one HAR with a page
 * per step. Pure functions over what the load collected (load/collect.ts).
 */
import type { Result } from 'lighthouse';
import { transferSize, type Har, type HarEntry } from '../capture/har.js';
import type { RunMetrics } from '../metrics.js';
import type { StepMode } from './recording.js';

/** The figures of a timespan step: the interactions it covers, as Lighthouse measured them over the span. */
export interface TimespanFigures {
  /** Interaction to Next Paint (ms): the slowest interaction's, as Lighthouse reports it; absent without interaction. */
  interaction_to_next_paint?: number;
  total_blocking_time?: number;
  cumulative_layout_shift?: number;
  page_requests: number;
  page_bytes: number;
  /** From the span's first step to its last network activity (or the end of its last step, if later). */
  duration: number;
}

/** One measured step of a journey (the `journey` report attribute lists them). */
export interface JourneyStepResult {
  /** The first recording step it covers (a navigation covers one): the index `journey_measured_step` names. */
  index: number;
  /** Every recording step it covers. */
  steps: number[];
  /** The recording's title and the step (Lighthouse's step name in flow.json). */
  name: string;
  mode: StepMode;
  /** The page the step ended on. */
  url: string;
  /** When it began, ms since the journey's first navigation started (the film's zero). */
  start: number;
  /** How long it took, ms (a navigation: until its load was over; a timespan: see TimespanFigures.duration). */
  duration: number;
  /** Its page in net.har. */
  har_page: string;
  /** A navigation's figures are a plain test's (with its Lighthouse performance score); a timespan's its own. */
  figures: (RunMetrics & { performance_score?: number }) | TimespanFigures;
  warnings?: string[];
}

export interface JourneyResult {
  title: string;
  /** The recording index of the navigation step the report's figures come from. */
  measured_step: number;
  steps: JourneyStepResult[];
  /** Lighthouse's FlowResult: every step's full result, named (flow.json, and Lighthouse's own flow report). */
  flow: { name: string; steps: { lhr: Result; name: string }[] };
}

/** HAR page id of a measured step. */
export const harPageId = (n: number): string => `page_${n + 1}`;

/** One HAR of every step: a page per step (named after it, begun when it began), its entries referring to it. */
export function journeyHar(steps: readonly { har: Har; name: string; startedAt: number; pageTimings: { onContentLoad: number; onLoad: number } }[]): Har {
  const entries: HarEntry[] = [];
  const pages = steps.map((step, n) => {
    const id = harPageId(n);
    for (const entry of step.har.log.entries) entries.push({ ...entry, pageref: id });
    return { id, startedDateTime: new Date(step.startedAt).toISOString(), title: step.name, pageTimings: step.pageTimings };
  });
  const first = steps[0]?.har.log;
  return { log: { ...first, version: '1.2', pages, entries } };
}

/** The entries of one step's page in a journey's HAR. */
export function entriesOfPage(har: Har, pageId: string): HarEntry[] {
  return har.log.entries.filter((e) => e.pageref === pageId);
}

const numeric = (lhr: Result, id: string): number | undefined => {
  const v = lhr.audits[id]?.numericValue;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

/** A timespan's figures from its Lighthouse result and its HAR entries. */
export function timespanFigures(lhr: Result, entries: readonly HarEntry[], durationMs: number): TimespanFigures {
  const inp = numeric(lhr, 'interaction-to-next-paint');
  const tbt = numeric(lhr, 'total-blocking-time');
  const cls = numeric(lhr, 'cumulative-layout-shift');
  return {
    ...(inp === undefined ? {} : { interaction_to_next_paint: Math.round(inp) }),
    ...(tbt === undefined ? {} : { total_blocking_time: Math.round(tbt) }),
    ...(cls === undefined ? {} : { cumulative_layout_shift: Math.round(cls * 10_000) / 10_000 }),
    page_requests: entries.length,
    page_bytes: entries.reduce((sum, e) => sum + transferSize(e), 0),
    duration: Math.max(0, Math.round(durationMs)),
  };
}
