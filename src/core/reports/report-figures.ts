/**
 * The figures of a report made from one load: its metric columns, scores and grade. One mapping from a run to
 * what a report shows, used for the report row (core/reports/reports.ts), for every run of a multi-run test (runs.json)
 * and by the API's report attributes. No store here: a remote agent computes the figures of its runs too.
 */
import { grade, structureReport, type Grade, type StructureReport } from '../../analysis/grade.js';
import type { HarLike } from '../../analysis/har.js';
import type { RunFigures } from '../../analysis/median-run.js';
import type { ReportsTable } from '../../store/schema.js';
import type { RunMetrics, RunResult } from '../../runner/types.js';
import { LIGHTHOUSE_METRICS, LOAD_METRICS } from '../vocabulary/metrics.js';
import { hasLighthouse } from '../vocabulary/report-types.js';

/** The report columns a run's metrics fill (the metrics table's load and Lighthouse rows), re-exported for callers. */
export { LIGHTHOUSE_METRICS, LOAD_METRICS };
type MetricColumn = (typeof LOAD_METRICS)[number] | (typeof LIGHTHOUSE_METRICS)[number];
export type MetricColumns = Pick<ReportsTable, MetricColumn>;

export function metricColumns(m: RunMetrics, lighthouseRan: boolean): MetricColumns {
  const columns: Partial<Record<MetricColumn, number | null>> = {};
  for (const k of LOAD_METRICS) columns[k] = m[k];
  for (const k of LIGHTHOUSE_METRICS) columns[k] = lighthouseRan ? m[k] ?? null : null;
  return columns as MetricColumns;
}

/** A metric as the API shows it: times and sizes as integers (COMPAT.md), CLS as measured. */
export function metricValue(metric: MetricColumn, value: number): number {
  return metric === 'cumulative_layout_shift' ? value : Math.round(value);
}

/** What a load gives a report besides its files. */
export interface LoadFigures {
  lighthouseRan: boolean;
  /** The Lighthouse that made the figures (its lighthouseVersion), when Lighthouse made any. */
  lighthouseVersion: string | null;
  columns: MetricColumns;
  performanceScore: number | null;
  /** The structure audits behind structure_score (Lighthouse reports). */
  structure?: StructureReport;
  /** Set when the load is graded (both scores exist). */
  structureScore: number | null;
  grade?: { grade: Grade; score: number };
}

/** The requests of the load the report shows: all of them, or a journey's report step's (its HAR page). */
export function reportHar(result: Pick<RunResult, 'har' | 'journey'>): RunResult['har'] {
  const { journey, har } = result;
  if (!journey) return har;
  const page = journey.steps.find((s) => s.index === journey.measured_step)?.har_page;
  return { ...har, log: { ...har.log, entries: har.log.entries.filter((e) => e.pageref === page) } };
}

/**
 * The Lighthouse that made a load's figures: its result's, else a journey's steps' (a journey without Lighthouse's
 * report still measures its steps with Lighthouse); null when no Lighthouse figure came out of the load.
 */
export function lighthouseVersionOf(result: Pick<RunResult, 'lighthouse' | 'journey'>): string | null {
  const version = result.lighthouse?.lighthouseVersion ?? result.journey?.flow.steps[0]?.lhr.lighthouseVersion;
  return typeof version === 'string' && version ? version : null;
}

export function loadFigures(result: RunResult, options: { report: string }): LoadFigures {
  const lighthouseRan = hasLighthouse(options.report) && result.lighthouse !== undefined;
  const performanceScore = lighthouseRan ? result.metrics.performance_score ?? null : null;
  let structure: StructureReport | undefined;
  if (lighthouseRan) {
    const lhr = result.lighthouse as { audits?: Parameters<typeof structureReport>[0] };
    const har = reportHar(result);
    // Lighthouse's audits (the set of the Lighthouse that made the result: a remote agent may run another) and our
    // own (CDN, bad requests, empty src, keep-alive, duplicates) over the HAR and DOM.
    structure = structureReport(lhr.audits, har, result.facts, lighthouseVersionOf(result) ?? undefined);
  }
  const structureScore = structure?.score;
  const graded = performanceScore !== null && structureScore !== undefined;
  return {
    lighthouseRan,
    lighthouseVersion: lighthouseRan || result.journey ? lighthouseVersionOf(result) : null,
    columns: metricColumns(result.metrics, lighthouseRan),
    performanceScore,
    structure,
    structureScore: graded ? structureScore : null,
    grade: graded ? grade(performanceScore, structureScore) : undefined,
  };
}

/** The numeric report attributes of a load, named as the report resource names them (runs.json, meta.runs). */
export function numericAttributes(f: LoadFigures): RunFigures {
  const out: Record<string, number> = {};
  if (f.grade) out.service_score = f.grade.score;
  if (f.performanceScore !== null) out.performance_score = f.performanceScore;
  if (f.structureScore !== null) out.structure_score = f.structureScore;
  for (const k of [...LOAD_METRICS, ...LIGHTHOUSE_METRICS]) {
    const v = f.columns[k];
    if (v !== null) out[k] = metricValue(k, v);
  }
  return out;
}
