/**
 * What the load produces, once Lighthouse gathered its steps: Lighthouse's audits, computed while the page is read
 * (the page as the load left it, and its screenshot), the HAR with the guard's addresses, the image and body captures,
 * the video, the metrics and the warnings, all of the same load. The report's figures are those of its step (the
 * plain test's one navigation; a journey's measured step); a journey also gives every step's own and the flow.
 */
import type { DevtoolsLog, Result } from 'lighthouse';
import { RunError, type CapturedImage, type HostMeasurement, type RunResult } from '../types.js';
import { lighthouseMetrics, lighthousePhases, observedNavigationStart } from '../lighthouse.js';
import { httpStatusMessage, lighthouseRuntimeFailure } from '../failures.js';
import { filmOfLoad } from '../capture/filmstrip.js';
import { paintsAsShown } from '../capture/timings.js';
import { screenFromFilm, takeScreenshot } from '../capture/screenshot.js';
import { applyGuardConnections, authChallengeMs, buildHar, harFigures, keepEntries, type Har } from '../capture/har.js';
import { findMainDocument, navigationStartOf, requestsStartedBy, type MainDocument } from '../capture/network.js';
import { collectImages } from '../capture/images.js';
import { collectBodies } from '../capture/bodies.js';
import { otherCpuCores } from '../host-load.js';
import { harPageId, journeyHar, timespanFigures, type JourneyResult, type JourneyStepResult } from '../journey/result.js';
import type { LoadContext, LoadedPage } from './context.js';
import { filmOrigin, lighthouseFailureOf, restoreScreen, type GatheredStep } from './navigate.js';
import { loadEnd, runMetrics, runWarnings } from './figures.js';
import type { RunMetrics } from '../metrics.js';
import { feedsLighthouse } from '../conditions/types.js';

/** A gathered step with its audits and HAR. */
interface CollectedStep {
  gathered: GatheredStep;
  lhr: Result;
  har: Har;
  /** Navigations: the main document, the page read at the load's end, and where the load ended. */
  navigation?: { mainDoc: MainDocument | undefined; page: LoadedPage; end: { at: number; endMs: number } };
}

export async function collect(ctx: LoadContext, steps: GatheredStep[]): Promise<RunResult> {
  const { spec: { options }, timer } = ctx;
  const reported = steps[ctx.steps.reportStep]!;
  const mainDoc = findMainDocument(reported.devtoolsLog, ctx.mainFrameId);
  if (mainDoc?.status !== undefined && mainDoc.status >= 400) {
    throw new RunError(httpStatusMessage(mainDoc.status, mainDoc.statusText));
  }
  const { lhrs, screenshot } = await auditBesidePage(ctx, steps);
  timer.end('audits_and_page');

  const stopOnload = options.stop_onload === 1;
  const rawFrames = await (ctx.frames ?? Promise.resolve([]));
  const frameTimes = rawFrames.map((f) => f.wallMs);
  const collected: CollectedStep[] = [];
  for (const [n, gathered] of steps.entries()) {
    const lhr = lhrs[n]!;
    if (gathered.measured.mode === 'timespan') {
      collected.push({ gathered, lhr, har: buildHar(gathered.devtoolsLog, ctx.mainFrameId) });
      continue;
    }
    const loaded = await gathered.loaded!;
    const page = { ...loaded, timings: paintsAsShown(loaded.timings, frameTimes) };
    const doc = n === ctx.steps.reportStep ? mainDoc : findMainDocument(gathered.devtoolsLog, ctx.mainFrameId);
    const navStart = observedNavigationStart(lhr) ?? (doc ? navigationStartOf(doc, page.timings.timeOrigin) : 0);
    const end = loadEnd({ devtoolsLog: gathered.devtoolsLog, navStart,
      loadEventEnd: page.timings.loadEventEnd, stopOnload });
    collected.push({ gathered, lhr, har: navigationHar(gathered.devtoolsLog, end.at), navigation: { mainDoc: doc, page, end } });
  }
  const report = collected[ctx.steps.reportStep]!;
  const { timings, rumSi, facts } = report.navigation!.page;

  const har = ctx.steps.journey ? journeyHar(collected.map(harPage)) : report.har;
  // Secrets are scrubbed by core when the artifacts are stored (core/options/secrets.ts).
  await ctx.connections.settled();
  applyGuardConnections(har, ctx.connections.ledger);
  const { first, marks } = await filmOrigin(ctx);
  const lastEnd = Math.round((steps.at(-1)!.endedAt) - first.timeOrigin);
  const { frames: filmstrip } = filmOfLoad(rawFrames, first.timeOrigin,
    (ctx.observedUntil ?? 0) - first.timeOrigin,
    ctx.steps.journey ? lastEnd : Math.max(report.navigation!.end.endMs, timings.loadEventEnd));
  timer.end('har');
  const { images, bodies } = await collectResources(ctx, report.har);
  timer.end('images');
  const video = await finishVideo(ctx);
  timer.end('video');

  const metrics = navigationMetrics(report, stopOnload);
  const warnings = runWarnings({ load: ctx.warnings, lighthouse: report.lhr.runWarnings, guard: ctx.connections.ledger,
    loadWait: steps.flatMap((s) => s.warnings) });
  for (const lhr of lhrs) if (ctx.benchmarkIndex !== undefined) lhr.environment.benchmarkIndex = ctx.benchmarkIndex;
  return {
    finalUrl: timings.url,
    userAgent: ctx.emulation.userAgent,
    metrics,
    lighthouse: report.lhr as unknown as Record<string, unknown>,
    har,
    screenshot,
    filmstrip,
    video,
    images: feedsLighthouse(options) ? images : undefined,
    facts,
    bodies,
    phases: timer.phases,
    warnings,
    host: hostMeasurement(ctx),
    deviceClass: ctx.spec.conditions.device.deviceClass,
    cpu: ctx.cpu,
    journey: ctx.steps.journey ? journeyResult(ctx, collected, marks.map((m) => m.atMs), stopOnload) : undefined,
  };
}

