/**
 * Stage 3 of a scan's work (scan-work.ts): following. Before: the scan's pages were queued as tests (queueing.ts).
 * Each page whose test has started or finished takes its state and its report's figures (with the values of its runs,
 * page-artifacts.ts), or fails with why. After: a scan none of whose pages is left to run is completed
 * (completion.ts).
 */
import { getValidReport } from '../../store/reports.js';
import { activeScanIds, unfinishedScanPages, updateScanPage } from '../../store/scans.js';
import { clock } from '../clock.js';
import { finishScan } from './completion.js';
import { runValuesOf } from './page-artifacts.js';
import type { FollowContext } from './scan-work.js';

/**
 * Follow every scan whose pages may still change: each page whose test has started or finished takes its state and
 * its report's figures; a running scan none of whose pages is left to run is completed with its site figures (a
 * cancelled one gets the figures of what was measured). Returns how many scans were completed.
 */
export async function followScans(ctx: FollowContext): Promise<number> {
  const { store } = ctx;
  let completed = 0;
  for (const { id } of await activeScanIds(store.db)) {
    let left = 0;
    for (const p of await unfinishedScanPages(store.db, id)) {
      if (p.test_state === 'queued' || (p.test_state === 'started' && p.state === 'started')) {
        left += 1;
        continue;
      }
      if (p.test_state === 'started') {
        await updateScanPage(store.db, p.id, { state: 'started' });
        left += 1;
      } else if (p.test_state === 'completed' && p.test_report_id) {
        const r = await getValidReport(store.db, p.test_report_id, clock.now());
        await updateScanPage(store.db, p.id, r ? {
          state: 'completed', report_id: r.id, grade: r.service_grade, performance_score: r.performance_score,
          structure_score: r.structure_score, largest_contentful_paint: r.largest_contentful_paint,
          total_blocking_time: r.total_blocking_time, cumulative_layout_shift: r.cumulative_layout_shift,
          fully_loaded_time: r.fully_loaded_time, page_bytes: r.page_bytes, page_requests: r.page_requests,
          lighthouse_version: r.lighthouse_version, run_values: await runValuesOf(ctx.artifacts, r),
        } : { state: 'failed', error: 'The report of this page is no longer kept.' });
      } else {
        const error = p.test_state === 'error' ? p.test_error : 'The test of this page is no longer kept (tests are kept 24 hours).';
        await updateScanPage(store.db, p.id, { state: 'failed', error });
      }
    }
    if (left === 0 && (await finishScan(ctx, id))) completed += 1;
  }
  if (completed > 0) ctx.notices?.queued();
  return completed;
}
