/**
 * Webhooks, on Account: the account's webhooks with their last delivery, and a form that adds one (its fields handed
 * to core's parseWebhookInput and createWebhook, so the checks and messages are the API's); the signing secret is
 * shown once, right after adding. A webhook's own screen lists its newest deliveries, sends a test event
 * (notify/test-event.ts: signed, through the target policy, recorded as a delivery) and deletes it. The Viewer role
 * sees it all without the forms.
 */
import type { FastifyReply } from 'fastify';
import { assertOwnerRole, mayChange } from '../../core/accounts/roles.js';
import {
  createWebhook, deleteWebhook, listDeliveries, listWebhooks, parseWebhookInput, requireWebhook, WEBHOOK_EVENTS, WEBHOOK_URL_MAX,
  webhookEvents, webhookNotFound, type DeliveryRow, type WebhookEvent, type WebhookRow,
} from '../../core/alerts/webhooks.js';
import { couldBeId } from '../../core/ids.js';
import type { Attempt } from '../../notify/dispatcher.js';
import { sendTestEvent } from '../../notify/test-event.js';
import type { ListQuery } from '../../store/list-query.js';
import type { FormFields, Visitor } from '../session.js';
import { actionButton, checked, csrfField, errorBox, esc, formRefusal, seeOther, shell, type WebKit } from '../kit.js';
import { plural, utcMinute } from './figures.js';

/** What each event means, for the form (a new event in core's list must say it here). */
const EVENT_HINTS: Record<WebhookEvent, string> = {
  'test.completed': 'a test completed; the delivery carries its report',
  'test.error': 'a test ended in error',
  'alert.triggered': 'an alert condition of a page triggered',
  'alert.resolved': 'a triggered alert condition resolved',
  'scan.completed': 'a site scan completed; the delivery carries its figures and its alerts’ verdicts',
  'scan.alert': 'an alert condition of a site scan triggered or resolved; the delivery names the pages',
  'field.alert': 'an alert condition on real visitors\u2019 figures (a field site) triggered or resolved',
};

/** The newest deliveries of a webhook, as many as `size`. */
const newestDeliveries = (size: number): ListQuery =>
  ({ filters: [], bool: 'AND', sort: [{ attr: 'created', desc: true }], filteredOrSorted: false, page: { size, number: 1 } });
export const DELIVERIES_SHOWN = 20;

/** The add form as the user filled it, and what core said about it. */
export interface WebhookForm {
  url: string;
  events: string[];
  error?: string;
}

const formOf = (form: FormFields): WebhookForm => ({ url: form.get('url') ?? '', events: form.all('events') });

const lastAttempt = (d: DeliveryRow): Attempt | undefined => (JSON.parse(d.attempts) as Attempt[]).at(-1);

/** What the receiver answered last: "HTTP 200 in 12 ms", the error, or that nothing was sent yet. */
function outcome(d: DeliveryRow): string {
  const a = lastAttempt(d);
  if (!a) return 'not sent yet';
  return a.response_code !== null ? `HTTP ${a.response_code} in ${a.duration_ms.toLocaleString('en')} ms` : (a.error ?? 'no answer');
}

const STATE_WORDS: Record<string, string> = { delivered: 'Delivered', pending: 'Retrying', failed: 'Failed' };
const stateWord = (d: DeliveryRow) => STATE_WORDS[d.state] ?? d.state;
const time = (ms: number) => `<time datetime="${new Date(ms).toISOString()}">${esc(utcMinute(ms))}</time>`;

function lastDeliveryLine(d: DeliveryRow | undefined): string {
  if (!d) return '<span class="muted">No deliveries yet</span>';
  return `${time(d.created)} UTC · <code>${esc(d.event)}</code> · ${esc(stateWord(d))}: ${esc(outcome(d))}`;
}

function addForm(v: Visitor, f: WebhookForm | undefined): string {
  const events = WEBHOOK_EVENTS.map((e) => {
    const id = `wh-ev-${e.replace('.', '-')}`;
    return `<div class="wh-event"><label class="check"><input type="checkbox" id="${id}" name="events" value="${e}" aria-describedby="${id}-hint"` +
      `${checked(f?.events.includes(e) ?? false)}> ${e}</label><span class="hint" id="${id}-hint">${esc(EVENT_HINTS[e])}</span></div>`;
  }).join('');
  // The fragment brings the form back into view when it is shown again with core's message.
  return `<form method="post" action="/account/webhooks#wh-add" class="wh-add" aria-labelledby="wh-add">
<h3 id="wh-add">Add webhook</h3>${csrfField(v)}${errorBox(f?.error)}
<div class="field"><label for="wh-url">URL</label>` +
    `<input id="wh-url" name="url" type="text" inputmode="url" autocomplete="off" spellcheck="false" placeholder="https://example.com/hook" ` +
    `aria-describedby="wh-url-hint" value="${esc(f?.url ?? '')}"><span class="hint" id="wh-url-hint">http:// or https://, up to ` +
    `${WEBHOOK_URL_MAX.toLocaleString('en')} characters, on an address the service may reach; Webgauge POSTs JSON to it.</span></div>
<fieldset class="wh-events"><legend>Events</legend>${events}</fieldset>
<button type="submit" class="btn">Add webhook</button></form>`;
}

