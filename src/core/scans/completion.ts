/**
 * Stage 4 of a scan's work (scan-work.ts), the last: completion. Before: every page of the scan followed its test to
 * its end (following.ts). The site figures are made from the completed pages' rows and their reports' structure audits
 * and HARs (page-artifacts.ts); a running scan is completed with them, its alert conditions' verdicts (scan-alerts.ts)
 * and its notices in one transaction; a cancelled one gets the figures of what was measured. After: the scan is read
 * (scan-export.ts, scan-history.ts, comparison-reader.ts) until it expires.
 */
import { siteFigures, type SiteFigures, type SitePage } from '../../analysis/site-figures.js';
import type { Db } from '../../store/db.js';
import { allScanPages, scanById, updateScan, type ScanPageRow, type ScanRow } from '../../store/scans.js';
import { clock } from '../clock.js';
import { pageAnalyses } from './page-artifacts.js';
import { judgeScanAlerts, unjudged, type AlertVerdict } from './scan-alerts.js';
import type { FollowContext } from './scan-work.js';

/**
 * The scan `id`, none of whose pages is left to run, finished with its site figures: a running scan completed
 * (completeScan), a cancelled one given the figures of what was measured. False when it was not this call that
 * finished it (gone, or another process did first).
 */
export async function finishScan(ctx: FollowContext, id: string): Promise<boolean> {
  const { store } = ctx;
  const scan = await scanById(store.db, id);
  // Only a running scan, or a cancelled one still without figures, is left to finish. One that another process finished
  // since this one listed it is done: writing its figures again counted a second completion (scan-alerts.test).
  if (!scan || (scan.state !== 'running' && (scan.state !== 'cancelled' || scan.figures !== null))) return false;
  const pages = await allScanPages(store.db, id);
  const figures = await figuresOf(ctx, scan, pages);
  if (scan.state === 'running') return completeScan(ctx, scan, figures, pages);
  return updateScan(store.db, id, ['cancelled'], { figures: JSON.stringify(figures), finished: scan.finished ?? clock.now() });
}

/**
 * A running scan completed with its figures and its alert conditions' verdicts (scan-alerts.ts, read first), and its
 * notices queued in the same transaction: the update that moves it to completed happens once, whoever follows it.
 */
async function completeScan(ctx: FollowContext, scan: ScanRow, figures: SiteFigures, pages: readonly ScanPageRow[]): Promise<boolean> {
  const { store } = ctx;
  let verdicts: AlertVerdict[];
  try {
    verdicts = await judgeScanAlerts(store, scan, figures, pages);
  } catch (err) {
    // An outage is tried again at the next follow; a fault completes the scan all the same, its conditions not evaluated.
    if (store.health.noticed(err)) throw err;
    ctx.log?.warn({ err, scanId: scan.id }, 'the alert conditions of a completed scan could not be judged');
    verdicts = unjudged(scan);
  }
  const done: ScanRow = { ...scan, state: 'completed', finished: clock.now(), figures: JSON.stringify(figures), alerts: JSON.stringify(verdicts) };
  let queue: ((trx: Db) => Promise<void>) | undefined;
  try {
    queue = await ctx.notices?.prepare(done, verdicts);
  } catch (err) {
    if (store.health.noticed(err)) throw err;
    ctx.log?.warn({ err, scanId: scan.id }, 'the notices of a completed scan could not be made; it completes without them');
  }
  return store.db.transaction().execute(async (trx) => {
    if (!(await updateScan(trx, scan.id, ['running'], { state: 'completed', finished: done.finished, figures: done.figures, alerts: done.alerts }))) {
      return false;
    }
    await queue?.(trx);
    return true;
  });
}

/** The site figures of a scan's completed pages, from their rows and their reports' structure audits and HARs. */
async function figuresOf(ctx: Pick<FollowContext, 'artifacts'>, scan: ScanRow, all: readonly ScanPageRow[]): Promise<SiteFigures> {
  const pages = all.filter((p) => p.state === 'completed');
  const { audits, thirdParties } = await pageAnalyses(ctx.artifacts, pages, scan.site ?? scan.url);
  const sitePages: SitePage[] = pages.map((p) => ({
    url: p.url, template: p.template, report_id: p.report_id, grade: p.grade, performance_score: p.performance_score,
    largest_contentful_paint: p.largest_contentful_paint, total_blocking_time: p.total_blocking_time,
    cumulative_layout_shift: p.cumulative_layout_shift, fully_loaded_time: p.fully_loaded_time,
  }));
  return siteFigures(sitePages, audits, thirdParties);
}
