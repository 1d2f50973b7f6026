/**
 * The one table of figures: every numeric figure of a report (spec 2.2), with how people name it, its unit and how
 * that unit prints, which direction is better, the bands it is rated in (Web Vitals) and the least change of it that
 * counts. Everything that names, rates, compares, charts, prints or budgets a figure reads it from here: the report
 * metrics (core/vocabulary/metrics.ts, which holds it to the reports table and the runner's figures), the site figures
 * (named-site-figures.ts: lcp_p75, poor_lcp_pages, ...), the comparison of two scans, alerts, the app's charts, compare table
 * and site report, the report page's Web Vitals and the CI gate's output.
 *
 * Adding a figure is one entry here plus where it is measured (the runner, or a reader of real visitors' data).
 * Lives in analysis/ (the lowest layer that needs it: the site figures and the comparison rules are analysis).
 */

/** How a figure reads: a 0-100 score, milliseconds, bytes, a count, or layout shift. */
export type FigureUnit = 'score' | 'time' | 'size' | 'count' | 'cls';
export type Better = 'lower' | 'higher';

/** Where the figure comes from: every load, Lighthouse, the grade, or the legacy reports. */
export type FigureSource = 'load' | 'lighthouse' | 'grade' | 'legacy';

/** A rating's bands: good at or below `good`, poor above `poor`, needs improvement between. */
export interface Bands {
  good: number;
  poor: number;
}
export type Rating = 'good' | 'needs_improvement' | 'poor';

export interface FigureSpec {
  /** The report attribute and reports-table column. */
  name: string;
  /** As sentences and the app's compare table name it: "Largest contentful paint". */
  label: string;
  /** As a heading names it (Web Vitals, charts): "Largest Contentful Paint"; the label when not given. */
  title?: string;
  /** As a column, a chart point and a message name it: "LCP", "fully loaded"; the label in lower case when not given. */
  short?: string;
  unit: FigureUnit;
  better: Better;
  source: FigureSource;
  /** Its rating bands, where it has them (web.dev's Core Web Vitals; TBT as Lighthouse rates it). */
  bands?: Bands;
  /**
   * It is a figure of a site's scan: its statistics over the pages are named `<site>_median`, `<site>_p75`, and
   * `poor_<site>_pages` where it has bands (named-site-figures.ts); `order` is its place in the comparison of two scans.
   */
  site?: { key: string; order: number };
  /**
   * Its noise: how much one load of an unchanged page may differ from the next; a smaller difference of one report's
   * figure is not news (analysis/noise.ts, whenever there are too few runs for the significance test), and why that value.
   */
  noise: { change: number; why: string };
  /** An alert condition may watch it. */
  alertable: boolean;
  /** The app's compare table shows it, at this position (1 first). */
  compare?: number;
  /** The page view charts it, at this position (1 first): a fixed top of the axis, or the least top of a free one. */
  chart?: { position: number; max?: number; minTop?: number };
  /**
   * Its value depends on which Lighthouse audits the structure score read (analysis/structure: an audit set per
   * Lighthouse major version): it compares only with reports of the same set. The performance metrics keep their
   * definitions across versions and compare as before.
   */
  byAuditSet?: true;
}

/** How the grade is made of the two scores (GTmetrix's published weighting; analysis/grade.ts applies it). */
export const GRADE_WEIGHTS = { performance: 0.6, structure: 0.4 } as const;
const PERFORMANCE_NOISE = 10;
const STRUCTURE_NOISE = 2;
/** The grade's noise follows from its parts': both moving by their noise at once, the most a retest moves it (7). */
const GRADE_NOISE = Math.round(GRADE_WEIGHTS.performance * PERFORMANCE_NOISE + GRADE_WEIGHTS.structure * STRUCTURE_NOISE);

