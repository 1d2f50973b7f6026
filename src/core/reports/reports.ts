import type { ArtifactStore } from '../../artifacts/store.js';
import type { Store } from '../../store/db.js';
import type { RunResult } from '../../runner/types.js';
import { bodyStoreFromMap, emptyDomFacts, type PageFacts } from '../../analysis/facts.js';
import type { HarLike } from '../../analysis/har.js';
import { buildPagespeedFiles, legacyAnalysis } from '../../analysis/legacy/index.js';
import { resourceSummary, type SummaryEntry } from '../../analysis/resource-summary.js';
import type { AnalysisOptions } from '../options/analysis-options.js';
import type { Db } from '../../store/db.js';
import { clock } from '../clock.js';
import { newId } from '../ids.js';
import { secretScrubber, testSecrets } from '../options/secrets.js';
import { readOptions } from '../options/stored-options.js';
import type { TestRow } from '../tests/tests.js';
import { ApiError } from '../errors.js';
import { loadFigures, reportHar } from './report-figures.js';
import { journeySummary } from './journey-summary.js';
import { storedDeviceCpu } from './device-cpu.js';
import { runsMeta, type RunsFile } from '../tests/runs.js';
import { findTest, markTestCompleted, setTestPage } from '../../store/tests.js';
import { deletePageRow, setPageStats, upsertPage } from '../../store/pages.js';
import {
  deleteReports, getValidReport, insertReport, pageReportStats, resourceNames, validReportsByIds, type ReportRow, type ReportWithTags,
} from '../../store/reports.js';
import { assertOwnerRole } from '../accounts/roles.js';
import type { Principal } from '../accounts/accounts.js';
import { hasLighthouse } from '../vocabulary/report-types.js';
import { keepsFilmWithoutLighthouse } from '../catalog/catalog.js';

export type { ReportRow, ReportWithTags };

/** Artifact names as stored; the API maps resource names onto them. */
export const ARTIFACT = {
  lighthouse: 'lighthouse.json',
  har: 'net.har',
  screenshot: 'screenshot.jpg',
  filmstrip: 'filmstrip.json',
  frame: (i: number) => `filmstrip/${i}.jpg`,
  video: 'video.mp4',
  /** The structure audits behind structure_score (analysis/structure), as the report page lists them. */
  structure: 'structure.json',
  resourceSummary: 'resource-summary.json',
  /** The page's images as received, for optimized-images.tar (core/reports/images.ts); removed 24 h after the report. */
  imageIndex: 'images/index.json',
  image: (i: number) => `images/${i}`,
  /** Generated on request and kept (core/reports/pdf.ts, core/reports/images.ts). */
  pdf: (full: boolean) => (full ? 'report-full.pdf' : 'report.pdf'),
  optimizedImages: (format: string | undefined) => `optimized-images${format ? `-${format}` : ''}.tar`,
  /** report=legacy (analysis/legacy): the PageSpeed and YSlow JSON, and the optimised files (kept 24 h). */
  pagespeed: 'pagespeed.json',
  yslow: 'yslow.json',
  pagespeedFiles: 'pagespeed-files.tar',
  /** Every load of a multi-run test (core/tests/runs.ts), the median run marked. */
  runs: 'runs.json',
  /** A journey's Lighthouse FlowResult: every measured step's full result (flow.html is rendered from it on request). */
  flow: 'flow.json',
} as const;

export const artifactKey = (reportId: string, name: string): string => `${reportId}/${name}`;

export interface FilmstripIndex {
  frames: { id: string; timestamp: number }[];
  /** A journey's steps on the film's time axis (ms since its first navigation started). */
  steps?: { index: number; name: string; mode: string; start: number; end: number }[];
}

export interface ImageIndex {
  images: { id: string; url: string; mimeType: string; bytes: number }[];
}

export function reportExpiry(createdMs: number, retentionMonths: number): number {
  const d = new Date(createdMs);
  d.setUTCMonth(d.getUTCMonth() + retentionMonths);
  return d.getTime();
}

/**
 * Turn a finished run into a report: files first (under the report's own folder), then one transaction that
 * re-checks the agent still holds the test, creates the report, finds or creates its page and completes the test.
 * Returns false (and leaves nothing behind) when the agent had lost the test.
 */
