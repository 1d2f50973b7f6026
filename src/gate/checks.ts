/**
 * What the gate judges, as pure functions: budgets (limits on numeric report attributes, checked against the
 * median of the test's runs) and the comparison with the page's history (a one-sided Mann-Whitney U test and a
 * median change large enough to matter). The CLI (cli.ts) gathers the numbers through the API.
 */
import { mannWhitneyU } from '../analysis/mann-whitney.js';
import { median } from '../analysis/statistics.js';
import { sameStructureAudits } from '../analysis/structure/index.js';
import { formatAgainst, formatFigure } from '../analysis/figures.js';
import { comparesByAuditSet, higherIsBetter, METRIC_NAMES, metricSpec } from '../core/vocabulary/metrics.js';
import { orList, plural } from '../lib/words.js';
import { GateError } from './api-client.js';
import { fieldLimitKind, fitsFieldLimit, NAMED_FIELD_FIGURE_NAMES, namedFieldFigure } from '../analysis/named-field-figures.js';
import { attributesCpuBasis, cpuBasisName, type DeviceClass } from '../core/vocabulary/device-classes.js';
import { DEVICE_NAME_WORDS, deviceClassNamed } from '../core/vocabulary/device-names.js';

export interface Limit {
  min?: number;
  max?: number;
}
/** Attribute (API name) → limit, in the file's order. */
export type Budget = ReadonlyMap<string, Limit>;

/** The comparison's rule (issue 23; the same test the regression alerts use, on the gate's own samples). */
export const COMPARISON = {
  /** Fewer earlier reports than this: the comparison is skipped (budgets only). */
  historyMin: 5,
  /** The most recent earlier reports compared with. */
  historyMax: 20,
  alpha: 0.05,
  /** The medians must differ by at least this fraction of the history's median. */
  minChange: 0.05,
} as const;

/** The metrics compared when no budget names any: the Web Vitals measured in a lab load, and fully loaded. */
export const DEFAULT_COMPARED = [
  'first_contentful_paint', 'largest_contentful_paint', 'total_blocking_time', 'cumulative_layout_shift', 'time_to_first_byte',
  'fully_loaded_time',
] as const;

export interface Check {
  /** "budget" or "comparison". */
  kind: 'budget' | 'comparison';
  attribute: string;
  /** pass: within the budget or no significant change; improved: significantly better (passes); fail. */
  outcome: 'pass' | 'fail' | 'improved' | 'skipped';
  /** One line a person reads: the attribute, the value, the limit or the change. */
  message: string;
  value?: number;
  limit?: Limit;
  /** Comparison: the history's median, the relative change of the medians, the p-value and the sample sizes. */
  baseline?: number;
  change?: number;
  p?: number;
  samples?: { current: number; history: number };
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The budget file: `{"largest_contentful_paint": {"max": 2500}, "performance_score": {"min": 90}}`. Every key a
 * numeric report attribute, every limit a `min` and/or `max` number. A bad file is a GateError naming what to fix.
 * A key of one device (`"phone-mid:largest_contentful_paint"`) belongs to `webgauge test --device`: parseDeviceBudget.
 */
export function parseBudget(text: string, file: string): Budget {
  const parsed = parseDeviceBudget(text, file);
  const [device] = parsed.byDevice.keys();
  if (device !== undefined) {
    throw new GateError(`budget ${file}: "${device}:..." is a budget of one device; it needs --device (e.g. --device desktop,${device})`);
  }
  return parsed.all;
}

/**
 * A budget file's limits of every device and of each device (`"DEVICE:ATTRIBUTE"`, as `webgauge scan --budget
 * DEVICE:NAME=VALUE` spells one device's budget; `phone` is a mid-tier phone): a device's limit replaces the limit of the
 * same attribute without a device (budgetFor).
 */
export interface DeviceBudget {
  all: Budget;
  byDevice: ReadonlyMap<DeviceClass, Budget>;
}

export function parseDeviceBudget(text: string, file: string): DeviceBudget {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new GateError(`budget ${file} is not JSON: ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new GateError(`budget ${file} must be a JSON object of limits, e.g. {"largest_contentful_paint": {"max": 2500}}`);
  }
  const all = new Map<string, Limit>();
  const byDevice = new Map<DeviceClass, Map<string, Limit>>();
  for (const [key, limit] of Object.entries(json)) {
    const colon = key.indexOf(':');
    const attribute = colon < 0 ? key : key.slice(colon + 1);
    let into = all;
    if (colon >= 0) {
      const device = deviceClassNamed(key.slice(0, colon));
      if (!device) throw new GateError(`budget ${file}: "${key}": "${key.slice(0, colon)}" is no device; use ${DEVICE_NAME_WORDS}`);
      into = byDevice.get(device) ?? new Map<string, Limit>();
      byDevice.set(device, into);
      if (into.has(attribute)) throw new GateError(`budget ${file}: "${key}": ${device}'s budget of ${attribute} is given twice`);
    }
    const field = namedFieldFigure(attribute);
    if (!metricSpec(attribute) && !field) {
      throw new GateError(`budget ${file}: "${attribute}" is not a numeric report attribute; use one of ${orList(METRIC_NAMES)}, ` +
        `or a field budget (${orList(NAMED_FIELD_FIGURE_NAMES)})`);
    }
    const l = limit as Record<string, unknown> | null;
    const keys = typeof l === 'object' && l !== null && !Array.isArray(l) ? Object.keys(l) : undefined;
    if (!keys || keys.length === 0 || keys.some((k) => (k !== 'min' && k !== 'max') || !isNumber(l![k]))) {
      throw new GateError(`budget ${file}: the limit of "${key}" must be {"min": number} and/or {"max": number}`);
    }
    const parsed: Limit = { ...(isNumber(l!.min) ? { min: l!.min } : {}), ...(isNumber(l!.max) ? { max: l!.max } : {}) };
    if (parsed.min !== undefined && parsed.max !== undefined && parsed.min > parsed.max) {
      throw new GateError(`budget ${file}: the min of "${key}" (${parsed.min}) is above its max (${parsed.max})`);
    }
    // A field budget (field_lcp_p75...) is a max of the figure's kind.
    if (field && (parsed.min !== undefined || parsed.max === undefined || !fitsFieldLimit(field, parsed.max))) {
      throw new GateError(`budget ${file}: "${key}" is a field budget (${field.about}): give {"max": ${fieldLimitKind(field)}}`);
    }
    into.set(attribute, parsed);
  }
  if (all.size === 0 && byDevice.size === 0) throw new GateError(`budget ${file} has no limits`);
  return { all, byDevice };
}

