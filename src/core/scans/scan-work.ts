/**
 * A scan's work after POST /scans: discovery (a fetch of text through the target policy: src/discovery, never a
 * page load) under a lease, so a crashed process's discovery is taken up again; then every page queued as an
 * ordinary test in one transaction with the reservation's credits, the rest given back; then each page followed
 * as its test finishes, and the site figures computed once none is left to run.
 */
import { discover } from '../../discovery/discover.js';
import type { DiscoveryResult } from '../../discovery/types.js';
import type { TargetPolicy } from '../../net/policy.js';
import { dnsOverride } from '../../net/resolve.js';
import { readStructureReport } from '../../analysis/structure/index.js';
import { COMPARED_METRICS } from '../../analysis/scan-comparison-rules.js';
import {
  siteFigures, thirdPartiesOf, type HarEntryOfPage, type PageAudit, type PageThirdParty, type SiteFigures, type SitePage,
} from '../../analysis/site-figures.js';
import type { ArtifactStore } from '../../artifacts/store.js';
import type { Db, Store } from '../../store/db.js';
import { pageIdFor } from '../../store/pages.js';
import { getValidReport } from '../../store/reports.js';
import {
  activeScanIds, allScanPages, claimDiscovery, insertScanPages, renewDiscoveryLease, scanById, unfinishedScanPages, updateScan,
  updateScanPage, type ScanPageRow, type ScanRow,
} from '../../store/scans.js';
import { insertTest } from '../../store/tests.js';
import { lockAccount } from '../../store/locks.js';
import { adjustCredits } from '../accounts/accounts.js';
import { clock } from '../clock.js';
import { readOptions, storedFingerprint } from '../options/stored-options.js';
import { ARTIFACT, artifactKey } from '../reports/reports.js';
import { newTestRow } from '../tests/tests.js';
import { candidateRuns, readRunsMeta, type RunsFile } from '../tests/runs.js';
import { readScanSettings, type ScanSettings } from './scan-request.js';
import { judgeScanAlerts, unjudged, type AlertVerdict, type ScanNotices } from './scan-alerts.js';

export interface ScanWorkContext {
  store: Store;
  artifacts: ArtifactStore;
  policy: TargetPolicy;
  extraCaCerts?: readonly string[];
  /** Wakes the agents: tests were queued. */
  wakeAgents(): void;
  /** This process, as the holder of a discovery's lease. */
  owner: string;
  /** A discovery's time limit (WEBGAUGE_SCAN_DISCOVERY_MS). */
  discoveryTimeLimitMs: number;
  log?: { warn(obj: object, msg: string): void };
  /** Told of each scan that completed (its webhooks and alert e-mail); none: nothing is queued. */
  notices?: ScanNotices;
}

/** What following the scans' pages needs. */
export type FollowContext = Pick<ScanWorkContext, 'store' | 'artifacts' | 'log' | 'notices'>;

/** How often a running discovery renews its lease and looks whether its scan was cancelled. */
const LEASE_RENEW_MS = 5_000;
const LEASE_MS = 30_000;

/**
 * Take one scan waiting for discovery and discover it; false when none was waiting. `stopping` aborts a
 * discovery in flight and frees its lease for the next process.
 */
export async function discoverNextScan(ctx: ScanWorkContext, stopping: AbortSignal): Promise<boolean> {
  const { store } = ctx;
  const now = clock.now();
  const scan = await claimDiscovery(store.db, store.engine, ctx.owner, now, now + LEASE_MS);
  if (!scan) return false;
  const settings = readScanSettings(scan.settings);
  const options = readOptions(store.box, scan.options);
  const abort = new AbortController();
  const onStop = () => abort.abort();
  stopping.addEventListener('abort', onStop);
  let found = 0;
  let lastSaid = 0;
  // The lease is renewed while discovery runs; a cancel (the scan left `discovering`) stops it.
  const renew = setInterval(() => {
    void renewDiscoveryLease(store.db, scan.id, ctx.owner, clock.now() + LEASE_MS)
      .then((held) => { if (!held) abort.abort(); })
      .catch(() => undefined);
    if (found !== lastSaid) {
      lastSaid = found;
      void updateScan(store.db, scan.id, ['discovering'], { found }, ctx.owner).catch(() => undefined);
    }
  }, LEASE_RENEW_MS);
  let result: DiscoveryResult;
  try {
    result = await discover({
      url: options.url, source: settings.source, urls: settings.urls, sitemaps: settings.sitemaps,
      include: settings.include, exclude: settings.exclude, templates: settings.templates, maxPages: settings.max_pages,
      sample: settings.sample, crawlDepth: settings.crawl_depth, respectRobots: settings.respect_robots, keepQuery: settings.keep_query,
      timeLimitMs: ctx.discoveryTimeLimitMs, policy: ctx.policy, dns: options.dns.map(dnsOverride),
      ...(options.httpauth_username ? { httpAuth: { username: options.httpauth_username, password: options.httpauth_password ?? '' } } : {}),
      ...(ctx.extraCaCerts?.length ? { extraCaCerts: ctx.extraCaCerts } : {}),
      signal: abort.signal,
      onProgress: (n: number) => { found = n; },
    });
  } finally {
    clearInterval(renew);
    stopping.removeEventListener('abort', onStop);
  }
  if (stopping.aborted) {
    // The process is stopping: the next one discovers the scan again from the start.
    await updateScan(store.db, scan.id, ['discovering'], { lease_owner: null, lease_expires: null }, ctx.owner).catch(() => undefined);
    return true;
  }
  await queueDiscovered(ctx, scan, settings, result);
  return true;
}

