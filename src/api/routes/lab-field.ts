/**
 * Lab beside field in the API (issue 51): the field figures of a report's URL and device, and of a scan's site and
 * device, from this account's own visitors (core/field/lab-field.ts). A URL or site on no field site of the account is
 * still a 200, with `site: null` and a detail saying how to set one up: a CI run tells "no field data" from an error.
 * Another account's report or scan is its 404, as everywhere.
 */
import type { FastifyRequest } from 'fastify';
import { toSeconds } from '../../core/clock.js';
import { figuresAttributes } from '../../core/field/export.js';
import type { FieldWindow } from '../../core/field/figures.js';
import {
  FIELD_MIN_VIEWS, fieldDeviceOfClass, LAB_FIELD_DAYS, noFieldSiteDetail, readOriginField, readUrlField, deviceClassOfReport,
} from '../../core/field/lab-field.js';
import { requireReport } from '../../core/reports/reports.js';
import { getScan } from '../../core/scans/scans.js';
import { isDeviceClass, type DeviceClass } from '../../core/vocabulary/device-classes.js';
import { plural } from '../../lib/words.js';
import type { AppContext } from '../../context/app-context.js';
import { principalOf } from '../auth.js';
import { JSONAPI } from '../errors.js';
import type { Router } from '../router.js';

const idOf = (req: FastifyRequest): string => (req.params as { id: string }).id;
const windowAttributes = (w: FieldWindow) => ({ days: w.days, from: toSeconds(w.from), to: toSeconds(w.to) });
const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

export function registerLabFieldRoutes(r: Router, ctx: AppContext): void {
  const { store } = ctx;

  r.get('/reports/:id/field', async (req, reply, links) => {
    const accountId = principalOf(req).accountId;
    const report = await requireReport(store.db, accountId, idOf(req));
    const deviceClass = deviceClassOfReport(store.box, ctx.catalog, report);
    const device = fieldDeviceOfClass(deviceClass);
    const field = await readUrlField(store.db, accountId, { url: report.url, device });
    const self = `${links.report(report.id)}/field`;
    const common = { url: report.url, device, device_class: deviceClass, min_views: FIELD_MIN_VIEWS };
    const attributes = !field
      ? { site: null, ...common, window: null, basis: null, path: null, template: null, path_views: 0, template_views: 0, page_views: 0,
        metrics: null, detail: noFieldSiteDetail(originOf(report.url)) }
      : {
        site: field.site, ...common, window: windowAttributes(field.window), basis: field.basis, path: field.path, template: field.template,
        path_views: field.pathViews, template_views: field.templateViews, ...figuresAttributes(field.figures),
        detail: field.basis === 'path' ? `${plural(field.pathViews, 'page view')} of ${field.path} on ${device} in the last ${field.window.days} days.`
          : field.basis === 'template'
            ? `${plural(field.pathViews, 'page view')} of ${field.path} on ${device} in the last ${field.window.days} days, fewer than ` +
              `${FIELD_MIN_VIEWS}: the figures are its template ${field.template}'s (${plural(field.templateViews, 'page view')}).`
            : `Too few to judge: ${plural(field.pathViews, 'page view')} of ${field.path}` +
              `${field.template ? ` and ${plural(field.templateViews, 'page view')} of its template ${field.template}` : ''} on ${device} ` +
              `in the last ${field.window.days} days, fewer than ${FIELD_MIN_VIEWS}.`,
      };
    return reply.type(JSONAPI).send({
      data: { type: 'report_field', id: report.id, attributes,
        links: { self, report: links.report(report.id), ...(field ? { field: `${links.origin}${field.href}` } : {}) } },
      links: { self },
    });
  });

  r.get('/scans/:id/field', async (req, reply, links) => {
    const accountId = principalOf(req).accountId;
    const scan = await getScan(store.db, accountId, idOf(req));
    const deviceClass: DeviceClass = isDeviceClass(scan.device_class) ? scan.device_class : 'desktop';
    const device = fieldDeviceOfClass(deviceClass);
    const origin = scan.site ?? originOf(scan.url);
    const field = await readOriginField(store.db, accountId, origin, device);
    const self = `${links.api}/scans/${encodeURIComponent(scan.id)}/field`;
    const common = { origin, device, device_class: deviceClass, min_views: FIELD_MIN_VIEWS };
    const attributes = !field
      ? { site: null, ...common, window: null, basis: null, page_views: 0, metrics: null, detail: noFieldSiteDetail(origin) }
      : {
        site: field.site, ...common, window: windowAttributes(field.window), basis: field.basis, ...figuresAttributes(field.figures),
        detail: `${plural(field.figures.views, 'page view')} of the site on ${device} in the last ${LAB_FIELD_DAYS} days` +
          `${field.basis === 'too-few' ? `, fewer than ${FIELD_MIN_VIEWS}: too few to judge` : ''}.`,
      };
    return reply.type(JSONAPI).send({
      data: { type: 'scan_field', id: scan.id, attributes,
        links: { self, scan: `${links.api}/scans/${encodeURIComponent(scan.id)}`, ...(field ? { field: `${links.origin}${field.href}` } : {}) } },
      links: { self },
    });
  });
}
