/**
 * What the load produces, once Lighthouse gathered it: Lighthouse's audits, computed while the page is read (the
 * page as the load left it, and its screenshot), the HAR with the guard's addresses, the image and body captures,
 * the video, the metrics and the warnings, all of the same load.
 */
import type { DevtoolsLog, Result } from 'lighthouse';
import { RunError, type CapturedImage, type HostMeasurement, type RunResult } from '../types.js';
import { lighthouseMetrics, lighthousePhases, observedNavigationStart, type LighthouseGathered } from '../lighthouse.js';
import { httpStatusMessage, lighthouseRuntimeFailure } from '../failures.js';
import { filmOfLoad } from '../capture/filmstrip.js';
import { takeScreenshot } from '../capture/screenshot.js';
import { applyGuardConnections, authChallengeMs, buildHar, harFigures, keepEntries, type Har } from '../capture/har.js';
import { findMainDocument, requestsStartedBy } from '../capture/network.js';
import { collectImages } from '../capture/images.js';
import { collectBodies } from '../capture/bodies.js';
import { otherCpuCores } from '../host-load.js';
import type { LoadContext, LoadedPage } from './context.js';
import { lighthouseFailureOf, readLoadedPage } from './navigate.js';
import { loadEnd, runMetrics, runWarnings } from './figures.js';

export async function collect(ctx: LoadContext, gathered: LighthouseGathered): Promise<RunResult> {
  const { spec: { options }, timer } = ctx;
  const { devtoolsLog } = gathered;
  const mainDoc = findMainDocument(devtoolsLog, ctx.mainFrameId);
  if (mainDoc?.status !== undefined && mainDoc.status >= 400) {
    throw new RunError(httpStatusMessage(mainDoc.status, mainDoc.statusText));
  }
  const { lhr, page } = await auditBesidePage(ctx, gathered);
  const { frames, timings, rumSi, facts, screenshot } = page;
  timer.end('audits_and_page');

  const stopOnload = options.stop_onload === 1;
  const end = loadEnd({ devtoolsLog, navStart: observedNavigationStart(lhr) ?? mainDoc?.startTime ?? 0,
    loadEventEnd: timings.loadEventEnd, stopOnload });
  const { frames: filmstrip } = filmOfLoad(frames, timings.timeOrigin, (ctx.observedUntil ?? 0) - timings.timeOrigin,
    Math.max(end.endMs, timings.loadEventEnd));
  const har = await captureHar(ctx, devtoolsLog, end.at);
  const figures = harFigures(har, mainDoc?.requestId);
  timer.end('har');
  const { images, bodies } = await collectResources(ctx, har);
  timer.end('images');
  const video = await finishVideo(ctx);
  timer.end('video');

  const metrics = runMetrics({ har: figures, timings, authChallengeMs: authChallengeMs(har, mainDoc?.requestId),
    loadEndMs: end.endMs, stopOnload, rumSpeedIndex: rumSi, lighthouse: lighthouseMetrics(lhr) });
  const warnings = runWarnings({ load: ctx.warnings, lighthouse: lhr.runWarnings, guard: ctx.connections.ledger,
    loadWait: ctx.loadWait.warnings });
  if (ctx.benchmarkIndex !== undefined) lhr.environment.benchmarkIndex = ctx.benchmarkIndex;
  return {
    finalUrl: timings.url,
    userAgent: ctx.emulation.userAgent,
    metrics,
    lighthouse: lhr as unknown as Record<string, unknown>,
    har,
    screenshot,
    filmstrip,
    video,
    images: options.report.includes('lighthouse') ? images : undefined,
    facts,
    bodies,
    phases: timer.phases,
    warnings,
    host: hostMeasurement(ctx),
  };
}

/** Lighthouse's audits compute while the page is read: they need nothing of the page any more. */
async function auditBesidePage(ctx: LoadContext, gathered: LighthouseGathered):
Promise<{ lhr: Result; page: LoadedPage & { screenshot: Buffer } }> {
  const audited = gathered.audit();
  audited.catch(() => undefined);
  const fromPage = readPage(ctx);
  fromPage.catch(() => undefined); // awaited after the audits; a failure must not go unhandled meanwhile
  let lhr: Result;
  try {
    lhr = await audited;
  } catch (err) {
    throw lighthouseFailureOf(ctx, err);
  }
  Object.assign(ctx.timer.phases, lighthousePhases(lhr));
  if (lhr.runtimeError) throw lighthouseRuntimeFailure(lhr.runtimeError, ctx.maxWaitMs);
  return { lhr, page: await fromPage };
}

/** The page as the load left it (read at the load's end, or now), and its screenshot. */
async function readPage(ctx: LoadContext): Promise<LoadedPage & { screenshot: Buffer }> {
  const { emulation } = ctx;
  const loaded = await (ctx.loadedPage ?? readLoadedPage(ctx));
  // Lighthouse's screen emulation left with its session; the screenshot needs it back.
  await ctx.session.send('Emulation.setDeviceMetricsOverride', {
    width: emulation.width, height: emulation.height, deviceScaleFactor: emulation.dppx, mobile: emulation.mobile,
  });
  return { ...loaded, screenshot: await takeScreenshot(ctx.page) };
}

/** The HAR of the load up to its end (monotonic seconds), with the guard's addresses and lookups. */
async function captureHar(ctx: LoadContext, devtoolsLog: DevtoolsLog, loadEndAt: number): Promise<Har> {
  // Secrets are scrubbed by core when the artifacts are stored (core/options/secrets.ts).
  const har = buildHar(devtoolsLog);
  await ctx.connections.settled();
  applyGuardConnections(har, ctx.connections.ledger);
  keepEntries(har, requestsStartedBy(devtoolsLog, loadEndAt));
  return har;
}

/**
 * Image bodies for the optimized-images archive (a Lighthouse-report resource) and, for legacy reports, the
 * bodies of the HTML, CSS, JS and images for the PageSpeed rules: from the browser's buffer, read once.
 */
async function collectResources(ctx: LoadContext, har: Har):
Promise<{ images?: CapturedImage[]; bodies?: Map<string, Buffer> }> {
  const { report } = ctx.spec.options;
  const legacy = report.includes('legacy');
  const images = report.includes('lighthouse') || legacy ? await collectImages(ctx.session, har.log.entries) : undefined;
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