/** The metrics of a navigation step: a plain test's figures, with its Lighthouse score. */
function navigationMetrics(step: CollectedStep, stopOnload: boolean): RunMetrics {
  const { mainDoc, page, end } = step.navigation!;
  return runMetrics({ har: harFigures(step.har, mainDoc?.requestId), timings: page.timings,
    authChallengeMs: authChallengeMs(step.har, mainDoc?.requestId), loadEndMs: end.endMs, stopOnload,
    rumSpeedIndex: page.rumSi, lighthouse: lighthouseMetrics(step.lhr) });
}

/** A navigation's HAR: the requests sent before its load ended (what the browser did afterwards is not the page's). */
function navigationHar(devtoolsLog: DevtoolsLog, loadEndAt: number): Har {
  const har = buildHar(devtoolsLog);
  keepEntries(har, requestsStartedBy(devtoolsLog, loadEndAt));
  return har;
}

function harPage(step: CollectedStep): Parameters<typeof journeyHar>[0][number] {
  const t = step.navigation?.page.timings;
  return { har: step.har, name: step.gathered.name, startedAt: step.gathered.startedAt,
    pageTimings: t ? { onContentLoad: Math.round(t.domContentLoadedEventStart), onLoad: Math.round(t.loadEventStart) }
      : { onContentLoad: -1, onLoad: -1 } };
}

/** Every step of a journey with its figures, and Lighthouse's FlowResult. `starts`: each step's start on the film. */
function journeyResult(ctx: LoadContext, collected: CollectedStep[], starts: number[], stopOnload: boolean): JourneyResult {
  const { recording } = ctx.steps;
  const steps: JourneyStepResult[] = collected.map((step, n) => {
    const { gathered, lhr } = step;
    const duration = gathered.endedAt - gathered.startedAt;
    // A navigation's figures carry its performance score (lighthouseMetrics).
    const figures = step.navigation ? navigationMetrics(step, stopOnload) : timespanFigures(lhr, step.har.log.entries, duration);
    // Its wait's and Lighthouse's (a timespan that saw a navigation the recording does not mark says so).
    const warnings = [...gathered.warnings, ...lhr.runWarnings.map(String)];
    return {
      index: gathered.measured.steps[0]!, steps: [...gathered.measured.steps], name: gathered.name,
      mode: gathered.measured.mode, url: step.navigation?.page.timings.url ?? lhr.finalDisplayedUrl,
      start: starts[n] ?? 0, duration: step.navigation ? step.navigation.end.endMs : Math.round(duration),
      har_page: harPageId(n), figures, ...(warnings.length > 0 ? { warnings } : {}),
    };
  });
  return {
    title: recording.title,
    measured_step: collected[ctx.steps.reportStep]!.gathered.measured.steps[0]!,
    steps,
    flow: { name: recording.title, steps: collected.map((s) => ({ lhr: s.lhr, name: s.gathered.name })) },
  };
}

