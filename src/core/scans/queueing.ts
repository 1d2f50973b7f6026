/**
 * Stage 2 of a scan's work (scan-work.ts): queueing. Before: discovery found the site's pages (discovery-run.ts). In
 * one transaction, while the scan is still `discovering` under this process's lease: each page queued as an ordinary
 * test (source `scan`) paid from the scan's reservation and the unused credits given back, or the scan in `error`
 * with all of them given back. After: each page follows its test (following.ts).
 */
import type { DiscoveryResult } from '../../discovery/types.js';
import { pageIdFor } from '../../store/pages.js';
import { insertScanPages, scanById, updateScan, type ScanRow } from '../../store/scans.js';
import { insertTest } from '../../store/tests.js';
import { lockAccount } from '../../store/locks.js';
import { adjustCredits } from '../accounts/accounts.js';
import { clock } from '../clock.js';
import { readOptions, storedFingerprint } from '../options/stored-options.js';
import { newTestRow } from '../tests/tests.js';
import type { ScanSettings } from './scan-request.js';
import type { ScanWorkContext } from './scan-work.js';

/** The discovery's outcome stored: the pages queued as tests, or the scan in `error`; the unused credits given back. */
export async function queueDiscovered(ctx: ScanWorkContext, scan: ScanRow, settings: ScanSettings, result: DiscoveryResult): Promise<void> {
  const { store } = ctx;
  const options = readOptions(store.box, scan.options);
  const found = { site: result.site || null, found: result.found, skipped: JSON.stringify(result.skipped),
    discovery_errors: JSON.stringify(result.errors.slice(0, 20)) };
  const fatal = result.fatal ?? (result.pages.length === 0 ? 'Discovery found no page of the site to test.' : undefined);
  const queued = await store.db.transaction().execute(async (trx) => {
    await lockAccount(trx, store.engine, scan.account_id);
    const now = clock.now();
    // Still ours and still discovering (not cancelled meanwhile): else nothing is queued.
    const fresh = await scanById(trx, scan.id);
    if (!fresh || fresh.state !== 'discovering' || fresh.lease_owner !== ctx.owner) return 0;
    if (fatal) {
      await updateScan(trx, scan.id, ['discovering'], { ...found, state: 'error', error: fatal, finished: now, reserved_tenths: 0,
        lease_owner: null, lease_expires: null });
      await adjustCredits(trx, scan.account_id, fresh.reserved_tenths);
      return 0;
    }
    // An unlimited plan reserved nothing and its tests cost it nothing; otherwise each page is paid from the reservation.
    const paid = fresh.reserved_tenths > 0 ? fresh.cost_tenths : 0;
    const pages = result.pages.slice(0, settings.max_pages);
    const rows = [];
    for (const [position, page] of pages.entries()) {
      const pageOptions = { ...options, url: page.url };
      const fingerprint = storedFingerprint(store.box, pageOptions);
      const pageId = await pageIdFor(trx, scan.account_id, page.url, fingerprint);
      const test = newTestRow(store, scan.account_id, pageOptions, fingerprint, 'scan', paid, pageId ?? null, { id: scan.id, position });
      await insertTest(trx, test);
      rows.push({ id: test.id, scan_id: scan.id, position, account_id: scan.account_id, url: page.url, template: page.template,
        state: 'queued', error: null, report_id: null, grade: null, performance_score: null, structure_score: null,
        largest_contentful_paint: null, total_blocking_time: null, cumulative_layout_shift: null, fully_loaded_time: null,
        page_bytes: null, page_requests: null });
    }
    await insertScanPages(trx, rows);
    await updateScan(trx, scan.id, ['discovering'], { ...found, state: 'running', reserved_tenths: 0, lease_owner: null, lease_expires: null });
    const unused = fresh.reserved_tenths - paid * pages.length;
    if (unused > 0) await adjustCredits(trx, scan.account_id, unused);
    return pages.length;
  });
  if (queued > 0) ctx.wakeAgents();
}
