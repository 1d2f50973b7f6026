/**
 * A scan's site report beside real visitors (issue 51, point 2): the field site of the scan's origin, its figures per
 * template for the scan's device, and each measured page sorted by its lab verdict against its field verdict (good
 * lab / poor field first: the pages whose lab test is not showing what visitors live). Field figures are read through
 * core/field (figures.ts, lab-field.ts): one breakdown, then one statement per site and device for every page.
 */
import { clock } from '../clock.js';
import type { Db } from '../../store/db.js';
import { scanPagesLabFigures, type ScanRow } from '../../store/scans.js';
import { listFieldSites } from '../../store/field.js';
import { readFieldBreakdown, type BreakdownRow } from '../field/figures.js';
import {
  fieldDeviceOfClass, fieldPathOf, labFieldGroup, LAB_FIELD_DAYS, LAB_FIELD_GROUPS, readUrlsField, type LabFieldGroup, type UrlField,
} from '../field/lab-field.js';
import { fieldSiteOf, type FieldSite } from '../field/sites.js';
import { isDeviceClass } from '../vocabulary/device-classes.js';
import type { FieldDevice } from '../field/beacon.js';

export interface ScanFieldPage {
  url: string;
  template: string;
  reportId: string | null;
  lab: { largest_contentful_paint: number | null; cumulative_layout_shift: number | null; total_blocking_time: number | null };
  field: UrlField | undefined;
  group: LabFieldGroup;
}

export interface ScanField {
  site: Pick<FieldSite, 'id' | 'name'>;
  device: FieldDevice;
  days: number;
  /** The field site's templates (its own naming of the visitors' URLs), most viewed first. */
  templates: BreakdownRow[];
  /** Every measured page, the groups in LAB_FIELD_GROUPS' order (good lab / poor field first). */
  pages: ScanFieldPage[];
  /** Pages per group. */
  counts: Record<LabFieldGroup, number>;
}

/** The field beside a scan; undefined when no field site of the account collects from the scan's origin. */
export async function readScanField(db: Db, accountId: string, scan: Pick<ScanRow, 'id' | 'url' | 'site' | 'device_class'>, now = clock.now()):
  Promise<ScanField | undefined> {
  const origin = scan.site ?? originOf(scan.url);
  const site = (await listFieldSites(db, accountId)).map(fieldSiteOf).find((s) => origin !== undefined && s.origins.includes(origin));
  if (!site) return undefined;
  const device = fieldDeviceOfClass(isDeviceClass(scan.device_class) ? scan.device_class : 'desktop');
  const rows = await scanPagesLabFigures(db, scan.id);
  const [breakdown, fields] = await Promise.all([
    readFieldBreakdown(db, site, { days: LAB_FIELD_DAYS, filters: { device } }, 'template', 100, now),
    // The pages on the site's origins (a redirect may have taken some elsewhere).
    readUrlsField(db, accountId, rows.filter((r) => fieldPathOf(site, r.url) !== undefined).map((r) => ({ url: r.url, device })), { now }),
  ]);
  const order = new Map(LAB_FIELD_GROUPS.map((g, i) => [g.id, i]));
  const pages = rows.map((r): ScanFieldPage => {
    const lab = { largest_contentful_paint: r.largest_contentful_paint, cumulative_layout_shift: r.cumulative_layout_shift, total_blocking_time: r.total_blocking_time };
    const field = fields.get(`${device} ${r.url}`);
    return { url: r.url, template: r.template, reportId: r.report_id, lab, field, group: labFieldGroup(lab, field) };
  });
  // Stable: within a group, the scan's order.
  pages.sort((a, b) => order.get(a.group)! - order.get(b.group)!);
  const counts = Object.fromEntries(LAB_FIELD_GROUPS.map((g) => [g.id, 0])) as Record<LabFieldGroup, number>;
  for (const p of pages) counts[p.group]++;
  return { site: { id: site.id, name: site.name }, device, days: LAB_FIELD_DAYS, templates: breakdown.rows, pages, counts };
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
