/**
 * A completing scan's alert conditions judged (docs/scans.md "Alerts on a site"; the rules are alert-verdicts.ts):
 * what they read is read here, before the transaction that completes the scan (SQLite has one connection): the
 * comparison with the site's previous completed scan when a condition needs it, and the conditions' verdicts on the
 * site's earlier scans, whose last one says whether a verdict triggered or resolved. completion.ts stores the verdicts
 * in the update that completes the scan, and queues the notices in the same transaction: exactly once.
 */
import { scanSite, type SiteFigures } from '../../analysis/site-figures.js';
import type { Db, Store } from '../../store/db.js';
import { alertsOfSiteScans, type ScanPageRow, type ScanRow } from '../../store/scans.js';
import { clock } from '../clock.js';
import { readScanSettings } from './scan-request.js';
import { compareScanRows, previousScan } from './comparison-reader.js';
import { conditionApplies, conditionText } from './alert-conditions.js';
import { judgeConditions, withChanges, type AlertVerdict, type PreviousComparison } from './alert-verdicts.js';
import { readScanAlerts } from './scan-readers.js';

export type { AlertVerdict };

/** Earlier scans of the site whose verdicts are looked through for a condition's last one. */
const EARLIER_SCANS = 50;

/** What is told when a scan completes: the notices (webhooks, e-mail) built before its transaction, queued in it. */
export interface ScanNotices {
  /** Builds the notices of the completed scan; the function returned queues them inside the completing transaction. */
  prepare(scan: ScanRow, verdicts: readonly AlertVerdict[]): Promise<(trx: Db) => Promise<void>>;
  /** Deliveries were queued (after the commit): wake their sender. */
  queued(): void;
}

/**
 * The verdicts of the scan's alert conditions, the scan about to be completed with `figures` (its row still says
 * running): [] when it has none. `pages` are all its pages.
 */
export async function judgeScanAlerts(store: Store, scan: ScanRow, figures: SiteFigures, pages: readonly ScanPageRow[]): Promise<AlertVerdict[]> {
  // A condition of one device is judged on that device's scan only.
  const conditions = readScanSettings(scan.settings).alert_conditions.filter((c) => conditionApplies(c, scan.device_class));
  if (conditions.length === 0) return [];
  const done: ScanRow = { ...scan, state: 'completed', figures: JSON.stringify(figures) };
  let previous: PreviousComparison = { none: '' };
  if (conditions.some((c) => c.kind !== 'figure')) {
    const before = await previousScan(store, scan.account_id, done);
    previous = before
      ? { scan: before.id, at: before.started ?? before.created, comparison: (await compareScanRows(store, before, done)).comparison }
      : { none: `there is no earlier completed scan of ${scanSite(scan)} as ${scan.device_class} (source ${scan.source}) to compare with.` };
  }
  const failed = pages.filter((p) => p.state === 'failed').length;
  const verdicts = judgeConditions(conditions, {
    site: scanSite(scan), figures, pages: { failed },
    pages_list: pages.map((p) => ({
      url: p.url, template: p.template, report_id: p.report_id, state: p.state, error: p.error,
      largest_contentful_paint: p.largest_contentful_paint, cumulative_layout_shift: p.cumulative_layout_shift,
      total_blocking_time: p.total_blocking_time, fully_loaded_time: p.fully_loaded_time, performance_score: p.performance_score,
    })),
  }, previous);
  const earlier = await alertsOfSiteScans(store.db, scan.account_id, {
    site: scanSite(scan), deviceClass: scan.device_class, source: scan.source, before: { created: scan.created, id: scan.id }, now: clock.now(),
    limit: EARLIER_SCANS,
  });
  // An earlier scan without verdicts (or whose verdicts cannot be read) has none to follow.
  return withChanges(verdicts, earlier.map((e) => ({ scan: e.id, verdicts: readScanAlerts(e.alerts) ?? [] })));
}

/** The verdicts of a scan whose conditions could not be judged (logged): each not evaluated, saying so. */
export function unjudged(scan: Pick<ScanRow, 'settings' | 'device_class'>): AlertVerdict[] {
  const conditions = readScanSettings(scan.settings).alert_conditions.filter((c) => conditionApplies(c, scan.device_class));
  return conditions.map((c) => {
    const outcome = `${conditionText(c)} was not evaluated: the check failed (the service's log says why).`;
    return {
      ...c, holds: null, measured: null, message: outcome, outcome,
      pages: [], more_pages: 0, templates: [], compared_with: null, notes: [], change: null, previous_scan: null,
    };
  });
}
