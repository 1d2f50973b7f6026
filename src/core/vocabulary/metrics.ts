/**
 * The report metrics (spec 2.2): the one table of figures (analysis/figures.ts) as the report resource and the reports
 * table have them. Here the table is held to the reports table's columns and to the runner's figures (both ways, at
 * compile time), and cut into the lists the report figures (core/reports/report-figures.ts), alerts, the report list,
 * the app's compare table and history charts read.
 */
import { FIGURES, figureSpec, type Better, type FigureName, type FigureSpec, type FigureUnit } from '../../analysis/figures.js';
import type { LighthouseMetrics, LoadMetrics } from '../../runner/metrics.js';
import type { ReportsTable } from '../../store/schema.js';

export type { Better };
export type MetricUnit = FigureUnit;
export type MetricSpec = FigureSpec;

/** In the order of the report resource's attributes. */
export const METRICS = FIGURES;

export type MetricName = FigureName;
/** Every figure is a column of the reports table. */
const columnsListed: [Exclude<MetricName, keyof ReportsTable>] extends [never] ? true : Exclude<MetricName, keyof ReportsTable> = true;
void columnsListed;
/** The metrics a run measures, by source: the runner's LoadMetrics and LighthouseMetrics, checked both ways. */
export type LoadMetricName = Extract<(typeof METRICS)[number], { source: 'load' }>['name'];
export type LighthouseMetricName = Extract<(typeof METRICS)[number], { source: 'lighthouse' }>['name'];
type Mismatch =
  | Exclude<keyof LoadMetrics, LoadMetricName> | Exclude<LoadMetricName, keyof LoadMetrics>
  | Exclude<keyof LighthouseMetrics, LighthouseMetricName | 'performance_score'>;
const runMetricsListed: [Mismatch] extends [never] ? true : Mismatch = true;
void runMetricsListed;

const rows: readonly MetricSpec[] = METRICS;

export const METRIC_NAMES: readonly MetricName[] = METRICS.map((m) => m.name);
export const metricSpec = figureSpec;
/** Whether a larger value of the metric is better (scores) or worse (times, sizes, counts, layout shift). */
export const higherIsBetter = (name: string): boolean => metricSpec(name)?.better === 'higher';
/** Whether the metric compares only within one structure audit set (its `byAuditSet`): the grade and the structure score. */
export const comparesByAuditSet = (name: string): boolean => metricSpec(name)?.byAuditSet === true;
/** The direction every metric of a unit shares (a unit test holds the table to it). */
export const unitBetter = (unit: MetricUnit): Better => rows.find((m) => m.unit === unit)!.better;

/** Lighthouse's metric columns (stored only when Lighthouse ran), in table order. Scores are the grade's. */
export const LIGHTHOUSE_METRICS = METRICS.filter((m): m is Extract<(typeof METRICS)[number], { source: 'lighthouse'; unit: Exclude<MetricUnit, 'score'> }> =>
  m.source === 'lighthouse' && m.unit !== 'score').map((m) => m.name);
/** The metric columns every load fills, in table order. */
export const LOAD_METRICS = METRICS.filter((m): m is Extract<(typeof METRICS)[number], { source: 'load' }> => m.source === 'load').map((m) => m.name);

export const ALERTABLE_METRICS: readonly MetricName[] = rows.filter((m) => m.alertable).map((m) => m.name as MetricName);
/** The compare table's figures, in its order. */
export const COMPARED_METRICS: readonly MetricSpec[] = rows.filter((m) => m.compare !== undefined).sort((a, b) => a.compare! - b.compare!);
/** The page view's charts, in their order. */
export const CHARTED_METRICS: readonly (MetricSpec & { chart: NonNullable<MetricSpec['chart']> })[] = rows
  .filter((m): m is MetricSpec & { chart: NonNullable<MetricSpec['chart']> } => m.chart !== undefined)
  .sort((a, b) => a.chart.position - b.chart.position);
