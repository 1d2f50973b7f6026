/**
 * A field site's alerts (issue 51, point 3) in the app: `/field/{id}/alerts` lists the site's conditions on real
 * visitors' figures with their state (triggered, fine, not judged: only N of M page views) and, for the Owner role, a
 * form to add one and a button to delete each. The form becomes the API's attributes and goes through core's parser
 * (core/field/field-alerts.ts), so a refusal says what the API says. The site's view links here with a summary.
 */
import type { FastifyReply } from 'fastify';
import { NAMED_FIELD_FIGURES, formatNamedField, namedFieldFigure } from '../../analysis/named-field-figures.js';
import { assertOwnerRole } from '../../core/accounts/roles.js';
import {
  createFieldAlert, FIELD_ALERT_DEFAULTS, FIELD_ALERT_DEVICES, FIELD_ALERT_OPERATORS, FIELD_ALERT_WINDOW_MAX, fieldAlertHref, fieldAlertsOfSite,
  fieldAlertText, parseFieldAlertInput, recentFieldAlertEvents, removeFieldAlert, requireFieldAlert, type FieldAlertEventRow, type FieldAlertRow,
} from '../../core/field/field-alerts.js';
import { fieldSiteNotFound, requireFieldSite, type FieldSite } from '../../core/field/sites.js';
import { couldBeId } from '../../core/ids.js';
import { OPERATOR_SYMBOLS } from '../../core/vocabulary/alert-operators.js';
import type { FormFields, Visitor } from '../session.js';
import { actionButton, csrfField, errorBox, esc, formField, formRefusal, seeOther, selected, shell, type WebKit } from '../kit.js';
import { utcMinute } from './figures.js';

const FIELD_NAMES = ['figure', 'operator', 'value', 'device', 'template', 'path', 'window_days', 'min_views'] as const;
type AlertForm = Record<(typeof FIELD_NAMES)[number], string>;
const blank: AlertForm = { figure: 'field_lcp_p75', operator: 'gt', value: '', device: 'all', template: '', path: '',
  window_days: String(FIELD_ALERT_DEFAULTS.window_days), min_views: String(FIELD_ALERT_DEFAULTS.min_views) };
const OPERATOR_WORDS: Record<string, string> = { gt: 'above', gte: 'at or above', lt: 'below', lte: 'at or below' };
const DEVICE_WORDS: Record<string, string> = { all: 'All devices', mobile: 'Mobile', tablet: 'Tablet', desktop: 'Desktop' };

const valuesOf = (form: FormFields): AlertForm => Object.fromEntries(FIELD_NAMES.map((k) => [k, form.get(k) ?? ''])) as AlertForm;

/** The form as the API's attributes: numbers as numbers when they are numbers (the parser names what is wrong otherwise). */
function attributesOf(f: AlertForm): Record<string, unknown> {
  const number = (s: string) => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s);
  return {
    figure: f.figure, operator: f.operator, value: f.value.trim() === '' ? undefined : number(f.value), device: f.device || 'all', template: f.template.trim(),
    path: f.path.trim(), window_days: number(f.window_days), min_views: number(f.min_views),
  };
}

const viewsWords = (c: Pick<FieldAlertRow, 'views' | 'min_views'>) => `${(c.views ?? 0).toLocaleString('en')} of the ${c.min_views.toLocaleString('en')} page views needed`;

/**
 * "Triggered since 14:02 5 Dec", "Fine", "Not judged: 20 of 100 page views". A triggered condition whose window has
 * fallen under its minimum stays triggered (no "resolved" on too few views) and says so.
 */
export function fieldAlertState(c: FieldAlertRow): { word: string; className: string } {
  if (c.state === 'triggered') {
    const under = c.judged !== null && c.judged > c.state_since && (c.views ?? 0) < c.min_views;
    return { word: `Triggered since ${utcMinute(c.state_since)} UTC${under ? `; not judged since: only ${viewsWords(c)}` : ''}`, className: 'scan-alert-triggered' };
  }
  if (c.state === 'fine') return { word: 'Fine', className: 'scan-alert-resolved' };
  if (c.judged === null) return { word: 'Not judged yet (every hour)', className: 'muted' };
  return { word: `Not judged: only ${viewsWords(c)}`, className: 'muted' };
}

