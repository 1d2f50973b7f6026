/**
 * The expiry sweep (spec 8 retention): reports past `expires` are deleted with their artifact folders and their
 * pages refreshed (a page left without valid reports is deleted, refreshPage); tests older than 24 h are deleted.
 * Runs at start and every intervalMs, in bounded batches so one run never holds the store for long.
 * Expired rows are already invisible to the API (every read filters on time); the sweep only reclaims space.
 */
import { sweepSessions } from '../core/accounts/sessions.js';
import { deleteOldDeliveries } from '../store/webhooks.js';
import type { ArtifactStore } from '../artifacts/store.js';
import { PeriodicJob } from '../lib/periodic-job.js';
import { clock } from '../core/clock.js';
import { refreshPage } from '../core/reports/reports.js';
import { orphanLinkPageIds, unlinkPage, unlinkPages } from '../store/tags.js';
import { deleteTests, finishedTestIdsBefore, staleQueuedTestIds } from '../store/tests.js';
import { failTest, TEST_RETENTION_MS } from '../core/tests/tests.js';
import { failurePrefix } from '../core/tests/journey-failure.js';
import type { Store } from '../store/db.js';
import { deleteReports, expiredReports } from '../store/reports.js';
import { deleteScans, expiredScanIds } from '../store/scans.js';
import type { MonitorLog } from './monitor.js';

export interface SweepOptions {
  store: Store;
  artifacts: ArtifactStore;
  log?: MonitorLog;
  intervalMs?: number;
  batchSize?: number;
  maxBatches?: number;
}

/** How long a finished webhook delivery (and its attempts) stays listed. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

export interface SweepResult {
  reports: number;
  pages: number;
  tests: number;
  /** Queued tests that waited 24 h without an agent: failed (credits refunded) before they are deleted. */
  expiredQueued: number;
}

export class ExpirySweeper extends PeriodicJob<SweepResult> {
  constructor(private readonly o: SweepOptions) {
    super({ intervalMs: o.intervalMs ?? 600_000, log: o.log, failure: 'expiry sweep failed', outages: o.store.health });
  }

  protected runOnce(): Promise<SweepResult> {
    return this.runSweep();
  }

  sweep(): Promise<SweepResult> {
    return this.run();
  }

  private async runSweep(): Promise<SweepResult> {
    const { store, artifacts } = this.o;
    const batch = this.o.batchSize ?? 200;
    const maxBatches = this.o.maxBatches ?? 50;
    const result: SweepResult = { reports: 0, pages: 0, tests: 0, expiredQueued: 0 };
    const now = clock.now();

    for (let b = 0; b < maxBatches; b++) {
      const expired = await expiredReports(store.db, now, batch);
      if (expired.length === 0) break;
      // Files first: if we stop half-way the rows are still there and the next sweep removes them again.
      for (const r of expired) await artifacts.removePrefix(r.id);
      await store.db.transaction().execute(async (trx) => {
        await deleteReports(trx, expired.map((r) => r.id));
        for (const pageId of new Set(expired.map((r) => r.page_id))) {
          if (!(await refreshPage(trx, pageId))) {
            await unlinkPage(trx, pageId);
            result.pages += 1;
          }
        }
      });
      result.reports += expired.length;
      if (expired.length < batch) break;
    }

    // Tag links of pages deleted elsewhere (DELETE /pages, DELETE /reports emptying a page).
    for (let b = 0; b < maxBatches; b++) {
      const orphans = await orphanLinkPageIds(store.db, batch);
      if (orphans.length === 0) break;
      await unlinkPages(store.db, [...new Set(orphans)]);
      if (orphans.length < batch) break;
    }

    const cutoff = now - TEST_RETENTION_MS;
    const stale = await staleQueuedTestIds(store.db, cutoff, batch);
    for (const id of stale) {
      if (await failTest(store, id, null, 'No test agent took this test within 24 hours; its credits were refunded.', { onlyIfQueued: true })) result.expiredQueued += 1;
    }
    for (let b = 0; b < maxBatches; b++) {
      const old = await finishedTestIdsBefore(store.db, cutoff, batch);
      if (old.length === 0) break;
      await deleteTests(store.db, old);
      // A failed journey's progress (its screenshot) goes with its test.
      await Promise.all(old.map((id) => artifacts.removePrefix(failurePrefix(id))));
      result.tests += old.length;
      if (old.length < batch) break;
    }
    // A scan is kept as long as its pages' reports (the retention they were made with).
    for (let b = 0; b < maxBatches; b++) {
      const scans = await expiredScanIds(store.db, now, batch);
      if (scans.length === 0) break;
      await store.db.transaction().execute((trx) => deleteScans(trx, scans));
      if (scans.length < batch) break;
    }
    // Webhook deliveries and alert e-mails that ended (delivered or given up) are kept 30 days for their list.
    await deleteOldDeliveries(store.db, now - DELIVERY_RETENTION_MS);
    await sweepSessions(store.db);
    if (result.reports || result.tests || result.expiredQueued) this.o.log?.info(result, 'expiry sweep');
    return result;
  }
}
