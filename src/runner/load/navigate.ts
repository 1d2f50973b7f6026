/**
 * The load itself, step by step: Lighthouse gathers each measured step over our page, a navigation with our requestor
 * driving it and the load wait (load-wait.ts), a timespan around the journey's interactions until the network is
 * quiet. A plain test is the one navigation. After each navigation the live page is read; when the last step is over,
 * nothing reaches the network any more, the next load's browser may be prepared, and the film ends (the video
 * encoding while Lighthouse gathers).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Protocol } from 'puppeteer-core';
import { StepType } from '@puppeteer/replay';
import { RunError, type JourneyProgress } from '../types.js';
import { gatherLighthouse, startTimespan, type LighthouseGathered } from '../lighthouse.js';
import { lighthouseFailure } from '../failures.js';
import { filmOfLoad } from '../capture/filmstrip.js';
import { readTimings, type PageTimings } from '../capture/timings.js';
import { rumSpeedIndex } from '../capture/rum-speed-index.js';
import { encodeVideo, type StepMark } from '../capture/video.js';
import { readPageExtent, takeViewportScreenshot } from '../capture/screenshot.js';
import { sampleCpu } from '../host-load.js';
import { ACTIVITY_EVENTS, NETWORK_QUIET_MS, NetworkActivity } from '../network-activity.js';
import type { NavigationTrigger } from '../load-wait.js';
import { StepFailure } from '../journey/replay.js';
import { measuredStepName, type MeasuredStep } from '../journey/recording.js';
import { collectPageFactsInPage } from '../../analysis/collect-facts.js';
import { emptyDomFacts, type PageFacts } from '../../analysis/facts.js';
import type { LoadContext, LoadedPage, StepProgress } from './context.js';
import { startLoadWait, throttleCpu } from './setup.js';

/** A measured step, gathered. */
export interface GatheredStep extends LighthouseGathered, StepProgress {
  endedAt: number;
  /** The report's step when a later step follows: the screen when it ended (the last one's is taken in collect). */
  screenshot?: Buffer;
  /** What its wait had to say (its time limit hit). */
  warnings: string[];
}

/** A step begun (LoadContext.progress). */
function begin(ctx: LoadContext, measured: MeasuredStep): StepProgress {
  const record: StepProgress = { measured, name: measuredStepName(ctx.steps.recording.title, ctx.steps.recording, measured),
    startedAt: Date.now() };
  ctx.progress.push(record);
  return record;
}

/** Lighthouse's gathers of every step, or the load's failure in the words the user reads. */
export async function gatherSteps(ctx: LoadContext): Promise<GatheredStep[]> {
  const gathered: GatheredStep[] = [];
  const { measured } = ctx.steps;
  try {
    for (const [n, step] of measured.entries()) {
      const last = n === measured.length - 1;
      gathered.push(step.mode === 'navigation' ? await gatherNavigation(ctx, step, last, n === ctx.steps.reportStep)
        : await gatherTimespan(ctx, step, last));
      if (!last) await restoreScreen(ctx);
      if (n === ctx.steps.reportStep && !last) {
        await gathered[n]!.loaded;
        gathered[n]!.screenshot = await takeViewportScreenshot(ctx.page);
      }
    }
  } catch (err) {
    if (!ctx.steps.journey || !(err instanceof RunError) || ctx.deadline.error === err) throw err;
    throw new RunError(err.message, await journeyProgress(ctx, gathered));
  }
  ctx.timer.end('lighthouse');
  return gathered;
}

/** How far a failed journey got: the steps that completed, and the screen the moment it failed. */
async function journeyProgress(ctx: LoadContext, gathered: readonly GatheredStep[]): Promise<JourneyProgress> {
  const completed = await Promise.all(gathered.map(async (g) => ({
    index: g.measured.steps[0]!, steps: [...g.measured.steps], name: g.name, mode: g.measured.mode,
    url: (await g.loaded?.catch(() => undefined))?.timings.url, duration: Math.round(g.endedAt - g.startedAt),
  })));
  const screenshot = await Promise.race([
    takeViewportScreenshot(ctx.page).catch(() => undefined),
    sleep(3000, undefined, { ref: false }),
  ]);
  return { completed, screenshot };
}

/** An error of Lighthouse's during this load, in the words the user reads (failures.ts lighthouseFailure). */
export function lighthouseFailureOf(ctx: LoadContext, err: unknown): unknown {
  return lighthouseFailure(err, { failure: ctx.failure, stopped: ctx.deadline.error, url: ctx.mainDocumentUrl,
    maxWaitMs: ctx.maxWaitMs, mainDocumentResponded: ctx.loadWait?.mainDocumentResponded() ?? false });
}

/** How a step's failure is prefixed: `journey step 5 (click "…")` in a journey, nothing for a plain test. */
const stepName = (ctx: LoadContext, index: number): string | undefined => (ctx.steps.journey ? ctx.replayer.name(index) : undefined);

