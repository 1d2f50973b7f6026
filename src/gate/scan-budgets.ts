/**
 * What `webgauge scan` judges, as pure functions: the scan as the API gives it (docs/scans.md), the Web Vitals'
 * thresholds, and the one table of site budgets (`--budget lcp_p75=2500`): each a figure of the scan with its
 * direction, checked when the scan completed, and which pages stand on the wrong side of a budget that failed.
 */
import { orList } from '../lib/words.js';
import { GateError } from './api-client.js';
import type { Budget, Check, Limit } from './checks.js';
import { VITALS as THRESHOLDS, type Vital, type VitalFigures } from '../analysis/site-figures.js';

export type { VitalFigures };

export interface WorstPage {
  url: string;
  template?: string;
  report?: string;
  grade?: string | null;
  performance_score?: number | null;
  largest_contentful_paint?: number | null;
  total_blocking_time?: number | null;
  cumulative_layout_shift?: number | null;
}

/** The scan's site figures (`figures` of the scan resource). */
export interface ScanFigures {
  pages_measured: number;
  largest_contentful_paint?: VitalFigures;
  cumulative_layout_shift?: VitalFigures;
  total_blocking_time?: VitalFigures;
  fully_loaded_time?: { median: number | null; p75: number | null };
  performance_score?: { median: number | null; p75: number | null };
  grades?: Record<string, number>;
  worst_pages?: WorstPage[];
  worst_templates?: { template: string; pages: number; performance_score?: number | null; largest_contentful_paint?: number | null }[];
  structure?: { id: string; title: string; impact?: string; failing_pages: number; savings_ms?: number | null; savings_bytes?: number | null }[];
  third_parties?: { origin: string; pages: number; requests: number; bytes: number; time_ms: number }[];
}

export type ScanState = 'discovering' | 'running' | 'completed' | 'cancelled' | 'error';

/** The scan resource's attributes (the ones the gate reads; the JSON output keeps them all). */
export interface ScanAttributes {
  url: string;
  site?: string;
  source?: string;
  state: ScanState;
  error?: string | null;
  created?: number;
  started?: number | null;
  finished?: number | null;
  found?: number;
  skipped?: Record<string, number>;
  discovery_errors?: string[];
  pages?: { total: number; queued?: number; started?: number; completed?: number; failed?: number; cancelled?: number };
  figures?: ScanFigures | null;
  [attribute: string]: unknown;
}

/** A page of the scan (`GET /scans/{id}/pages`): its test's state and its report's figures. */
export interface ScanPage {
  id?: string;
  url: string;
  template?: string;
  position?: number;
  state: 'queued' | 'started' | 'completed' | 'failed' | 'cancelled';
  error?: string | null;
  test?: string;
  report?: string | null;
  grade?: string | null;
  performance_score?: number | null;
  structure_score?: number | null;
  largest_contentful_paint?: number | null;
  total_blocking_time?: number | null;
  cumulative_layout_shift?: number | null;
  fully_loaded_time?: number | null;
  page_bytes?: number | null;
  page_requests?: number | null;
}

export type VitalName = Vital;

/** The Web Vitals a scan rates each page by, with the service's thresholds (good at or under `good`, poor over `poor`). */
export const VITALS: Record<VitalName, { short: string; label: string; unit: 'time' | 'cls'; good: number; poor: number }> = {
  largest_contentful_paint: { short: 'LCP', label: 'Largest contentful paint', unit: 'time', ...THRESHOLDS.largest_contentful_paint },
  cumulative_layout_shift: { short: 'CLS', label: 'Cumulative layout shift', unit: 'cls', ...THRESHOLDS.cumulative_layout_shift },
  total_blocking_time: { short: 'TBT', label: 'Total blocking time', unit: 'time', ...THRESHOLDS.total_blocking_time },
};

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A site figure as it reads: ms, layout shift, a 0-100 score, or a count of pages. */
export type SiteUnit = 'time' | 'cls' | 'score' | 'pages';

export function formatSite(unit: SiteUnit, v: number): string {
  if (unit === 'cls') return String(Math.round(v * 10_000) / 10_000);
  return unit === 'time' ? `${Math.round(v)} ms` : String(Math.round(v));
}

interface SiteBudgetSpec {
  name: string;
  /** max: the figure must not be above the limit (lower is better); min: not below (higher is better). */
  direction: 'max' | 'min';
  unit: SiteUnit;
  /** What the figure is, for the usage text and messages. */
  about: string;
  /** The scan's value, undefined when the scan has none (no page measured, or the report type does not measure it). */
  value(scan: ScanAttributes): number | undefined;
  /** Why this page is on the wrong side of the (failed) limit, or undefined when it is not. */
  blames(page: ScanPage, limit: number): string | undefined;
}

type PageFigure = VitalName | 'fully_loaded_time' | 'performance_score';

