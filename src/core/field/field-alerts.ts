/**
 * Alerts on real visitors' figures (issue 51, point 3): a field site's condition on a p75 or a poor share
 * (`field_lcp_p75 > 2500` on mobile, `field_inp_poor_share > 0.1`), for the whole site, a template or a path, one
 * device or all, judged hourly over a window of days, and only on a minimum of page views (no alert on three
 * visits: below it the condition is "not judged"). A condition triggers once when it starts to hold and resolves once
 * when it stops; each change goes through the existing webhooks (`field.alert`) and e-mail, queued in the transaction
 * that changes the state, so a change notifies exactly once whatever the number of nodes and restarts. Figures are
 * read through core/field/figures.ts, like every field figure.
 */
import { assertOwnerRole } from '../accounts/roles.js';
import type { Principal } from '../accounts/accounts.js';
import { ApiError, show } from '../errors.js';
import { clock } from '../clock.js';
import { newId } from '../ids.js';
import { NAMED_FIELD_FIGURE_NAMES, namedFieldFigure, fitsFieldLimit, fieldLimitKind, formatNamedField } from '../../analysis/named-field-figures.js';
import { OPERATOR_SYMBOLS, type Operator } from '../vocabulary/alert-operators.js';
import { FIELD_ALERT_EVENTS_LIST } from '../vocabulary/lists.js';
import type { ListPage, ListQuery } from '../../store/list-query.js';
import { FIELD_DEVICES, type FieldDevice } from './beacon.js';
import { readFieldSummary, type FieldFilters } from './figures.js';
import { fieldHref } from './lab-field.js';
import type { FieldSite } from './sites.js';
import type { Db, Store } from '../../store/db.js';
import {
  changeFieldAlertState, countFieldAlerts, deleteFieldAlert, enabledFieldAlerts, fieldAlert, fieldAlertsOfSite, insertFieldAlert, insertFieldAlertEvent,
  noteFieldAlertJudged, queryFieldAlertEvents, recentFieldAlertEvents, updateFieldAlert, type FieldAlertEventRow, type FieldAlertRow,
} from '../../store/field-alerts.js';
import { fieldSiteById } from '../../store/field.js';
import { fieldSiteOf } from './sites.js';
import { checkPathPattern } from '../../discovery/templates.js';

export type { FieldAlertEventRow, FieldAlertRow };
export { fieldAlertsOfSite, recentFieldAlertEvents };

/** The alert operators' thresholds (core/vocabulary/alert-operators.ts); a regression has no meaning on a window of visits. */
export const FIELD_ALERT_OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const satisfies readonly Exclude<Operator, 'regression'>[];
export type FieldAlertOperator = (typeof FIELD_ALERT_OPERATORS)[number];
export const FIELD_ALERT_DEVICES = ['all', ...FIELD_DEVICES] as const;
export const FIELD_ALERT_DEFAULTS = { window_days: 7, min_views: 100 } as const;
export const FIELD_ALERT_WINDOW_MAX = 28;
export const FIELD_ALERTS_PER_SITE_MAX = 50;
/** How often conditions are judged: the day rollups move by the hour's views. */
export const FIELD_ALERT_INTERVAL_MS = 3_600_000;

export type FieldAlertState = 'fine' | 'triggered' | 'not_judged';

export interface FieldAlertInput {
  figure?: string;
  operator?: FieldAlertOperator;
  value?: number;
  device?: (typeof FIELD_ALERT_DEVICES)[number];
  template?: string;
  path?: string;
  window_days?: number;
  min_views?: number;
  enabled?: boolean;
}

const bad = (detail: string) => new ApiError('E4001', detail);
const ATTRIBUTES = ['figure', 'operator', 'value', 'device', 'template', 'path', 'window_days', 'min_views', 'enabled'];

export const FIELD_ALERT_SHAPE = 'send {"data":{"type":"field_alert_condition","attributes":{"figure":"field_lcp_p75","operator":"gt","value":2500,"device":"mobile"}}}';

