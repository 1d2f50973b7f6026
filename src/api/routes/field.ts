/**
 * Field data's API (issue 50): field sites (JSON:API resources like the rest) and their figures. Every rule and every
 * figure is core's (core/field/); here requests become calls and answers become documents. Check order on a write:
 * the site in the path (404), the role (403), Content-Type (415), the body (400).
 */
import type { FastifyRequest } from 'fastify';
import { toSeconds } from '../../core/clock.js';
import { figuresAttributes, p75Attributes, breakdownCsv, seriesCsv } from '../../core/field/export.js';
import {
  parseBreakdown, parseFieldQuery, readFieldAttribution, readFieldBreakdown, readFieldIntake, readFieldSeries, readFieldSummary,
  type FieldWindow,
} from '../../core/field/figures.js';
import {
  changeFieldSite, createFieldSite, listSites, parseFieldSiteInput, removeFieldSite, requireFieldSite, type FieldSite,
} from '../../core/field/sites.js';
import type { AppContext } from '../../context/app-context.js';
import type { Links } from '../../context/links.js';
import { principalOf } from '../auth.js';
import { jsonApiBody } from '../body.js';
import { JSONAPI } from '../errors.js';
import { resourceAttributes } from '../resource-body.js';
import type { Router } from '../router.js';

const SHAPE = 'send {"data":{"type":"field_site","attributes":{"name":"Shop","origins":["https://shop.example.com"]}}}';
const idOf = (req: FastifyRequest): string => (req.params as { id: string }).id;
const queryOf = (req: FastifyRequest) => (req.query ?? {}) as Record<string, string | string[]>;
const windowAttributes = (w: FieldWindow) => ({ days: w.days, from: toSeconds(w.from), to: toSeconds(w.to) });

export function registerFieldRoutes(r: Router, ctx: AppContext): void {
  const { store } = ctx;
  const siteLink = (links: Links, id: string) => `${links.api}/field_sites/${encodeURIComponent(id)}`;
  const siteResource = (s: FieldSite, links: Links) => ({
    type: 'field_site', id: s.id,
    attributes: {
      name: s.name, origins: s.origins, sample_rate: s.sampleRate, templates: s.templates, keep_query: s.keepQuery, honour_gpc: s.honourGpc,
      raw_retention_days: s.rawRetentionDays, created: toSeconds(s.created),
      snippet: ctx.field.snippetTag(links.origin, s), beacon_url: ctx.field.beaconUrl(links.origin, s.id),
    },
    links: { self: siteLink(links, s.id), alert_conditions: `${siteLink(links, s.id)}/alert_conditions`, alert_events: `${siteLink(links, s.id)}/alert_events` },
  });
  const site = (req: FastifyRequest) => requireFieldSite(store.db, principalOf(req).accountId, idOf(req));

  r.get('/field_sites', async (req, reply, links) => {
    const sites = await listSites(store.db, principalOf(req).accountId);
    return reply.type(JSONAPI).send({ data: sites.map((s) => siteResource(s, links)), links: { self: `${links.api}/field_sites` } });
  });

  r.post('/field_sites', async (req, reply, links) => {
    const p = principalOf(req);
    const input = jsonApiBody(req, (body) => parseFieldSiteInput(resourceAttributes(body, 'field_site', SHAPE), 'create'));
    const data = siteResource(await createFieldSite(store, p, input), links);
    return reply.code(201).header('Location', data.links.self).type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.get('/field_sites/:id', async (req, reply, links) => {
    const data = siteResource(await site(req), links);
    return reply.type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.patch('/field_sites/:id', async (req, reply, links) => {
    const s = await site(req);
    const p = principalOf(req);
    const input = jsonApiBody(req, (body) => parseFieldSiteInput(resourceAttributes(body, 'field_site', SHAPE, true), 'patch'));
    const data = siteResource(await changeFieldSite(store, p, s, input), links);
    ctx.field.ingest.forget(s.id);
    return reply.type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.delete('/field_sites/:id', async (req, reply) => {
    const s = await site(req);
    await removeFieldSite(store, principalOf(req), s);
    ctx.field.ingest.forget(s.id);
    return reply.type(JSONAPI).send({ data: { type: 'field_site', id: s.id } });
  });

  r.get('/field_sites/:id/summary', async (req, reply, links) => {
    const s = await site(req);
    const q = parseFieldQuery(queryOf(req));
    const { window, figures } = await readFieldSummary(store.db, s, q);
    const self = `${siteLink(links, s.id)}/summary`;
    return reply.type(JSONAPI).send({
      data: { type: 'field_summary', id: s.id, attributes: { window: windowAttributes(window), filters: q.filters, ...figuresAttributes(figures) }, links: { self } },
    });
  });

  r.get('/field_sites/:id/breakdown', async (req, reply) => {
    const s = await site(req);
    const by = parseBreakdown(queryOf(req).by);
    const { window, rows } = await readFieldBreakdown(store.db, s, parseFieldQuery(queryOf(req)), by);
    return reply.type(JSONAPI).send({
      data: rows.map((row) => ({ type: 'field_breakdown_row', id: row.value, attributes: { by, value: row.value, ...figuresAttributes(row.figures) } })),
      meta: { window: windowAttributes(window) },
    });
  });

  r.get('/field_sites/:id/series', async (req, reply) => {
    const s = await site(req);
    const { window, points } = await readFieldSeries(store.db, s, parseFieldQuery(queryOf(req)));
    return reply.type(JSONAPI).send({
      data: points.map((p) => ({ type: 'field_day', id: new Date(p.day).toISOString().slice(0, 10),
        attributes: { day: toSeconds(p.day), page_views: p.views, p75: p75Attributes(p.p75) } })),
      meta: { window: windowAttributes(window) },
    });
  });

  r.get('/field_sites/:id/attribution', async (req, reply) => {
    const s = await site(req);
    const a = await readFieldAttribution(store.db, s, parseFieldQuery(queryOf(req)));
    const list = (l: typeof a.lcpElements) => l.map((e) => ({ value: e.value, count: e.count, p75: e.p75 }));
    return reply.type(JSONAPI).send({
      data: { type: 'field_attribution', id: s.id, attributes: {
        page_views_read: a.views, from: toSeconds(a.from), lcp_elements: list(a.lcpElements), lcp_resources: list(a.lcpResources),
        inp_targets: list(a.inpTargets), inp_scripts: list(a.inpScripts), cls_targets: list(a.clsTargets),
      } },
    });
  });

  r.get('/field_sites/:id/intake', async (req, reply) => {
    const s = await site(req);
    const i = await readFieldIntake(store.db, s, parseFieldQuery({ days: queryOf(req).days }).days);
    return reply.type(JSONAPI).send({
      data: { type: 'field_intake', id: s.id, attributes: { last_five_minutes: i.lastFiveMinutes, accepted: i.accepted, refused: i.refused } },
    });
  });

  r.get('/field_sites/:id/series.csv', async (req, reply) => {
    const s = await site(req);
    const { points } = await readFieldSeries(store.db, s, parseFieldQuery(queryOf(req)));
    return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="field-${s.id}-daily.csv"`).send(seriesCsv(points));
  });

  r.get('/field_sites/:id/breakdown.csv', async (req, reply) => {
    const s = await site(req);
    const by = parseBreakdown(queryOf(req).by);
    const { rows } = await readFieldBreakdown(store.db, s, parseFieldQuery(queryOf(req)), by);
    return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="field-${s.id}-by-${by}.csv"`).send(breakdownCsv(by, rows));
  });
}
