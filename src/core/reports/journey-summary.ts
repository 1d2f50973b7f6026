/**
 * A journey report's steps as the report shows them (the `journey` attribute, the report page's and the app's step
 * table): each measured step's name, mode, URL, place on the film and figures, the report's own step marked. Kept in
 * the report row (reports.journey, JSON), read back with its shape checked.
 */
import type { JourneyResult } from '../../runner/journey/result.js';

export interface JourneyStepSummary {
  /** The first recording step it covers (the index journey_measured_step names). */
  index: number;
  steps: number[];
  name: string;
  mode: 'navigation' | 'timespan';
  url: string;
  /** ms since the journey's first navigation started, and how long the step took. */
  start: number;
  duration: number;
  /** Whether the report's figures are this step's. */
  measured: boolean;
  figures: Record<string, number>;
  warnings?: string[];
}

export interface JourneySummary {
  title: string;
  measured_step: number;
  steps: JourneyStepSummary[];
}

/** What the report keeps of a run's journey (the FlowResult goes to flow.json). */
export function journeySummary(j: JourneyResult): JourneySummary {
  return {
    title: j.title,
    measured_step: j.measured_step,
    steps: j.steps.map((s) => ({
      index: s.index, steps: [...s.steps], name: s.name, mode: s.mode, url: s.url, start: s.start, duration: s.duration,
      measured: s.index === j.measured_step,
      figures: Object.fromEntries(Object.entries(s.figures).filter(([, v]) => typeof v === 'number' && Number.isFinite(v))),
      ...(s.warnings ? { warnings: [...s.warnings] } : {}),
    })),
  };
}

const isStep = (v: unknown): v is JourneyStepSummary => {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return typeof s.index === 'number' && Array.isArray(s.steps) && typeof s.name === 'string' &&
    (s.mode === 'navigation' || s.mode === 'timespan') && typeof s.url === 'string' && typeof s.start === 'number' &&
    typeof s.duration === 'number' && typeof s.measured === 'boolean' && typeof s.figures === 'object' && s.figures !== null;
};

/** A report's stored journey (reports.journey); undefined for a plain report or a damaged value. */
export function readJourneySummary(text: string | null | undefined): JourneySummary | undefined {
  if (!text) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined; // only completeTest writes the column; a damaged value hides the table, not the report
  }
  if (typeof o !== 'object' || o === null) return undefined;
  const { title, measured_step, steps } = o as Record<string, unknown>;
  if (typeof title !== 'string' || typeof measured_step !== 'number' || !Array.isArray(steps) || !steps.every(isStep)) return undefined;
  return { title, measured_step, steps };
}
