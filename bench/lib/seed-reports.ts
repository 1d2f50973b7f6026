/**
 * Pages and reports written straight into the store for the read benches, shaped as completeTest leaves them.
 * Deterministic (seeded), so both engines and every run get the same data.
 */
import { sql } from 'kysely';
import { grade } from '../../src/analysis/grade.js';
import { clock } from '../../src/core/clock.js';
import { newId } from '../../src/core/ids.js';
import { reportExpiry, type ReportRow } from '../../src/core/reports/reports.js';
import type { Store } from '../../src/store/db.js';
import type { PagesTable } from '../../src/store/schema.js';

const BATCH = 500;
const DAY = 86_400_000;

/** Deterministic pseudo-random numbers in [0, 1). */
export function rng(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
}

export const pageUrl = (i: number): string => `https://shop${i % 50}.example.com/catalog/item-${i}.html`;

export interface Seeded {
  reportIds: string[];
  pageIds: string[];
}

/**
 * `reports` reports spread over `pages` pages of one account, created over the last 25 days. Inserted in
 * batches inside one transaction per 100,000 rows, then `analyze`d (fresh statistics, as a long-running database
 * has them). `progress` is told after every committed chunk.
 */
export async function seedReports(store: Store, accountId: string, reports: number, pages: number,
  progress: (done: number) => void = () => undefined): Promise<Seeded> {
  const rand = rng(42);
  const now = clock.now();
  const options = JSON.stringify({ location: '1', browser: '3', report: 'lighthouse', retention: 1 });
  const pageRows: PagesTable[] = Array.from({ length: pages }, (_, i) => ({
    id: newId(), account_id: accountId, url: pageUrl(i), fingerprint: `fp${i}`, options, created: now, browser: '3',
    location: '1', monitored: 'no', latest_report_id: null, latest_report_time: null, report_count: 0,
    monitor_next_run: null, monitor_anchor: null, monitor_skipped_at: null, monitor_skip_reason: null,
  }));
  const reportIds: string[] = [];
  const CHUNK = 100_000;
  for (let start = 0; start < reports; start += CHUNK) {
    const rows: ReportRow[] = [];
    for (let n = start; n < Math.min(reports, start + CHUNK); n++) {
      const page = pageRows[n % pages];
      const created = now - Math.floor(rand() * 25 * DAY);
      const perf = Math.floor(rand() * 101);
      const structure = Math.floor(rand() * 101);
      const g = grade(perf, structure);
      const id = newId();
      reportIds.push(id);
      rows.push({
        id, account_id: accountId, test_id: id, page_id: page.id, url: page.url, source: 'api', report_type: 'lighthouse',
        options, created, expires: reportExpiry(created, 1), browser: '3', location: '1', user_agent: 'Mozilla/5.0 bench',
        resources: '["net.har","screenshot.jpg","lighthouse.json"]', filmstrip_frames: 0, service_grade: g.grade,
        service_score: g.score, performance_score: perf, structure_score: structure, pagespeed_score: null, yslow_score: null, runs: null, journey: null, lighthouse_version: '13.5.0', device_cpu: null,
        html_bytes: 20_000, page_bytes: 900_000 + n, page_requests: 60, redirect_duration: 0, connect_duration: 30,
        backend_duration: 120, time_to_first_byte: 150, first_paint_time: 600, first_contentful_paint: 600,
        dom_interactive_time: 900, dom_content_loaded_time: 950, dom_content_loaded_duration: 5, onload_time: 1800,
        onload_duration: 3, fully_loaded_time: 2500, rum_speed_index: 800, speed_index: 900, largest_contentful_paint: 1200,
        time_to_interactive: 2000, total_blocking_time: 100, cumulative_layout_shift: 0.05,
      });
      if (created > (page.latest_report_time ?? 0)) {
        page.latest_report_time = created;
        page.latest_report_id = id;
      }
      page.created = Math.min(page.created, created);
      page.report_count++;
    }
    await store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += BATCH) await trx.insertInto('reports').values(rows.slice(i, i + BATCH)).execute();
    });
    progress(start + rows.length);
  }
  // Pages last: their latest report and counts are known only now (reports.page_id has no foreign key to wait for).
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < pageRows.length; i += BATCH) await trx.insertInto('pages').values(pageRows.slice(i, i + BATCH)).execute();
  });
  await sql`analyze`.execute(store.db);
  return { reportIds, pageIds: pageRows.map((p) => p.id) };
}
