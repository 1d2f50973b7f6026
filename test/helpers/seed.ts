/**
 * Rows written straight into the store, for tests of tags, monitoring and the sweep that need pages and reports
 * but not a browser: a page with one valid report, as completeTest would leave it (no artifact files); a scan with
 * its pages (and, finished, its site figures), as the scans' work would leave it.
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
import { siteFigures, type PageAudit, type PageThirdParty, type SitePage } from '../../src/analysis/site-figures.js';
import { scanOptions, scanRow, scanSettings } from './scans.js';

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

/** A page of a seeded scan: its figures (as its report gave them), or the state it is in. */
export interface ScanPageSeed {
  url: string;
  template: string;
  /** completed (default): a page with its report; failed: `error`; started: its test loading (held, never finishing). */
  state?: 'completed' | 'failed' | 'started';
  error?: string;
  grade?: string | null;
  performance_score?: number | null;
  structure_score?: number | null;
  largest_contentful_paint?: number | null;
  total_blocking_time?: number | null;
  cumulative_layout_shift?: number | null;
  fully_loaded_time?: number | null;
  /** The page's structure audits and third parties, which the site figures add up. */
  audits?: PageAudit[];
  thirdParties?: PageThirdParty[];
}

export interface SeededScan {
  scanId: string;
  /** In position order: each page's test ID (the scan page's ID) and its report, when it has one. */
  pages: { id: string; url: string; reportId: string | null }[];
}

const scanFigureColumns = (p: ScanPageSeed) => ({
  grade: p.grade ?? null, performance_score: p.performance_score ?? null, structure_score: p.structure_score ?? null,
  largest_contentful_paint: p.largest_contentful_paint ?? null, total_blocking_time: p.total_blocking_time ?? null,
  cumulative_layout_shift: p.cumulative_layout_shift ?? null, fully_loaded_time: p.fully_loaded_time ?? null,
  page_bytes: 250_000, page_requests: 20,
});

/**
 * A scan written straight into the store, as completion.ts would leave it: `completed` with its site figures (computed
 * by analysis/site-figures.ts from the pages given), or `running` with its `started` pages held by a test whose lease
 * lasts an hour (no agent claims it, the scans' follower leaves it loading). Completed pages get a page and a report.
 */
export async function seedScan(store: Store, accountId: string, o: {
  url: string; state: 'completed' | 'running'; pages: ScanPageSeed[]; source?: 'sitemap' | 'crawl' | 'list';
  found?: number; skipped?: Record<string, number>; errors?: string[]; created?: number;
  /** Each page's test's throttle (default none). */
  throttle?: string;
}): Promise<SeededScan> {
  const created = o.created ?? clock.now();
  const scanId = newId();
  const pages: SeededScan['pages'] = [];
  const sitePages: SitePage[] = [];
  const audits = new Map<string, PageAudit[]>();
  const thirdParties = new Map<string, PageThirdParty[]>();
  for (const [position, p] of o.pages.entries()) {
    const state = p.state ?? 'completed';
    const id = newId();
    const reportId = state === 'completed' ? await reportOfPage(store, accountId, p.url, created) : null;
    if (state === 'started') await insertHeldTest(store, accountId, id, p.url, scanId, position, created);
    await store.db.insertInto('scan_pages').values({
      id, scan_id: scanId, position, account_id: accountId, url: p.url, template: p.template, state,
      error: state === 'failed' ? (p.error ?? 'The test failed.') : null, report_id: reportId,
      ...(state === 'completed' ? scanFigureColumns(p) : { ...scanFigureColumns({ url: p.url, template: p.template }), page_bytes: null, page_requests: null }),
    }).execute();
    pages.push({ id, url: p.url, reportId });
    if (state !== 'completed') continue;
    sitePages.push({ url: p.url, template: p.template, report_id: reportId, grade: p.grade ?? null, performance_score: p.performance_score ?? null,
      largest_contentful_paint: p.largest_contentful_paint ?? null, total_blocking_time: p.total_blocking_time ?? null,
      cumulative_layout_shift: p.cumulative_layout_shift ?? null, fully_loaded_time: p.fully_loaded_time ?? null });
    if (p.audits) audits.set(id, p.audits);
    if (p.thirdParties) thirdParties.set(id, p.thirdParties);
  }
  const source = o.source ?? 'sitemap';
  const options = scanOptions(o.url, o.throttle ? { throttle: o.throttle } : {});
  const settings = scanSettings({ source, urls: source === 'list' ? o.pages.map((p) => p.url) : [], max_pages: Math.max(1, o.pages.length), sample: 5 });
  await store.db.insertInto('scans').values(scanRow({
    id: scanId, account_id: accountId, url: o.url, source, state: o.state, options: JSON.stringify(options), settings: JSON.stringify(settings),
    created, finished: o.state === 'completed' ? created + 60_000 : null, expires: reportExpiry(created, 1), found: o.found ?? o.pages.length,
    skipped: JSON.stringify(o.skipped ?? {}), discovery_errors: JSON.stringify(o.errors ?? []),
    figures: o.state === 'completed' ? JSON.stringify(siteFigures(sitePages, audits, thirdParties)) : null,
  })).execute();
  return { scanId, pages };
}

/** A new report of the page of `url` (made first when the account has none: another scan of the site may have). */
async function reportOfPage(store: Store, accountId: string, url: string, created?: number): Promise<string> {
  const page = await store.db.selectFrom('pages').select(['id', 'options']).where('account_id', '=', accountId).where('url', '=', url).executeTakeFirst();
  if (!page) return (await seedPage(store, accountId, { url, created })).reportId;
  const id = await addReport(store, accountId, page.id, JSON.parse(page.options) as AnalysisOptions, { created });
  await store.db.updateTable('pages').set((eb) => ({ report_count: eb('report_count', '+', 1), latest_report_id: id, latest_report_time: created ?? clock.now() }))
    .where('id', '=', page.id).execute();
  return id;
}

/** A scan's test loading now, held by no agent for an hour. */
async function insertHeldTest(store: Store, accountId: string, id: string, url: string, scanId: string, position: number, created: number) {
  const options = scanOptions(url);
  await store.db.insertInto('tests').values({
    id, account_id: accountId, url, options: JSON.stringify(options), fingerprint: optionsFingerprint(options), source: 'scan', state: 'started',
    error: null, browser: '3', location: '1', created, queued_at: created, started: created, finished: null, lease_owner: 'seeded-scan',
    lease_expires: created + 3_600_000, attempts: 1, credits_tenths: 10, report_id: null, page_id: null, events_pending: null,
    scan_id: scanId, scan_position: position,
  }).execute();
}

/** A seeded running scan's loading page completes with these figures (its test, its report and its scan page, as the follower would). */
export async function completeSeededScanPage(store: Store, accountId: string, page: { id: string; url: string }, figures: ScanPageSeed): Promise<string> {
  const reportId = await reportOfPage(store, accountId, page.url);
  await store.db.updateTable('tests').set({ state: 'completed', finished: clock.now(), report_id: reportId, lease_owner: null, lease_expires: null })
    .where('id', '=', page.id).execute();
  await store.db.updateTable('scan_pages').set({ state: 'completed', report_id: reportId, ...scanFigureColumns(figures) }).where('id', '=', page.id).execute();
  return reportId;
}
