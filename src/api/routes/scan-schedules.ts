/**
 * A site over time (docs/scans.md "Scheduled scans", "Site history"): scan schedules (create, list, read, change,
 * delete) and a scan's site history (the account's completed scans of its site and source, oldest first).
 */
import { toSecondsOrNull } from '../../core/clock.js';
import type { FastifyRequest } from 'fastify';
import {
  changeScanSchedule, createScanSchedule, getScanSchedule, listScanSchedules, parseScheduleChange, parseScheduleRequest,
  removeScanSchedule, scheduleViews, type ScheduleView,
} from '../../core/scans/scan-schedules.js';
import { siteHistory, type HistoryPoint } from '../../core/scans/scan-history.js';
import { principalOf } from '../auth.js';
import { jsonApiBody } from '../body.js';
import { resourceAttributes } from '../resource-body.js';
import type { AppContext } from '../../context/app-context.js';
import type { Links } from '../../context/links.js';
import { JSONAPI } from '../errors.js';
import type { Router } from '../router.js';

const idOf = (req: FastifyRequest): string => (req.params as { id: string }).id;
const CHANGE_SHAPE = 'send {"data":{"type":"scan_schedule","attributes":{"frequency":"daily"}}} or {"data":{"type":"scan_schedule","attributes":{"paused":true}}}';

/** A schedule as the API gives it: its scans' settings as the scan resource shows them, and its options without a secret. */
export function scheduleResource(v: ScheduleView, links: Links) {
  const self = `${links.api}/scan_schedules/${v.id}`;
  // Every stored setting (alert conditions included), the URLs of a list counted as the scan resource does.
  const { urls, ...settings }: Record<string, unknown> = { ...v.settings };
  delete settings.source;
  return {
    type: 'scan_schedule',
    id: v.id,
    attributes: {
      url: v.url, source: v.source, frequency: v.frequency, next_run: toSecondsOrNull(v.nextRun), paused: v.nextRun === null,
      skipped_at: toSecondsOrNull(v.skippedAt), skip_reason: v.skipReason, last_scan_id: v.lastScanId, last_scan_state: v.lastScanState,
      created: toSecondsOrNull(v.created), location: v.location, browser: v.browser, devices: v.devices,
      ...settings, urls_given: Array.isArray(urls) ? urls.length : 0,
      options: v.options,
    },
    links: { self, ...(v.lastScanId && v.lastScanState ? { last_scan: `${links.api}/scans/${v.lastScanId}` } : {}) },
  };
}

function historyPointResource(p: HistoryPoint, links: Links) {
  return {
    type: 'scan_history_point',
    id: p.scan,
    attributes: {
      scan: p.scan, created: toSecondsOrNull(p.created), finished: toSecondsOrNull(p.finished), schedule_id: p.scheduleId,
      pages_measured: p.pagesMeasured, ...p.figures, grades: p.grades, lighthouse_versions: p.lighthouseVersions,
    },
    links: { scan: `${links.api}/scans/${p.scan}` },
  };
}

export function registerScanScheduleRoutes(r: Router, ctx: AppContext): void {
  const { store } = ctx;
  const viewOf = async (row: Parameters<typeof scheduleViews>[1][number]) => (await scheduleViews(store, [row]))[0]!;

  r.post('/scan_schedules', async (req, reply, links) => {
    const principal = principalOf(req);
    const request = jsonApiBody(req, (body) => {
      const attrs = (body as { data?: { attributes?: Record<string, unknown> } })?.data?.attributes;
      return parseScheduleRequest(typeof attrs === 'object' && attrs !== null ? attrs : {}, {
        plan: principal.plan, catalog: ctx.catalog, defaultLocation: ctx.catalog.defaultLocation, defaultBrowser: ctx.catalog.defaultBrowser,
      });
    });
    const { schedule, started } = await createScanSchedule(ctx.intake, principal, request);
    const data = scheduleResource(await viewOf(schedule), links);
    const scan = `${links.api}/scans/${started.scan.id}`;
    return reply.code(201).header('Location', data.links.self).type(JSONAPI).send({
      data, meta: { scan: started.scan.id, scans: started.scans.map((x) => x.id), credits_left: started.creditsLeft,
        credits_reserved: started.creditsReserved },
      links: { self: data.links.self, scan },
    });
  });

  r.get('/scan_schedules', async (req, reply, links) => {
    const views = await scheduleViews(store, await listScanSchedules(store, principalOf(req).accountId));
    return reply.type(JSONAPI).send({ data: views.map((v) => scheduleResource(v, links)), meta: { count: views.length },
      links: { self: `${links.api}/scan_schedules` } });
  });

  r.get('/scan_schedules/:id', async (req, reply, links) => {
    const data = scheduleResource(await viewOf(await getScanSchedule(store, principalOf(req).accountId, idOf(req))), links);
    return reply.type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.patch('/scan_schedules/:id', async (req, reply, links) => {
    const principal = principalOf(req);
    // 404 before the body is read, as every update of the API.
    await getScanSchedule(store, principal.accountId, idOf(req));
    const change = jsonApiBody(req, (body) => parseScheduleChange(resourceAttributes(body, 'scan_schedule', CHANGE_SHAPE, true), principal.plan));
    const data = scheduleResource(await viewOf(await changeScanSchedule(store, principal, idOf(req), change)), links);
    return reply.type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.delete('/scan_schedules/:id', async (req, reply) => {
    await removeScanSchedule(store, principalOf(req), idOf(req));
    return reply.type(JSONAPI).send({ data: { type: 'scan_schedule', id: idOf(req) } });
  });

  r.get('/scans/:id/history', async (req, reply, links) => {
    const h = await siteHistory(store.db, principalOf(req).accountId, idOf(req));
    const self = `${links.api}/scans/${h.scan.id}/history`;
    return reply.type(JSONAPI).send({ data: h.points.map((p) => historyPointResource(p, links)),
      meta: { site: h.site, device_class: h.deviceClass, source: h.source, count: h.points.length }, links: { self } });
  });
}
