/**
 * The site figures by name (lcp_p75, poor_lcp_pages, failed_pages, ...): statistics over a scan's pages of the one
 * table's site figures (figures.ts), each named, labelled, printed and directed as that figure is. Which of them can
 * be held against a limit (`webgauge scan --budget lcp_p75=2500` in gate/, and a scan's alert conditions in
 * core/scans/alert-conditions.ts), which rows the comparison of two scans lists (scan-comparison-rules.ts) and which
 * the app charts over a site's scans all read this list; a figure says how its value is read from a scan's site
 * figures and page counts, and which pages stand on the wrong side of a limit (the pages to blame).
 */
import { figure, formatAgainst, formatFigure, headingOf, shortOf, type FigureUnit, type SiteFigure } from './figures.js';
import type { Vital } from './site-figures.js';

/** A site figure as it reads: ms, layout shift, a 0-100 score, or a count of pages. */
export type SiteUnit = 'time' | 'cls' | 'score' | 'pages';

/** What a budget reads of a scan: its site figures and its pages' counts (the scan resource's attributes, or its row read back). */
export interface BudgetedScan {
  figures?: ({ [F in SiteFigure]?: { median?: number | null; p75?: number | null; poor?: number } } & { pages_measured?: number }) | null;
  pages?: { failed?: number };
}

/** A page of the scan as a budget blames it: its state and its report's figures. */
export type BudgetedPage = { state: string; error?: string | null } & { [F in SiteFigure]?: number | null };

export interface SiteFigureSpec {
  name: string;
  /** As a table row and a chart's caption name it: "LCP, 75th percentile". */
  label: string;
  /** As a chart's point names it: "LCP p75". */
  short: string;
  /** max: the figure must not be above the limit (lower is better); min: not below (higher is better). */
  direction: 'max' | 'min';
  unit: SiteUnit;
  /** What the figure is, for the usage text and messages. */
  about: string;
  /** It may be held against a limit: a site budget of the gate, a scan's alert condition, a point of the site's history. */
  budget: boolean;
  /** The comparison of two scans lists it, at this position (1 first). */
  compared?: number;
  /** The report figure it is a statistic of (a median, a 75th percentile), whose noise judges its change. */
  of?: SiteFigure;
  /** The app charts it over the site's scans, at this position (1 first), with its axis. */
  chart?: { position: number; max?: number; minTop?: number; bands?: { good: number; poor: number } };
  /** The scan's value, undefined when the scan has none (no page measured, or the report type does not measure it). */
  value(scan: BudgetedScan): number | undefined;
  /** Why this page is on the wrong side of the limit (at it too, when `inclusive`), or undefined when it is not. */
  blames(page: BudgetedPage, limit: number, inclusive?: boolean): string | undefined;
}

type Placement = Pick<SiteFigureSpec, 'budget' | 'compared' | 'chart'>;

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const asFigureUnit = (unit: SiteUnit): FigureUnit => (unit === 'pages' ? 'count' : unit);

/** A value of a site figure as every output prints it (the one table's way for its unit; pages as a count). */
export const formatSite = (unit: SiteUnit, v: number): string => formatFigure(asFigureUnit(unit), v);
/** A value and its limit as formatAgainst prints them (never alike when they differ). */
export const formatSiteAgainst = (unit: SiteUnit, v: number, limit: number): [string, string] => formatAgainst(asFigureUnit(unit), v, limit);

/** The least top of a chart of a count of pages. */
const PAGES_MIN_TOP = 5;

/** A median or 75th percentile over the measured pages; a page is to blame when its own value is past the limit. */
function statistic(of: SiteFigure, stat: 'median' | 'p75', placement: Placement): SiteFigureSpec {
  const f = figure(of);
  const short = shortOf(f);
  const unit = f.unit as SiteUnit;
  const direction = f.better === 'lower' ? 'max' : 'min';
  const name = `${f.site!.key}_${stat}`;
  const statShort = stat === 'p75' ? `${short} p75` : `median ${short}`;
  return {
    name, direction, unit, of, ...placement,
    label: `${headingOf(f)}, ${stat === 'p75' ? '75th percentile' : 'median'}`,
    short: statShort,
    about: `${stat === 'p75' ? '75th percentile' : 'median'} of ${short} over the measured pages`,
    ...(placement.chart ? { chart: { ...f.chart, ...(f.bands ? { bands: f.bands } : {}), ...placement.chart } } : {}),
    value: (scan) => {
      const v = scan.figures?.[of]?.[stat];
      return isNumber(v) ? v : undefined;
    },
    blames: (page, limit, inclusive = false) => {
      const v = page[of];
      if (page.state !== 'completed' || !isNumber(v)) return undefined;
      const past = direction === 'max' ? v > limit || (inclusive && v === limit) : v < limit || (inclusive && v === limit);
      if (!past) return undefined;
      const [shown, bound] = formatAgainst(f.unit, v, limit);
      return `${short} ${shown} is ${direction === 'max' ? 'over' : 'under'} the ${bound} limit on ${statShort}`;
    },
  };
}