/** The site view's line: how many conditions, how many triggered, and the way to them. */
export function fieldAlertsSummary(site: FieldSite, rows: readonly FieldAlertRow[]): string {
  const triggered = rows.filter((c) => c.state === 'triggered' && c.enabled === 1).length;
  const words = rows.length === 0 ? 'No alerts yet' : `${rows.length} alert condition${rows.length === 1 ? '' : 's'}` +
    (triggered ? `, <strong class="scan-alert-triggered">${triggered} triggered</strong>` : ', none triggered');
  return `<p class="field-alerts-line">${words} · <a href="/field/${esc(site.id)}/alerts">Alerts</a></p>`;
}

function conditionsTable(v: Visitor, site: FieldSite, rows: readonly FieldAlertRow[]): string {
  if (rows.length === 0) return '<div class="card"><p class="muted">No alert conditions yet.</p></div>';
  const owner = v.principal.role !== 'viewer';
  const items = rows.map((c) => {
    const state = fieldAlertState(c);
    const f = namedFieldFigure(c.figure);
    const measured = c.measured === null || !f ? '–' : formatNamedField(f, c.measured);
    return `<tr><td class="wraps">${esc(fieldAlertText(c))}${c.enabled === 1 ? '' : ' <span class="muted">(disabled)</span>'}</td>` +
      `<td class="wraps"><span class="${state.className}">${esc(state.word)}</span></td>` +
      `<td class="num">${c.measured === null ? '–' : `<a href="${esc(fieldAlertHref(c))}">${esc(measured)}</a>`}</td>` +
      (owner ? `<td>${actionButton(v, `/field/${site.id}/alerts/${c.id}/delete`, 'Delete', { style: 'danger small', name: `Delete ${fieldAlertText(c)}`,
        confirm: 'Delete this alert condition?' })}</td>` : '') + '</tr>';
  }).join('');
  return `<div class="card tablewrap"><table class="list field-alerts-table"><thead><tr><th scope="col">Condition</th><th scope="col">State</th>` +
    `<th scope="col" class="num">Last measured</th>${owner ? '<th scope="col"><span class="visually-hidden">Actions</span></th>' : ''}</tr></thead><tbody>${items}</tbody></table></div>`;
}

/** The latest changes the judgements told (the API's GET /field_sites/{id}/alert_events has them all). */
function eventsTable(rows: readonly FieldAlertEventRow[]): string {
  if (rows.length === 0) return '<div class="card"><p class="muted">No condition has triggered yet.</p></div>';
  const items = rows.map((e) => {
    const condition = { ...e, value: e.threshold };
    const f = namedFieldFigure(e.figure);
    const measured = f ? formatNamedField(f, e.measured) : String(e.measured);
    return `<tr><td>${esc(utcMinute(e.created))} UTC</td><td><span class="${e.state === 'triggered' ? 'scan-alert-triggered' : 'scan-alert-resolved'}">` +
      `${e.state === 'triggered' ? 'Triggered' : 'Resolved'}</span></td><td class="wraps">${esc(fieldAlertText(condition))}</td>` +
      `<td class="num"><a href="${esc(fieldAlertHref(condition))}">${esc(measured)}</a> <span class="muted">(${esc(e.views.toLocaleString('en'))} views)</span></td></tr>`;
  }).join('');
  return `<div class="card tablewrap"><table class="list field-alert-events"><thead><tr><th scope="col">When</th><th scope="col">Change</th>` +
    `<th scope="col">Condition</th><th scope="col" class="num">Measured</th></tr></thead><tbody>${items}</tbody></table></div>`;
}