/** A condition's attributes as a client gave them (create: figure, operator and value required); E4001 says what to fix. */
export function parseFieldAlertInput(a: Readonly<Record<string, unknown>>, mode: 'create' | 'patch', current?: FieldAlertRow): FieldAlertInput {
  for (const k of Object.keys(a)) if (!ATTRIBUTES.includes(k)) throw bad(`Unknown attribute ${show(k)}; a field alert condition has ${ATTRIBUTES.join(', ')}.`);
  const out: FieldAlertInput = {};
  if (a.figure !== undefined) {
    if (typeof a.figure !== 'string' || !namedFieldFigure(a.figure)) throw bad(`figure ${show(a.figure)} is not a field figure; use one of ${NAMED_FIELD_FIGURE_NAMES.join(', ')}.`);
    out.figure = a.figure;
  }
  if (a.operator !== undefined) {
    if (typeof a.operator !== 'string' || !(FIELD_ALERT_OPERATORS as readonly string[]).includes(a.operator)) {
      throw bad(`operator ${show(a.operator)} is unknown; use one of ${FIELD_ALERT_OPERATORS.join(', ')}.`);
    }
    out.operator = a.operator as FieldAlertOperator;
  }
  const figure = namedFieldFigure(out.figure ?? current?.figure ?? '');
  if (a.value !== undefined) {
    if (typeof a.value !== 'number' || !Number.isFinite(a.value)) throw bad(`value must be a number, got ${show(a.value)}.`);
    out.value = a.value;
  }
  if (figure && (out.value ?? current?.value) !== undefined && !fitsFieldLimit(figure, (out.value ?? current?.value)!)) {
    throw bad(`value of ${figure.name} must be ${fieldLimitKind(figure)}, got ${show(out.value ?? current?.value)}.`);
  }
  if (a.device !== undefined) {
    if (typeof a.device !== 'string' || !(FIELD_ALERT_DEVICES as readonly string[]).includes(a.device)) {
      throw bad(`device must be one of ${FIELD_ALERT_DEVICES.join(', ')}, got ${show(a.device)}.`);
    }
    out.device = a.device as FieldAlertInput['device'];
  }
  for (const k of ['template', 'path'] as const) {
    const v = a[k];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length > 2048) throw bad(`${k} must be a string of at most 2,048 characters, got ${show(v)}.`);
    if (v !== '' && !v.startsWith('/')) throw bad(`${k} must start with "/" (${k === 'path' ? 'a path of the site' : 'a URL template such as /blog/:slug'}), or be "" for the whole site; got ${show(v)}.`);
    if (k === 'template' && v !== '') {
      const problem = checkPathPattern(v);
      if (problem) throw bad(`template ${show(v)}: ${problem}`);
    }
    out[k] = v;
  }
  for (const [k, min, max] of [['window_days', 1, FIELD_ALERT_WINDOW_MAX], ['min_views', 1, 10_000_000]] as const) {
    const v = a[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw bad(`${k} must be a whole number from ${min} to ${max.toLocaleString('en')}, got ${show(v)}.`);
    out[k] = v;
  }
  if (a.enabled !== undefined) {
    if (typeof a.enabled !== 'boolean') throw bad(`enabled must be true or false, got ${show(a.enabled)}.`);
    out.enabled = a.enabled;
  }
  if (mode === 'create') {
    const missing = ['figure', 'operator', 'value'].filter((k) => out[k as keyof FieldAlertInput] === undefined);
    if (missing.length) throw bad(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required; ${FIELD_ALERT_SHAPE}.`);
  }
  return out;
}

export function fieldAlertNotFound(id: string): ApiError {
  return new ApiError('E40419', `No field alert condition ${show(id)} on this field site.`);
}

export async function requireFieldAlert(db: Db, site: FieldSite, id: string): Promise<FieldAlertRow> {
  const row = await fieldAlert(db, site.accountId, site.id, id);
  if (!row) throw fieldAlertNotFound(id);
  return row;
}

export async function createFieldAlert(store: Store, p: Principal, site: FieldSite, input: FieldAlertInput): Promise<FieldAlertRow> {
  assertOwnerRole(p, 'add field alerts');
  if ((await countFieldAlerts(store.db, site.id)) >= FIELD_ALERTS_PER_SITE_MAX) {
    throw bad(`A field site has at most ${FIELD_ALERTS_PER_SITE_MAX} alert conditions; delete one first.`);
  }
  const now = clock.now();
  const row: FieldAlertRow = {
    id: newId(), account_id: site.accountId, site_id: site.id, figure: input.figure!, operator: input.operator!, value: input.value!,
    device: input.device ?? 'all', template: input.template ?? '', path: input.path ?? '', window_days: input.window_days ?? FIELD_ALERT_DEFAULTS.window_days,
    min_views: input.min_views ?? FIELD_ALERT_DEFAULTS.min_views, enabled: input.enabled === false ? 0 : 1,
    state: 'not_judged', state_since: now, judged: null, measured: null, views: null, created: now,
  };
  await insertFieldAlert(store.db, row);
  return row;
}

export async function changeFieldAlert(store: Store, p: Principal, row: FieldAlertRow, input: FieldAlertInput): Promise<FieldAlertRow> {
  assertOwnerRole(p, 'change field alerts');
  const set: Partial<FieldAlertRow> = {};
  for (const k of ['figure', 'operator', 'value', 'device', 'template', 'path', 'window_days', 'min_views'] as const) {
    if (input[k] !== undefined) (set as Record<string, unknown>)[k] = input[k];
  }
  if (input.enabled !== undefined) set.enabled = input.enabled ? 1 : 0;
  // A changed condition is a new question, and a disabled one is asked no more: judged afresh (no "resolved" for a
  // condition that was only rewritten or switched off), as a page's alert condition starts over.
  const changed = Object.keys(set).some((k) => k !== 'enabled') || (input.enabled === false && row.enabled === 1);
  if (changed) Object.assign(set, { state: 'not_judged', state_since: clock.now(), judged: null, measured: null, views: null });
  if (Object.keys(set).length) await updateFieldAlert(store.db, row.id, set);
  return { ...row, ...set };
}

export async function removeFieldAlert(store: Store, p: Principal, row: FieldAlertRow): Promise<void> {
  assertOwnerRole(p, 'delete field alerts');
  await deleteFieldAlert(store.db, row.id);
}

/** "LCP p75 > 2.50 s, mobile, template /blog/:slug, last 7 days, at least 100 page views". */
export function fieldAlertText(c: Pick<FieldAlertRow, 'figure' | 'operator' | 'value' | 'device' | 'template' | 'path' | 'window_days' | 'min_views'>): string {
  const f = namedFieldFigure(c.figure);
  const name = f ? `${f.short} ${f.stat === 'p75' ? 'p75' : 'poor share'}` : c.figure;
  const symbol = (OPERATOR_SYMBOLS as Record<string, string>)[c.operator] ?? c.operator;
  const scope = c.path ? `path ${c.path}` : c.template ? `template ${c.template}` : 'the whole site';
  return `${name} ${symbol} ${f ? formatNamedField(f, c.value) : c.value}, ${c.device === 'all' ? 'all devices' : c.device}, ${scope}, ` +
    `last ${c.window_days} day${c.window_days === 1 ? '' : 's'}, at least ${c.min_views.toLocaleString('en')} page view${c.min_views === 1 ? '' : 's'}`;
}

/** The filters of a condition's scope, as the figures module reads them. */
export function fieldAlertFilters(c: Pick<FieldAlertRow, 'device' | 'template' | 'path'>): FieldFilters {
  const filters: FieldFilters = {};
  if (c.device !== 'all') filters.device = c.device as FieldDevice;
  if (c.template) filters.template = c.template;
  if (c.path) filters.path = c.path;
  return filters;
}

const holds = (op: string, measured: number, value: number): boolean =>
  op === 'gt' ? measured > value : op === 'gte' ? measured >= value : op === 'lt' ? measured < value : measured <= value;

/** A condition's verdict on figures: its figure's value and page views, and the state they give. */
export function judgeFieldAlert(c: Pick<FieldAlertRow, 'figure' | 'operator' | 'value' | 'min_views'>, figures: { metrics: Record<string, { n: number; p75: number | null; poor: number | null }> }):
  { state: FieldAlertState; measured: number | null; views: number } {
  const f = namedFieldFigure(c.figure);
  const m = f ? figures.metrics[f.metric] : undefined;
  const views = m?.n ?? 0;
  const measured = !m ? null : f!.stat === 'p75' ? m.p75 : m.poor;
  if (measured === null || views < c.min_views) return { state: 'not_judged', measured, views };
  return { state: holds(c.operator, measured, c.value) ? 'triggered' : 'fine', measured, views };
}

export interface FieldAlertChange {
  condition: FieldAlertRow;
  site: FieldSite;
  change: 'triggered' | 'resolved';
  measured: number;
  views: number;
}

/** Where a change is told: the webhooks and e-mail, in the transaction that changed the state (scheduler/field-alert-notices.ts). */
export type FieldAlertNotify = (trx: Db, change: FieldAlertChange) => Promise<void>;

/**
 * Judge every enabled condition at `now`: one read of the figures per site, window and scope, however many conditions
 * share them. A change between fine and triggered is stored and notified in one transaction; "not judged" (too few
 * views) never notifies, and a condition that falls under its minimum keeps the state it had. Returns the changes.
 */
export async function judgeFieldAlerts(store: Store, notify: FieldAlertNotify, now = clock.now()): Promise<FieldAlertChange[]> {
  const conditions = await enabledFieldAlerts(store.db);
  const sites = new Map<string, FieldSite | null>();
  const figures = new Map<string, Awaited<ReturnType<typeof readFieldSummary>>['figures']>();
  const changes: FieldAlertChange[] = [];
  for (const c of conditions) {
    if (!sites.has(c.site_id)) {
      const row = await fieldSiteById(store.db, c.site_id);
      sites.set(c.site_id, row ? fieldSiteOf(row) : null);
    }
    const site = sites.get(c.site_id);
    if (!site) continue;
    const filters = fieldAlertFilters(c);
    const key = JSON.stringify([c.site_id, c.window_days, filters]);
    let f = figures.get(key);
    if (!f) {
      try {
        f = (await readFieldSummary(store.db, site, { days: c.window_days, filters }, now)).figures;
      } catch (err) {
        // A scope the figures refuse (a path crossed with what it does not combine with) cannot be judged.
        if (!(err instanceof ApiError)) throw err;
        await noteFieldAlertJudged(store.db, c.id, now, null, 0);
        continue;
      }
      figures.set(key, f);
    }
    const verdict = judgeFieldAlert(c, f);
    if (verdict.state === 'not_judged') {
      if (c.state === 'not_judged' || c.state === 'fine') await changeFieldAlertState(store.db, c.id, 'not_judged', now, verdict.measured, verdict.views);
      await noteFieldAlertJudged(store.db, c.id, now, verdict.measured, verdict.views);
      continue;
    }
    if (verdict.state === c.state) {
      await noteFieldAlertJudged(store.db, c.id, now, verdict.measured, verdict.views);
      continue;
    }
    // From not judged to fine is no news; to triggered, or between triggered and fine, is.
    const change = verdict.state === 'triggered' ? 'triggered' : c.state === 'triggered' ? 'resolved' : undefined;
    await store.db.transaction().execute(async (trx) => {
      const changed = await changeFieldAlertState(trx, c.id, verdict.state, now, verdict.measured, verdict.views);
      if (changed && change) {
        const event: FieldAlertChange = { condition: { ...c, state: verdict.state, state_since: now }, site, change, measured: verdict.measured!, views: verdict.views };
        await insertFieldAlertEvent(trx, {
          id: newId(), account_id: c.account_id, site_id: c.site_id, condition_id: c.id, state: change, figure: c.figure, operator: c.operator,
          threshold: c.value, measured: event.measured, views: event.views, device: c.device, template: c.template, path: c.path,
          window_days: c.window_days, min_views: c.min_views, created: now,
        });
        await notify(trx, event);
        changes.push(event);
      }
    });
  }
  return changes;
}

/** A page of a site's alert events (GET /field_sites/{id}/alert_events), newest first by default. */
export function listFieldAlertEvents(db: Db, site: FieldSite, q: ListQuery): Promise<ListPage<FieldAlertEventRow>> {
  return queryFieldAlertEvents(db, site.accountId, site.id, FIELD_ALERT_EVENTS_LIST, q);
}

/** The Field screen's view of a condition's figures (its site, scope, device and window). */
export function fieldAlertHref(c: Pick<FieldAlertRow, 'site_id' | 'device' | 'template' | 'path' | 'window_days'>): string {
  return fieldHref(c.site_id, c.device === 'all' ? undefined : (c.device as FieldDevice), c.window_days, { path: c.path || undefined, template: c.template || undefined });
}