/** A median or 75th percentile over the measured pages; a page is to blame when its own value is past the limit. */
function statistic(name: string, figure: PageFigure, stat: 'median' | 'p75', short: string, unit: SiteUnit, direction: 'max' | 'min'): SiteBudgetSpec {
  return {
    name, direction, unit,
    about: `${stat === 'p75' ? '75th percentile' : 'median'} of ${short} over the measured pages`,
    value: (scan) => {
      const v = (scan.figures?.[figure] as { median?: unknown; p75?: unknown } | undefined)?.[stat];
      return isNumber(v) ? v : undefined;
    },
    blames: (page, limit) => {
      const v = page[figure];
      if (page.state !== 'completed' || !isNumber(v) || (direction === 'max' ? v <= limit : v >= limit)) return undefined;
      return `${short} ${formatSite(unit, v)} is ${direction === 'max' ? 'over' : 'under'} ${name}'s limit of ${formatSite(unit, limit)}`;
    },
  };
}

/** The count of pages rated poor on a Web Vital; a page is to blame when it is one of them. */
function poorPages(name: string, vital: VitalName): SiteBudgetSpec {
  const { short, unit, poor } = VITALS[vital];
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

/** The site budgets: the one table of their names, directions and figures. */
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
const specOf = (name: string) => SITE_BUDGETS.find((b) => b.name === name);

/**
 * `--budget NAME=VALUE`s into a budget (name → its limit in the table's direction, in the order given). A name not
 * in the table, a value that is not a number of the figure's kind, or a name given twice is a GateError.
 */
export function parseSiteBudgets(specs: readonly string[]): Budget {
  const budget = new Map<string, Limit>();
  const names = `${orList(SITE_BUDGET_NAMES)} (NAME=VALUE, e.g. lcp_p75=2500)`;
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    const name = eq < 0 ? spec : spec.slice(0, eq).trim();
    const b = specOf(name);
    if (eq < 0 || !b) throw new GateError(`--budget ${spec}: ${eq < 0 ? 'give NAME=VALUE' : `"${name}" is no site budget`}; use one of ${names}`);
    const text = spec.slice(eq + 1).trim();
    const value = Number(text);
    const whole = b.unit === 'pages' || b.unit === 'score';
    if (text === '' || !Number.isFinite(value) || value < 0 || (whole && !Number.isInteger(value)) || (b.unit === 'score' && value > 100)) {
      const kind = b.unit === 'pages' ? 'a whole number of pages, 0 or more' : b.unit === 'score' ? 'a score from 0 to 100'
        : b.unit === 'time' ? 'milliseconds, 0 or more' : 'a layout shift, 0 or more';
      throw new GateError(`--budget ${spec}: the ${b.direction} of ${name} (${b.about}) must be ${kind}; budgets are ${names}`);
    }
    if (budget.has(name)) throw new GateError(`--budget ${spec}: ${name} is given twice`);
    budget.set(name, { [b.direction]: value });
  }
  return budget;
}

/** Each site budget against the completed scan's figures (a figure the scan has not is a failure, saying so). */
export function checkSiteBudgets(budget: Budget, scan: ScanAttributes): Check[] {
  return [...budget].map(([name, limit]) => {
    const b = specOf(name)!;
    const bound = b.direction === 'max' ? limit.max! : limit.min!;
    const shownLimit = `${b.direction} ${formatSite(b.unit, bound)}`;
    const value = b.value(scan);
    if (value === undefined) {
      return { kind: 'budget', attribute: name, limit, outcome: 'fail',
        message: `${name}: the scan has no value (no page measured it), budget ${shownLimit}` };
    }
    const failed = b.direction === 'max' ? value > bound : value < bound;
    const shown = formatSite(b.unit, value);
    const message = failed ? `${name} ${shown} is ${b.direction === 'max' ? 'over' : 'under'} its budget of ${shownLimit}`
      : `${name} ${shown} is within its budget (${shownLimit})`;
    return { kind: 'budget', attribute: name, value, limit, outcome: failed ? 'fail' : 'pass', message };
  });
}

/** Why a page shares in the failed site budgets (empty: it does not): the pages a failed budget is made of. */
export function pageBlame(page: ScanPage, checks: readonly Check[]): string[] {
  return checks.filter((c) => c.kind === 'budget' && c.outcome === 'fail').flatMap((c) => {
    const b = specOf(c.attribute);
    const bound = c.limit?.max ?? c.limit?.min;
    const why = b && bound !== undefined ? b.blames(page, bound) : undefined;
    return why ? [why] : [];
  });
}

/** The usage text's table of budgets: name, direction, what it is. */
export function siteBudgetTable(indent: string): string {
  const width = Math.max(...SITE_BUDGET_NAMES.map((n) => n.length));
  return SITE_BUDGETS.map((b) => `${indent}${b.name.padEnd(width)}  ${b.direction}  ${b.about}${b.unit === 'time' ? ' (ms)' : ''}`).join('\n');
}