/**
 * Lighthouse's audits compute while the page is read: they need nothing of the page any more. The report's step is
 * audited beside its screenshot; a journey's other steps after it.
 */
async function auditBesidePage(ctx: LoadContext, steps: GatheredStep[]): Promise<{ lhrs: Result[]; screenshot: Buffer }> {
  const reportN = ctx.steps.reportStep;
  const audit = async (step: GatheredStep): Promise<Result> => {
    let lhr: Result;
    try {
      lhr = await step.audit();
    } catch (err) {
      throw lighthouseFailureOf(ctx, err);
    }
    if (lhr.runtimeError) {
      const failure = lighthouseRuntimeFailure(lhr.runtimeError, ctx.maxWaitMs);
      throw ctx.steps.journey ? new RunError(`${ctx.replayer.name(step.measured.steps[0]!)}: ${failure.message}`) : failure;
    }
    return lhr;
  };
  const reported = steps[reportN]!;
  const audited = audit(reported);
  audited.catch(() => undefined);
  const shot = reported.screenshot ? Promise.resolve(reported.screenshot) : screenshotAtEnd(ctx, reported);
  shot.catch(() => undefined); // awaited after the audits; a failure must not go unhandled meanwhile
  const lhrs: Result[] = [];
  lhrs[reportN] = await audited;
  Object.assign(ctx.timer.phases, lighthousePhases(lhrs[reportN]));
  for (const [n, step] of steps.entries()) if (n !== reportN) lhrs[n] = await audit(step);
  return { lhrs, screenshot: await shot };
}

/**
 * The page as the load left it, whole (the report's step is the load's last), once the page was read: the film's
 * frame at the load's end when the page fits its viewport (screenFromFilm), else captured.
 */
async function screenshotAtEnd(ctx: LoadContext, reported: GatheredStep): Promise<Buffer> {
  const loaded = await reported.loaded; // the facts are read before the screenshot scrolls the page
  const frames = await (ctx.frames ?? Promise.resolve([]));
  const shown = loaded && await screenFromFilm(frames, loaded.extent, ctx.emulation);
  if (shown) return shown;
  await restoreScreen(ctx);
  return takeScreenshot(ctx.page);
}

/**
 * Image bodies for the optimized-images archive (a Lighthouse-report resource) and, for legacy reports, the
 * bodies of the HTML, CSS, JS and images for the PageSpeed rules: from the browser's buffer, read once.
 */
async function collectResources(ctx: LoadContext, har: Har):
Promise<{ images?: CapturedImage[]; bodies?: Map<string, Buffer> }> {
  const { report } = ctx.spec.options;
  const legacy = report.includes('legacy');
  const images = feedsLighthouse(ctx.spec.options) || legacy ? await collectImages(ctx.session, har.log.entries) : undefined;
  const bodies = legacy ? await collectBodies(ctx.session, har.log.entries, images ?? []) : undefined;
  return { images, bodies };
}

/** The video encoding since the load's end (video=1); a warning instead if it could not be made. */
async function finishVideo(ctx: LoadContext): Promise<Buffer | undefined> {
  if (ctx.spec.options.video !== 1) return undefined;
  try {
    return await (ctx.video ?? Promise.reject(new Error('the load did not finish')));
  } catch (err) {
    ctx.warnings.push(`The video could not be made: ${(err as Error).message}`);
    return undefined;
  }
}

function hostMeasurement(ctx: LoadContext): HostMeasurement | undefined {
  const { benchmarkIndex, cpuAtStart, cpuAtEnd } = ctx;
  return ctx.spec.measureHost
    ? { benchmarkIndex, otherCpuCores: cpuAtStart && cpuAtEnd ? otherCpuCores(cpuAtStart, cpuAtEnd) : undefined }
    : undefined;
}
