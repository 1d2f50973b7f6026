/**
 * The report metrics (spec 2.2): the one table. Each row is a numeric report attribute, named as the API and
 * the reports table name it, with how the app names and shows it and which direction is better. The report
 * figures (core/reports/report-figures.ts), alerts, the app's compare table and history charts read it.
 */
import type { LighthouseMetrics, LoadMetrics } from '../../runner/metrics.js';
import type { ReportsTable } from '../../store/schema.js';

/** How a figure reads: a 0-100 score, milliseconds, bytes, a count, or layout shift. */
export type MetricUnit = 'score' | 'time' | 'size' | 'count' | 'cls';
export type Better = 'lower' | 'higher';

/** Where the figure comes from: every load, Lighthouse, the grade, or the legacy reports. */
export type MetricSource = 'load' | 'lighthouse' | 'grade' | 'legacy';

export interface MetricSpec {
  /** The report attribute and reports-table column. */
  column: keyof ReportsTable;
  /** As the app names it (compare table). */
  label: string;
  unit: MetricUnit;
  better: Better;
  source: MetricSource;
  /** An alert condition may watch it. */
  alertable: boolean;
  /** The app's compare table shows it, at this position (1 first). */
  compare?: number;
  /** The page view charts it, at this position (1 first): caption, a point's name, the axis top or least top. */
  chart?: { position: number; title: string; label: string; max?: number; minTop?: number };
  /**
   * Its value depends on which Lighthouse audits the structure score read (analysis/structure: an audit set per
   * Lighthouse major version): it compares only with reports of the same set. The performance metrics keep their
   * definitions across versions and compare as before.
   */
  byAuditSet?: true;
}

/** In the order of the report resource's attributes. */
export const METRICS = [
  { column: 'service_score', label: 'Grade %', unit: 'score', better: 'higher', source: 'grade', alertable: true, compare: 1,
    chart: { position: 1, title: 'Grade', label: 'grade', max: 100 }, byAuditSet: true },
  { column: 'performance_score', label: 'Performance', unit: 'score', better: 'higher', source: 'lighthouse', alertable: true, compare: 2,
    chart: { position: 2, title: 'Performance', label: 'performance', max: 100 } },
  { column: 'structure_score', label: 'Structure', unit: 'score', better: 'higher', source: 'lighthouse', alertable: true, compare: 3,
    chart: { position: 3, title: 'Structure', label: 'structure', max: 100 }, byAuditSet: true },
  { column: 'pagespeed_score', label: 'PageSpeed', unit: 'score', better: 'higher', source: 'legacy', alertable: true },
  { column: 'yslow_score', label: 'YSlow', unit: 'score', better: 'higher', source: 'legacy', alertable: true },
  { column: 'html_bytes', label: 'HTML size', unit: 'size', better: 'lower', source: 'load', alertable: true },
  { column: 'page_bytes', label: 'Page size', unit: 'size', better: 'lower', source: 'load', alertable: true, compare: 16,
    chart: { position: 8, title: 'Page size', label: 'page size', minTop: 1024 } },
  { column: 'page_requests', label: 'Requests', unit: 'count', better: 'lower', source: 'load', alertable: true, compare: 17 },
  { column: 'redirect_duration', label: 'Redirect duration', unit: 'time', better: 'lower', source: 'load', alertable: true },
  { column: 'connect_duration', label: 'Connect duration', unit: 'time', better: 'lower', source: 'load', alertable: true },
  { column: 'backend_duration', label: 'Backend duration', unit: 'time', better: 'lower', source: 'load', alertable: true },
  { column: 'time_to_first_byte', label: 'Time to first byte', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 4 },
  { column: 'first_paint_time', label: 'First paint', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 5 },
  { column: 'first_contentful_paint', label: 'First contentful paint', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 6 },
  { column: 'dom_interactive_time', label: 'DOM interactive', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 8 },
  { column: 'dom_content_loaded_time', label: 'DOM content loaded', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 9 },
  { column: 'dom_content_loaded_duration', label: 'DOM content loaded duration', unit: 'time', better: 'lower', source: 'load', alertable: true },
  { column: 'onload_time', label: 'Onload', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 10 },
  { column: 'onload_duration', label: 'Onload duration', unit: 'time', better: 'lower', source: 'load', alertable: true },
  { column: 'fully_loaded_time', label: 'Fully loaded', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 11,
    chart: { position: 7, title: 'Fully loaded', label: 'fully loaded', minTop: 1000 } },
  { column: 'rum_speed_index', label: 'RUM speed index', unit: 'time', better: 'lower', source: 'load', alertable: true },
  { column: 'speed_index', label: 'Speed index', unit: 'time', better: 'lower', source: 'lighthouse', alertable: true, compare: 13 },
  { column: 'largest_contentful_paint', label: 'Largest contentful paint', unit: 'time', better: 'lower', source: 'lighthouse', alertable: true, compare: 7,
    chart: { position: 4, title: 'Largest Contentful Paint', label: 'LCP', minTop: 1000 } },
  { column: 'time_to_interactive', label: 'Time to interactive', unit: 'time', better: 'lower', source: 'lighthouse', alertable: true, compare: 12 },
  { column: 'total_blocking_time', label: 'Total blocking time', unit: 'time', better: 'lower', source: 'lighthouse', alertable: true, compare: 14,
    chart: { position: 5, title: 'Total Blocking Time', label: 'TBT', minTop: 100 } },
  { column: 'cumulative_layout_shift', label: 'Cumulative layout shift', unit: 'cls', better: 'lower', source: 'lighthouse', alertable: true, compare: 15,
    chart: { position: 6, title: 'Cumulative Layout Shift', label: 'CLS', minTop: 0.1 } },
] as const satisfies readonly MetricSpec[];