/** A device's budget: the limits of every device, each replaced by the device's own of the same attribute, then its others. */
export function budgetFor(budget: DeviceBudget, device: DeviceClass | undefined): Budget {
  const own = device === undefined ? undefined : budget.byDevice.get(device);
  if (!own) return budget.all;
  const merged = new Map(budget.all);
  for (const [attribute, limit] of own) merged.set(attribute, limit);
  return merged;
}

/** A figure as every output prints it (the one table's way for its unit). */
export function formatValue(attribute: string, v: number): string {
  return formatFigure(metricSpec(attribute)?.unit ?? 'count', v);
}

const limitText = (attribute: string, l: Limit) =>
  [l.min !== undefined ? `min ${formatValue(attribute, l.min)}` : '', l.max !== undefined ? `max ${formatValue(attribute, l.max)}` : '']
    .filter(Boolean).join(', ');

/** A value and the limit it broke, never printed alike (formatAgainst). */
const against = (attribute: string, v: number, limit: number) => formatAgainst(metricSpec(attribute)?.unit ?? 'count', v, limit);

/** Each limit against the median of the runs (`figures`: attribute → the value to judge). */
export function checkBudget(budget: Budget, figures: Readonly<Record<string, number | undefined>>): Check[] {
  return [...budget].map(([attribute, limit]) => {
    const value = figures[attribute];
    if (value === undefined) {
      return { kind: 'budget', attribute, limit, outcome: 'fail',
        message: `${attribute}: the report has no value (its report type does not measure it), budget ${limitText(attribute, limit)}` };
    }
    const over = limit.max !== undefined && value > limit.max;
    const under = limit.min !== undefined && value < limit.min;
    const [shown, bound] = over ? against(attribute, value, limit.max!) : under ? against(attribute, value, limit.min!) : [formatValue(attribute, value), ''];
    const message = over ? `${attribute} ${shown} is over its budget of max ${bound}`
      : under ? `${attribute} ${shown} is under its budget of min ${bound}`
        : `${attribute} ${shown} is within its budget (${limitText(attribute, limit)})`;
    return { kind: 'budget', attribute, value, limit, outcome: over || under ? 'fail' : 'pass', message };
  });
}

/** A report's attributes as the API gives them (the gate reads the few it needs). */
type Attributes = Readonly<Record<string, unknown>>;

/**
 * The page's earlier values of a metric that compare with this report's: all of them, except for the grade and the
 * structure score (metrics table `byAuditSet`), which compare only with reports scored from the same Lighthouse
 * audits (Lighthouse 12's, or 13's); `note` says what was left out, and why.
 */