/** The Webhooks part of Account: the list, and the add form for the Owner role. */
export async function webhooksSection(kit: WebKit, v: Visitor, query: Record<string, unknown>, form?: WebhookForm): Promise<string> {
  const db = kit.ctx.store.db;
  const hooks = await listWebhooks(db, v.principal.accountId);
  const last = await Promise.all(hooks.map(async (w) => (await listDeliveries(db, w.id, newestDeliveries(1))).rows[0]));
  const list = hooks.length === 0
    ? '<p class="muted">No webhooks yet.</p>'
    : `<ul class="wh-list">${hooks.map((w, i) => `<li><a class="wh-url" href="/account/webhooks/${esc(w.id)}">${esc(w.url)}</a>` +
      `<span class="wh-line">Events: ${webhookEvents(w).map((e) => `<code>${esc(e)}</code>`).join(', ')}</span>` +
      `<span class="wh-line">Last delivery: ${lastDeliveryLine(last[i])}</span></li>`).join('')}</ul>`;
  const notice = query.webhook === 'deleted' ? '<div class="ok" role="status">Deleted the webhook and its deliveries.</div>' : '';
  const mail = kit.ctx.config.smtp
    ? 'Alert e-mail goes to the account’s own e-mail address.'
    : 'This service sends no alert e-mail (no SMTP server is set up): alerts reach you through webhooks and the API.';
  const add = mayChange(v.principal) ? addForm(v, form) : '<p class="muted">The Viewer role can see webhooks but not change them.</p>';
  return `<section class="card account-part account-webhooks" aria-labelledby="acc-webhooks"><h2 id="acc-webhooks">Webhooks</h2>${notice}
<p>When a chosen event happens, Webgauge POSTs it as JSON to the webhook’s URL, signed with the webhook’s secret
(<code>Webgauge-Signature</code>), and retries a failed delivery for 24 hours. ${mail}</p>
${list}${add}</section>`;
}

function secretScreen(v: Visitor, nonce: string, w: WebhookRow, secret: string): string {
  const body = `<h1>Webhook added</h1>
<div class="card account-part"><p role="status"><strong>Copy its signing secret now:</strong> it is shown only this once
(Webgauge keeps it sealed, to sign deliveries, and never shows it again).</p>
<p><code class="key-once">${esc(secret)}</code></p>
<p>Every delivery to <span class="wh-url">${esc(w.url)}</span> carries <code>Webgauge-Signature: t=…,v1=…</code>: the hex HMAC-SHA256 of
<code>t.body</code> (the time, a dot, the raw body) keyed with this secret. Recompute it over the raw body, and refuse an old <code>t</code>.</p>
<div class="actions"><a class="btn" href="/account/webhooks/${esc(w.id)}">Open the webhook</a><a class="btn secondary" href="/account#acc-webhooks">Back to Account</a></div></div>`;
  return shell(v, nonce, { title: 'Webhook added', active: 'account', body });
}

/** Three columns, so that a phone shows them all: what and when, how it went, how often it was tried and when next. */
function deliveryTable(rows: DeliveryRow[]): string {
  if (rows.length === 0) return '<div class="card"><p class="muted">No deliveries yet.</p></div>';
  const body = rows.map((d) => {
    const attempts = (JSON.parse(d.attempts) as Attempt[]).length;
    const next = d.state === 'pending' && d.next_attempt !== null ? `next retry ${time(d.next_attempt)} UTC` : 'no retry';
    return `<tr><td><code>${esc(d.event)}</code><span class="wh-when">${time(d.created)} UTC</span></td>` +
      `<td class="wh-result"><b>${esc(stateWord(d))}</b>: ${esc(outcome(d))}</td>` +
      `<td class="wh-attempts">${attempts}<span class="wh-when">${next}</span></td></tr>`;
  }).join('');
  return `<div class="card tablewrap"><table class="list wh-deliveries"><thead><tr><th scope="col">Event and time</th>` +
    `<th scope="col">State: last answer</th><th scope="col">Attempts</th></tr></thead><tbody>${body}</tbody></table></div>`;
}