/** In the order of the report resource's attributes. */
export const FIGURES = [
  { name: 'service_score', label: 'Grade %', title: 'Grade', short: 'grade', unit: 'score', better: 'higher', source: 'grade', alertable: true,
    compare: 1, chart: { position: 1, max: 100 }, byAuditSet: true,
    noise: { change: GRADE_NOISE, why: 'made of the performance and structure scores (GRADE_WEIGHTS): their noises weighted alike' } },
  { name: 'performance_score', label: 'Performance', unit: 'score', better: 'higher', source: 'lighthouse', alertable: true, compare: 2,
    chart: { position: 2, max: 100 }, site: { key: 'performance', order: 1 },
    noise: { change: PERFORMANCE_NOISE, why: 'Lighthouse\'s own variability guide: a score moves 5 to 10 points from load to load on one machine' } },
  { name: 'structure_score', label: 'Structure', unit: 'score', better: 'higher', source: 'lighthouse', alertable: true, compare: 3,
    chart: { position: 3, max: 100 }, byAuditSet: true,
    noise: { change: STRUCTURE_NOISE, why: 'what the page is built of, read from what the audits found, not from timings: one low-impact audit moving a step is ~1 point' } },
  { name: 'pagespeed_score', label: 'PageSpeed', unit: 'score', better: 'higher', source: 'legacy', alertable: true,
    noise: { change: 3, why: 'rules over the HAR: a resource arriving before or after onload moves it a point or two' } },
  { name: 'yslow_score', label: 'YSlow', unit: 'score', better: 'higher', source: 'legacy', alertable: true,
    noise: { change: 3, why: 'rules over the HAR: a resource arriving before or after onload moves it a point or two' } },
  { name: 'html_bytes', label: 'HTML size', unit: 'size', better: 'lower', source: 'load', alertable: true,
    noise: { change: 1024, why: 'the same HTML but for tokens, dates and nonces: under 1 KB' } },
  { name: 'page_bytes', label: 'Page size', unit: 'size', better: 'lower', source: 'load', alertable: true, compare: 16,
    chart: { position: 8, minTop: 1024 },
    noise: { change: 10240, why: 'the same resources but for beacons, ads and late responses: under 10 KB' } },
  { name: 'page_requests', label: 'Requests', unit: 'count', better: 'lower', source: 'load', alertable: true, compare: 17,
    noise: { change: 2, why: 'a late beacon or analytics call falls before or after the end of the load' } },
  { name: 'redirect_duration', label: 'Redirect duration', unit: 'time', better: 'lower', source: 'load', alertable: true,
    noise: { change: 100, why: 'one round trip and the server\'s time, which vary by tens of ms' } },
  { name: 'connect_duration', label: 'Connect duration', unit: 'time', better: 'lower', source: 'load', alertable: true,
    noise: { change: 100, why: 'DNS, TCP and TLS: one to three round trips, which vary by tens of ms' } },
  { name: 'backend_duration', label: 'Backend duration', unit: 'time', better: 'lower', source: 'load', alertable: true,
    noise: { change: 100, why: 'the server\'s time to its first byte varies by tens of ms between requests' } },
  { name: 'time_to_first_byte', label: 'Time to first byte', short: 'TTFB', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 4,
    noise: { change: 100, why: 'connection set-up and the server\'s time vary by tens of ms between loads' } },
  { name: 'first_paint_time', label: 'First paint', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 5,
    noise: { change: 200, why: 'waits on the first bytes, the CSS and the main thread: ~10 % of a two-second load' } },
  { name: 'first_contentful_paint', label: 'First contentful paint', short: 'FCP', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 6,
    noise: { change: 200, why: 'waits on the first bytes, the CSS and the main thread: ~10 % of a two-second load' } },
  { name: 'dom_interactive_time', label: 'DOM interactive', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 8,
    noise: { change: 200, why: 'waits on the HTML and its blocking scripts: ~10 % of a two-second load' } },
  { name: 'dom_content_loaded_time', label: 'DOM content loaded', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 9,
    noise: { change: 200, why: 'waits on the HTML and its deferred scripts: ~10 % of a two-second load' } },
  { name: 'dom_content_loaded_duration', label: 'DOM content loaded duration', unit: 'time', better: 'lower', source: 'load', alertable: true,
    noise: { change: 100, why: 'the handlers\' main-thread time, which a busy host stretches by tens of ms' } },
  { name: 'onload_time', label: 'Onload', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 10,
    noise: { change: 300, why: 'waits on every resource of the page: the slowest of them sets it' } },
  { name: 'onload_duration', label: 'Onload duration', unit: 'time', better: 'lower', source: 'load', alertable: true,
    noise: { change: 100, why: 'the handlers\' main-thread time, which a busy host stretches by tens of ms' } },
  { name: 'fully_loaded_time', label: 'Fully loaded', unit: 'time', better: 'lower', source: 'load', alertable: true, compare: 11,
    chart: { position: 7, minTop: 1000 }, site: { key: 'fully_loaded', order: 5 },
    noise: { change: 1000, why: 'waits for network quiet after onload: late beacons and timers move it by up to a second' } },
  { name: 'rum_speed_index', label: 'RUM speed index', unit: 'time', better: 'lower', source: 'load', alertable: true,
    noise: { change: 300, why: 'a mean of paint times, each of which moves with the network and the main thread' } },
  { name: 'speed_index', label: 'Speed index', short: 'SI', unit: 'time', better: 'lower', source: 'lighthouse', alertable: true, compare: 13,
    noise: { change: 300, why: 'a mean over the frames of the load, which moves with every paint' } },
  { name: 'largest_contentful_paint', label: 'Largest contentful paint', title: 'Largest Contentful Paint', short: 'LCP', unit: 'time',
    better: 'lower', source: 'lighthouse', bands: { good: 2500, poor: 4000 }, alertable: true, compare: 7, chart: { position: 4, minTop: 1000 },
    site: { key: 'lcp', order: 2 },
    noise: { change: 500, why: 'the largest element\'s paint moves with its download and the main thread: up to half a second on a real site' } },
  { name: 'time_to_interactive', label: 'Time to interactive', short: 'TTI', unit: 'time', better: 'lower', source: 'lighthouse', alertable: true, compare: 12,
    noise: { change: 500, why: 'waits for main-thread and network quiet: one late task moves it by half a second' } },
  { name: 'total_blocking_time', label: 'Total blocking time', title: 'Total Blocking Time', short: 'TBT', unit: 'time', better: 'lower',
    source: 'lighthouse', bands: { good: 200, poor: 600 }, alertable: true, compare: 14, chart: { position: 5, minTop: 100 },
    site: { key: 'tbt', order: 3 },
    noise: { change: 200, why: 'long tasks stretch with the host\'s load: a busy machine adds up to 200 ms' } },
  { name: 'cumulative_layout_shift', label: 'Cumulative layout shift', title: 'Cumulative Layout Shift', short: 'CLS', unit: 'cls',
    better: 'lower', source: 'lighthouse', bands: { good: 0.1, poor: 0.25 }, alertable: true, compare: 15, chart: { position: 6, minTop: 0.1 },
    site: { key: 'cls', order: 4 },
    noise: { change: 0.1, why: 'a late font or image shifts the page or not by a whole element: up to 0.1, the width of the good band' } },
] as const satisfies readonly FigureSpec[];

