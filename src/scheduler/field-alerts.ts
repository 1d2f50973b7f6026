/**
 * The hourly judgement of field alert conditions (core/field/field-alerts.ts) and what a change tells: the webhook
 * `field.alert` and, when SMTP is configured, an e-mail to the account's address, queued in the transaction that
 * changes the condition's state (exactly once across processes, signed and retried like every delivery).
 */
import { PeriodicJob, type PeriodicJobSettings } from '../lib/periodic-job.js';
import { clock, toSeconds } from '../core/clock.js';
import { FIELD_ALERT_INTERVAL_MS, fieldAlertHref, fieldAlertText, judgeFieldAlerts, type FieldAlertChange, type FieldAlertNotify } from '../core/field/field-alerts.js';
import { namedFieldFigure, formatNamedFieldAgainst } from '../analysis/named-field-figures.js';
import { queueEmail, queueWebhookEvent } from '../notify/outbox.js';
import { esc, type MailMessage } from '../notify/email.js';
import { accountById } from '../store/accounts.js';
import type { Db, Store } from '../store/db.js';

export interface FieldAlertNoticesOptions {
  /** The service's public address: `origin` for the app, `api` for the API. */
  links(): { origin: string; api: string };
  email: boolean;
  /** Called after deliveries were queued (wakes the dispatcher). */
  queued(): void;
}

/** The webhook's `data` of a change. */
export function fieldAlertPayload(c: FieldAlertChange, links: { origin: string; api: string }) {
  const k = c.condition;
  return {
    state: c.change,
    site: { id: c.site.id, name: c.site.name, origins: c.site.origins },
    condition: {
      id: k.id, figure: k.figure, operator: k.operator, value: k.value, device: k.device, template: k.template || null, path: k.path || null,
      window_days: k.window_days, min_views: k.min_views, text: fieldAlertText(k),
    },
    measured: c.measured, page_views: c.views, judged: toSeconds(k.state_since),
    links: { field: `${links.origin}${fieldAlertHref(k)}`, condition: `${links.api}/field_sites/${c.site.id}/alert_conditions/${k.id}` },
  };
}

export function fieldAlertMail(to: string, c: FieldAlertChange, link: string): MailMessage {
  const verb = c.change === 'triggered' ? 'Alert' : 'Resolved';
  const f = namedFieldFigure(c.condition.figure);
  // Never printed like the limit when it differs from it (10.04 % is not "10 % > 10 %").
  const measured = f ? formatNamedFieldAgainst(f, c.measured, c.condition.value)[0] : String(c.measured);
  const text = fieldAlertText(c.condition);
  const line = `${verb}: ${text} on ${c.site.name}: real visitors measured ${measured} over ${c.views.toLocaleString('en')} page views.`;
  return {
    to, subject: `[Webgauge] ${verb}: ${text.split(',')[0]} on ${c.site.name}`,
    text: `${line}\n\nThe figures: ${link}\n`,
    html: `<!doctype html><html><body style="font-family:sans-serif"><h2 style="color:${c.change === 'triggered' ? '#b42318' : '#067647'}">${esc(verb)}: ` +
      `${esc(text)}</h2><p>${esc(c.site.name)}: real visitors measured <b>${esc(measured)}</b> over ${esc(c.views.toLocaleString('en'))} page views.</p>` +
      `<p><a href="${esc(link)}">The figures</a></p></body></html>`,
  };
}

export function fieldAlertNotices(o: FieldAlertNoticesOptions): FieldAlertNotify {
  return async (trx: Db, change: FieldAlertChange) => {
    const links = o.links();
    await queueWebhookEvent(trx, change.site.accountId, 'field.alert', fieldAlertPayload(change, links));
    if (o.email) {
      const account = await accountById(trx, change.site.accountId);
      if (account) await queueEmail(trx, change.site.accountId, 'field.alert', fieldAlertMail(account.email, change, `${links.origin}${fieldAlertHref(change.condition)}`));
    }
  };
}

/** Judges the conditions every hour (and at start); `judge(at)` for tests and an operator who wants it now. */
export class FieldAlertJob extends PeriodicJob<FieldAlertChange[]> {
  constructor(private readonly store: Store, private readonly notices: FieldAlertNoticesOptions, settings: Omit<PeriodicJobSettings, 'failure' | 'intervalMs'> & { intervalMs?: number }) {
    super({ intervalMs: FIELD_ALERT_INTERVAL_MS, ...settings, failure: 'field alert judgement failed' });
  }
  protected async runOnce(): Promise<FieldAlertChange[]> {
    return this.judge(clock.now());
  }
  async judge(at: number): Promise<FieldAlertChange[]> {
    const changes = await judgeFieldAlerts(this.store, fieldAlertNotices(this.notices), at);
    if (changes.length) this.notices.queued();
    return changes;
  }
}
