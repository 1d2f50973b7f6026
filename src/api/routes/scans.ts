/** Site scans (docs/scans.md): start, read, list, cancel; a scan's pages as a list and as CSV and JSON downloads; two scans compared. */
import { toSecondsOrNull } from '../../core/clock.js';
import type { FastifyRequest } from 'fastify';
import { cancelScan, getScan, listScanPages, listScans, requestScan, scanPages, scanProgress, siblingScans, type ScanRow } from '../../core/scans/scans.js';
import { parseScanRequest } from '../../core/scans/scan-request.js';
import { conditionApplies } from '../../core/scans/alert-conditions.js';
import { compareScanPair, type ComparedScan, type ScanPairComparison } from '../../core/scans/comparison-reader.js';
import type { ScanPageRow } from '../../store/scans.js';
import { scanPageAttributes, scanPagesCsv, scanPagesJson, scanView } from '../../core/scans/scan-export.js';
import { SCAN_PAGES_LIST, SCANS_LIST } from '../../core/vocabulary/lists.js';
import { principalOf } from '../auth.js';
import { jsonApiBody } from '../body.js';
import type { AppContext } from '../../context/app-context.js';
import type { Links } from '../../context/links.js';
import { JSONAPI } from '../errors.js';
import { parseListQuery } from '../query.js';
import type { Router } from '../router.js';
import { sendList } from './lists.js';
import type { Db } from '../../store/db.js';

export async function scanResource(db: Db, s: ScanRow, links: Links) {
  const v = scanView(s, await scanProgress(db, s.id));
  const { settings } = v;
  const self = `${links.api}/scans/${s.id}`;
  // The scans one request started for its other devices: each is a scan of its own, keyed by its device.
  const siblings = (await siblingScans(db, s)).map((o) => ({ scan: o.id, device_class: o.device_class, state: o.state }));
  return {
    type: 'scan',
    id: s.id,
    attributes: {
      url: v.url, site: v.site, source: v.source, state: v.state, error: v.error,
      created: toSecondsOrNull(v.created), started: toSecondsOrNull(v.started), finished: toSecondsOrNull(v.finished),
      location: v.location, browser: v.browser,
      max_pages: settings.max_pages, sample: settings.sample, crawl_depth: settings.crawl_depth,
      respect_robots: settings.respect_robots, keep_query: settings.keep_query,
      include: settings.include, exclude: settings.exclude, templates: settings.templates, sitemaps: settings.sitemaps,
      urls_given: settings.urls.length,
      // Those judged on this scan: a condition of another device is its sibling's.
      alert_conditions: settings.alert_conditions.filter((c) => conditionApplies(c, s.device_class)),
      found: v.found, skipped: v.skipped, discovery_errors: v.discoveryErrors,
      pages: v.pages,
      credits_reserved: v.creditsReserved,
      credits_used: v.creditsUsed,
      figures: v.figures,
      alerts: v.alerts,
      schedule_id: s.schedule_id,
      device_class: s.device_class,
      scan_set: s.scan_set,
      siblings,
    },
    links: {
      self, pages: `${self}/pages`, csv: `${self}/pages.csv`, json: `${self}/pages.json`,
      ...Object.fromEntries(siblings.map((o) => [`sibling_${o.device_class}`, `${links.api}/scans/${o.scan}`])),
    },
    // Full linkage of POST /scans' `included`: the siblings are related resources of the scan.
    ...(siblings.length > 0 ? { relationships: { siblings: { data: siblings.map((o) => ({ type: 'scan', id: o.scan })) } } } : {}),
  };
}

function scanPageResource(p: ScanPageRow, links: Links) {
  return {
    type: 'scan-page', id: p.id, attributes: scanPageAttributes(p),
    links: { test: links.test(p.id), ...(p.report_id ? { report: links.report(p.report_id) } : {}) },
  };
}

const comparedSide = ({ scan, options }: ComparedScan) => ({
  scan: scan.id, url: scan.url, site: scan.site, source: scan.source, device_class: scan.device_class, state: scan.state,
  created: toSecondsOrNull(scan.created), finished: toSecondsOrNull(scan.finished), options,
});