async function gatherNavigation(ctx: LoadContext, step: MeasuredStep, last: boolean, reported: boolean): Promise<GatheredStep> {
  const index = step.steps[0]!;
  const stored = ctx.steps.recording.steps[index]!;
  const trigger: NavigationTrigger = stored.type === StepType.Navigate
    ? { url: ctx.replayer.urlOf(index) }
    : {
      run: () => ctx.replayer.run(index),
      describeFailure: (err) => (err instanceof StepFailure ? err.message : `${ctx.replayer.name(index)}: ${String(err)}`),
      noNavigation: `no navigation started within ${Math.round(ctx.replayer.timeoutOf(index) / 100) / 10} s`,
      navigationWithinMs: ctx.replayer.timeoutOf(index),
    };
  const loadWait = startLoadWait(ctx, trigger, stepName(ctx, index));
  ctx.loadWait = loadWait;
  const record = begin(ctx, step);
  const requestor = async (): Promise<void> => {
    await loadWait.requestor();
    record.endedAt = loadWait.loadOverAt() ?? Date.now();
    // The step is measured: what is read from the page after it needs no phone's CPU (and would take longer on it).
    await throttleCpu(ctx, false).catch(() => undefined);
    ctx.observationStartedAt ??= loadWait.navigationStartedAt();
    if (ctx.failure !== undefined || ctx.deadline.error) return;
    // Read at once, while Lighthouse collects what it needs (it is awaited after Lighthouse).
    record.loaded = readStepPage(ctx, reported);
    record.loaded.catch(() => undefined);
    if (last) await endLoad(ctx, loadWait.loadOverAt());
  };
  try {
    const lighthouse = gatherLighthouse(ctx.page, requestor, ctx.config, ctx.fetchAfterLoad);
    lighthouse.catch(() => undefined); // after a failure it ends when the browser closes
    const outcome = await Promise.race([lighthouse, loadWait.failed.then(() => ({ failure: ctx.failure ?? '' }))]);
    if ('failure' in outcome) throw new RunError(outcome.failure);
    if (ctx.failure) throw new RunError(ctx.failure);
    return { ...outcome, ...record, endedAt: record.endedAt ?? Date.now(), warnings: loadWait.warnings };
  } catch (err) {
    throw lighthouseFailureOf(ctx, err);
  } finally {
    loadWait.dispose();
  }
}

/**
 * A timespan: Lighthouse's instrumentation runs while the journey's interactions are replayed, and until the network
 * has been quiet for NETWORK_QUIET_MS after them (what they fetched, and the paint after them, belong to them).
 */
async function gatherTimespan(ctx: LoadContext, step: MeasuredStep, last: boolean): Promise<GatheredStep> {
  const record = begin(ctx, step);
  const quiet = watchNetwork(ctx);
  const warnings: string[] = [];
  try {
    const span = await startTimespan(ctx.page, ctx.config, ctx.fetchAfterLoad);
    await throttleCpu(ctx, true);
    try {
      for (const index of step.steps) await ctx.replayer.run(index);
    } catch (err) {
      if (err instanceof StepFailure) throw new RunError(err.message);
      throw err;
    }
    const stepsEnded = Date.now();
    if (!(await quiet.until(stepsEnded))) {
      warnings.push(`${stepName(ctx, step.steps.at(-1)!)}: the network did not go quiet within ${Math.round(ctx.maxWaitMs / 1000)} s`);
    }
    const endedAt = Math.max(stepsEnded, quiet.lastActivity());
    record.endedAt = endedAt;
    await throttleCpu(ctx, false).catch(() => undefined);
    if (last) await endLoad(ctx, endedAt);
    const gathered = await span.end();
    return { ...gathered, ...record, endedAt, warnings };
  } catch (err) {
    throw lighthouseFailureOf(ctx, err);
  } finally {
    quiet.dispose();
  }
}

/** The network's activity on the page's session, by the one rule of network-activity.ts. */
function watchNetwork(ctx: LoadContext): { until(since: number): Promise<boolean>; lastActivity(): number; dispose(): void } {
  let last = 0;
  const activity = new NetworkActivity((t) => (last = Math.max(last, t)));
  const handlers = ACTIVITY_EVENTS.map((event) => {
    const handler = (params: { requestId?: string }) => activity.event(event, params, Date.now());
    ctx.session.on(event, handler);
    return [event, handler] as const;
  });
  const latest = (): number => Math.max(last, activity.latestWaiting());
  return {
    lastActivity: latest,
    async until(since) {
      const deadline = Date.now() + ctx.maxWaitMs;
      while (!ctx.deadline.error) {
        if (Date.now() - Math.max(since, latest()) >= NETWORK_QUIET_MS) return true;
        if (Date.now() >= deadline) return false;
        await sleep(50);
      }
      return false;
    },
    dispose: () => handlers.forEach(([event, handler]) => ctx.session.off(event, handler)),
  };
}

/**
 * The end of the last step: from here on nothing reaches the tested site (or anyone else) any more, the next load's
 * browser may be launched, and the film ends (`at`, epoch ms: the end of the load wait, or of the timespan).
 */
