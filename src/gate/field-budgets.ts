/**
 * Field budgets of the gate (issue 51): limits on what this site's real visitors experienced, read from the server's
 * field figures of the tested URL (`GET /reports/{id}/field`, `webgauge test`) or of the scanned site
 * (`GET /scans/{id}/field`, `webgauge scan`). The names come from the one table of field figures (FIELD_FIGURES):
 * `field_<figure>_p75` (ms, CLS unitless) and `field_<figure>_poor_share` (0-1), each a max.
 *
 * A figure judged on too few page views is no verdict: the check is skipped, saying so (and whose views were read when
 * they were the URL's template's), as it is when no field site collects the origin or the server has no field figures.
 */
import { readFile } from 'node:fs/promises';
import {
  fieldLimitKind, fitsFieldLimit, formatNamedField, formatNamedFieldAgainst, NAMED_FIELD_FIGURE_NAMES, NAMED_FIELD_FIGURES, namedFieldFigure,
  type NamedFieldFigure,
} from '../analysis/named-field-figures.js';
import { orList, plural } from '../lib/words.js';
import { DEVICE_NAME_WORDS, deviceClassNamed } from '../core/vocabulary/device-names.js';
import type { DeviceClass } from '../core/vocabulary/device-classes.js';
import { apiErrorText, GateError, type ApiClient } from './api-client.js';
import { parseDeviceBudget, type Budget, type Check, type DeviceBudget, type Limit } from './checks.js';

/** The field budgets: the named field figures (analysis/named-field-figures.ts), each a max. */
export const FIELD_BUDGETS = NAMED_FIELD_FIGURES;
export const FIELD_BUDGET_NAMES = NAMED_FIELD_FIGURE_NAMES;
export const fieldBudget = namedFieldFigure;
export const isFieldBudget = (name: string): boolean => fieldBudget(name) !== undefined;
type FieldBudgetSpec = NamedFieldFigure;

/**
 * An inline budget of `webgauge test` (`--budget [DEVICE:]NAME=VALUE`), told from a budget file's path by its shape
 * alone, never by what is on disk: an optional device and a colon, then a name of letters, digits and underscores, an
 * equals sign and the rest. Anything else is a file (a file named like that: give it as `./NAME=VALUE`).
 */
const INLINE = /^(?:([A-Za-z][A-Za-z-]*):)?([A-Za-z][A-Za-z0-9_]*)=(.*)$/s;
export const isInlineBudget = (spec: string): boolean => INLINE.test(spec);

export interface InlineBudget {
  device?: DeviceClass;
  name: string;
  limit: Limit;
}

export function parseInlineBudget(spec: string): InlineBudget {
  const m = INLINE.exec(spec);
  if (!m) throw new GateError(`--budget ${spec}: give a budget file, or [DEVICE:]NAME=VALUE`);
  const [, deviceName, name, text] = m as unknown as [string, string | undefined, string, string];
  const names = `${orList(FIELD_BUDGET_NAMES)} (e.g. --budget field_lcp_p75=2500)`;
  const b = fieldBudget(name);
  if (!b) {
    throw new GateError(`--budget ${spec}: "${name}" is no field budget; inline budgets are ${names}. Limits on report attributes go in ` +
      `a budget file ({"${name}": {"max": …}}); a budget file named like this one: give it as ./${spec}`);
  }
  let device: DeviceClass | undefined;
  if (deviceName !== undefined) {
    device = deviceClassNamed(deviceName);
    if (!device) throw new GateError(`--budget ${spec}: "${deviceName}" is no device; write DEVICE:NAME=VALUE with DEVICE ${DEVICE_NAME_WORDS}`);
  }
  const value = Number(text.trim());
  if (text.trim() === '' || !fitsFieldLimit(b, value)) {
    throw new GateError(`--budget ${spec}: the max of ${name} (${b.about}) must be ${fieldLimitKind(b)}`);
  }
  return { ...(device ? { device } : {}), name, limit: { max: value } };
}

/**
 * The `--budget`s of `webgauge test`: at most one budget file, and inline field budgets (`[DEVICE:]NAME=VALUE`, told
 * from a file by their shape: field-budgets.ts isInlineBudget), merged into one budget; a name given twice for one
 * device (in the file and inline, or inline twice) is refused. `where` names them in messages.
 */
export async function readBudgets(specs: readonly string[]): Promise<{ budget?: DeviceBudget; where: string }> {
  const files = specs.filter((s) => !isInlineBudget(s));
  if (files.length > 1) throw new GateError(`--budget: give one budget file, not ${files.length} (${files.join(', ')}); inline budgets beside it as NAME=VALUE`);
  const file = files[0];
  const parsed = file === undefined ? undefined : parseDeviceBudget(await readFile(file, 'utf8').catch((err: Error) => {
    throw new GateError(`cannot read the budget file: ${err.message}`);
  }), file);
  const inline = specs.filter(isInlineBudget);
  const where = file === undefined ? '--budget' : `budget ${file}`;
  if (inline.length === 0) return { budget: parsed, where };
  const all = new Map(parsed?.all ?? []);
  const byDevice = new Map([...(parsed?.byDevice ?? [])].map(([d, b]) => [d, new Map(b)]));
  for (const spec of inline) {
    const { device, name, limit } = parseInlineBudget(spec);
    const into = device === undefined ? all : byDevice.get(device) ?? new Map();
    if (device !== undefined) byDevice.set(device, into);
    if (into.has(name)) throw new GateError(`--budget ${spec}: ${name} is given twice${device ? ` for ${device}` : ''}`);
    into.set(name, limit);
  }
  return { budget: { all, byDevice }, where };
}

