import { resourceAttributes } from '../resource-body.js';
import type { FastifyRequest } from 'fastify';
import { toSeconds } from '../../core/clock.js';
import { assertOwnerRole } from '../../core/accounts/roles.js';
import { createWebhook, deleteWebhook, listWebhooks, parseWebhookInput, WEBHOOK_SHAPE, listDeliveries, type DeliveryRow, requireWebhook, webhookEvents, type WebhookRow } from '../../core/alerts/webhooks.js';
import type { Attempt } from '../../notify/dispatcher.js';
import { DELIVERIES_LIST } from '../../core/vocabulary/lists.js';
import { principalOf } from '../auth.js';
import { jsonApiBody } from '../body.js';
import type { AppContext } from '../../context/app-context.js';
import { JSONAPI } from '../errors.js';
import type { Links } from '../../context/links.js';
import { parseListQuery } from '../query.js';
import type { Router } from '../router.js';
import { sendList } from './lists.js';

/** Webhooks of the account and their deliveries (issue 12). The secret is answered once, by POST /webhooks. */

const webhookLink = (links: Links, id: string) => `${links.api}/webhooks/${id}`;

export function webhookResource(w: WebhookRow, links: Links, secret?: string) {
  const attributes: Record<string, unknown> = { url: w.url, events: webhookEvents(w), created: toSeconds(w.created) };
  if (secret !== undefined) attributes.secret = secret;
  return { type: 'webhook', id: w.id, attributes, links: { self: webhookLink(links, w.id), deliveries: `${webhookLink(links, w.id)}/deliveries` } };
}

function deliveryResource(d: DeliveryRow) {
  const attempts = (JSON.parse(d.attempts) as Attempt[]).map((a) => ({
    created: a.at, status: a.ok ? 'succeeded' : 'failed', duration: a.duration_ms, response_code: a.response_code, error: a.error,
  }));
  return {
    type: 'webhook_delivery',
    id: d.id,
    attributes: {
      event: d.event, state: d.state, created: toSeconds(d.created),
      next_attempt: d.state === 'pending' && d.next_attempt !== null ? toSeconds(d.next_attempt) : null, attempts,
    },
  };
}

const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;

export function registerWebhookRoutes(r: Router, ctx: AppContext): void {
  const { store } = ctx;

  r.get('/webhooks', async (req, reply, links) => {
    const rows = await listWebhooks(store.db, principalOf(req).accountId);
    return reply.type(JSONAPI).send({ data: rows.map((w) => webhookResource(w, links)), links: { self: `${links.api}/webhooks` } });
  });

  r.post('/webhooks', async (req, reply, links) => {
    const p = principalOf(req);
    assertOwnerRole(p, 'create webhooks');
    const input = jsonApiBody(req, (body) => parseWebhookInput(resourceAttributes(body, 'webhook', WEBHOOK_SHAPE)));
    const { webhook, secret } = await createWebhook(store, p, input, ctx.config.targetPolicy);
    const data = webhookResource(webhook, links, secret);
    return reply.code(201).header('Location', data.links.self).type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.get('/webhooks/:id', async (req, reply, links) => {
    const w = await requireWebhook(store, principalOf(req).accountId, idOf(req));
    const data = webhookResource(w, links);
    return reply.type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.delete('/webhooks/:id', async (req, reply) => {
    const p = principalOf(req);
    const w = await requireWebhook(store, p.accountId, idOf(req));
    await deleteWebhook(store, p, w.id);
    return reply.type(JSONAPI).send({ data: { type: 'webhook', id: w.id } });
  });

  r.get('/webhooks/:id/deliveries', async (req, reply, links) => {
    const q = parseListQuery(DELIVERIES_LIST, (req.query ?? {}) as Record<string, string | string[]>);
    const w = await requireWebhook(store, principalOf(req).accountId, idOf(req));
    const page = await listDeliveries(store.db, w.id, q);
    return sendList(reply, req, links, q, page.rows.map(deliveryResource), page.hasNext);
  });
}