/** The count of pages rated poor on a Web Vital; a page is to blame when it is one of them. */
function poorPages(vital: Vital, placement: Placement): SiteFigureSpec {
  const f = figure(vital);
  const short = shortOf(f);
  const poor = f.bands!.poor;
  return {
    name: `poor_${f.site!.key}_pages`, direction: 'max', unit: 'pages', ...placement,
    label: `Pages with poor ${short}`, short: `pages with poor ${short}`,
    about: `pages with a poor ${short} (over ${formatFigure(f.unit, poor)})`,
    ...(placement.chart ? { chart: { minTop: PAGES_MIN_TOP, ...placement.chart } } : {}),
    value: (scan) => {
      const v = scan.figures?.[vital]?.poor;
      return isNumber(v) ? v : undefined;
    },
    blames: (page) => {
      const v = page[vital];
      if (page.state !== 'completed' || !isNumber(v) || v <= poor) return undefined;
      const [shown, bound] = formatAgainst(f.unit, v, poor);
      return `poor ${short}: ${shown} is over ${bound}`;
    },
  };
}

/**
 * The site figures, in the order budgets and conditions list them; `budget` marks those a limit may be set on (the
 * gate's --budget, alert conditions, the history's points), `compared` and `chart` where the comparison and the app's
 * charts show them.
 */
export const SITE_FIGURE_TABLE: readonly SiteFigureSpec[] = [
  statistic('largest_contentful_paint', 'p75', { budget: true, compared: 4, chart: { position: 2 } }),
  statistic('largest_contentful_paint', 'median', { budget: true, compared: 3 }),
  statistic('cumulative_layout_shift', 'p75', { budget: true, compared: 8, chart: { position: 4 } }),
  statistic('cumulative_layout_shift', 'median', { budget: true }),
  statistic('total_blocking_time', 'p75', { budget: true, compared: 6, chart: { position: 3 } }),
  statistic('total_blocking_time', 'median', { budget: true }),
  statistic('fully_loaded_time', 'p75', { budget: true, chart: { position: 5 } }),
  statistic('fully_loaded_time', 'median', { budget: false, compared: 10 }),
  statistic('performance_score', 'median', { budget: true, compared: 2, chart: { position: 1 } }),
  poorPages('largest_contentful_paint', { budget: true, compared: 5, chart: { position: 6 } }),
  poorPages('cumulative_layout_shift', { budget: true, compared: 9, chart: { position: 7 } }),
  poorPages('total_blocking_time', { budget: true, compared: 7, chart: { position: 8 } }),
  {
    name: 'failed_pages', label: 'Pages that failed', short: 'failed pages', direction: 'max', unit: 'pages', budget: true,
    about: 'pages whose test failed',
    value: (scan) => (isNumber(scan.pages?.failed) ? scan.pages.failed : undefined),
    blames: (page) => (page.state === 'failed' ? `the page failed: ${page.error ?? 'no reason given'}` : undefined),
  },
  {
    name: 'pages_measured', label: 'Pages measured', short: 'pages measured', direction: 'min', unit: 'pages', budget: false, compared: 1,
    about: 'pages whose test completed',
    value: (scan) => (isNumber(scan.figures?.pages_measured) ? scan.figures.pages_measured : undefined),
    blames: () => undefined,
  },
];

/** The site figures a limit may be set on, in their order. */
export const SITE_BUDGETS: readonly SiteFigureSpec[] = SITE_FIGURE_TABLE.filter((b) => b.budget);
export const SITE_BUDGET_NAMES = SITE_BUDGETS.map((b) => b.name);
/** The rows of the comparison of two scans, in its order. */
export const COMPARED_SITE_FIGURES: readonly SiteFigureSpec[] = SITE_FIGURE_TABLE.filter((b) => b.compared !== undefined)
  .sort((a, b) => a.compared! - b.compared!);
/** The app's charts of a site over time, in their order. */
export const CHARTED_SITE_FIGURES = SITE_FIGURE_TABLE.filter((b): b is SiteFigureSpec & { chart: NonNullable<SiteFigureSpec['chart']> } =>
  b.chart !== undefined).sort((a, b) => a.chart.position - b.chart.position);

export const siteBudget = (name: string): SiteFigureSpec | undefined => SITE_BUDGETS.find((b) => b.name === name);

/** Every budget figure by its name (null where the scan has none): a history point's, a scan notice's. */
export function siteFigureValues(scan: BudgetedScan): Record<string, number | null> {
  return Object.fromEntries(SITE_BUDGETS.map((b) => [b.name, b.value(scan) ?? null]));
}

/** What a limit of the figure must be, as messages say it ("a whole number of pages, 0 or more"). */
export function limitKind(b: Pick<SiteFigureSpec, 'unit'>): string {
  return b.unit === 'pages' ? 'a whole number of pages, 0 or more' : b.unit === 'score' ? 'a score from 0 to 100'
    : b.unit === 'time' ? 'milliseconds, 0 or more' : 'a layout shift, 0 or more';
}

/** Whether `value` is a limit of the figure's kind (limitKind says what it must be). */
export function fitsLimit(b: Pick<SiteFigureSpec, 'unit'>, value: number): boolean {
  const whole = b.unit === 'pages' || b.unit === 'score';
  return Number.isFinite(value) && value >= 0 && (!whole || Number.isInteger(value)) && (b.unit !== 'score' || value <= 100);
}