export type FigureName = (typeof FIGURES)[number]['name'];
/** The figures with rating bands (the Web Vitals a page is rated by). */
export type RatedFigure = Extract<(typeof FIGURES)[number], { bands: Bands }>['name'];
/** The figures of a site's scan (their statistics over its pages, and the comparison of two scans). */
export type SiteFigure = Extract<(typeof FIGURES)[number], { site: object }>['name'];

const rows: readonly FigureSpec[] = FIGURES;

export const FIGURE_NAMES: readonly FigureName[] = FIGURES.map((f) => f.name);
export const figureSpec = (name: string): FigureSpec | undefined => rows.find((f) => f.name === name);

/** The figure's spec; throws on a name that is not in the table (a programming error, never input). */
export function figure(name: FigureName): FigureSpec {
  return figureSpec(name)!;
}
export const titleOf = (f: FigureSpec): string => f.title ?? f.label;
export const shortOf = (f: FigureSpec): string => f.short ?? f.label.toLowerCase();
/** "LCP", "Fully loaded": the short name as a column heading starts. */
export const headingOf = (f: FigureSpec): string => { const s = shortOf(f); return s[0]!.toUpperCase() + s.slice(1); };

/** The rated figures, in table order (LCP, TBT, CLS). */
export const RATED_FIGURES: readonly RatedFigure[] = rows.filter((f) => f.bands).map((f) => f.name as RatedFigure);
/** The figures of a site, in the order the comparison of two scans lists them. */
export const SITE_FIGURES: readonly SiteFigure[] = rows.filter((f) => f.site).sort((a, b) => a.site!.order - b.site!.order)
  .map((f) => f.name as SiteFigure);