/** The discovery's outcome stored: the pages queued as tests, or the scan in `error`; the unused credits given back. */
async function queueDiscovered(ctx: ScanWorkContext, scan: ScanRow, settings: ScanSettings, result: DiscoveryResult): Promise<void> {
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
    if (left > 0) continue;
    const scan = await scanById(store.db, id);
    if (!scan) continue;
    const pages = await allScanPages(store.db, id);
    const figures = await figuresOf(ctx, scan, pages);
    if (scan.state === 'running') {
      if (await completeScan(ctx, scan, figures, pages)) completed += 1;
    } else if (await updateScan(store.db, id, [scan.state], { figures: JSON.stringify(figures), finished: scan.finished ?? clock.now() })) {
      completed += 1;
    }
  }
  if (completed > 0) ctx.notices?.queued();
  return completed;
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
async function figuresOf(ctx: Pick<ScanWorkContext, 'artifacts' | 'store'>, scan: ScanRow, all: readonly ScanPageRow[]) {
  const pages = all.filter((p) => p.state === 'completed');
  const audits = new Map<string, PageAudit[]>();
  const thirdParties = new Map<string, PageThirdParty[]>();
  for (const p of pages) {
    if (!p.report_id) continue;
    const structure = await readJson(ctx.artifacts, artifactKey(p.report_id, ARTIFACT.structure));
    const report = structure === undefined ? undefined : readStructureReport(structure);
    if (report) audits.set(p.id, report.audits);
    const har = await readJson(ctx.artifacts, artifactKey(p.report_id, ARTIFACT.har)) as { log?: { entries?: HarEntryOfPage[] } } | undefined;
    if (har?.log?.entries) thirdParties.set(p.id, thirdPartiesOf(har.log.entries, scan.site ?? scan.url));
  }
  const sitePages: SitePage[] = pages.map((p) => ({
    url: p.url, template: p.template, report_id: p.report_id, grade: p.grade, performance_score: p.performance_score,
    largest_contentful_paint: p.largest_contentful_paint, total_blocking_time: p.total_blocking_time,
    cumulative_layout_shift: p.cumulative_layout_shift, fully_loaded_time: p.fully_loaded_time,
  }));
  return siteFigures(sitePages, audits, thirdParties);
}

/**
 * The compared figures over the kept runs of a report whose test loaded the page more than once (its runs.json), as
 * the page's run_values: `{metric: number[]}` with a figure only when every kept run has it; null for a single run.
 */
async function runValuesOf(artifacts: ArtifactStore, r: { id: string; runs: string | null }): Promise<string | null> {
  if ((readRunsMeta(r.runs)?.count ?? 1) < 2) return null;
  const file = await readJson(artifacts, artifactKey(r.id, ARTIFACT.runs)) as Partial<RunsFile> | undefined;
  if (!Array.isArray(file?.runs)) return null;
  const kept = candidateRuns(file.runs);
  const values: Record<string, number[]> = {};
  for (const metric of COMPARED_METRICS) {
    const column = kept.map((run) => run.attributes?.[metric]);
    if (column.length > 1 && column.every((v): v is number => typeof v === 'number' && Number.isFinite(v))) values[metric] = column;
  }
  return Object.keys(values).length ? JSON.stringify(values) : null;
}

async function readJson(artifacts: ArtifactStore, key: string): Promise<unknown> {
  const buf = await artifacts.get(key).catch(() => null);
  if (!buf) return undefined;
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return undefined;
  }
}
