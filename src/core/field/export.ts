/**
 * Field figures as the API's attributes and the downloads (CSV) give them: one shape, rounded as each figure's unit
 * prints (a time to the millisecond, layout shift to 3 decimals), shares to 4 decimals.
 */
import { FIELD_FIGURES, FIELD_FIGURE_NAMES, roundFigure, type FieldFigureName } from '../../analysis/figures.js';
import { csvOf } from '../../lib/csv.js';
import type { BreakdownRow, FieldFigures, MetricFigures, SeriesPoint } from './figures.js';

const UNIT = new Map(FIELD_FIGURES.map((f) => [f.name as FieldFigureName, f.unit]));
const round = (name: FieldFigureName, v: number | null) => (v === null ? null : roundFigure(UNIT.get(name)!, v));
const share = (v: number | null) => (v === null ? null : Math.round(v * 10_000) / 10_000);

export function metricAttributes(name: FieldFigureName, m: MetricFigures) {
  return {
    page_views: m.n, p50: round(name, m.p50), p75: round(name, m.p75), p90: round(name, m.p90),
    good: share(m.good), needs_improvement: share(m.needsImprovement), poor: share(m.poor), rating: m.rating,
  };
}

export function figuresAttributes(f: FieldFigures) {
  return {
    page_views: f.views,
    metrics: Object.fromEntries(FIELD_FIGURE_NAMES.map((n) => [n, metricAttributes(n, f.metrics[n])])) as Record<FieldFigureName, ReturnType<typeof metricAttributes>>,
  };
}

export const p75Attributes = (p: SeriesPoint['p75']) =>
  Object.fromEntries(FIELD_FIGURE_NAMES.map((n) => [n, round(n, p[n])])) as Record<FieldFigureName, number | null>;

/** Each day of a series: date (UTC), views, each metric's p75. */
export function seriesCsv(points: readonly SeriesPoint[]): string {
  return csvOf(['date', 'page_views', ...FIELD_FIGURE_NAMES.map((n) => `${n}_p75`)],
    points.map((p) => [new Date(p.day).toISOString().slice(0, 10), p.views, ...FIELD_FIGURE_NAMES.map((n) => round(n, p.p75[n]))]));
}

const METRIC_COLUMNS = ['page_views', 'p50', 'p75', 'p90', 'good', 'needs_improvement', 'poor'] as const;

/** Each row of a breakdown: its value, views, and per metric its views, percentiles and shares. */
export function breakdownCsv(by: string, rows: readonly BreakdownRow[]): string {
  const header = [by, 'page_views', ...FIELD_FIGURE_NAMES.flatMap((n) => METRIC_COLUMNS.map((c) => `${n}_${c}`))];
  return csvOf(header, rows.map((r) => {
    const a = figuresAttributes(r.figures);
    return [r.value, r.figures.views, ...FIELD_FIGURE_NAMES.flatMap((n) => METRIC_COLUMNS.map((c) => a.metrics[n][c]))];
  }));
}