/** The band a value of a rated figure falls in. */
export function rate(name: RatedFigure, value: number): Rating {
  const b = figure(name).bands!;
  return value <= b.good ? 'good' : value > b.poor ? 'poor' : 'needs_improvement';
}
export const RATING_WORDS: Readonly<Record<Rating, string>> = { good: 'good', needs_improvement: 'needs improvement', poor: 'poor' };

/* How each unit prints: the one place. */

/** Decimals a value of the unit keeps when a figure is computed from others (a site's median or percentile). */
const DECIMALS: Readonly<Record<FigureUnit, number>> = { score: 0, time: 0, size: 0, count: 0, cls: 3 };

/** A computed value rounded as its unit keeps it (layout shift to 3 decimals, everything else whole). */
export function roundFigure(unit: FigureUnit, v: number): number {
  const f = 10 ** DECIMALS[unit];
  return Math.round(v * f) / f;
}

/** Milliseconds as people read them: 850 ms, 1.24 s, 12.4 s. */
function time(v: number): string {
  if (v < 1000) return `${Math.round(v)} ms`;
  return v < 10_000 ? `${(v / 1000).toFixed(2)} s` : `${(v / 1000).toFixed(1)} s`;
}

/** Bytes in binary multiples, as the report has always written them: 512 B, 12.3 KB, 1.25 MB. */
function size(v: number): string {
  if (v >= 1_048_576) return `${(v / 1_048_576).toFixed(2)} MB`;
  if (v >= 1024) return `${(v / 1024).toFixed(1)} KB`;
  return `${Math.round(v)} B`;
}

/** Layout shift to 3 decimals at most, as Lighthouse writes it: 0.123, 0.1, 0. */
const cls = (v: number): string => String(roundFigure('cls', v));

/** A value of the unit as every screen, report, message and the gate print it; "–" when there is none. */
export function formatFigure(unit: FigureUnit, v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  switch (unit) {
    case 'time': return time(v);
    case 'score': return `${Math.round(v)}%`;
    case 'size': return size(v);
    case 'cls': return cls(v);
    case 'count': return Math.round(v).toLocaleString('en');
  }
}

const MINUS = '\u2212';

/** The size of a change in the unit, without a sign ("" when it rounds to nothing): 120 ms, 3 points, 0.05. */
export function formatChangeSize(unit: FigureUnit, d: number): string {
  const a = Math.abs(d);
  switch (unit) {
    case 'time': return Math.round(a) === 0 ? '' : time(Math.round(a));
    case 'score': { const n = Math.round(a); return n === 0 ? '' : `${n} ${n === 1 ? 'point' : 'points'}`; }
    case 'size': return a === 0 ? '' : size(a);
    case 'cls': return roundFigure('cls', a) === 0 ? '' : cls(a);
    case 'count': return Math.round(a) === 0 ? '' : Math.round(a).toLocaleString('en');
  }
}

/** A change with its sign: +120 ms, −3 points, +0.05; "no change" when it rounds to nothing. */
export function formatChange(unit: FigureUnit, d: number): string {
  const s = formatChangeSize(unit, d);
  return s === '' ? 'no change' : `${d > 0 ? '+' : MINUS}${s}`;
}