async function endLoad(ctx: LoadContext, loadOverAt: number | undefined): Promise<void> {
  const { spec } = ctx;
  spec.onPhase?.('auditing');
  ctx.observedUntil = spec.options.stop_onload === 1 && !ctx.steps.journey ? 0 : Date.now();
  // The page's own time: from asking for the first navigation to the end of the last step (the floor of a test).
  if (ctx.observationStartedAt !== undefined) ctx.timer.phases.observation = Math.round(performance.now() - ctx.observationStartedAt);
  if (spec.measureHost) ctx.cpuAtEnd = await sampleCpu(ctx.browserPid);
  await ctx.interceptor.afterLoad().catch(() => undefined);
  ctx.connections.seal();
  // The measurement is over: the next load of the same test gets its browser launched while this one's report
  // is made (that launch slows the report by about what it saves the next load, so only then; otherwise the
  // agent launches it once the test's result is stored).
  if (spec.anotherLoadFollows) ctx.ahead?.prepare();
  if (ctx.failure !== undefined || ctx.deadline.error) return;
  const frames = ctx.screencast.stop();
  frames.catch(() => undefined);
  ctx.frames = frames;
  // Once the load is over (and Lighthouse's trace with it), the video encodes in another process while
  // Lighthouse gathers and audits: nothing measured runs any more, so it costs the test no time.
  if (spec.options.video === 1 && loadOverAt !== undefined) {
    ctx.video = encodeLoadVideo(ctx, loadOverAt, ctx.observedUntil);
    ctx.video.catch(() => undefined); // awaited after Lighthouse; a failure must not go unhandled meanwhile
  }
}

/**
 * Reads, from the live page, the moment a navigation's load is over, while Lighthouse collects what it needs: the
 * navigation timings, RUM SpeedIndex and (for the report's step) the DOM facts of the structure audits and legacy
 * rules, in one evaluate (collect-facts.ts must stay self-contained: it runs in the page). Further facts read from the
 * page after the load belong here, before the screenshot scrolls it.
 */
async function readStepPage(ctx: LoadContext, withFacts: boolean): Promise<LoadedPage> {
  const { page } = ctx;
  const timings = await readTimings(page);
  if (!timings) throw new RunError('The page has no navigation timing (it did not load as a document)');
  const rumSi = await rumSpeedIndex(page);
  const extent = await readPageExtent(page);
  let dom = emptyDomFacts();
  if (withFacts) {
    try {
      dom = await page.evaluate(collectPageFactsInPage);
    } catch (err) {
      ctx.warnings.push(`The page's DOM could not be read for the structure analysis: ${(err as Error).message}`);
    }
  }
  const facts: PageFacts = { url: ctx.spec.options.url, finalUrl: timings.url, dom };
  return { timings, rumSi, facts, extent };
}

/** Lighthouse's screen emulation left with its session: the next step (and the screenshot) need ours back. */
export async function restoreScreen(ctx: LoadContext): Promise<void> {
  const { emulation } = ctx;
  await ctx.session.send('Emulation.setDeviceMetricsOverride', {
    width: emulation.width, height: emulation.height, deviceScaleFactor: emulation.dppx, mobile: emulation.mobile,
  } satisfies Protocol.Emulation.SetDeviceMetricsOverrideRequest);
}

/**
 * The film's zero: the first navigation's start (its page's time origin, epoch ms), with the timings of that load;
 * and where each step begins on it (a journey's marks: the first at 0).
 */
export async function filmOrigin(ctx: LoadContext): Promise<{ first: PageTimings; marks: StepMark[] }> {
  const first = await (ctx.progress[0]?.loaded ?? Promise.reject(new RunError('the load did not navigate')));
  const origin = first.timings.timeOrigin;
  const marks = ctx.progress.map((p, i) => ({ atMs: i === 0 ? 0 : Math.max(0, Math.round(p.startedAt - origin)), label: p.name }));
  return { first: first.timings, marks };
}

/** The video of the load, up to `until` (epoch ms, see LoadContext.observedUntil), encoded in another process. */
async function encodeLoadVideo(ctx: LoadContext, loadOverAt: number, until: number): Promise<Buffer> {
  const { spec } = ctx;
  const frames = await ctx.frames!;
  const { first: t, marks } = await filmOrigin(ctx);
  const film = filmOfLoad(frames, t.timeOrigin, until - t.timeOrigin,
    Math.max(ctx.steps.journey ? 0 : t.loadEventEnd, Math.round(loadOverAt - t.timeOrigin)));
  const started = performance.now();
  try {
    return await encodeVideo(film.frames, { dir: spec.workDir, endMs: film.endMs, ffmpegPath: spec.ffmpegPath,
      timeoutMs: spec.timeoutMs, signal: spec.signal, marks: ctx.steps.journey ? marks : undefined });
  } finally {
    ctx.timer.phases.video_encode = Math.round(performance.now() - started);
  }
}