export async function completeTest(
  store: Store, artifacts: ArtifactStore, testId: string, agentId: string, result: RunResult,
  /** Every load of a test that loaded the page more than once (the report is the median run, `result`). */
  runs?: RunsFile,
): Promise<boolean> {
  const test = await findTest(store.db, testId);
  if (!test || test.state !== 'started' || test.lease_owner !== agentId) return false;
  const options = readOptions(store.box, test.options);
  const withLighthouse = hasLighthouse(options.report);
  const withLegacy = options.report.includes('legacy');
  // The report step's requests (a journey's net.har holds every step's, a HAR page each).
  const reportRequests = reportHar(result);
  const har: HarLike = reportRequests;
  const reportId = test.id; // COMPAT: the report ID equals the ID of its test.
  const scrub = secretScrubber(testSecrets(options));

  // report=legacy: PageSpeed and YSlow from the HAR, the DOM facts and the bodies; computed before any file is
  // written, so a failure here leaves nothing behind.
  let legacy: { analysis: Awaited<ReturnType<typeof legacyAnalysis>>; tar: Buffer } | undefined;
  if (withLegacy) {
    const facts: PageFacts = result.facts ?? { url: test.url, finalUrl: result.finalUrl, dom: emptyDomFacts() };
    const bodies = bodyStoreFromMap(result.bodies ?? new Map<string, Buffer>());
    const analysis = await legacyAnalysis(har, facts, bodies);
    legacy = { analysis, tar: await buildPagespeedFiles(har, bodies, { analysed: analysis.bodies, scrub: scrub.text }) };
  }

  // Every file goes through the test's secret scrubber on its way to the store; the analyses ran on the load as
  // captured (bodies are found by their real URLs), so what they derive is scrubbed with it.
  const files = new Map<string, Buffer | string>();
  const putJson = (name: string, value: unknown): void => void files.set(name, JSON.stringify(scrub.json(value)));
  const putFile = (name: string, data: Buffer): void => void files.set(name, data);
  const resources: string[] = [ARTIFACT.har, ARTIFACT.screenshot];
  putJson(ARTIFACT.har, result.har);
  putFile(ARTIFACT.screenshot, result.screenshot);
  let frames = 0;
  const figures = loadFigures(result, options);
  if (figures.structure) {
    resources.push(ARTIFACT.structure, ARTIFACT.lighthouse);
    putJson(ARTIFACT.structure, figures.structure);
    putJson(ARTIFACT.lighthouse, result.lighthouse);
  }
  if (runs) {
    resources.push(ARTIFACT.runs);
    putJson(ARTIFACT.runs, runs);
  }
  if (legacy) {
    resources.push(ARTIFACT.pagespeed, ARTIFACT.yslow, ARTIFACT.pagespeedFiles);
    putJson(ARTIFACT.pagespeed, legacy.analysis.pagespeed.json);
    putJson(ARTIFACT.yslow, legacy.analysis.yslow.json);
    putFile(ARTIFACT.pagespeedFiles, legacy.tar);
  }
  if (result.video) {
    resources.push(ARTIFACT.video);
    putFile(ARTIFACT.video, result.video);
  }
  resources.push(ARTIFACT.resourceSummary);
  const entries: SummaryEntry[] = reportRequests.log.entries;
  putJson(ARTIFACT.resourceSummary, resourceSummary(entries));
  if (result.journey) {
    resources.push(ARTIFACT.flow);
    putJson(ARTIFACT.flow, result.journey.flow);
  }
  if (withLighthouse && result.images) {
    const index: ImageIndex = { images: [] };
    result.images.forEach((img, i) => {
      index.images.push({ id: String(i), url: img.url, mimeType: img.mimeType, bytes: img.body.length });
      putFile(ARTIFACT.image(i), img.body);
    });
    resources.push(ARTIFACT.imageIndex);
    putJson(ARTIFACT.imageIndex, index);
  }
  if ((withLighthouse || keepsFilmWithoutLighthouse(test.browser)) && result.filmstrip.length > 0) {
    const index: FilmstripIndex = { frames: [] };
    if (result.journey) {
      index.steps = result.journey.steps.map((st) => ({ index: st.index, name: st.name, mode: st.mode, start: st.start,
        end: st.start + st.duration }));
    }
    result.filmstrip.forEach((f, i) => {
      index.frames.push({ id: String(i), timestamp: Math.round(f.timestamp) });
      putFile(ARTIFACT.frame(i), f.jpeg);
    });
    frames = result.filmstrip.length;
    resources.push(ARTIFACT.filmstrip);
    putJson(ARTIFACT.filmstrip, index);
  }
  // The report's folder is written at once: whole or not at all.
  await artifacts.putFolder(reportId, files);

  const graded = figures.grade;
  const now = clock.now();

  let ok = false;
  try {
    ok = await store.db.transaction().execute(async (trx) => {
      if (!(await markTestCompleted(trx, testId, agentId, reportId, now))) return false;
      const pageId = await findOrCreatePage(trx, test, options, now);
      await insertReport(trx, {
        id: reportId,
        account_id: test.account_id,
        test_id: test.id,
        page_id: pageId,
        url: test.url,
        source: test.source,
        report_type: options.report,
        options: test.options,
        created: now,
        expires: reportExpiry(now, options.retention),
        browser: test.browser,
        location: test.location,
        user_agent: result.userAgent,
        resources: JSON.stringify(resources),
        filmstrip_frames: frames,
        service_grade: graded?.grade ?? null,
        service_score: graded?.score ?? null,
        performance_score: figures.performanceScore,
        structure_score: figures.structureScore,
        pagespeed_score: legacy?.analysis.pagespeed.score ?? null,
        yslow_score: legacy?.analysis.yslow.score ?? null,
        runs: runs ? JSON.stringify(runsMeta(runs)) : null,
        journey: result.journey ? JSON.stringify(scrub.json(journeySummary(result.journey))) : null,
        lighthouse_version: figures.lighthouseVersion,
        device_cpu: storedDeviceCpu(result),
        ...figures.columns,
      });
      await setTestPage(trx, testId, pageId);
      await refreshPage(trx, pageId);
      return true;
    });
  } finally {
    // Files without their report row are of no use to anyone: a lost lease or a failed transaction removes them
    // (unless the same result, uploaded twice by a remote agent, landed with the other upload: core/tests/agent-work.ts).
    if (!ok && (await findTest(store.db, testId))?.state !== 'completed') await artifacts.removePrefix(reportId);
  }
  return ok;
}

