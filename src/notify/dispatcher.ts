/**
 * Sends the outbox: every pending delivery whose attempt is due, webhook POSTs (signed, notify/sign.ts) and
 * e-mails. A failed attempt (non-2xx, timeout, refused address, SMTP error) is retried after
 * retryBaseMs × 2^(attempt − 1) until `retryForMs` (24 h) after the delivery was made; then it is `failed`.
 * State lives in the database only, so a restart goes on where the last process stopped.
 */
import { clock, toSeconds } from '../core/clock.js';
import type { TargetPolicy } from '../net/policy.js';
import { PeriodicJob } from '../lib/periodic-job.js';
import type { Store } from '../store/db.js';
import { dueDeliveries, leaseDelivery, recordAttempt, webhookById, type DeliveryRow, type WebhookRow } from '../store/webhooks.js';
import type { Mailer, MailMessage } from './email.js';
import { postJson, WEBHOOK_TIMEOUT_MS, type PostOutcome } from './http.js';
import { signatureHeader } from './sign.js';

export interface Attempt {
  /** Unix seconds. */
  at: number;
  ok: boolean;
  duration_ms: number;
  response_code: number | null;
  error: string | null;
}

export interface DispatcherLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface DispatcherOptions {
  store: Store;
  policy: TargetPolicy;
  /** The first retry's delay (WEBGAUGE_WEBHOOK_RETRY_BASE_MS). */
  retryBaseMs: number;
  retryForMs?: number;
  mailer?: Mailer;
  log?: DispatcherLog;
  intervalMs?: number;
}

export const RETRY_FOR_MS = 24 * 3_600_000;
const BATCH = 10;
/** A sender holds a delivery this long past the request's own timeout; if it dies, the delivery is due again. */
const LEASE_MS = WEBHOOK_TIMEOUT_MS + 50_000;

export class DeliveryDispatcher extends PeriodicJob<number> {
  constructor(private readonly o: DispatcherOptions) {
    super({ intervalMs: o.intervalMs ?? 1000, log: o.log, failure: 'delivery dispatch failed', outages: o.store.health });
  }

  /** Send what is due; resolves with how many attempts were made. */
  dispatch(): Promise<number> {
    return this.run();
  }

  protected async runOnce(): Promise<number> {
    let sent = 0;
    for (let round = 0; round < 10; round++) {
      const now = clock.now();
      const due = await dueDeliveries(this.o.store.db, now, BATCH);
      const mine: DeliveryRow[] = [];
      for (const d of due) if (await leaseDelivery(this.o.store.db, d.id, d.next_attempt!, now + LEASE_MS)) mine.push(d);
      await Promise.all(mine.map((d) => this.attempt(d)));
      sent += mine.length;
      if (due.length < BATCH) break;
    }
    return sent;
  }

  private async attempt(d: DeliveryRow): Promise<void> {
    const outcome = d.channel === 'email' ? await this.sendMail(d) : await this.sendWebhook(d);
    const now = clock.now();
    const attempts = JSON.parse(d.attempts) as Attempt[];
    attempts.push(attemptOf(outcome, now));
    let state = 'delivered';
    let next: number | null = null;
    if (!outcome.ok) {
      next = now + this.o.retryBaseMs * 2 ** (attempts.length - 1);
      state = outcome.final || next > d.created + (this.o.retryForMs ?? RETRY_FOR_MS) ? 'failed' : 'pending';
      if (state === 'failed') next = null;
      this.o.log?.warn({ deliveryId: d.id, channel: d.channel, attempt: attempts.length, error: outcome.error, state }, 'delivery attempt failed');
    }
    await recordAttempt(this.o.store.db, d.id, { state, next_attempt: next, attempts: JSON.stringify(attempts) });
  }

  private async sendWebhook(d: DeliveryRow): Promise<PostOutcome & { final?: boolean }> {
    const w = d.webhook_id ? await webhookById(this.o.store.db, d.webhook_id) : undefined;
    if (!w) return { ok: false, durationMs: 0, error: 'the webhook was deleted', final: true };
    return postDelivery(this.o.store, w, d, this.o.policy);
  }

  private async sendMail(d: DeliveryRow): Promise<PostOutcome & { final?: boolean }> {
    if (!this.o.mailer) return { ok: false, durationMs: 0, error: 'no SMTP server is configured (WEBGAUGE_SMTP_URL)', final: true };
    const started = performance.now();
    try {
      await this.o.mailer.send(JSON.parse(d.body) as MailMessage);
      return { ok: true, durationMs: Math.round(performance.now() - started) };
    } catch (err) {
      return { ok: false, durationMs: Math.round(performance.now() - started), error: (err as Error).message };
    }
  }
}

/** An attempt as a delivery's `attempts` records it (`now` in ms). */
export function attemptOf(outcome: PostOutcome, now: number): Attempt {
  return { at: toSeconds(now), ok: outcome.ok, duration_ms: outcome.durationMs, response_code: outcome.status ?? null, error: outcome.error ?? null };
}

/**
 * One POST of a webhook delivery: its body, its headers (`Webgauge-Event`, `Webgauge-Delivery`, and
 * `Webgauge-Signature` keyed with the webhook's secret, opened from its sealed form), through the target policy.
 */
export async function postDelivery(store: Store, w: WebhookRow, d: Pick<DeliveryRow, 'id' | 'event' | 'body'>, policy: TargetPolicy):
  Promise<PostOutcome & { final?: boolean }> {
  let secret: string;
  try {
    secret = store.box.open(w.secret);
  } catch (err) {
    return { ok: false, durationMs: 0, error: `the webhook's secret cannot be read: ${(err as Error).message}`, final: true };
  }
  return postJson(w.url, d.body, {
    'Webgauge-Event': d.event,
    'Webgauge-Delivery': d.id,
    'Webgauge-Signature': signatureHeader(secret, d.body, clock.nowSeconds()),
  }, policy);
}