/** A comparison as the API gives it: both scans (times in Unix seconds), then the comparison's own parts. */
function comparisonResource(c: ScanPairComparison, links: Links, self: string) {
  return {
    type: 'scan-comparison', id: `${c.before.scan.id}..${c.after.scan.id}`,
    attributes: { before: comparedSide(c.before), after: comparedSide(c.after), ...c.comparison },
    links: { self, before: `${links.api}/scans/${c.before.scan.id}`, after: `${links.api}/scans/${c.after.scan.id}` },
  };
}

const idOf = (req: FastifyRequest): string => (req.params as { id: string }).id;

export function registerScanRoutes(r: Router, ctx: AppContext): void {
  r.post('/scans', async (req, reply, links) => {
    const principal = principalOf(req);
    const { devices, settings } = jsonApiBody(req, (body) => {
      const attrs = (body as { data?: { attributes?: Record<string, unknown> } })?.data?.attributes;
      return parseScanRequest(typeof attrs === 'object' && attrs !== null ? attrs : {}, {
        plan: principal.plan, catalog: ctx.catalog, defaultLocation: ctx.catalog.defaultLocation, defaultBrowser: ctx.catalog.defaultBrowser,
      });
    });
    const started = await requestScan(ctx.intake, principal, devices, settings);
    // The first device's scan; the others (a scan per device) come along as `included`, each linked from it.
    const [data, ...included] = await Promise.all(started.scans.map((scan) => scanResource(ctx.store.db, scan, links)));
    return reply.code(202).header('Location', data!.links.self).type(JSONAPI).send({
      data, ...(included.length > 0 ? { included } : {}),
      meta: { credits_left: started.creditsLeft, credits_reserved: started.creditsReserved, scans: started.scans.map((x) => x.id) },
      links: { self: data!.links.self },
    });
  });

  r.get('/scans', async (req, reply, links) => {
    const q = parseListQuery(SCANS_LIST, (req.query ?? {}) as Record<string, string | string[]>);
    const page = await listScans(ctx.store.db, principalOf(req).accountId, q);
    const data = [];
    for (const s of page.rows) data.push(await scanResource(ctx.store.db, s, links));
    return sendList(reply, req, links, q, data, page.hasNext);
  });

  r.get('/scans/:id', async (req, reply, links) => {
    const scan = await getScan(ctx.store.db, principalOf(req).accountId, idOf(req));
    const data = await scanResource(ctx.store.db, scan, links);
    if (scan.state === 'discovering' || scan.state === 'running') reply.header('Retry-After', '3');
    return reply.type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.delete('/scans/:id', async (req, reply, links) => {
    const scan = await cancelScan(ctx.intake, principalOf(req), idOf(req));
    const data = await scanResource(ctx.store.db, scan, links);
    return reply.type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.get('/scans/:id/pages', async (req, reply, links) => {
    const q = parseListQuery(SCAN_PAGES_LIST, (req.query ?? {}) as Record<string, string | string[]>);
    const page = await listScanPages(ctx.store.db, principalOf(req).accountId, idOf(req), q);
    return sendList(reply, req, links, q, page.rows.map((p) => scanPageResource(p, links)), page.hasNext);
  });

  r.get('/scans/:id/compare/:other', async (req, reply, links) => {
    const { other } = req.params as { other: string };
    const c = await compareScanPair(ctx.store, principalOf(req).accountId, idOf(req), other);
    const self = `${links.api}/scans/${encodeURIComponent(idOf(req))}/compare/${encodeURIComponent(other)}`;
    return reply.type(JSONAPI).send({ data: comparisonResource(c, links, self), links: { self } });
  });

  r.get('/scans/:id/pages.csv', async (req, reply) => {
    const { scan, pages } = await scanPages(ctx.store.db, principalOf(req).accountId, idOf(req));
    return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="scan-${scan.id}.csv"`)
      .send(scanPagesCsv(pages));
  });

  r.get('/scans/:id/pages.json', async (req, reply) => {
    const { scan, pages } = await scanPages(ctx.store.db, principalOf(req).accountId, idOf(req));
    return reply.type('application/json; charset=utf-8').header('Content-Disposition', `attachment; filename="scan-${scan.id}.json"`)
      .send(scanPagesJson(scan, pages));
  });
}
