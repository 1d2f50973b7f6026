/** Putting notifications in the outbox (the deliveries table), inside the caller's transaction. */
import { clock, toSeconds } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { webhookEvents, type WebhookEvent } from '../core/alerts/webhooks.js';
import type { Db } from '../store/db.js';
import { insertDelivery, listWebhooks } from '../store/webhooks.js';
import type { MailMessage } from './email.js';

/** One delivery per webhook of the account that wants `event`; the body is fixed now, the same on every retry. */
export async function queueWebhookEvent(db: Db, accountId: string, event: WebhookEvent, data: unknown): Promise<number> {
  const now = clock.now();
  let n = 0;
  for (const w of await listWebhooks(db, accountId)) {
    if (!webhookEvents(w).includes(event)) continue;
    const id = newId();
    await insertDelivery(db, {
      id, account_id: accountId, channel: 'webhook', webhook_id: w.id, event, state: 'pending', created: now, next_attempt: now, attempts: '[]',
      body: JSON.stringify({ event, created: toSeconds(now), data }),
    });
    n++;
  }
  return n;
}

export async function queueEmail(db: Db, accountId: string, event: string, message: MailMessage): Promise<void> {
  const now = clock.now();
  await insertDelivery(db, {
    id: newId(), account_id: accountId, channel: 'email', webhook_id: null, event, state: 'pending', created: now, next_attempt: now,
    attempts: '[]', body: JSON.stringify(message),
  });
}
