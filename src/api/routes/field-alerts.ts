/**
 * Alert conditions on real visitors' figures (issue 51): `/field_sites/{id}/alert_conditions`. The rules are
 * core/field/field-alerts.ts's; here requests become calls and answers documents. Check order on a write: the site
 * and the condition in the path (404), the role (403), Content-Type (415), the body (400).
 */
import type { FastifyRequest } from 'fastify';
import { toSeconds, toSecondsOrNull } from '../../core/clock.js';
import {
  changeFieldAlert, createFieldAlert, fieldAlertHref, fieldAlertsOfSite, fieldAlertText, listFieldAlertEvents, parseFieldAlertInput, removeFieldAlert,
  requireFieldAlert, FIELD_ALERT_SHAPE, type FieldAlertEventRow, type FieldAlertRow,
} from '../../core/field/field-alerts.js';
import { FIELD_ALERT_EVENTS_LIST } from '../../core/vocabulary/lists.js';
import { requireFieldSite } from '../../core/field/sites.js';
import type { AppContext } from '../../context/app-context.js';
import type { Links } from '../../context/links.js';
import { principalOf } from '../auth.js';
import { jsonApiBody } from '../body.js';
import { JSONAPI } from '../errors.js';
import { parseListQuery } from '../query.js';
import { sendList } from './lists.js';
import { resourceAttributes } from '../resource-body.js';
import type { Router } from '../router.js';

const TYPE = 'field_alert_condition';
const params = (req: FastifyRequest) => req.params as { id: string; condition_id: string };

/** A condition as the API shows it. */
export function fieldAlertResource(c: FieldAlertRow, links: Links) {
  const self = `${links.api}/field_sites/${encodeURIComponent(c.site_id)}/alert_conditions/${encodeURIComponent(c.id)}`;
  return {
    type: TYPE, id: c.id,
    attributes: {
      figure: c.figure, operator: c.operator, value: c.value, device: c.device, template: c.template, path: c.path, window_days: c.window_days,
      min_views: c.min_views, enabled: c.enabled === 1, state: c.state, state_since: toSeconds(c.state_since), judged: toSecondsOrNull(c.judged),
      measured: c.measured, page_views: c.views, text: fieldAlertText(c), created: toSeconds(c.created),
    },
    links: { self, field: `${links.origin}${fieldAlertHref(c)}` },
  };
}

/** An event as the API shows it: the condition's words as they were when it changed. */
export function fieldAlertEventResource(e: FieldAlertEventRow, links: Links) {
  const condition = { ...e, value: e.threshold };
  return {
    type: 'field_alert_event', id: e.id,
    attributes: {
      condition: e.condition_id, state: e.state, figure: e.figure, operator: e.operator, threshold: e.threshold, measured: e.measured, page_views: e.views,
      device: e.device, template: e.template, path: e.path, window_days: e.window_days, min_views: e.min_views, text: fieldAlertText(condition),
      created: toSeconds(e.created),
    },
    links: {
      condition: `${links.api}/field_sites/${encodeURIComponent(e.site_id)}/alert_conditions/${encodeURIComponent(e.condition_id)}`,
      field: `${links.origin}${fieldAlertHref(condition)}`,
    },
  };
}

export function registerFieldAlertRoutes(r: Router, ctx: AppContext): void {
  const { store } = ctx;
  const base = '/field_sites/:id/alert_conditions';
  const site = (req: FastifyRequest) => requireFieldSite(store.db, principalOf(req).accountId, params(req).id);

  r.get(base, async (req, reply, links) => {
    const s = await site(req);
    const rows = await fieldAlertsOfSite(store.db, s.accountId, s.id);
    return reply.type(JSONAPI).send({ data: rows.map((c) => fieldAlertResource(c, links)), links: { self: `${links.api}/field_sites/${s.id}/alert_conditions` } });
  });

  r.post(base, async (req, reply, links) => {
    const s = await site(req);
    const p = principalOf(req);
    const input = jsonApiBody(req, (body) => parseFieldAlertInput(resourceAttributes(body, TYPE, FIELD_ALERT_SHAPE), 'create'));
    const data = fieldAlertResource(await createFieldAlert(store, p, s, input), links);
    return reply.code(201).header('Location', data.links.self).type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.get(`${base}/:condition_id`, async (req, reply, links) => {
    const s = await site(req);
    const data = fieldAlertResource(await requireFieldAlert(store.db, s, params(req).condition_id), links);
    return reply.type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.patch(`${base}/:condition_id`, async (req, reply, links) => {
    const s = await site(req);
    const row = await requireFieldAlert(store.db, s, params(req).condition_id);
    const p = principalOf(req);
    const input = jsonApiBody(req, (body) => parseFieldAlertInput(resourceAttributes(body, TYPE, FIELD_ALERT_SHAPE, true), 'patch', row));
    const data = fieldAlertResource(await changeFieldAlert(store, p, row, input), links);
    return reply.type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.delete(`${base}/:condition_id`, async (req, reply) => {
    const s = await site(req);
    const row = await requireFieldAlert(store.db, s, params(req).condition_id);
    await removeFieldAlert(store, principalOf(req), row);
    return reply.type(JSONAPI).send({ data: { type: TYPE, id: row.id } });
  });

  r.get('/field_sites/:id/alert_events', async (req, reply, links) => {
    const q = parseListQuery(FIELD_ALERT_EVENTS_LIST, (req.query ?? {}) as Record<string, string | string[]>);
    const s = await site(req);
    const result = await listFieldAlertEvents(store.db, s, q);
    return sendList(reply, req, links, q, result.rows.map((e) => fieldAlertEventResource(e, links)), result.hasNext);
  });
}
