/**
 * A site over time (docs/scans.md "Site history"): the account's completed scans of a scan's site, device and source, each a
 * point of the site figures it completed with (scans.figures, read through the one table of site figures,
 * analysis/named-site-figures.ts), for the API's GET /scans/{id}/history and the app's charts. Reads the scans' rows (index
 * scans_site_history) and one grouped count of their pages (failed, Lighthouse versions), no page's figures.
 */
import { scanSite } from '../../analysis/site-figures.js';
import { siteFigureValues } from '../../analysis/named-site-figures.js';
import type { Db } from '../../store/db.js';
import { completedScansOfSite, scanPageSummaries, type ScanRow } from '../../store/scans.js';
import { clock } from '../clock.js';
import { getScan } from './scans.js';
import { readScanFigures } from './scan-readers.js';

/** The newest scans a history holds. */
export const HISTORY_MAX_SCANS = 100;

/** One completed scan of the site; times in milliseconds. */
export interface HistoryPoint {
  scan: string;
  created: number;
  finished: number | null;
  scheduleId: string | null;
  pagesMeasured: number;
  /** Each site figure of the one table (analysis/named-site-figures.ts: lcp_p75, poor_lcp_pages, failed_pages, ...); null when it has none. */
  figures: Record<string, number | null>;
  grades: Record<string, number>;
  /** The Lighthouse versions that made its pages' reports (a change of version can move the figures). */
  lighthouseVersions: string[];
}

export interface SiteHistory {
  scan: ScanRow;
  site: string;
  /** The device its scans ran as: a site's history is one device's. */
  deviceClass: string;
  source: string;
  /** Oldest first. */
  points: HistoryPoint[];
}

/**
 * The account's completed scans of the scan's site, device and source (the scan itself when completed), the newest
 * HISTORY_MAX_SCANS, oldest first; 404 E40400 for a scan the account does not have.
 */
export async function siteHistory(db: Db, accountId: string, scanId: string): Promise<SiteHistory> {
  const scan = await getScan(db, accountId, scanId);
  const site = scanSite(scan);
  const rows = await completedScansOfSite(db, accountId, { site, deviceClass: scan.device_class, source: scan.source, now: clock.now(),
    limit: HISTORY_MAX_SCANS });
  const summaries = await scanPageSummaries(db, rows.map((r) => r.id));
  const points: HistoryPoint[] = [];
  for (const r of rows.reverse()) {
    const f = readScanFigures(r.figures);
    const summary = summaries.get(r.id);
    points.push({
      scan: r.id, created: r.created, finished: r.finished, scheduleId: r.schedule_id,
      pagesMeasured: f?.pages_measured ?? 0,
      figures: siteFigureValues({ figures: f, pages: { failed: summary?.failed ?? 0 } }),
      grades: f?.grades ?? {},
      lighthouseVersions: summary?.lighthouseVersions ?? [],
    });
  }
  return { scan, site, deviceClass: scan.device_class, source: scan.source, points };
}
