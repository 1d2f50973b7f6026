/**
 * Webhooks of an account (issue 12): a URL and the events it wants. The signing secret is made here, answered
 * once at creation and stored sealed (it must be read back to sign each delivery). The URL obeys the target
 * policy of tests (net/policy via core/targets), here and again at every delivery (notify/http.ts).
 */
import { randomBytes } from 'node:crypto';
import type { TargetPolicy } from '../../net/policy.js';
import type { Store } from '../../store/db.js';
import { countWebhooks, deleteWebhookRow, getWebhook, insertWebhook, listWebhooks, type WebhookRow } from '../../store/webhooks.js';
import type { Principal } from '../accounts/accounts.js';
import { clock } from '../clock.js';
import { ApiError, show } from '../errors.js';
import { newId } from '../ids.js';
import { assertAllowedTarget } from '../tests/targets.js';
import { queryDeliveries, type DeliveryRow } from '../../store/webhooks.js';
import type { Db } from '../../store/db.js';

export type { DeliveryRow };
import type { ListPage, ListQuery } from '../../store/list-query.js';
import { DELIVERIES_LIST } from '../vocabulary/lists.js';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../vocabulary/webhook-events.js';
import { assertOwnerRole } from '../accounts/roles.js';

export type { WebhookRow };
export { listWebhooks };

export { WEBHOOK_EVENTS, type WebhookEvent };
export const WEBHOOKS_PER_ACCOUNT_MAX = 20;
export const WEBHOOK_URL_MAX = 2048;

export const WEBHOOK_SHAPE = 'send {"data":{"type":"webhook","attributes":{"url":"https://example.com/hook","events":["alert.triggered"]}}}';

export interface WebhookInput {
  url: string;
  events: WebhookEvent[];
}

/** A webhook's attributes as a client gave them: `url` and `events`; E4001 says what to fix. */
export function parseWebhookInput(a: Readonly<Record<string, unknown>>): WebhookInput {
  if (typeof a.url !== 'string' || a.url.trim() === '') throw new ApiError('E4001', `url is required: an absolute http(s) URL; ${WEBHOOK_SHAPE}`);
  const url = a.url.trim();
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ApiError('E4001', `url ${show(url)} is not an absolute URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ApiError('E4001', `url must start with http:// or https://, got ${show(url)}.`);
  if (url.length > WEBHOOK_URL_MAX) throw new ApiError('E4001', `url is ${url.length} characters long; the maximum is ${WEBHOOK_URL_MAX}.`);
  if (parsed.username || parsed.password) throw new ApiError('E4001', 'url must not contain a user name or password; put a token in the path or query instead.');
  if (!Array.isArray(a.events) || a.events.length === 0) {
    throw new ApiError('E4001', `events is required: a non-empty array of ${WEBHOOK_EVENTS.join(', ')}.`);
  }
  const bad = a.events.find((e) => typeof e !== 'string' || !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (bad !== undefined) throw new ApiError('E4001', `events: ${show(bad)} is not an event; use ${WEBHOOK_EVENTS.join(', ')}.`);
  return { url, events: [...new Set(a.events as WebhookEvent[])] };
}

/** E4001 when the URL's host resolves to an address the operator's policy refuses (or does not resolve). */
export async function assertWebhookTarget(url: string, policy: TargetPolicy): Promise<void> {
  try {
    await assertAllowedTarget(url, policy);
  } catch (err) {
    if (err instanceof ApiError) throw new ApiError('E4001', err.detail?.replace(/^url host/, 'webhook url host'));
    throw err;
  }
}

export function webhookNotFound(id: string): ApiError {
  return new ApiError('E40407', `No webhook with ID ${show(id)} in this account; GET /webhooks lists them.`);
}

export async function requireWebhook(store: Store, accountId: string, id: string): Promise<WebhookRow> {
  const w = await getWebhook(store.db, accountId, id);
  if (!w) throw webhookNotFound(id);
  return w;
}

export const webhookEvents = (w: WebhookRow): WebhookEvent[] => JSON.parse(w.events) as WebhookEvent[];

/** Create the webhook; returns it with its secret in the clear, the only time the secret is shown. */
export async function createWebhook(store: Store, p: Principal, input: WebhookInput, policy: TargetPolicy): Promise<{ webhook: WebhookRow; secret: string }> {
  assertOwnerRole(p, 'create webhooks');
  if ((await countWebhooks(store.db, p.accountId)) >= WEBHOOKS_PER_ACCOUNT_MAX) {
    throw new ApiError('E4001', `This account already has ${WEBHOOKS_PER_ACCOUNT_MAX} webhooks, the most it may have; delete one first.`);
  }
  await assertWebhookTarget(input.url, policy);
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const webhook: WebhookRow = {
    id: newId(),
    account_id: p.accountId,
    url: input.url,
    events: JSON.stringify(input.events),
    secret: store.box.seal(secret),
    created: clock.now(),
  };
  await insertWebhook(store.db, webhook);
  return { webhook, secret };
}

export async function deleteWebhook(store: Store, p: Pick<Principal, 'role'>, id: string): Promise<void> {
  assertOwnerRole(p, 'delete webhooks');
  await store.db.transaction().execute((trx) => deleteWebhookRow(trx, id));
}

/** A page of a webhook's deliveries (GET /webhooks/{id}/deliveries). */
export function listDeliveries(db: Db, webhookId: string, q: ListQuery): Promise<ListPage<DeliveryRow>> {
  return queryDeliveries(db, webhookId, DELIVERIES_LIST, q);
}
