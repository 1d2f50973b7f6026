/**
 * Two scans of a site compared (docs/scans.md "Compare two scans"): both must be the account's (else 404, as any
 * scan), finished with figures (else 400 E40003 saying what to do); "last" is the account's previous completed scan
 * of the same site, device and source; two scans of different devices are not compared (400 E40003). Reads the two scans' rows and their pages' rows only (scan_pages keeps each page's
 * figures, its runs' values and its Lighthouse version): the comparison itself is analysis/scan-comparison-rules.ts.
 */
import { compareScans } from '../../analysis/scan-comparison-rules.js';
import type { ComparePageInput, ScanComparison } from '../../analysis/scan-comparison-types.js';
import { scanSite } from '../../analysis/site-figures.js';
import type { Store } from '../../store/db.js';
import { allScanPages, completedScansOfSite, scanPageCounts, type ScanPageRow, type ScanRow } from '../../store/scans.js';
import { REGRESSION } from '../alerts/alerts.js';
import { clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { runCount } from '../options/analysis-options.js';
import { readOptions } from '../options/stored-options.js';
import { getScan } from './scans.js';
import { readRunValues, readScanFigures } from './scan-readers.js';

/** The word that names, in place of the earlier scan's ID, the account's previous completed scan of the same site. */
export const LAST = 'last';

/** How many scans of the site the app offers to compare with. */
const OTHERS_MAX = 50;

/** One side of a comparison: the scan, and the test options its figures depend on (as POST /scans takes them). */
export interface ComparedScan {
  scan: ScanRow;
  options: Record<string, string | number | null>;
}

export interface ScanPairComparison {
  before: ComparedScan;
  after: ComparedScan;
  comparison: ScanComparison;
}

/** The test options that change a page's figures, as the API names them (null: not set). */
function conditionsOf(store: Store, scan: ScanRow): Record<string, string | number | null> {
  const o = readOptions(store.box, scan.options);
  const size = o.browser_width || o.browser_height ? `${o.browser_width ?? 'default'}×${o.browser_height ?? 'default'}` : null;
  const viewport = size || o.browser_dppx || o.browser_rotate
    ? [size ?? 'default size', o.browser_dppx ? `@${o.browser_dppx}x` : '', o.browser_rotate ? 'rotated' : ''].filter(Boolean).join(' ')
    : null;
  return {
    location: o.location, browser: o.browser, throttle: o.throttle ?? null, simulate_device: o.simulate_device ?? null, viewport,
    user_agent: o.user_agent ?? null, report: o.report, runs: runCount(o),
  };
}

const pageInput = (p: ScanPageRow): ComparePageInput => ({
  url: p.url, template: p.template, position: p.position, state: p.state, error: p.error, report_id: p.report_id, grade: p.grade,
  performance_score: p.performance_score, largest_contentful_paint: p.largest_contentful_paint, total_blocking_time: p.total_blocking_time,
  cumulative_layout_shift: p.cumulative_layout_shift, fully_loaded_time: p.fully_loaded_time, lighthouse_version: p.lighthouse_version,
  run_values: readRunValues(p.run_values),
});

/** 400 E40003 unless the scan has finished with figures: a comparison needs every page of both scans settled. */
async function assertComparable(store: Store, scan: ScanRow): Promise<void> {
  if (scan.figures !== null && (scan.state === 'completed' || scan.state === 'cancelled')) return;
  let detail: string;
  if (scan.state === 'discovering' || scan.state === 'running') {
    const c = await scanPageCounts(store.db, scan.id);
    const total = Object.values(c).reduce((a, b) => a + b, 0);
    const done = (c.completed ?? 0) + (c.failed ?? 0);
    detail = `Scan ${scan.id} is still ${scan.state === 'discovering' ? 'discovering its pages' : `running (${done} of ${total} pages finished)`}: ` +
      'compare it once it has completed (GET /scans/{id} says when).';
  } else if (scan.state === 'cancelled') {
    detail = `Scan ${scan.id} was cancelled and its last page is still loading: compare it once that page has finished.`;
  } else {
    detail = `Scan ${scan.id} ended in error (${scan.error ?? 'no reason given'}): it has no pages to compare. Compare two scans that completed.`;
  }
  throw new ApiError('E40003', detail);
}

/** The account's previous completed scan of the scan's site, device and source (started before it), if any. */
export async function previousScan(store: Store, accountId: string, scan: ScanRow): Promise<ScanRow | undefined> {
  const [previous] = await completedScansOfSite(store.db, accountId, {
    site: scanSite(scan), deviceClass: scan.device_class, source: scan.source, before: { created: scan.created, id: scan.id }, now: clock.now(), limit: 1,
  });
  return previous;
}

/**
 * What the app offers to compare a finished scan with: the previous scan of its site, device and source, and the site's
 * other completed scans of the same device.
 */
export async function scansToCompareWith(store: Store, accountId: string, scan: ScanRow): Promise<{ previous?: ScanRow; others: ScanRow[] }> {
  if (scan.figures === null) return { others: [] };
  const others = (await completedScansOfSite(store.db, accountId, { site: scanSite(scan), deviceClass: scan.device_class, now: clock.now(),
    limit: OTHERS_MAX + 1 }))
    .filter((s) => s.id !== scan.id).slice(0, OTHERS_MAX);
  return { previous: await previousScan(store, accountId, scan), others };
}

/**
 * Scan `beforeId` against scan `afterId`; or, when `afterId` is LAST, scan `beforeId` (then the after side) against
 * the account's previous completed scan of its site and source (404 E40400 when there is none).
 */
export async function compareScanPair(store: Store, accountId: string, beforeId: string, afterId: string): Promise<ScanPairComparison> {
  let before: ScanRow;
  let after: ScanRow;
  if (afterId === LAST) {
    after = await getScan(store.db, accountId, beforeId);
    await assertComparable(store, after);
    const previous = await previousScan(store, accountId, after);
    if (!previous) {
      throw new ApiError('E40400', `No completed scan of ${scanSite(after)} as ${after.device_class} (source ${after.source}) started before scan ${after.id} in this ` +
        'account: there is nothing to compare it with yet.');
    }
    before = previous;
  } else {
    before = await getScan(store.db, accountId, beforeId);
    after = await getScan(store.db, accountId, afterId);
    if (before.id === after.id) throw new ApiError('E40003', `Both sides are scan ${before.id}: give two different scans, the earlier first.`);
    if (before.device_class !== after.device_class) {
      throw new ApiError('E40003', `Scan ${before.id} ran as ${before.device_class} and scan ${after.id} as ${after.device_class}: a site's ` +
        'figures are compared between scans of the same device; compare each with an earlier scan of its own device.');
    }
    await assertComparable(store, before);
    await assertComparable(store, after);
  }
  return compareScanRows(store, before, after);
}

/** Two finished scans' rows compared, their pages read (a completing scan's alerts compare it before its row says completed). */
export async function compareScanRows(store: Store, before: ScanRow, after: ScanRow): Promise<ScanPairComparison> {
  const side = async (scan: ScanRow): Promise<ComparedScan & { pages: ComparePageInput[] }> => ({
    scan, options: conditionsOf(store, scan), pages: (await allScanPages(store.db, scan.id)).map(pageInput),
  });
  const [a, b] = await Promise.all([side(before), side(after)]);
  const input = (s: typeof a) => ({
    id: s.scan.id, created: s.scan.created, url: s.scan.url, site: s.scan.site, state: s.scan.state, conditions: s.options,
    figures: readScanFigures(s.scan.figures), pages: s.pages,
  });
  return {
    before: { scan: before, options: a.options },
    after: { scan: after, options: b.options },
    comparison: compareScans(input(a), input(b), REGRESSION.alpha),
  };
}