function findOrCreatePage(trx: Db, test: TestRow, options: AnalysisOptions, now: number): Promise<string> {
  return upsertPage(trx, {
    id: newId(),
    account_id: test.account_id,
    url: test.url,
    fingerprint: test.fingerprint,
    options: test.options,
    created: now,
    browser: options.browser,
    location: options.location,
    monitored: 'no',
    latest_report_id: null,
    latest_report_time: null,
    report_count: 0,
  });
}

/**
 * Recompute a page's report count and latest report from its valid reports; a page left with none is deleted.
 * Returns false when the page was deleted.
 */
export async function refreshPage(trx: Db, pageId: string): Promise<boolean> {
  const { count, latest } = await pageReportStats(trx, pageId, clock.now());
  if (count === 0 || !latest) {
    await deletePageRow(trx, pageId);
    return false;
  }
  await setPageStats(trx, pageId, { report_count: count, latest_report_id: latest.id, latest_report_time: latest.created });
  return true;
}

/** A valid (not expired) report of this account. */
export async function getReport(db: Db, accountId: string, id: string): Promise<ReportWithTags | undefined> {
  return getValidReport(db, id, clock.now(), accountId);
}

/** The account's valid report, or 404 (E40401; the retest routes answer E40402, as the spec assigns). */
export async function requireReport(db: Db, accountId: string, id: string, code: 'E40401' | 'E40402' = 'E40401'): Promise<ReportWithTags> {
  const report = await getReport(db, accountId, id);
  if (!report) throw reportNotFound(id, code);
  return report;
}

export function reportNotFound(id: string, code: 'E40401' | 'E40402' = 'E40401'): ApiError {
  return new ApiError(code, `No report with ID ${id} in this account (it may have expired or been deleted).`);
}

/** Valid reports of this account by ID, in one query, keyed by ID (the latest reports of a page list). */
export async function reportsByIds(db: Db, accountId: string, ids: string[]): Promise<Map<string, ReportRow>> {
  return new Map((await validReportsByIds(db, accountId, ids, clock.now())).map((r) => [r.id, r]));
}

/** A valid report by ID alone: for the public report page, whose unguessable URL is the credential. */
export async function getReportById(db: Db, id: string): Promise<ReportWithTags | undefined> {
  return getValidReport(db, id, clock.now());
}

/** Deletes a report and its files; only the Owner role may. */
export async function deleteReport(store: Store, artifacts: ArtifactStore, principal: Pick<Principal, 'role'>, report: ReportRow): Promise<void> {
  assertOwnerRole(principal, 'delete reports');
  await store.db.transaction().execute(async (trx) => {
    await deleteReports(trx, [report.id]);
    await refreshPage(trx, report.page_id);
  });
  await artifacts.removePrefix(report.id);
}

export function reportResources(report: ReportRow): Set<string> {
  return new Set(resourceNames(report));
}

/**
 * Whether the report has structure audits to show (structure.json): kept since they were, or for the oldest
 * Lighthouse reports, readable again from their Lighthouse result.
 */
export function hasStructureAudits(report: ReportRow): boolean {
  const have = reportResources(report);
  return have.has(ARTIFACT.structure) || (report.structure_score !== null && have.has(ARTIFACT.lighthouse));
}

/** optimized-images.tar (and its sources) are kept for 24 hours after the report was created (spec 8). */
export const OPTIMIZED_IMAGES_TTL_MS = 24 * 3600 * 1000;

/** Whether pagespeed-files.tar applies to this report (a legacy report) and is still within its 24 hours. */
export function pagespeedFilesState(report: ReportRow, now: number): 'available' | 'not-applicable' | 'expired' {
  if (!reportResources(report).has(ARTIFACT.pagespeedFiles)) return 'not-applicable';
  return now < report.created + OPTIMIZED_IMAGES_TTL_MS ? 'available' : 'expired';
}

/** Whether the optimized-images archive applies to this report and is still within its 24 hours. */
export function optimizedImagesState(report: ReportRow, now: number): 'available' | 'not-applicable' | 'expired' {
  if (!reportResources(report).has(ARTIFACT.imageIndex)) return 'not-applicable';
  return now < report.created + OPTIMIZED_IMAGES_TTL_MS ? 'available' : 'expired';
}
