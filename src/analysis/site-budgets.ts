/**
 * The one table of a site's figures that can be held against a limit: `webgauge scan --budget lcp_p75=2500` (gate/)
 * and a scan's alert conditions (core/scans/alert-conditions.ts) both read it. Each figure has its name, its direction
 * (max: lower is better), its unit, how its value is read from a scan's site figures and page counts, and which pages
 * stand on the wrong side of a limit (the pages to blame).
 */
import { VITALS as THRESHOLDS, type Vital } from './site-figures.js';

/** A site figure as it reads: ms, layout shift, a 0-100 score, or a count of pages. */
export type SiteUnit = 'time' | 'cls' | 'score' | 'pages';

/** The Web Vitals a scan rates each page by, as messages name them, with the service's thresholds. */
export const VITAL_TERMS: Readonly<Record<Vital, { short: string; label: string; unit: 'time' | 'cls'; good: number; poor: number }>> = {
  largest_contentful_paint: { short: 'LCP', label: 'Largest contentful paint', unit: 'time', ...THRESHOLDS.largest_contentful_paint },
  cumulative_layout_shift: { short: 'CLS', label: 'Cumulative layout shift', unit: 'cls', ...THRESHOLDS.cumulative_layout_shift },
  total_blocking_time: { short: 'TBT', label: 'Total blocking time', unit: 'time', ...THRESHOLDS.total_blocking_time },
};

type PageFigure = Vital | 'fully_loaded_time' | 'performance_score';

/** What a budget reads of a scan: its site figures and its pages' counts (the scan resource's attributes, or its row read back). */
export interface BudgetedScan {
  figures?: { [F in PageFigure]?: { median?: number | null; p75?: number | null; poor?: number } } | null;
  pages?: { failed?: number };
}

/** A page of the scan as a budget blames it: its state and its report's figures. */
export type BudgetedPage = { state: string; error?: string | null } & { [F in PageFigure]?: number | null };

export interface SiteBudgetSpec {
  name: string;
  /** max: the figure must not be above the limit (lower is better); min: not below (higher is better). */
  direction: 'max' | 'min';
  unit: SiteUnit;
  /** What the figure is, for the usage text and messages. */
  about: string;
  /** The scan's value, undefined when the scan has none (no page measured, or the report type does not measure it). */
  value(scan: BudgetedScan): number | undefined;
  /** Why this page is on the wrong side of the limit (at it too, when `inclusive`), or undefined when it is not. */
  blames(page: BudgetedPage, limit: number, inclusive?: boolean): string | undefined;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function formatSite(unit: SiteUnit, v: number): string {
  if (unit === 'cls') return String(Math.round(v * 10_000) / 10_000);
  return unit === 'time' ? `${Math.round(v)} ms` : String(Math.round(v));
}

/** A median or 75th percentile over the measured pages; a page is to blame when its own value is past the limit. */
function statistic(name: string, figure: PageFigure, stat: 'median' | 'p75', short: string, unit: SiteUnit, direction: 'max' | 'min'): SiteBudgetSpec {
  return {
    name, direction, unit,
    about: `${stat === 'p75' ? '75th percentile' : 'median'} of ${short} over the measured pages`,
    value: (scan) => {
      const v = scan.figures?.[figure]?.[stat];
      return isNumber(v) ? v : undefined;
    },
    blames: (page, limit, inclusive = false) => {
      const v = page[figure];
      if (page.state !== 'completed' || !isNumber(v)) return undefined;
      const past = direction === 'max' ? v > limit || (inclusive && v === limit) : v < limit || (inclusive && v === limit);
      if (!past) return undefined;
      return `${short} ${formatSite(unit, v)} is ${direction === 'max' ? 'over' : 'under'} ${name}'s limit of ${formatSite(unit, limit)}`;
    },
  };
}

/** The count of pages rated poor on a Web Vital; a page is to blame when it is one of them. */
function poorPages(name: string, vital: Vital): SiteBudgetSpec {
  const { short, unit, poor } = VITAL_TERMS[vital];
  return {
    name, direction: 'max', unit: 'pages', about: `pages with a poor ${short} (over ${formatSite(unit, poor)})`,
    value: (scan) => {
      const v = scan.figures?.[vital]?.poor;
      return isNumber(v) ? v : undefined;
    },
    blames: (page) => {
      const v = page[vital];
      return page.state === 'completed' && isNumber(v) && v > poor ? `poor ${short}: ${formatSite(unit, v)} is over ${formatSite(unit, poor)}` : undefined;
    },
  };
}

/** The site figures: the one table of their names, directions, values and the pages they blame. */
export const SITE_BUDGETS: readonly SiteBudgetSpec[] = [
  statistic('lcp_p75', 'largest_contentful_paint', 'p75', 'LCP', 'time', 'max'),
  statistic('lcp_median', 'largest_contentful_paint', 'median', 'LCP', 'time', 'max'),
  statistic('cls_p75', 'cumulative_layout_shift', 'p75', 'CLS', 'cls', 'max'),
  statistic('cls_median', 'cumulative_layout_shift', 'median', 'CLS', 'cls', 'max'),
  statistic('tbt_p75', 'total_blocking_time', 'p75', 'TBT', 'time', 'max'),
  statistic('tbt_median', 'total_blocking_time', 'median', 'TBT', 'time', 'max'),
  statistic('fully_loaded_p75', 'fully_loaded_time', 'p75', 'fully loaded', 'time', 'max'),
  statistic('performance_median', 'performance_score', 'median', 'performance score', 'score', 'min'),
  poorPages('poor_lcp_pages', 'largest_contentful_paint'),
  poorPages('poor_cls_pages', 'cumulative_layout_shift'),
  poorPages('poor_tbt_pages', 'total_blocking_time'),
  {
    name: 'failed_pages', direction: 'max', unit: 'pages', about: 'pages whose test failed',
    value: (scan) => (isNumber(scan.pages?.failed) ? scan.pages.failed : undefined),
    blames: (page) => (page.state === 'failed' ? `the page failed: ${page.error ?? 'no reason given'}` : undefined),
  },
];

export const SITE_BUDGET_NAMES = SITE_BUDGETS.map((b) => b.name);

export const siteBudget = (name: string): SiteBudgetSpec | undefined => SITE_BUDGETS.find((b) => b.name === name);

/** Every figure of the table by its name (null where the scan has none): a history point's, a scan notice's. */
export function siteFigureValues(scan: BudgetedScan): Record<string, number | null> {
  return Object.fromEntries(SITE_BUDGETS.map((b) => [b.name, b.value(scan) ?? null]));
}

/** What a limit of the figure must be, as messages say it ("a whole number of pages, 0 or more"). */
export function limitKind(b: Pick<SiteBudgetSpec, 'unit'>): string {
  return b.unit === 'pages' ? 'a whole number of pages, 0 or more' : b.unit === 'score' ? 'a score from 0 to 100'
    : b.unit === 'time' ? 'milliseconds, 0 or more' : 'a layout shift, 0 or more';
}

/** Whether `value` is a limit of the figure's kind (limitKind says what it must be). */
export function fitsLimit(b: Pick<SiteBudgetSpec, 'unit'>, value: number): boolean {
  const whole = b.unit === 'pages' || b.unit === 'score';
  return Number.isFinite(value) && value >= 0 && (!whole || Number.isInteger(value)) && (b.unit !== 'score' || value <= 100);
}
