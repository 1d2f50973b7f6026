/**
 * A page's alerts on its view: the page's alert conditions (metric, condition, consecutive reports, enabled, state),
 * a form to add one, a screen to change one, enable and disable, delete, and the latest alert events; each
 * triggered event is a flag on the history chart of its metric. The forms' values go straight to core's parser and
 * rules (parseConditionInput, createCondition, changeCondition, deleteCondition), so the checks and messages are
 * the API's own. The Viewer role sees the conditions and events only.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  changeCondition, conditionNotFound, CONSECUTIVE_MAX, createCondition, deleteCondition, listAlertEvents, listConditions, OPERATORS,
  parseConditionInput, requireCondition, ALERT_METRICS, type AlertConditionRow, type AlertEventRow, type Operator,
} from '../../core/alerts/alerts.js';
import { assertOwnerRole, mayChange } from '../../core/accounts/roles.js';
import { couldBeId } from '../../core/ids.js';
import type { PageRow } from '../../core/pages/pages.js';
import type { ReportRow } from '../../core/reports/reports.js';
import { metricSpec, type MetricUnit } from '../../core/vocabulary/metrics.js';
import { OPERATOR_SYMBOLS, operatorSymbol } from '../../core/vocabulary/alert-operators.js';
import type { Db } from '../../store/db.js';
import type { ListQuery } from '../../store/list-query.js';
import { when, type ChartMarker } from '../charts.js';
import { actionButton, csrfField, errorBox, esc, formRefusal, seeOther, selected, shell, type WebKit } from '../kit.js';
import type { FormFields, Visitor } from '../session.js';
import { showFigure } from './compare.js';
import { formatFigure } from '../../analysis/figures.js';

/** Events the page view lists (newest first), and triggered ones it looks through for flags and "since". */
export const EVENTS_SHOWN = 10;
const TRIGGERED_LOOKED_AT = 100;

/** How the form's menu names each of core's operators (the list writes a threshold with its symbol). */
export const OPERATOR_OPTIONS: Record<Operator, string> = {
  gt: `Above (${OPERATOR_SYMBOLS.gt})`,
  gte: `At or above (${OPERATOR_SYMBOLS.gte})`,
  lt: `Below (${OPERATOR_SYMBOLS.lt})`,
  lte: `At or below (${OPERATOR_SYMBOLS.lte})`,
  regression: 'Regression: worse than the page’s history by at least',
};

/** The unit a metric's value is given in, after its name in the Metric menu. */
const UNIT_HINT: Record<MetricUnit, string> = { time: 'ms', size: 'bytes', score: '0–100', count: '', cls: '' };

const metricLabel = (metric: string) => metricSpec(metric)?.label ?? metric;
const metricUnit = (metric: string): MetricUnit => metricSpec(metric)?.unit ?? 'count';
const amount = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 6 });
const timeTag = (t: number) => `<time datetime="${new Date(t).toISOString()}">${when(t)}</time>`;

/**
 * A condition's value as its events and every output print the metric (the one table's print: "3.00 s", "488.3 KB",
 * "80%"); a regression's relative change "10 %". The edit form holds the exact value.
 */
export function valueText(c: Pick<AlertConditionRow, 'metric' | 'operator' | 'value'>): string {
  if (c.operator === 'regression') return `${amount(c.value * 100)} %`;
  return formatFigure(metricUnit(c.metric), c.value);
}

/** The condition after the metric: "> 3.00 s", "regression of 10 % or more". */
export function conditionText(c: Pick<AlertConditionRow, 'metric' | 'operator' | 'value'>): string {
  if (c.operator === 'regression') return `regression of ${valueText(c)} or more`;
  return `${operatorSymbol(c.operator) ?? c.operator} ${valueText(c)}`;
}

/** "Fully loaded > 3,000 ms": the alert in the words of its buttons' names and its edit screen. */
export const alertName = (c: Pick<AlertConditionRow, 'metric' | 'operator' | 'value'>): string =>
  `${metricLabel(c.metric)} ${conditionText(c)}`;

