/**
 * A scan's alert conditions (docs/scans.md "Alerts on a site"), as POST /scans takes them in `alert_conditions` and
 * its settings keep them: a site figure of the one table (analysis/named-site-figures.ts) against a threshold, or a change
 * since the site's previous completed scan as the comparison of two scans sees it (grade_drop, pages_worse,
 * template_worse). Parsed here with the E40004 details of the rest of the scan request; judged by alert-verdicts.ts.
 */
import { fitsLimit, limitKind, siteBudget, SITE_BUDGET_NAMES, formatSite } from '../../analysis/named-site-figures.js';
import { GRADE_LETTERS } from '../../analysis/scan-comparison-rules.js';
import { orList } from '../../lib/words.js';
import { ApiError, eachEntry, show } from '../errors.js';
import { given } from '../options/options.js';
import { OPERATOR_SYMBOLS, type Operator } from '../vocabulary/alert-operators.js';
import type { DeviceClass } from '../vocabulary/device-classes.js';
import { DEVICE_NAME_WORDS, deviceClassNamed } from '../vocabulary/device-names.js';

export const ALERT_KINDS = ['figure', 'grade_drop', 'pages_worse', 'template_worse'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** A figure is held against its threshold with the operators of page alerts (a regression is the comparison kinds' job). */
export type FigureOperator = Exclude<Operator, 'regression'>;
export const FIGURE_OPERATORS = Object.keys(OPERATOR_SYMBOLS) as FigureOperator[];

/** Conditions a scan may carry. */
export const MAX_ALERT_CONDITIONS = 20;
/** Letters a grade can fall at most (A → F). */
const MAX_GRADE_DROP = 5;
const MAX_COUNT = 100_000;

/** One condition, defaults filled in: its kind, figure, operator and value are its identity from one scan to the next. */
export interface AlertCondition {
  kind: AlertKind;
  /** kind figure: a site figure's name (SITE_BUDGETS); null otherwise. */
  figure: string | null;
  /** kind figure: how the figure is held against `value`; null otherwise. */
  operator: FigureOperator | null;
  /** figure: the threshold; grade_drop: letters fallen, at least; pages_worse, template_worse: more than this many. */
  value: number;
  /** Judged on this device's scan only (a scan per device shares its request's conditions); absent: on every device's. */
  device?: DeviceClass;
}

/** What each comparison kind's value means, its default and its bounds. */
const COMPARISON_KINDS: Record<Exclude<AlertKind, 'figure'>, { value: number; min: number; max: number; unit: string }> = {
  grade_drop: { value: GRADE_LETTERS, min: 1, max: MAX_GRADE_DROP, unit: 'letters' },
  pages_worse: { value: 0, min: 0, max: MAX_COUNT, unit: 'pages' },
  template_worse: { value: 0, min: 0, max: MAX_COUNT, unit: 'templates' },
};

const CONDITION_MEMBERS = ['kind', 'figure', 'operator', 'value', 'device'];
const EXAMPLE = '{"figure": "lcp_p75", "operator": "gt", "value": 2500} or {"kind": "pages_worse", "value": 0}';
const bad = (detail: string) => new ApiError('E40004', detail);

/** The identity of a condition: the same on every scan that carries it, whatever else the scans have. */
export const conditionKey = (c: AlertCondition): string => [c.kind, c.figure ?? '', c.operator ?? '', c.value, c.device ?? ''].join('|');

/** Whether the condition is judged on a scan of `device`: it names none, or that one. */
export const conditionApplies = (c: Pick<AlertCondition, 'device'>, device: string): boolean => c.device === undefined || c.device === device;

/**
 * "LCP, 75th percentile > 2.50 s", "a page's grade falls 2 letters or more", as messages and the app say a condition to
 * people: the site figure by its label in the one table (not its name, lcp_p75, which conditions are written with), the
 * value as every output prints it.
 */
export function conditionText(c: AlertCondition, shownValue?: string): string {
  switch (c.kind) {
    case 'figure': {
      const b = siteBudget(c.figure ?? '');
      const value = shownValue ?? (b ? formatSite(b.unit, c.value) : String(c.value));
      return `${b?.label ?? c.figure} ${c.operator ? OPERATOR_SYMBOLS[c.operator] : '?'} ${value}`;
    }
    case 'grade_drop':
      return `a page's grade falls ${c.value} letter${c.value === 1 ? '' : 's'} or more`;
    case 'pages_worse':
      return `more than ${c.value} page${c.value === 1 ? '' : 's'} significantly worse`;
    default:
      return `more than ${c.value} template${c.value === 1 ? '' : 's'} significantly worse as a whole`;
  }
}

/** A number, or a string of one (the API is lenient with numbers, as elsewhere); undefined otherwise. */
function numberOf(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  return typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : undefined;
}

/** A condition's `device`: a device class (or `phone`); undefined when not given. */
function parseConditionDevice(v: unknown, at: string): DeviceClass | undefined {
  if (!given(v)) return undefined;
  const d = typeof v === 'string' ? deviceClassNamed(v) : undefined;
  if (!d) throw bad(`${at}.device ${show(v)} is no device class; use ${DEVICE_NAME_WORDS}, or leave device out for every device`);
  return d;
}

function parseCondition(raw: unknown, at: string): AlertCondition {
  const c = parseConditionWithoutDevice(raw, at);
  const device = parseConditionDevice((raw as Record<string, unknown>).device, at);
  return device === undefined ? c : { ...c, device };
}

function parseConditionWithoutDevice(raw: unknown, at: string): AlertCondition {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad(`${at} must be an object: ${EXAMPLE}; got ${show(raw)}`);
  const c = raw as Record<string, unknown>;
  const unknown = Object.keys(c).find((k) => !CONDITION_MEMBERS.includes(k));
  if (unknown !== undefined) throw bad(`${at} has an unknown member ${show(unknown)}; a condition has ${orList(CONDITION_MEMBERS)}`);
  let kind: AlertKind;
  if (given(c.kind)) {
    if (typeof c.kind !== 'string' || !(ALERT_KINDS as readonly string[]).includes(c.kind)) {
      throw bad(`${at}.kind ${show(c.kind)} is no condition kind; use one of ${orList(ALERT_KINDS)}`);
    }
    kind = c.kind as AlertKind;
  } else if (given(c.figure)) {
    kind = 'figure';
  } else {
    throw bad(`${at} needs a figure (${orList(SITE_BUDGET_NAMES)}) with an operator and a value, or a kind ` +
      `(${orList(ALERT_KINDS.filter((k) => k !== 'figure'))}): ${EXAMPLE}`);
  }
  const value = numberOf(c.value);
  if (kind === 'figure') {
    const b = typeof c.figure === 'string' ? siteBudget(c.figure) : undefined;
    if (!b) throw bad(`${at}.figure ${show(c.figure ?? null)} is no site figure; use one of ${orList(SITE_BUDGET_NAMES)}`);
    if (typeof c.operator !== 'string' || !(FIGURE_OPERATORS as string[]).includes(c.operator)) {
      throw bad(`${at}.operator must be ${orList(FIGURE_OPERATORS)} (${FIGURE_OPERATORS.map((o) => OPERATOR_SYMBOLS[o]).join(' ')}); got ${show(c.operator ?? null)}`);
    }
    if (value === undefined || !fitsLimit(b, value)) {
      throw bad(`${at}.value is the threshold of ${b.name} (${b.about}): it must be ${limitKind(b)}; got ${show(c.value ?? null)}`);
    }
    return { kind, figure: b.name, operator: c.operator as FigureOperator, value };
  }
  const rule = COMPARISON_KINDS[kind];
  if (given(c.figure) || given(c.operator)) {
    throw bad(`${at}: kind ${kind} takes no figure or operator (it compares the scan with the site's previous one); ` +
      `give {"kind": "${kind}", "value": ${rule.value}}`);
  }
  if (!given(c.value)) return { kind, figure: null, operator: null, value: rule.value };
  if (value === undefined || !Number.isInteger(value) || value < rule.min || value > rule.max) {
    throw bad(`${at}.value of kind ${kind} is a whole number of ${rule.unit} from ${rule.min} to ${rule.max} (default ${rule.value}); got ${show(c.value)}`);
  }
  return { kind, figure: null, operator: null, value };
}

/** `alert_conditions` of POST /scans: none when not given; each condition once, at most MAX_ALERT_CONDITIONS. */
export function parseAlertConditions(v: unknown): AlertCondition[] {
  if (!given(v)) return [];
  if (!Array.isArray(v)) throw bad(`alert_conditions must be an array of conditions, e.g. [${EXAMPLE}]; got ${show(v)}`);
  if (v.length > MAX_ALERT_CONDITIONS) throw bad(`alert_conditions has ${v.length} conditions; at most ${MAX_ALERT_CONDITIONS} are allowed`);
  const seen = new Map<string, number>();
  // Every bad condition is named, not only the first.
  return eachEntry('alert_conditions', v as unknown[], (raw, at, i) => {
    const c = parseCondition(raw, at);
    const same = seen.get(conditionKey(c));
    if (same !== undefined) throw bad(`${at} is the same condition as alert_conditions[${same}] (${conditionText(c)}); give it once`);
    seen.set(conditionKey(c), i);
    return c;
  });
}
