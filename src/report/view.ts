/**
 * What the report page shows, read from a report's row and files. The web page links its pictures and video
 * (served next to it, under the report's unguessable URL); the PDF gets them inline as data URIs, downscaled,
 * since Chromium prints it without network.
 */
import sharp from 'sharp';
import { readStructureReport, structureReport, type StructureReport } from '../analysis/grade.js';
import { anyObject, objectWithArray, readJsonArtifact, type ArtifactStore } from '../artifacts/store.js';
import type { AnalysisOptions } from '../core/options/analysis-options.js';
import { readOptions } from '../core/options/stored-options.js';
import type { SecretBox } from '../store/secret-box.js';
import { ARTIFACT, artifactKey, hasStructureAudits, reportResources, type FilmstripIndex, type ReportRow } from '../core/reports/reports.js';
import type { ResourceSummary } from '../analysis/resource-summary.js';
import type { WaterfallEntry } from './waterfall.js';
import { readJourneySummary, type JourneySummary } from '../core/reports/journey-summary.js';
import type { FilmStep } from './journey.js';

export type ReportMode = 'web' | 'pdf' | 'pdf-full';

export interface ReportData {
  report: ReportRow;
  options: AnalysisOptions;
  mode: ReportMode;
  entries: WaterfallEntry[];
  structure?: StructureReport;
  summary?: ResourceSummary;
  filmstrip: { timestamp: number; src: string }[];
  screenshot?: string;
  video?: string;
  /** The report's public page (for the PDF's "see online" note). */
  pageUrl?: string;
  /** Lighthouse's own HTML report of the load, next to the web page (report/lighthouse-html.ts). */
  lighthouseReport?: string;
  /** A journey's steps and figures (the report row's `journey`). */
  journey?: JourneySummary;
  /** Lighthouse's flow report of a journey, next to the web page. */
  flowReport?: string;
  /** A journey's steps on the film (filmstrip.json's marks). */
  filmSteps?: FilmStep[];
}

/** A JSON file of the report; a missing or damaged one is left out of the page (it shows what it can). */
async function json<T>(artifacts: ArtifactStore, report: ReportRow, name: string, isShape: (v: unknown) => v is T = anyObject): Promise<T | undefined> {
  if (!reportResources(report).has(name)) return undefined;
  const stored = await readJsonArtifact(artifacts, artifactKey(report.id, name), isShape);
  return stored.state === 'ok' ? stored.value : undefined;
}

/**
 * The structure audits a report was scored with, as structure.json keeps them (in today's shape, whenever it was
 * written); for reports made before structure.json was kept, the same audits read again from the Lighthouse result,
 * with the audit set of the Lighthouse that made it.
 */
export async function storedStructure(artifacts: ArtifactStore, report: ReportRow): Promise<StructureReport | undefined> {
  const stored = readStructureReport(await json(artifacts, report, ARTIFACT.structure));
  // structure.json of Lighthouse 12 did not say which Lighthouse it read; the report row does.
  if (stored) return stored.lighthouse_version || !report.lighthouse_version ? stored : { ...stored, lighthouse_version: report.lighthouse_version };
  if (!hasStructureAudits(report)) return undefined;
  const lhr = await json<{ audits?: Parameters<typeof structureReport>[0]; lighthouseVersion?: unknown }>(artifacts, report, ARTIFACT.lighthouse);
  if (!lhr) return undefined;
  return structureReport(lhr.audits, undefined, undefined, typeof lhr.lighthouseVersion === 'string' ? lhr.lighthouseVersion : undefined);
}

/** Frames for print: at most `max`, spread evenly from the first to the last. */
function pickFrames<T>(frames: readonly T[], max: number): T[] {
  if (frames.length <= max) return [...frames];
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(frames[Math.round((i * (frames.length - 1)) / (max - 1))]!);
  return [...new Set(out)];
}

/** A journey's frames for print: up to `max`, shared among its steps (at least 2 each), so every step keeps its own. */
function pickJourneyFrames<T extends { timestamp: number }>(frames: readonly T[], marks: readonly FilmStep[], max: number): T[] {
  const starts = marks.map((m) => m.start).sort((a, b) => a - b);
  const per = Math.max(2, Math.floor(max / Math.max(1, starts.length)));
  return starts.flatMap((start, i) => pickFrames(frames.filter((f) => (i === 0 || f.timestamp >= start) &&
    (i === starts.length - 1 || f.timestamp < starts[i + 1]!)), per));
}