/** ?tested=ID: the outcome of the test event just sent. */
function testedNotice(query: Record<string, unknown>, rows: DeliveryRow[]): string {
  const d = typeof query.tested === 'string' ? rows.find((r) => r.id === query.tested) : undefined;
  if (!d) return '';
  return d.state === 'delivered'
    ? `<div class="ok" role="status">Test event delivered: ${esc(outcome(d))}.</div>`
    : `<div class="error" role="alert">Test event failed: ${esc(outcome(d))}.</div>`;
}

async function webhookScreen(kit: WebKit, v: Visitor, nonce: string, w: WebhookRow, query: Record<string, unknown>): Promise<string> {
  const { rows } = await listDeliveries(kit.ctx.store.db, w.id, newestDeliveries(DELIVERIES_SHOWN));
  const owner = mayChange(v.principal);
  const actions = owner
    ? `<div class="actions">${actionButton(v, `/account/webhooks/${w.id}/test`, 'Send test event', { style: 'secondary' })}` +
      `${actionButton(v, `/account/webhooks/${w.id}/delete`, 'Delete webhook', { style: 'danger', confirm: `Delete the webhook to ${w.url}? Its deliveries are deleted with it, pending ones unsent.` })}</div>`
    : '<p class="muted">The Viewer role can see webhooks but not change them.</p>';
  const body = `<p class="wh-back"><a href="/account#acc-webhooks">Account</a></p>
<h1 class="wh-title">Webhook <span class="wh-url">${esc(w.url)}</span></h1>
${testedNotice(query, rows)}
<dl class="facts wh-facts"><dt>Events</dt><dd>${webhookEvents(w).map((e) => `<code>${esc(e)}</code>`).join(', ')}</dd>` +
    `<dt>Added</dt><dd>${time(w.created)} UTC</dd></dl>
${actions}
<section class="wh-section" aria-labelledby="wh-deliveries"><h2 id="wh-deliveries">Deliveries</h2>
<p class="muted">The newest ${plural(DELIVERIES_SHOWN, 'delivery', 'deliveries')}. “Send test event” posts a <code>webhook.test</code> event once, now; it is not retried.</p>
${deliveryTable(rows)}</section>`;
  return shell(v, nonce, { title: 'Webhook', active: 'account', body });
}

/**
 * The routes. `accountAgain` shows Account again with the add form as it was sent and core's message (it lives in
 * account.ts, which shows this part).
 */
export function registerWebhookScreens(kit: WebKit, accountAgain: (v: Visitor, nonce: string, form: WebhookForm) => Promise<string>): void {
  const { ctx } = kit;
  const { store } = ctx;

  /** The account's webhook named in the path (404 for any other ID, as the API answers). */
  async function ownedWebhook(v: Visitor, id: string): Promise<WebhookRow> {
    if (!couldBeId(id)) throw webhookNotFound(id);
    return requireWebhook(store, v.principal.accountId, id);
  }
  const idOf = (params: unknown) => (params as { id: string }).id;

  kit.action('/account/webhooks', async (_req, reply: FastifyReply, v, form, nonce) => {
    assertOwnerRole(v.principal, 'create webhooks');
    try {
      const input = parseWebhookInput({ url: form.get('url') ?? '', events: form.all('events') });
      const { webhook, secret } = await createWebhook(store, v.principal, input, ctx.config.targetPolicy);
      return secretScreen(v, nonce, webhook, secret);
    } catch (err) {
      const refused = formRefusal(reply, err);
      return accountAgain(v, nonce, { ...formOf(form), error: refused.detail ?? refused.title });
    }
  });

  kit.screen('/account/webhooks/:id', async (req, _reply, v, nonce) =>
    webhookScreen(kit, v, nonce, await ownedWebhook(v, idOf(req.params)), req.query as Record<string, unknown>));

  kit.action('/account/webhooks/:id/test', async (req, reply, v) => {
    const w = await ownedWebhook(v, idOf(req.params));
    const d = await sendTestEvent(store, v.principal, w, ctx.config.targetPolicy);
    return seeOther(reply, `/account/webhooks/${encodeURIComponent(w.id)}?tested=${encodeURIComponent(d.id)}`);
  });

  kit.action('/account/webhooks/:id/delete', async (req, reply, v) => {
    const w = await ownedWebhook(v, idOf(req.params));
    await deleteWebhook(store, v.principal, w.id);
    return seeOther(reply, '/account?webhook=deleted#acc-webhooks');
  });
}
