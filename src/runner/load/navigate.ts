/**
 * The load itself: Lighthouse gathers it (lighthouse.ts) over our page, with our requestor driving the navigation
 * and the load wait (load-wait.ts). When the load is over, nothing reaches the network any more, the next load's
 * browser may be prepared, and the live page is read (and the video starts encoding) while Lighthouse gathers.
 */
import { RunError } from '../types.js';
import { gatherLighthouse, type LighthouseGathered } from '../lighthouse.js';
import { lighthouseFailure } from '../failures.js';
import { filmOfLoad } from '../capture/filmstrip.js';
import { readTimings } from '../capture/timings.js';
import { rumSpeedIndex } from '../capture/rum-speed-index.js';
import { encodeVideo } from '../capture/video.js';
import { sampleCpu } from '../host-load.js';
import { collectPageFactsInPage } from '../../analysis/collect-facts.js';
import { emptyDomFacts, type PageFacts } from '../../analysis/facts.js';
import type { LoadContext, LoadedPage } from './context.js';

/** Lighthouse's gather of the load, or the load's failure in the words the user reads. */
export async function navigateAndGather(ctx: LoadContext): Promise<LighthouseGathered> {
  let gathered: LighthouseGathered;
  try {
    const lighthouse = gatherLighthouse(ctx.page, () => navigate(ctx), ctx.config);
    lighthouse.catch(() => undefined); // after a failure it ends when the browser closes
    const outcome = await Promise.race([lighthouse, ctx.loadWait.failed.then((message) => ({ failure: message }))]);
    if ('failure' in outcome) throw new RunError(outcome.failure);
    gathered = outcome;
  } catch (err) {
    throw lighthouseFailureOf(ctx, err);
  }
  if (ctx.failure) throw new RunError(ctx.failure);
  ctx.timer.end('lighthouse');
  return gathered;
}

/** An error of Lighthouse's during this load, in the words the user reads (failures.ts lighthouseFailure). */
export function lighthouseFailureOf(ctx: LoadContext, err: unknown): unknown {
  return lighthouseFailure(err, { failure: ctx.failure, stopped: ctx.deadline.error, url: ctx.spec.options.url,
    maxWaitMs: ctx.maxWaitMs, mainDocumentResponded: ctx.loadWait.mainDocumentResponded() });
}

/** Lighthouse's requestor: navigates and resolves when the load is over. */
async function navigate(ctx: LoadContext): Promise<void> {
  await ctx.loadWait.requestor();
  await endLoad(ctx);
}

async function endLoad(ctx: LoadContext): Promise<void> {
  const { spec, loadWait } = ctx;
  ctx.observedUntil = spec.options.stop_onload === 1 ? 0 : Date.now();
  // The page's own time: from asking for the navigation to the end of the load wait (the floor of a test).
  const navigated = loadWait.navigationStartedAt();
  if (navigated !== undefined) ctx.timer.phases.observation = Math.round(performance.now() - navigated);
  if (spec.measureHost) ctx.cpuAtEnd = await sampleCpu(ctx.browserPid);
  // The load is over: from here on nothing reaches the tested site (or anyone else) any more.
  await ctx.interceptor.afterLoad().catch(() => undefined);
  ctx.connections.seal();
  // The measurement is over: the next load of the same test gets its browser launched while this one's report
  // is made (that launch slows the report by about what it saves the next load, so only then; otherwise the
  // agent launches it once the test is reported).
  if (spec.anotherLoadFollows) ctx.ahead?.prepare();
  if (ctx.failure !== undefined || ctx.deadline.error) return;
  const loaded = readLoadedPage(ctx);
  loaded.catch(() => undefined); // awaited after Lighthouse; a failure must not go unhandled meanwhile
  ctx.loadedPage = loaded;
  // Once the load is over (and Lighthouse's trace with it), the video encodes in another process while
  // Lighthouse gathers and audits: nothing measured runs any more, so it costs the test no time.
  const over = loadWait.loadOverAt();
  if (spec.options.video === 1 && over !== undefined) {
    ctx.video = encodeLoadVideo(ctx, over, ctx.observedUntil, loaded);
    ctx.video.catch(() => undefined); // awaited after Lighthouse; a failure must not go unhandled meanwhile
  }
}

/**
 * Reads, from the live page, the moment the load is over, while Lighthouse collects what it needs: the screencast
 * (nothing after the load wait is filmed), navigation timings, RUM SpeedIndex and the DOM facts of the structure
 * audits and legacy rules, in one evaluate (collect-facts.ts must stay self-contained: it runs in the page). Further
 * facts read from the page after the load belong here, before the screenshot scrolls it.
 */
export async function readLoadedPage(ctx: LoadContext): Promise<LoadedPage> {
  const { page } = ctx;
  const frames = await ctx.screencast.stop();
  const timings = await readTimings(page);
  if (!timings) throw new RunError('The page has no navigation timing (it did not load as a document)');
  const rumSi = await rumSpeedIndex(page);
  let dom = emptyDomFacts();
  try {
    dom = await page.evaluate(collectPageFactsInPage);
  } catch (err) {
    ctx.warnings.push(`The page's DOM could not be read for the structure analysis: ${(err as Error).message}`);
  }
  const facts: PageFacts = { url: ctx.spec.options.url, finalUrl: timings.url, dom };
  return { frames, timings, rumSi, facts };
}

/** The video of the load, up to `until` (epoch ms, see LoadContext.observedUntil), encoded in another process. */
async function encodeLoadVideo(ctx: LoadContext, loadOverAt: number, until: number, loaded: Promise<LoadedPage>):
Promise<Buffer> {
  const { spec } = ctx;
  const { frames, timings: t } = await loaded;
  const film = filmOfLoad(frames, t.timeOrigin, until - t.timeOrigin,
    Math.max(t.loadEventEnd, Math.round(loadOverAt - t.timeOrigin)));
  const started = performance.now();
  try {
    return await encodeVideo(film.frames,
      { dir: spec.workDir, endMs: film.endMs, ffmpegPath: spec.ffmpegPath, timeoutMs: spec.timeoutMs, signal: spec.signal });
  } finally {
    ctx.timer.phases.video_encode = Math.round(performance.now() - started);
  }
}