/** The requests the waterfall shows: a journey's measured step's (its page in net.har, in step order), else all. */
function waterfallEntries(har: { log?: { pages?: { id?: string }[]; entries?: (WaterfallEntry & { pageref?: string })[] } } | undefined,
  journey: JourneySummary | undefined): WaterfallEntry[] {
  const entries = Array.isArray(har?.log?.entries) ? har.log.entries : [];
  if (!journey) return entries;
  const page = har?.log?.pages?.[journey.steps.findIndex((s) => s.measured)]?.id;
  return page === undefined ? entries : entries.filter((e) => e.pageref === page);
}

async function dataUri(jpeg: Buffer, width: number, maxHeight?: number): Promise<string> {
  let img = sharp(jpeg, { failOn: 'none' });
  if (maxHeight) {
    const meta = await img.metadata();
    const scale = width / (meta.width ?? width);
    const cropHeight = Math.min(meta.height ?? maxHeight, Math.round(maxHeight / Math.min(1, scale)));
    img = img.extract({ left: 0, top: 0, width: meta.width ?? width, height: cropHeight });
  }
  const out = await img.resize({ width, withoutEnlargement: true }).jpeg({ quality: 78, mozjpeg: true }).toBuffer();
  return `data:image/jpeg;base64,${out.toString('base64')}`;
}

/**
 * @param base the public page's own URL (`/reports/{id}` or absolute), under which the web page's pictures are
 */
/** @param box the store's SecretBox: the report's options are stored with their secrets sealed */
export async function loadReportData(artifacts: ArtifactStore, box: SecretBox, report: ReportRow, mode: ReportMode,
  base: string):
  Promise<ReportData> {
  const have = reportResources(report);
  const options = readOptions(box, report.options);
  const journey = readJourneySummary(report.journey);
  const har = await json<Parameters<typeof waterfallEntries>[0] & object>(artifacts, report, ARTIFACT.har);
  const entries = waterfallEntries(har, journey);
  const structure = await storedStructure(artifacts, report);
  const summary = await json(artifacts, report, ARTIFACT.resourceSummary, objectWithArray<ResourceSummary>('content_types'));
  const index = await json(artifacts, report, ARTIFACT.filmstrip, objectWithArray<FilmstripIndex>('frames'));
  const frames = index?.frames ?? [];
  const filmSteps = journey && Array.isArray(index?.steps) && index.steps.length > 0 ? index.steps : undefined;
  const data: ReportData = { report, options, mode, entries, structure, summary, filmstrip: [], pageUrl: base, journey, filmSteps,
    lighthouseReport: mode === 'web' && have.has(ARTIFACT.lighthouse) ? `${base}/lighthouse.html` : undefined,
    flowReport: mode === 'web' && have.has(ARTIFACT.flow) ? `${base}/flow.html` : undefined };

  if (mode === 'web') {
    data.filmstrip = frames.map((f) => ({ timestamp: f.timestamp, src: `${base}/filmstrip/${f.id}.jpg` }));
    if (have.has(ARTIFACT.screenshot)) data.screenshot = `${base}/screenshot.jpg`;
    if (have.has(ARTIFACT.video)) data.video = `${base}/video.mp4`;
    return data;
  }
  const max = mode === 'pdf-full' ? 16 : 8;
  const picked = filmSteps ? pickJourneyFrames(frames, filmSteps, max) : pickFrames(frames, max);
  data.filmstrip = (await Promise.all(picked.map(async (f) => {
    const jpeg = await artifacts.get(artifactKey(report.id, ARTIFACT.frame(Number(f.id))));
    return jpeg ? { timestamp: f.timestamp, src: await dataUri(jpeg, 240) } : undefined;
  }))).filter((f): f is { timestamp: number; src: string } => f !== undefined);
  const shot = have.has(ARTIFACT.screenshot) ? await artifacts.get(artifactKey(report.id, ARTIFACT.screenshot)) : null;
  if (shot) data.screenshot = await dataUri(shot, 900, mode === 'pdf-full' ? 6000 : 1400);
  return data;
}
