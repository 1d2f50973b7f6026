/**
 * "Send test event" (the web app's webhook screen): one signed POST of a `webhook.test` event, now, through the
 * target policy like every delivery, recorded as a finished delivery of the webhook (delivered or failed, not
 * retried: it answers "does my receiver work?" once, and the answer is on the screen).
 */
import type { Principal } from '../core/accounts/accounts.js';
import { assertOwnerRole } from '../core/accounts/roles.js';
import { webhookEvents, type WebhookRow } from '../core/alerts/webhooks.js';
import { clock, toSeconds } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { TEST_EVENT } from '../core/vocabulary/webhook-events.js';
import type { TargetPolicy } from '../net/policy.js';
import type { Store } from '../store/db.js';
import { insertDelivery, type DeliveryRow } from '../store/webhooks.js';
import { attemptOf, postDelivery } from './dispatcher.js';

/** Send the test event to the webhook (the caller found it in the account) and record it; the delivery row. */
export async function sendTestEvent(store: Store, p: Pick<Principal, 'role'>, w: WebhookRow, policy: TargetPolicy): Promise<DeliveryRow> {
  assertOwnerRole(p, 'send test events');
  const now = clock.now();
  const id = newId();
  const body = JSON.stringify({
    event: TEST_EVENT, created: toSeconds(now),
    data: { webhook: w.id, url: w.url, events: webhookEvents(w), message: 'A test event sent from Webgauge; check its signature as for any event.' },
  });
  const outcome = await postDelivery(store, w, { id, event: TEST_EVENT, body }, policy);
  const row: DeliveryRow = {
    id, account_id: w.account_id, channel: 'webhook', webhook_id: w.id, event: TEST_EVENT, body, created: now,
    state: outcome.ok ? 'delivered' : 'failed', next_attempt: null, attempts: JSON.stringify([attemptOf(outcome, clock.now())]),
  };
  await insertDelivery(store.db, row);
  return row;
}