function newConditionForm(v: Visitor, site: FieldSite, f: AlertForm, error?: string): string {
  const select = (name: keyof AlertForm, label: string, options: readonly [string, string][], hint: string) => formField(`fa-${name}`, label,
    (d) => `<select id="fa-${name}" name="${name}"${d}>${options.map(([value, words]) => `<option value="${esc(value)}"${selected(f[name] === value)}>${esc(words)}</option>`).join('')}</select>`, hint);
  const text = (name: keyof AlertForm, label: string, hint: string, type = 'text', extra = '') => formField(`fa-${name}`, label,
    (d) => `<input id="fa-${name}" name="${name}" type="${type}" value="${esc(f[name])}" autocomplete="off"${extra}${d}>`, hint);
  return `<section aria-labelledby="fa-new"><h2 id="fa-new">Add an alert</h2><form method="post" action="/field/${esc(site.id)}/alerts" class="card field-form">` +
    `${csrfField(v)}${errorBox(error)}<div class="row">` +
    select('figure', 'Figure', NAMED_FIELD_FIGURES.map((n) => [n.name, `${n.short} ${n.stat === 'p75' ? 'p75' : 'poor share'}`]),
      'a 75th percentile (ms; CLS unitless), or the share of page views in the poor band (0 to 1)') +
    select('operator', 'Operator', FIELD_ALERT_OPERATORS.map((o) => [o, `${OPERATOR_SYMBOLS[o]} (${OPERATOR_WORDS[o]})`]), 'triggers while the figure is on this side of the value') +
    text('value', 'Value', 'e.g. 2500 for a p75 in ms, 0.1 for a share of 10 %', 'number', ' step="any" min="0"') + '</div><div class="row">' +
    select('device', 'Device', FIELD_ALERT_DEVICES.map((d) => [d, DEVICE_WORDS[d]!]), 'whose page views count') +
    text('template', 'Template', 'optional: a URL template of the site, e.g. /blog/:slug') +
    text('path', 'Path', 'optional: one path, e.g. /checkout') + '</div><div class="row">' +
    text('window_days', 'Window (days)', `the last 1 to ${FIELD_ALERT_WINDOW_MAX} days are judged, every hour`, 'number', ` min="1" max="${FIELD_ALERT_WINDOW_MAX}" step="1"`) +
    text('min_views', 'Minimum page views', 'fewer in the window and the condition is not judged (no alert on three visits)', 'number', ' min="1" step="1"') +
    '</div><button type="submit" class="btn">Add alert</button></form></section>';
}

export function registerFieldAlertScreens(kit: WebKit): void {
  const { store } = kit.ctx;

  async function ownedSite(v: Visitor, id: string): Promise<FieldSite> {
    if (!couldBeId(id)) throw fieldSiteNotFound(id);
    return requireFieldSite(store.db, v.principal.accountId, id);
  }

  async function alertsScreen(v: Visitor, nonce: string, site: FieldSite, form?: AlertForm, error?: string): Promise<string> {
    const [rows, events] = await Promise.all([fieldAlertsOfSite(store.db, site.accountId, site.id), recentFieldAlertEvents(store.db, site.accountId, site.id, 10)]);
    const owner = v.principal.role !== 'viewer';
    const body = `<p class="tag-back"><a href="/field/${esc(site.id)}">Back to ${esc(site.name)}</a></p><h1>Alerts of ${esc(site.name)}</h1>` +
      `<p class="muted">Conditions on real visitors' figures, judged every hour over their window, only on their minimum of page views. ` +
      `A condition that triggers or resolves is told once through the account's webhooks (event <code>field.alert</code>) and by e-mail.</p>` +
      `<section aria-labelledby="fa-list"><h2 id="fa-list">Conditions</h2>${conditionsTable(v, site, rows)}</section>` +
      `<section aria-labelledby="fa-events"><h2 id="fa-events">Latest changes</h2>${eventsTable(events)}</section>` +
      (owner ? newConditionForm(v, site, form ?? blank, error) : '<p class="muted">The Viewer role sees the alerts; only the Owner role changes them.</p>');
    return shell(v, nonce, { title: `Alerts of ${site.name}`, active: 'field', body });
  }

  const params = (p: unknown) => p as { id: string; cid: string };

  kit.screen('/field/:id/alerts', async (req, _reply, v, nonce) => alertsScreen(v, nonce, await ownedSite(v, params(req.params).id)));

  kit.action('/field/:id/alerts', async (req, reply: FastifyReply, v, form, nonce) => {
    const site = await ownedSite(v, params(req.params).id);
    assertOwnerRole(v.principal, 'add field alerts');
    const values = valuesOf(form);
    try {
      await createFieldAlert(store, v.principal, site, parseFieldAlertInput(attributesOf(values), 'create'));
      return seeOther(reply, `/field/${encodeURIComponent(site.id)}/alerts`);
    } catch (err) {
      const refused = formRefusal(reply, err);
      return alertsScreen(v, nonce, site, values, `${refused.title}: ${refused.detail ?? ''}`);
    }
  });

  kit.action('/field/:id/alerts/:cid/delete', async (req, reply, v) => {
    const site = await ownedSite(v, params(req.params).id);
    const row = await requireFieldAlert(store.db, site, params(req.params).cid);
    await removeFieldAlert(store, v.principal, row);
    return seeOther(reply, `/field/${encodeURIComponent(site.id)}/alerts`);
  });
}
