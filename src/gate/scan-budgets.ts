/**
 * What `webgauge scan` judges, as pure functions: the scan as the API gives it (docs/scans.md), and its site budgets
 * (`--budget lcp_p75=2500`) from the one table of site figures (analysis/named-site-figures.ts, which a scan's alert
 * conditions read too), checked when the scan completed, with the pages on the wrong side of a budget that failed.
 */
import { orList } from '../lib/words.js';
import { DEVICE_NAME_WORDS, deviceClassNamed } from '../core/vocabulary/device-names.js';
import { GateError } from './api-client.js';
import type { Budget, Check, Limit } from './checks.js';
import type { Vital, VitalFigures } from '../analysis/site-figures.js';
import {
  fitsLimit, formatSite, formatSiteAgainst, limitKind, siteBudget, SITE_BUDGET_NAMES, SITE_BUDGETS, type SiteUnit,
} from '../analysis/named-site-figures.js';
import { fieldLimitKind, fitsFieldLimit, NAMED_FIELD_FIGURE_NAMES, namedFieldFigure } from '../analysis/named-field-figures.js';

export type { VitalFigures, SiteUnit };
export { formatSite, SITE_BUDGET_NAMES };

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

/**
 * `--budget NAME=VALUE`s into a budget (name → its limit in the table's direction, in the order given). A name not
 * in the table, a value that is not a number of the figure's kind, or a name given twice is a GateError.
 */
export function parseSiteBudgets(specs: readonly string[]): Budget {
  return budgetOf(specs.map((spec) => ({ spec, budget: spec })));
}

/** Each `--budget` as given (`spec`, which errors quote) and its NAME=VALUE. */
function budgetOf(entries: readonly { spec: string; budget: string }[]): Budget {
  const budget = new Map<string, Limit>();
  const names = `${orList(SITE_BUDGET_NAMES)} (NAME=VALUE, e.g. lcp_p75=2500), or on real visitors ${orList(NAMED_FIELD_FIGURE_NAMES)}`;
  for (const { spec, budget: given } of entries) {
    const eq = given.indexOf('=');
    const name = eq < 0 ? given : given.slice(0, eq).trim();
    const b = siteBudget(name);
    // A field budget (field_lcp_p75...): the site's real visitors, a max (analysis/named-field-figures.ts).
    const field = namedFieldFigure(name);
    if (eq < 0 || (!b && !field)) throw new GateError(`--budget ${spec}: ${eq < 0 ? 'give NAME=VALUE' : `"${name}" is no site budget`}; use one of ${names}`);
    const text = given.slice(eq + 1).trim();
    const value = Number(text);
    if (field) {
      if (text === '' || !fitsFieldLimit(field, value)) {
        throw new GateError(`--budget ${spec}: the max of ${name} (${field.about}) must be ${fieldLimitKind(field)}; budgets are ${names}`);
      }
      if (budget.has(name)) throw new GateError(`--budget ${spec}: ${name} is given twice${spec === given ? '' : ' for this device'}`);
      budget.set(name, { max: value });
      continue;
    }
    if (!b) continue;
    if (text === '' || !fitsLimit(b, value)) {
      throw new GateError(`--budget ${spec}: the ${b.direction} of ${name} (${b.about}) must be ${limitKind(b)}; budgets are ${names}`);
    }
    if (budget.has(name)) throw new GateError(`--budget ${spec}: ${name} is given twice${spec === given ? '' : ' for this device'}`);
    budget.set(name, { [b.direction]: value });
  }
  return budget;
}

/** Site budgets by device (`--budget phone-mid:lcp_p75=2500`): those without a device apply to every device. */
export interface DeviceBudgets {
  all: Budget;
  /** Device class → its own budgets, which replace the same names of `all` for it. */
  byDevice: ReadonlyMap<string, Budget>;
}

/**
 * `--budget [DEVICE:]NAME=VALUE`s: DEVICE is a device class or `phone` (core/vocabulary/device-names.ts, the rule
 * POST /scans' `devices` follows). An unknown device is a GateError naming the devices.
 */
export function parseDeviceBudgets(specs: readonly string[]): DeviceBudgets {
  const groups = new Map<string, { spec: string; budget: string }[]>();
  for (const spec of specs) {
    const colon = spec.indexOf(':');
    const eq = spec.indexOf('=');
    let device = '';
    let budget = spec;
    if (colon >= 0 && (eq < 0 || colon < eq)) {
      const named = deviceClassNamed(spec.slice(0, colon));
      if (!named) {
        throw new GateError(`--budget ${spec}: "${spec.slice(0, colon).trim()}" is no device; write DEVICE:NAME=VALUE with DEVICE ` +
          `${DEVICE_NAME_WORDS}, or NAME=VALUE for every device`);
      }
      device = named;
      budget = spec.slice(colon + 1);
    }
    const group = groups.get(device) ?? [];
    group.push({ spec, budget });
    groups.set(device, group);
  }
  const all = budgetOf(groups.get('') ?? []);
  groups.delete('');
  return { all, byDevice: new Map([...groups].map(([device, entries]) => [device, budgetOf(entries)])) };
}

/** The budgets of one device: every device's, its own replacing those of the same name. */
export function budgetFor(b: DeviceBudgets, device: string | undefined): Budget {
  const own = device === undefined ? undefined : b.byDevice.get(device);
  return own ? new Map([...b.all, ...own]) : b.all;
}

/** Each site budget against the completed scan's figures (a figure the scan has not is a failure, saying so). */
export function checkSiteBudgets(budget: Budget, scan: ScanAttributes): Check[] {
  // Field budgets are the site's real visitors', judged from the server's field figures (scan.ts, field-budgets.ts).
  return [...budget].filter(([name]) => siteBudget(name) !== undefined).map(([name, limit]) => {
    const b = siteBudget(name)!;
    const bound = b.direction === 'max' ? limit.max! : limit.min!;
    const shownLimit = `${b.direction} ${formatSite(b.unit, bound)}`;
    const value = b.value(scan);
    if (value === undefined) {
      return { kind: 'budget', attribute: name, limit, outcome: 'fail',
        message: `${name}: the scan has no value (no page measured it), budget ${shownLimit}` };
    }
    const failed = b.direction === 'max' ? value > bound : value < bound;
    const [shown, against] = formatSiteAgainst(b.unit, value, bound);
    const message = failed ? `${name} ${shown} is ${b.direction === 'max' ? 'over' : 'under'} its budget of ${b.direction} ${against}`
      : `${name} ${shown} is within its budget (${shownLimit})`;
    return { kind: 'budget', attribute: name, value, limit, outcome: failed ? 'fail' : 'pass', message };
  });
}

/** Why a page shares in the failed site budgets (empty: it does not): the pages a failed budget is made of. */
export function pageBlame(page: ScanPage, checks: readonly Check[]): string[] {
  return checks.filter((c) => c.kind === 'budget' && c.outcome === 'fail').flatMap((c) => {
    const b = siteBudget(c.attribute);
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
