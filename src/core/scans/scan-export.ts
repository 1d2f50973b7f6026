/**
 * A scan as the API and the web app present it (docs/scans.md): the scan's own record read back (settings, what
 * discovery found and skipped, progress, credits, site figures), a page's attributes, and every page as the CSV and
 * JSON downloads. Pure: the callers read the rows.
 */
import { csvCell } from '../../lib/csv.js';
import type { SiteFigures } from '../../analysis/site-figures.js';
import type { ScanPageRow, ScanRow } from '../../store/scans.js';
import { fromTenths } from '../accounts/accounts.js';
import { readScanSettings, type ScanSettings } from './scan-request.js';
import { readDiscoveryErrors, readScanAlerts, readScanFigures, readSkipped } from './scan-readers.js';
import type { AlertVerdict } from './alert-verdicts.js';
import type { scanProgress } from './scans.js';
import type { ScanPace } from './scan-pace.js';

export type ScanProgress = Awaited<ReturnType<typeof scanProgress>>;

/** A scan read back: its stored JSON read (scan-readers.ts), its progress and credits; times in milliseconds. */
export interface ScanView {
  id: string;
  url: string;
  site: string | null;
  source: string;
  state: string;
  error: string | null;
  created: number;
  started: number | null;
  finished: number | null;
  location: string;
  browser: string;
  /** The device class its pages ran as (a scan per device; `scanSet` shared with the other devices' scans of its request). */
  deviceClass: string;
  scanSet: string | null;
  settings: ScanSettings;
  found: number;
  /** URLs skipped, by reason (docs/scans.md `skipped`). */
  skipped: Record<string, number>;
  discoveryErrors: string[];
  pages: ScanProgress;
  creditsReserved: number;
  creditsUsed: number;
  figures: SiteFigures | null;
  /** The verdicts of its alert conditions once it completed (scan-alerts.ts); null before. */
  alerts: AlertVerdict[] | null;
  /** While it runs, once a page is done: its pace and the time left (scan-pace.ts). */
  pace?: ScanPace;
}

/**
 * A scan's credits, as said on its screen and in the API: reserved, what the scan holds (while it discovers, `max_pages`
 * tests' worth; then the price of every page still to run or done, failed and cancelled pages refunded); used, the price
 * of the pages measured. Reserved is never below used; a finished scan's are equal.
 */
export function scanCredits(s: Pick<ScanRow, 'state' | 'reserved_tenths' | 'cost_tenths'>, pages: Pick<ScanProgress, 'total' | 'cancelled' | 'failed' | 'completed'>):
  { creditsReserved: number; creditsUsed: number } {
  const used = s.cost_tenths * pages.completed;
  const held = s.state === 'discovering' ? s.reserved_tenths : s.cost_tenths * (pages.total - pages.cancelled - pages.failed);
  return { creditsReserved: fromTenths(Math.max(held, used)), creditsUsed: fromTenths(used) };
}

export function scanView(s: ScanRow, pages: ScanProgress): ScanView {
  return {
    id: s.id, url: s.url, site: s.site, source: s.source, state: s.state, error: s.error,
    created: s.created, started: s.started, finished: s.finished, location: s.location, browser: s.browser,
    deviceClass: s.device_class, scanSet: s.scan_set,
    settings: readScanSettings(s.settings),
    found: s.found,
    skipped: readSkipped(s.skipped),
    discoveryErrors: readDiscoveryErrors(s.discovery_errors),
    pages,
    ...scanCredits(s, pages),
    figures: readScanFigures(s.figures),
    alerts: readScanAlerts(s.alerts),
  };
}

/** A page of a scan, as the list, the downloads and the app show it. */
export function scanPageAttributes(p: ScanPageRow) {
  return {
    url: p.url, template: p.template, position: p.position, state: p.state, error: p.error, test: p.id, report: p.report_id,
    grade: p.grade, performance_score: p.performance_score, structure_score: p.structure_score,
    largest_contentful_paint: p.largest_contentful_paint, total_blocking_time: p.total_blocking_time,
    cumulative_layout_shift: p.cumulative_layout_shift, fully_loaded_time: p.fully_loaded_time,
    page_bytes: p.page_bytes === null ? null : Number(p.page_bytes), page_requests: p.page_requests,
  };
}

const CSV_COLUMNS = Object.keys(scanPageAttributes({} as ScanPageRow)) as (keyof ReturnType<typeof scanPageAttributes>)[];

/** Every page of a scan as CSV: a header row (the page attributes' names), then one row a page. */
export function scanPagesCsv(pages: readonly ScanPageRow[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const p of pages) {
    const a = scanPageAttributes(p);
    lines.push(CSV_COLUMNS.map((c) => csvCell(a[c])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Every page of a scan as the JSON download: `{scan, site, url, device_class, state, pages}`. */
export function scanPagesJson(scan: ScanRow, pages: readonly ScanPageRow[]) {
  return { scan: scan.id, site: scan.site, url: scan.url, device_class: scan.device_class, state: scan.state, pages: pages.map(scanPageAttributes) };
}

/** The downloads' file names. */
export const scanFileName = (scan: Pick<ScanRow, 'id'>, ext: 'csv' | 'json'): string => `scan-${scan.id}.${ext}`;