export function comparableHistory(attribute: string, report: Attributes, allEarlier: readonly Attributes[]): { values: number[]; note?: string } {
  // Only reports made on the same CPU compare (a phone's calibrated CPU, or the agent's own: core/reports/device-cpu.ts).
  const cpu = attributesCpuBasis(report);
  const earlier = allEarlier.filter((r) => attributesCpuBasis(r) === cpu);
  const otherCpu = allEarlier.filter((r) => isNumber(r[attribute]) && attributesCpuBasis(r) !== cpu);
  const cpuNote = otherCpu.length === 0 ? undefined : `${plural(otherCpu.length, 'earlier report')} left out: made on ` +
    `${[...new Set(otherCpu.map((r) => cpuBasisName(attributesCpuBasis(r))))].join(', ')}, this report on ${cpuBasisName(cpu)}; ` +
    'figures of another CPU do not compare';
  const { values, note } = comparableWithinCpu(attribute, report, earlier);
  const notes = [cpuNote, note].filter((n): n is string => n !== undefined);
  return notes.length ? { values, note: notes.join('; ') } : { values };
}

function comparableWithinCpu(attribute: string, report: Attributes, earlier: readonly Attributes[]): { values: number[]; note?: string } {
  const withValue = earlier.filter((r) => isNumber(r[attribute]));
  if (!comparesByAuditSet(attribute)) return { values: withValue.map((r) => r[attribute] as number) };
  const version = (r: Attributes) => (typeof r.lighthouse_version === 'string' ? r.lighthouse_version : undefined);
  const same = withValue.filter((r) => sameStructureAudits(version(r), version(report)));
  const other = withValue.filter((r) => !same.includes(r));
  if (other.length === 0) return { values: same.map((r) => r[attribute] as number) };
  const versions = [...new Set(other.map((r) => version(r) ?? 'an unknown version'))].join(', ');
  return {
    values: same.map((r) => r[attribute] as number),
    note: `${plural(other.length, 'earlier report')} left out: scored from the structure audits of Lighthouse ${versions}, this ` +
      `report from those of Lighthouse ${version(report) ?? 'an unknown version'}; the structure audits changed, so they do not compare`,
  };
}

/**
 * This test's values of a metric (one per kept run) against the page's earlier reports (one value each): a
 * significant change in the worse direction by at least COMPARISON.minChange fails; in the better direction it
 * is an improvement; anything else is no significant change.
 */
export function compareWithHistory(attribute: string, current: readonly number[], history: readonly number[], note?: string): Check {
  const base = { kind: 'comparison' as const, attribute, samples: { current: current.length, history: history.length } };
  const noted = (message: string) => (note ? `${message} (${note})` : message);
  if (current.length === 0 || history.length < COMPARISON.historyMin) {
    return { ...base, outcome: 'skipped',
      message: noted(`${attribute}: ${current.length === 0 ? 'this test did not measure it' : `only ${history.length} earlier reports have it`}`) };
  }
  const now = median(current);
  const before = median(history);
  const change = before === 0 ? (now === 0 ? 0 : Infinity) : (now - before) / before;
  const lowerIsBetter = !higherIsBetter(attribute);
  const worse = mannWhitneyU(current, history, lowerIsBetter ? 'greater' : 'less').p;
  const better = mannWhitneyU(current, history, lowerIsBetter ? 'less' : 'greater').p;
  const big = Math.abs(change) >= COMPARISON.minChange;
  const worseDirection = lowerIsBetter ? change > 0 : change < 0;
  const shown = `${formatValue(attribute, now)} against ${formatValue(attribute, before)} before (${change >= 0 ? '+' : ''}` +
    `${Number.isFinite(change) ? (change * 100).toFixed(1) : '∞'} %`;
  const counts = `${plural(current.length, 'run')} against ${plural(history.length, 'earlier report')}`;
  if (big && worseDirection && worse < COMPARISON.alpha) {
    return { ...base, outcome: 'fail', value: now, baseline: before, change, p: worse,
      message: noted(`${attribute} is significantly worse: ${shown}, p = ${worse.toPrecision(2)}; ${counts})`) };
  }
  if (big && !worseDirection && better < COMPARISON.alpha) {
    return { ...base, outcome: 'improved', value: now, baseline: before, change, p: better,
      message: noted(`${attribute} is significantly better: ${shown}, p = ${better.toPrecision(2)}; ${counts})`) };
  }
  const p = worseDirection ? worse : better;
  return { ...base, outcome: 'pass', value: now, baseline: before, change, p,
    message: noted(`${attribute}: no significant change: ${shown}, p = ${p.toPrecision(2)}; ${counts})`) };
}

/** The gate's verdict: 1 when any check failed, else 0. */
export const exitCodeOf = (checks: readonly Check[]): 0 | 1 => (checks.some((c) => c.outcome === 'fail') ? 1 : 0);