/**
 * A value and the limit it is held against, each as its unit prints, with the exact values added when the two would
 * print alike ("2.50 s (2,504 ms)" against "2.50 s (2,500 ms)"), so a value over its limit never reads as equal to it.
 */
export function formatAgainst(unit: FigureUnit, value: number, limit: number): [string, string] {
  const v = formatFigure(unit, value);
  const l = formatFigure(unit, limit);
  if (v !== l || value === limit) return [v, l];
  const exact = (n: number) => (unit === 'time' ? `${n.toLocaleString('en')} ms` : unit === 'size' ? `${n.toLocaleString('en')} bytes` : String(n));
  return [`${v} (${exact(value)})`, `${l} (${exact(limit)})`];
}

/** A rated figure's bands in words: "good ≤ 2.50 s, poor > 4.00 s". */
export function bandsText(name: RatedFigure): string {
  const f = figure(name);
  return `good ≤ ${formatFigure(f.unit, f.bands!.good)}, poor > ${formatFigure(f.unit, f.bands!.poor)}`;
}

/**
 * The field figures: what real visitors experienced, measured by the field snippet (web-vitals) and read from the
 * hourly rollups (core/field/). Rated by web.dev's thresholds (CrUX's three bins); `max` is the largest value a
 * beacon may carry (anything above is refused as out of bounds); `lab` names the report figure that is its twin,
 * where there is one (INP exists only in the field).
 */
export interface FieldFigureSpec {
  name: string;
  label: string;
  title: string;
  short: string;
  unit: Extract<FigureUnit, 'time' | 'cls'>;
  better: 'lower';
  bands: Bands;
  max: number;
  lab?: FigureName;
  /** The smallest difference between a lab figure and this field p75 that is worth a word (core/field/lab-field.ts). */
  gap: number;
}

export const FIELD_FIGURES = [
  { name: 'lcp', label: 'Largest contentful paint', title: 'Largest Contentful Paint', short: 'LCP', unit: 'time', better: 'lower',
    bands: { good: 2500, poor: 4000 }, max: 600_000, gap: 250, lab: 'largest_contentful_paint' },
  { name: 'inp', label: 'Interaction to next paint', title: 'Interaction to Next Paint', short: 'INP', unit: 'time', better: 'lower',
    bands: { good: 200, poor: 500 }, max: 60_000, gap: 50 },
  { name: 'cls', label: 'Cumulative layout shift', title: 'Cumulative Layout Shift', short: 'CLS', unit: 'cls', better: 'lower',
    bands: { good: 0.1, poor: 0.25 }, max: 100, gap: 0.05, lab: 'cumulative_layout_shift' },
  { name: 'fcp', label: 'First contentful paint', title: 'First Contentful Paint', short: 'FCP', unit: 'time', better: 'lower',
    bands: { good: 1800, poor: 3000 }, max: 600_000, gap: 250, lab: 'first_contentful_paint' },
  { name: 'ttfb', label: 'Time to first byte', title: 'Time to First Byte', short: 'TTFB', unit: 'time', better: 'lower',
    bands: { good: 800, poor: 1800 }, max: 600_000, gap: 100, lab: 'time_to_first_byte' },
] as const satisfies readonly FieldFigureSpec[];

export type FieldFigureName = (typeof FIELD_FIGURES)[number]['name'];
export const FIELD_FIGURE_NAMES: readonly FieldFigureName[] = FIELD_FIGURES.map((f) => f.name);
export const fieldFigure = (name: FieldFigureName): FieldFigureSpec => (FIELD_FIGURES as readonly FieldFigureSpec[]).find((f) => f.name === name)!;

/** The band a field value falls in (good at or below `good`, poor above `poor`, as CrUX bins them). */
export function rateField(name: FieldFigureName, value: number): Rating {
  const b = fieldFigure(name).bands;
  return value <= b.good ? 'good' : value > b.poor ? 'poor' : 'needs_improvement';
}