export type MetricName = (typeof METRICS)[number]['column'];
/** The metrics a run measures, by source: the runner's LoadMetrics and LighthouseMetrics, checked both ways. */
export type LoadMetricName = Extract<(typeof METRICS)[number], { source: 'load' }>['column'];
export type LighthouseMetricName = Extract<(typeof METRICS)[number], { source: 'lighthouse' }>['column'];
type Mismatch =
  | Exclude<keyof LoadMetrics, LoadMetricName> | Exclude<LoadMetricName, keyof LoadMetrics>
  | Exclude<keyof LighthouseMetrics, LighthouseMetricName | 'performance_score'>;
const runMetricsListed: [Mismatch] extends [never] ? true : Mismatch = true;
void runMetricsListed;

const rows: readonly MetricSpec[] = METRICS;

export const METRIC_NAMES: readonly MetricName[] = METRICS.map((m) => m.column);
export const metricSpec = (name: string): MetricSpec | undefined => rows.find((m) => m.column === name);
/** Whether a larger value of the metric is better (scores) or worse (times, sizes, counts, layout shift). */
export const higherIsBetter = (name: string): boolean => metricSpec(name)?.better === 'higher';
/** Whether the metric compares only within one structure audit set (its `byAuditSet`): the grade and the structure score. */
export const comparesByAuditSet = (name: string): boolean => metricSpec(name)?.byAuditSet === true;
/** The direction every metric of a unit shares (a unit test holds the table to it). */
export const unitBetter = (unit: MetricUnit): Better => rows.find((m) => m.unit === unit)!.better;

/** Lighthouse's metric columns (stored only when Lighthouse ran), in table order. Scores are the grade's. */
export const LIGHTHOUSE_METRICS = METRICS.filter((m): m is Extract<(typeof METRICS)[number], { source: 'lighthouse'; unit: Exclude<MetricUnit, 'score'> }> =>
  m.source === 'lighthouse' && m.unit !== 'score').map((m) => m.column);
/** The metric columns every load fills, in table order. */
export const LOAD_METRICS = METRICS.filter((m): m is Extract<(typeof METRICS)[number], { source: 'load' }> => m.source === 'load').map((m) => m.column);

export const ALERTABLE_METRICS: readonly MetricName[] = rows.filter((m) => m.alertable).map((m) => m.column as MetricName);
/** The compare table's figures, in its order. */
export const COMPARED_METRICS: readonly MetricSpec[] = rows.filter((m) => m.compare !== undefined).sort((a, b) => a.compare! - b.compare!);
/** The page view's charts, in their order. */
export const CHARTED_METRICS: readonly (MetricSpec & { chart: NonNullable<MetricSpec['chart']> })[] = rows
  .filter((m): m is MetricSpec & { chart: NonNullable<MetricSpec['chart']> } => m.chart !== undefined)
  .sort((a, b) => a.chart.position - b.chart.position);