/* The form. */

/** What the form's fields held (to show them again with an error). */
export interface ConditionFormValues {
  metric: string;
  operator: string;
  value: string;
  consecutive: string;
}

/** A failed add or change: core's words, and what the form held. */
export interface AlertFormState {
  error: string;
  values: ConditionFormValues;
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
/** A number field as the API's JSON would carry it: a number when the text is one, else the text itself (core says why not). */
const numberOf = (text: string): unknown => (NUMBER.test(text.trim()) ? Number(text.trim()) : text);

/**
 * The form's fields as a condition's attributes, what POST (or a change of) performance_alert_conditions would
 * carry: fields the form did not send are left out; a blank "Consecutive reports" too (core's default, or no change).
 */
export function conditionAttributesFromForm(form: FormFields): Record<string, unknown> {
  const a: Record<string, unknown> = {};
  for (const k of ['metric', 'operator'] as const) {
    const v = form.get(k);
    if (v !== undefined) a[k] = v;
  }
  const value = form.get('value');
  if (value !== undefined) a.value = numberOf(value);
  const consecutive = form.get('consecutive');
  if (consecutive !== undefined && consecutive.trim() !== '') a.consecutive = numberOf(consecutive);
  const enabled = form.get('enabled');
  if (enabled !== undefined) a.enabled = enabled === 'true' ? true : enabled === 'false' ? false : enabled;
  return a;
}

const valuesOf = (form: FormFields, c?: AlertConditionRow): ConditionFormValues => ({
  metric: form.get('metric') ?? c?.metric ?? '',
  operator: form.get('operator') ?? c?.operator ?? '',
  value: form.get('value') ?? (c ? String(c.value) : ''),
  consecutive: form.get('consecutive') ?? (c ? String(c.consecutive) : ''),
});

const conditionValues = (c: AlertConditionRow): ConditionFormValues =>
  ({ metric: c.metric, operator: c.operator, value: String(c.value), consecutive: String(c.consecutive) });

/** Metric, Condition, Value and Consecutive reports; hints are described-by, so each field's name is its label. */
function conditionFields(prefix: string, f: ConditionFormValues): string {
  const metrics = ALERT_METRICS.map((m) => {
    const unit = UNIT_HINT[metricUnit(m)];
    return `<option value="${esc(m)}"${selected(m === f.metric)}>${esc(metricLabel(m))}${unit ? ` (${unit})` : ''}</option>`;
  }).join('');
  const operators = OPERATORS.map((o) => `<option value="${o}"${selected(o === f.operator)}>${esc(OPERATOR_OPTIONS[o])}</option>`).join('');
  const id = (name: string) => `${prefix}-${name}`;
  return `<div class="row"><div class="field"><label for="${id('metric')}">Metric</label><select id="${id('metric')}" name="metric">${metrics}</select></div>
<div class="field"><label for="${id('operator')}">Condition</label><select id="${id('operator')}" name="operator">${operators}</select></div></div>
<div class="row"><div class="field"><label for="${id('value')}">Value</label>` +
    `<input id="${id('value')}" name="value" type="text" inputmode="decimal" autocomplete="off" spellcheck="false" value="${esc(f.value)}" aria-describedby="${id('value-hint')}">` +
    `<span class="hint" id="${id('value-hint')}">In the metric’s unit: milliseconds for times, bytes for sizes, 0 to 100 for scores. ` +
    `For a regression, the smallest relative change that matters (0.1 = 10 %).</span></div>
<div class="field"><label for="${id('consecutive')}">Consecutive reports</label>` +
    `<input id="${id('consecutive')}" name="consecutive" type="number" min="1" max="${CONSECUTIVE_MAX}" step="1" value="${esc(f.consecutive)}" aria-describedby="${id('consecutive-hint')}">` +
    `<span class="hint" id="${id('consecutive-hint')}">1 to ${CONSECUTIVE_MAX}: the alert triggers once this many reports in a row meet the condition.</span></div></div>`;
}

/* The part of the page view. */

export interface PageAlerts {
  conditions: AlertConditionRow[];
  /** The newest events, newest first. */
  latest: AlertEventRow[];
  /** The newest triggered events, newest first. */
  triggered: AlertEventRow[];
}

const newestEvents = (size: number, state?: 'triggered'): ListQuery => ({
  filters: state ? [{ attr: 'state', type: 'enum', op: 'eq', values: [state] }] : [],
  bool: 'AND', sort: [{ attr: 'created', desc: true }], filteredOrSorted: state !== undefined, page: { size, number: 1 },
});

export async function loadPageAlerts(db: Db, accountId: string, pageId: string): Promise<PageAlerts> {
  const [conditions, latest, triggered] = await Promise.all([
    listConditions(db, accountId, pageId),
    listAlertEvents(db, accountId, pageId, newestEvents(EVENTS_SHOWN)),
    listAlertEvents(db, accountId, pageId, newestEvents(TRIGGERED_LOOKED_AT, 'triggered')),
  ]);
  return { conditions, latest: latest.rows, triggered: triggered.rows };
}

/** The flags of the history charts by metric: each triggered event at its report (reports not charted have none). */
export function alertMarkers(triggered: AlertEventRow[], reports: ReportRow[]): Map<string, ChartMarker[]> {
  const timeOf = new Map(reports.map((r) => [r.id, r.created]));
  const out = new Map<string, ChartMarker[]>();
  for (const e of triggered) {
    const time = timeOf.get(e.report_id);
    if (e.state !== 'triggered' || time === undefined) continue;
    out.set(e.metric, [...(out.get(e.metric) ?? []), { time, value: e.value }]);
  }
  return out;
}

const SAVED: Record<string, string> = {
  'alert-added': 'Alert added.',
  'alert-saved': 'Alert saved.',
  'alert-enabled': 'Alert enabled.',
  'alert-disabled': 'Alert disabled: new reports are not compared with it until it is enabled again.',
  'alert-deleted': 'Alert deleted; its past events stay listed.',
};

/** A cell of a list that stacks as label and value on a phone (its content one item beside the label). */
const cell = (label: string, html: string, cls = '') => `<td data-label="${esc(label)}"${cls ? ` class="${cls}"` : ''}><span>${html}</span></td>`;

function conditionsTable(v: Visitor, page: PageRow, a: PageAlerts, canEdit: boolean): string {
  if (a.conditions.length === 0) return `<p class="muted">No alerts on this page yet.</p>`;
  const rows = a.conditions.map((c) => {
    const since = c.state === 'triggered' ? a.triggered.find((e) => e.condition_id === c.id) : undefined;
    const state = c.state === 'triggered'
      ? `<span class="pv-alert-on">Triggered</span>${since ? ` since ${timeTag(since.created)}` : ''}`
      : 'OK';
    const name = alertName(c);
    const base = `/pages/${page.id}/alerts/${c.id}`;
    const actions = canEdit
      ? `<td class="pv-alert-actions"><div class="actions"><a class="btn secondary small" href="${esc(base)}" aria-label="${esc(`Edit alert ${name}`)}">Edit</a>` +
        actionButton(v, base, c.enabled ? 'Disable' : 'Enable', { style: 'secondary small', hidden: { enabled: c.enabled ? 'false' : 'true' }, name: `${c.enabled ? 'Disable' : 'Enable'} alert ${name}` }) +
        actionButton(v, `${base}/delete`, 'Delete', { style: 'danger small', name: `Delete alert ${name}`, confirm: `Delete the alert “${name}”? Its past events stay listed.` }) +
        '</div></td>'
      : '';
    return `<tr id="alert-${esc(c.id)}">${cell('Metric', esc(metricLabel(c.metric)))}${cell('Condition', esc(conditionText(c)))}` +
      `${cell('Consecutive reports', String(c.consecutive), 'num')}${cell('Enabled', c.enabled ? 'Yes' : 'No')}${cell('State', state)}${actions}</tr>`;
  }).join('');
  return `<div class="tablewrap"><table class="pv-stack pv-alerts"><caption class="visually-hidden">Alerts of this page</caption>
<thead><tr><th scope="col">Metric</th><th scope="col">Condition</th><th scope="col" class="num">Consecutive reports</th><th scope="col">Enabled</th>` +
    `<th scope="col">State (UTC)</th>${canEdit ? '<th scope="col"><span class="visually-hidden">Actions</span></th>' : ''}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function eventsTable(a: PageAlerts, reports: ReportRow[]): string {
  if (a.latest.length === 0) {
    return `<p class="muted">No alert events yet: one is recorded when an alert triggers, and when it resolves.</p>`;
  }
  const reportTime = new Map(reports.map((r) => [r.id, r.created]));
  const rows = a.latest.map((e) => {
    const unit = metricUnit(e.metric);
    const of = when(reportTime.get(e.report_id) ?? e.created);
    return `<tr>${cell('When (UTC)', timeTag(e.created))}` +
      cell('Event', e.state === 'triggered' ? '<span class="pv-alert-on">Triggered</span>' : 'Resolved') +
      cell('Metric', esc(metricLabel(e.metric)) + (e.note ? `<div class="muted pv-alert-note">${esc(e.note)}</div>` : '')) +
      cell('Value', `${esc(showFigure(unit, e.value))} <span class="muted">against ${esc(showFigure(unit, e.threshold))}</span>`, 'num') +
      cell('Report', `<a href="/reports/${esc(e.report_id)}">Report<span class="visually-hidden"> of ${of}</span></a>`) + '</tr>';
  }).join('');
  return `<div class="tablewrap"><table class="pv-stack pv-alert-events"><caption class="visually-hidden">The ${a.latest.length} latest alert events, newest first</caption>
<thead><tr><th scope="col">When (UTC)</th><th scope="col">Event</th><th scope="col">Metric</th><th scope="col" class="num">Value</th>` +
    `<th scope="col">Report</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The Alerts section of the page view: the conditions, the form to add one (not for the Viewer role), the latest events. */
export function alertsPart(v: Visitor, page: PageRow, a: PageAlerts, reports: ReportRow[], notice: { saved?: string; alertForm?: AlertFormState } = {}): string {
  const canEdit = mayChange(v.principal);
  const saved = notice.saved && Object.hasOwn(SAVED, notice.saved) ? `<div class="ok" role="status">${esc(SAVED[notice.saved])}</div>` : '';
  const form = canEdit
    ? `<form method="post" action="/pages/${esc(page.id)}/alerts" class="pv-alert-new" aria-labelledby="pv-alert-new"><h3 id="pv-alert-new">Add an alert</h3>` +
      `${csrfField(v)}${errorBox(notice.alertForm?.error)}
${conditionFields('f-alert', notice.alertForm?.values ?? { metric: 'fully_loaded_time', operator: 'gt', value: '', consecutive: '1' })}
<button class="btn" type="submit">Add alert</button></form>`
    : `<p class="muted">The Viewer role can see alerts but not change them.</p>`;
  return `<section class="pv-section" id="alerts" aria-labelledby="pv-alerts"><h2 id="pv-alerts">Alerts</h2>
<p class="muted">Each new report of the page is compared with its enabled alerts: an alert triggers when its condition holds for its consecutive ` +
    `reports, and resolves on the first report where it no longer does.</p>
<div class="card pv-alert-card">${saved}${conditionsTable(v, page, a, canEdit)}${form}</div>
<h3 class="pv-alert-sub" id="pv-alert-events">Latest events</h3><div class="card">${eventsTable(a, reports)}</div></section>`;
}

/* The forms' routes, registered with the page view's other forms (screens/pages.ts). */

export interface AlertRoutesDeps {
  /** The account's page named in the path, or 404 (as the page view finds it). */
  loadPage: (v: Visitor, id: string) => Promise<PageRow>;
  /** The page view again, with the add form's failure. */
  pageScreen: (v: Visitor, nonce: string, page: PageRow, alertForm: AlertFormState) => Promise<string>;
}

export function registerAlertRoutes(kit: WebKit, deps: AlertRoutesDeps): void {
  const { ctx } = kit;
  const db = ctx.store.db;
  const params = (req: FastifyRequest) => req.params as { id: string; alert: string };

  /** The page and its condition named in the path (404 for any other), as the API finds them. */
  async function owned(v: Visitor, req: FastifyRequest): Promise<{ page: PageRow; condition: AlertConditionRow }> {
    const page = await deps.loadPage(v, params(req).id);
    const id = params(req).alert;
    if (!couldBeId(id)) throw conditionNotFound(id);
    return { page, condition: await requireCondition(db, v.principal.accountId, page.id, id) };
  }

  /** A refusal with core's words on the form shown again, with the API's status; anything else is an error screen. */
  function refused(reply: FastifyReply, err: unknown): string {
    const e = formRefusal(reply, err, { notFound: 'screen' });
    return `${e.title}: ${e.detail ?? ''}`;
  }

  function editScreen(v: Visitor, nonce: string, page: PageRow, c: AlertConditionRow, values: ConditionFormValues, error?: string): string {
    const body = `<p class="pv-back"><a href="/pages/${esc(page.id)}#alerts">Back to the page</a></p>
<h1>Edit alert</h1><p class="muted pv-url">${esc(alertName(c))} · ${esc(page.url)}</p>
<form method="post" action="/pages/${esc(page.id)}/alerts/${esc(c.id)}" class="card pv-alert-edit">${csrfField(v)}${errorBox(error)}
${conditionFields('f-edit', values)}
<p class="muted">Changing the metric, condition or value starts the alert over from OK.</p>
<button class="btn" type="submit">Save alert</button></form>`;
    return shell(v, nonce, { title: `Edit alert ${alertName(c)}`, active: 'pages', body });
  }

  kit.action('/pages/:id/alerts', async (req, reply, v, form, nonce) => {
    const page = await deps.loadPage(v, params(req).id);
    assertOwnerRole(v.principal, 'create alert conditions');
    try {
      const input = parseConditionInput(conditionAttributesFromForm(form), 'create');
      await createCondition(db, v.principal, page.id, input);
    } catch (err) {
      const error = refused(reply, err);
      return deps.pageScreen(v, nonce, page, { error, values: valuesOf(form) });
    }
    return seeOther(reply, `/pages/${page.id}?saved=alert-added#alerts`);
  });

  kit.screen('/pages/:id/alerts/:alert', async (req, _reply, v, nonce) => {
    const { page, condition } = await owned(v, req);
    assertOwnerRole(v.principal, 'change alert conditions');
    return editScreen(v, nonce, page, condition, conditionValues(condition));
  });

  /** The edit screen's form, and the list's Enable and Disable (which send `enabled` alone). */
  kit.action('/pages/:id/alerts/:alert', async (req, reply, v, form, nonce) => {
    const { page, condition } = await owned(v, req);
    assertOwnerRole(v.principal, 'change alert conditions');
    let changed: AlertConditionRow;
    try {
      const input = parseConditionInput(conditionAttributesFromForm(form), 'patch', condition);
      changed = await changeCondition(db, v.principal, condition, input);
    } catch (err) {
      const error = refused(reply, err);
      return editScreen(v, nonce, page, condition, valuesOf(form, condition), error);
    }
    const toggled = form.has('enabled') && !form.has('value');
    const saved = toggled ? (changed.enabled ? 'alert-enabled' : 'alert-disabled') : 'alert-saved';
    return seeOther(reply, `/pages/${page.id}?saved=${saved}#alerts`);
  });

  kit.action('/pages/:id/alerts/:alert/delete', async (req, reply, v) => {
    const { page, condition } = await owned(v, req);
    await deleteCondition(db, v.principal, condition);
    return seeOther(reply, `/pages/${page.id}?saved=alert-deleted#alerts`);
  });
}