/** A budget's report limits and its field limits, each in the order given. */
export function splitFieldBudget(budget: Budget): { report: Budget; field: Budget } {
  const report = new Map<string, Limit>();
  const field = new Map<string, Limit>();
  for (const [name, limit] of budget) (isFieldBudget(name) ? field : report).set(name, limit);
  return { report, field };
}

/** One metric's figures as the server gives them. */
interface MetricAnswer {
  page_views?: number;
  p75?: number | null;
  poor?: number | null;
}

/** The field figures of `GET /reports/{id}/field` or `GET /scans/{id}/field` (the few the gate reads). */
export interface FieldAnswer {
  site: { id: string; name: string } | null;
  device?: string;
  window?: { days?: number } | null;
  basis?: string | null;
  path?: string | null;
  template?: string | null;
  path_views?: number;
  template_views?: number;
  page_views?: number;
  min_views?: number;
  metrics?: Record<string, MetricAnswer> | null;
  detail?: string;
}

/** What the server answered: its field figures, or why there are none to judge (the server has no such endpoint). */
export type FieldSource = { answer: FieldAnswer; link?: string } | { unavailable: string };

/** The server's field figures at `path`; a 404 is a server without field figures (an older Webgauge, or another API 2.0). */
export async function fetchField(api: ApiClient, path: string): Promise<FieldSource> {
  const reply = await api.request('GET', path);
  if (reply.status === 404) {
    return { unavailable: `the server has no field figures (GET ${path}: ${apiErrorText(reply)}): an older Webgauge or another server of API 2.0` };
  }
  if (reply.status >= 400) throw new GateError(`GET ${path}: ${apiErrorText(reply)}`);
  const data = reply.body?.data as { attributes?: FieldAnswer; links?: { field?: string } } | undefined;
  if (!data?.attributes || typeof data.attributes !== 'object') throw new GateError(`GET ${path}: the server answered without field figures`);
  return { answer: data.attributes, ...(typeof data.links?.field === 'string' ? { link: data.links.field } : {}) };
}

const DEFAULT_MIN_VIEWS = 50;
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

const shown = formatNamedField;
const against = formatNamedFieldAgainst;

/** Whose page views the figures are: "real visitors on mobile, last 28 days: 120 page views of /p/1". */
function basisText(a: FieldAnswer, n: number): string {
  const days = a.window?.days;
  const who = `real visitors${a.device ? ` on ${a.device}` : ''}${days ? `, last ${days} days` : ''}`;
  const views = plural(n, 'page view');
  if (a.basis === 'template') {
    return `${who}: ${views} of the template ${a.template ?? '?'}, read as the URL ${a.path ?? ''} had ${plural(a.path_views ?? 0, 'page view')}, ` +
      `fewer than ${a.min_views ?? DEFAULT_MIN_VIEWS}`;
  }
  return `${who}: ${views} of ${a.path ?? 'the site'}`;
}

/** Each field limit against the server's field figures; skipped (with why) where they cannot be judged. */
export function checkFieldBudgets(budget: Budget, source: FieldSource): Check[] {
  return [...budget].map(([name, limit]): Check => {
    const b = fieldBudget(name)!;
    const bound = limit.max!;
    const base = { kind: 'budget' as const, attribute: name, limit };
    const skipped = (why: string): Check => ({ ...base, outcome: 'skipped', message: `${name}: not judged: ${why}` });
    if ('unavailable' in source) return skipped(source.unavailable);
    const a = source.answer;
    if (a.site === null || !a.metrics) return skipped(a.detail ?? 'no field site collects this origin\'s page views');
    const min = isNumber(a.min_views) ? a.min_views : DEFAULT_MIN_VIEWS;
    const m = a.metrics[b.metric] ?? {};
    const n = isNumber(m.page_views) ? m.page_views : 0;
    if (a.basis === 'too-few' || n < min) {
      const whose = a.basis === 'too-few' && a.path !== undefined
        ? `${plural(a.path_views ?? 0, 'page view')} of ${a.path}${a.template ? ` and ${plural(a.template_views ?? 0, 'page view')} of its template ${a.template}` : ''}`
        : `${plural(n, 'page view')} measured ${fieldBudgetShort(b)} (${basisText(a, n)})`;
      return skipped(`too few page views to judge: ${whose}, fewer than ${min}${a.device ? ` on ${a.device}` : ''}`);
    }
    const value = b.stat === 'p75' ? m.p75 : m.poor;
    if (!isNumber(value)) return skipped(`no value of ${fieldBudgetShort(b)} (${basisText(a, n)})`);
    const over = value > bound;
    const [v, l] = over ? against(b, value, bound) : [shown(b, value), shown(b, bound)];
    const of = ` (${basisText(a, n)})`;
    return { ...base, value, outcome: over ? 'fail' : 'pass',
      message: over ? `${name} ${v} is over its budget of max ${l}${of}` : `${name} ${v} is within its budget (max ${l})${of}` };
  });
}

const fieldBudgetShort = (b: FieldBudgetSpec): string => b.short;

/** The usage text's table of field budgets: name, direction, what it is. */
export function fieldBudgetTable(indent: string, width = Math.max(...FIELD_BUDGET_NAMES.map((n) => n.length))): string {
  return FIELD_BUDGETS.map((b) => `${indent}${b.name.padEnd(width)}  max  ${b.about}`).join('\n');
}
