import { resourceAttributes } from '../resource-body.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  changeCondition, createCondition, deleteCondition, listConditions, CONDITION_SHAPE, parseConditionInput, requireCondition,
  type AlertConditionRow, type AlertEventRow, listAlertEvents,
} from '../../core/alerts/alerts.js';
import { toSeconds } from '../../core/clock.js';
import { assertOwnerRole } from '../../core/accounts/roles.js';
import { ALERT_EVENTS_LIST } from '../../core/vocabulary/lists.js';
import { principalOf } from '../auth.js';
import { jsonApiBody } from '../body.js';
import type { AppContext } from '../../context/app-context.js';
import { JSONAPI } from '../errors.js';
import type { Links } from '../../context/links.js';
import { parseListQuery } from '../query.js';
import { sendList } from './lists.js';
import type { Router } from '../router.js';
import { requirePage } from './page-response.js';

/**
 * Alert conditions and events of a page (issue 12). Check order on writes, as for tags: the page and the
 * condition in the path (404), the role (403 E40301), Content-Type (415), then the body (400 E4001). Core checks
 * the role itself; a route with a body asks core's rule (assertOwnerRole) first too, so the 403 comes before the 415.
 */

const conditionsLink = (links: Links, pageId: string) => `${links.page(pageId)}/performance_alert_conditions`;

export function alertConditionResource(c: AlertConditionRow, links: Links) {
  return {
    type: 'performance_alert_condition',
    id: c.id,
    attributes: {
      metric: c.metric, operator: c.operator, value: c.value, consecutive: c.consecutive, enabled: c.enabled === 1, state: c.state,
      created: toSeconds(c.created),
    },
    links: { self: `${conditionsLink(links, c.page_id)}/${c.id}`, page: links.page(c.page_id) },
  };
}

export function alertEventResource(e: AlertEventRow, links: Links) {
  return {
    type: 'performance_alert_event',
    id: e.id,
    attributes: {
      condition: e.condition_id, report: e.report_id, metric: e.metric, value: e.value, threshold: e.threshold, state: e.state,
      created: toSeconds(e.created), ...(e.note ? { note: e.note } : {}),
    },
    links: { report: links.report(e.report_id), condition: `${conditionsLink(links, e.page_id)}/${e.condition_id}` },
  };
}

const params = (req: FastifyRequest) => req.params as { id: string; condition_id: string };

function sendCondition(reply: FastifyReply, links: Links, c: AlertConditionRow, status = 200) {
  const data = alertConditionResource(c, links);
  if (status === 201) reply.header('Location', data.links.self);
  return reply.code(status).type(JSONAPI).send({ data, links: { self: data.links.self } });
}

export function registerAlertRoutes(r: Router, ctx: AppContext): void {
  const { store } = ctx;
  const base = '/pages/:id/performance_alert_conditions';

  r.get(base, async (req, reply, links) => {
    const p = principalOf(req);
    const page = await requirePage(ctx, p.accountId, params(req).id);
    const rows = await listConditions(store.db, p.accountId, page.id);
    return reply.type(JSONAPI).send({ data: rows.map((c) => alertConditionResource(c, links)), links: { self: conditionsLink(links, page.id) } });
  });

  r.post(base, async (req, reply, links) => {
    const p = principalOf(req);
    const page = await requirePage(ctx, p.accountId, params(req).id);
    assertOwnerRole(p, 'create alert conditions');
    const input = jsonApiBody(req, (body) => parseConditionInput(resourceAttributes(body, 'performance_alert_condition', CONDITION_SHAPE), 'create'));
    return sendCondition(reply, links, await createCondition(store.db, p, page.id, input), 201);
  });

  r.get(`${base}/:condition_id`, async (req, reply, links) => {
    const p = principalOf(req);
    const page = await requirePage(ctx, p.accountId, params(req).id);
    return sendCondition(reply, links, await requireCondition(store.db, p.accountId, page.id, params(req).condition_id));
  });

  r.post(`${base}/:condition_id`, async (req, reply, links) => {
    const p = principalOf(req);
    const page = await requirePage(ctx, p.accountId, params(req).id);
    const c = await requireCondition(store.db, p.accountId, page.id, params(req).condition_id);
    assertOwnerRole(p, 'change alert conditions');
    const input = jsonApiBody(req, (body) => parseConditionInput(resourceAttributes(body, 'performance_alert_condition', CONDITION_SHAPE, true), 'patch', c));
    return sendCondition(reply, links, await changeCondition(store.db, p, c, input));
  });

  r.delete(`${base}/:condition_id`, async (req, reply) => {
    const p = principalOf(req);
    const page = await requirePage(ctx, p.accountId, params(req).id);
    const c = await requireCondition(store.db, p.accountId, page.id, params(req).condition_id);
    await deleteCondition(store.db, p, c);
    return reply.type(JSONAPI).send({ data: { type: 'performance_alert_condition', id: c.id } });
  });

  r.get('/pages/:id/performance_alert_events', async (req, reply, links) => {
    const p = principalOf(req);
    const q = parseListQuery(ALERT_EVENTS_LIST, (req.query ?? {}) as Record<string, string | string[]>);
    const page = await requirePage(ctx, p.accountId, params(req).id);
    const result = await listAlertEvents(store.db, p.accountId, page.id, q);
    return sendList(reply, req, links, q, result.rows.map((e) => alertEventResource(e, links)), result.hasNext);
  });
}
