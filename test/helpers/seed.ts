/**
 * Rows written straight into the store, for tests of tags, monitoring and the sweep that need pages and reports
 * but not a browser: a page with one valid report, as completeTest would leave it (no artifact files).
 */
import type { AnalysisOptions } from '../../src/core/options/analysis-options.js';
import { authenticate } from '../../src/core/accounts/accounts.js';
import { clock } from '../../src/core/clock.js';
import { PlanRegistry } from '../../src/core/accounts/plans.js';
import { newId } from '../../src/core/ids.js';
import { optionsFingerprint, publicOptions } from '../../src/core/options/options.js';
import { reportExpiry } from '../../src/core/reports/reports.js';
import type { Insertable } from 'kysely';
import type { Store } from '../../src/store/db.js';
import type { ReportsTable } from '../../src/store/schema.js';

export async function accountIdOf(store: Store, key: string): Promise<string> {
  const p = await authenticate(store.db, new PlanRegistry(), key);
  if (!p) throw new Error('unknown key');
  return p.accountId;
}

export interface SeedOptions {
  url?: string;
  location?: string;
  browser?: string;
  retention?: 1 | 6 | 12 | 24;
  /** Report creation time (ms); default now. */
  created?: number;
  /** Report expiry (ms); default created + retention. */
  expires?: number;
  /** The page's runs per test (absent: one). */
  runs?: number;
}

export interface Seeded {
  pageId: string;
  reportId: string;
  options: AnalysisOptions;
}

export async function seedPage(store: Store, accountId: string, o: SeedOptions = {}): Promise<Seeded> {
  const options = publicOptions({
    url: o.url ?? `http://127.0.0.1:9/${newId()}.html`,
    location: o.location ?? '1',
    browser: o.browser ?? '3',
    report: 'lighthouse',
    retention: o.retention ?? 1,
    adblock: 0,
    cookies: [],
    video: 0,
    stop_onload: 0,
    allow_url: [],
    block_url: [],
    dns: [],
    browser_rotate: 0,
    ...(o.runs && o.runs > 1 ? { runs: o.runs } : {}),
  });
  const created = o.created ?? clock.now();
  const pageId = newId();
  const reportId = newId();
  await store.db
    .insertInto('pages')
    .values({
      id: pageId,
      account_id: accountId,
      url: options.url,
      fingerprint: optionsFingerprint(options),
      options: JSON.stringify(options),
      created,
      browser: options.browser,
      location: options.location,
      monitored: 'no',
      latest_report_id: reportId,
      latest_report_time: created,
      report_count: 1,
    })
    .execute();
  await addReport(store, accountId, pageId, options, { id: reportId, created, expires: o.expires });
  return { pageId, reportId, options };
}

const METRICS = [
  'html_bytes', 'page_bytes', 'page_requests', 'redirect_duration', 'connect_duration', 'backend_duration', 'time_to_first_byte',
  'first_paint_time', 'first_contentful_paint', 'dom_interactive_time', 'dom_content_loaded_time', 'dom_content_loaded_duration',
  'onload_time', 'onload_duration', 'fully_loaded_time', 'rum_speed_index',
];

/** One more report of a page (all metrics zero). */
export async function addReport(
  store: Store,
  accountId: string,
  pageId: string,
  options: AnalysisOptions,
  o: { id?: string; created?: number; expires?: number } = {},
): Promise<string> {
  const id = o.id ?? newId();
  const created = o.created ?? clock.now();
  const zero = Object.fromEntries(METRICS.map((k) => [k, 0]));
  await store.db
    .insertInto('reports')
    .values({
      ...zero,
      id,
      account_id: accountId,
      test_id: id,
      page_id: pageId,
      url: options.url,
      source: 'api',
      report_type: options.report,
      options: JSON.stringify(options),
      created,
      expires: o.expires ?? reportExpiry(created, options.retention),
      browser: options.browser,
      location: options.location,
      user_agent: 'seed',
      resources: '[]',
      filmstrip_frames: 0,
      service_grade: null,
      service_score: null,
      performance_score: null,
      structure_score: null,
      pagespeed_score: null,
      yslow_score: null,
      runs: null,
      journey: null,
      lighthouse_version: null,
      speed_index: null,
      largest_contentful_paint: null,
      time_to_interactive: null,
      total_blocking_time: null,
      cumulative_layout_shift: null,
    } as Insertable<ReportsTable>)
    .execute();
  return id;
}
