/**
 * One test = one Chromium page load. Lighthouse drives the load over our puppeteer page; during that same
 * load we record a screencast and the devtools log, and afterwards read navigation timings, RUM SpeedIndex,
 * a screenshot and the image bodies from the page, and encode the video from the screencast, so every figure
 * and file of the report describes the same load. The test's options act on that load: emulation (device,
 * viewport, UA) and cookies before it, the request interceptor (allow/block lists, adblock, HTTP auth) during it,
 * stop_onload on where it ends. Every connection of the browser goes through the connection guard (the operator's
 * target policy, the test's dns entries, addresses pinned, and the throttle's emulated link), which is sealed
 * when the load is over.
 */
import type { Protocol } from 'puppeteer-core';
import type { Result } from 'lighthouse';
import { RunError, type RunMetrics, type RunResult, type RunSpec } from './types.js';
import { closeGuarded, launchGuarded, readHost, type GuardedBrowser, type LaunchSettings } from './launch-ahead.js';
import { resolveEmulation, userAgentMetadata } from './conditions/emulation.js';
import { adblockEngine, adblockJudge } from './conditions/adblock.js';
import { setCookies } from './conditions/cookies.js';
import { needsInterceptor, startInterceptor } from './conditions/interceptor.js';
import { createLoadWait } from './load-wait.js';
import { gatherLighthouse, lighthouseConfig, lighthouseMetrics, lighthousePhases, observedNavigationStart, provideBenchmarkIndex,
  warmLighthouse, type LighthouseGathered } from './lighthouse.js';
import { httpStatusMessage, lighthouseErrorCode, lighthouseErrorMessage, navigationErrorMessage } from './failures.js';
import { startScreencast, filmOfLoad } from './capture/filmstrip.js';
import { readTimings, timingFigures } from './capture/timings.js';
import { rumSpeedIndex } from './capture/rum-speed-index.js';
import { takeScreenshot } from './capture/screenshot.js';
import { authChallengeMs, buildHar, harFigures, keepEntries } from './capture/har.js';
import { findMainDocument, fullyLoadedTime, requestsStartedBy } from './capture/network.js';
import { encodeVideo } from './capture/video.js';
import { collectImages } from './capture/images.js';
import { collectBodies } from './capture/bodies.js';
import { collectPageFactsInPage } from '../analysis/collect-facts.js';
import { otherCpuCores, sampleCpu, type CpuSample } from './host-load.js';
import { hostname } from '../analysis/har.js';
import { emptyDomFacts, type PageFacts } from '../analysis/facts.js';

export { RunError } from './types.js';

/** The longest a load waits for the page (Lighthouse goes on with a warning after it): within the run time limit. */
const loadWaitLimit = (timeoutMs: number): number => Math.max(5000, Math.min(60_000, Math.round(timeoutMs * 0.6)));

/**
 * What the runner does once per process, done when an agent warms up rather than in its first test: Lighthouse's
 * configuration of a default desktop load resolved (lighthouse.ts), which also loads Lighthouse's audits.
 */
export function warmRunner(timeoutMs: number): Promise<void> {
  const emulation = resolveEmulation({} as RunSpec['options'], undefined, '');
  return warmLighthouse(lighthouseConfig({ emulation, throttle: undefined, maxWaitForLoadMs: loadWaitLimit(timeoutMs) }));
}

export async function runTest(spec: RunSpec): Promise<RunResult> {
  const started = performance.now();
  const phases: Record<string, number> = {};
  let phaseStart = started;
  const phase = (name: string): void => {
    const now = performance.now();
    phases[name] = Math.round(now - phaseStart);
    phaseStart = now;
  };

  const { options, conditions } = spec;
  const { throttle } = conditions;
  const adblock = conditions.adblock ? adblockJudge(adblockEngine(spec.adblockLists)) : undefined;
  // What the request interceptor does (interceptor.ts); the browser is launched to suit it.
  const filters = {
    allowUrl: conditions.allowUrl,
    blockUrl: conditions.blockUrl,
    adblock,
    auth: conditions.auth,
  };
  const launchSettings: LaunchSettings = { chromePath: spec.chromePath, sandbox: spec.sandbox, trustStore: spec.trustStore,
    protocolTimeoutMs: spec.timeoutMs, policy: spec.policy };
  // Cross-site iframes stay in the page's process so the interceptor sees their requests too: such a load launches
  // a browser of its own; any other takes the one the agent launched ahead (launch-ahead.ts), if it has one.
  const sameProcessFrames = needsInterceptor(filters);
  const ahead = spec.ahead && !sameProcessFrames && spec.ahead.fits(launchSettings) ? spec.ahead : undefined;
  const guard = new RunGuard(spec.signal, spec.timeoutMs);
  try {
    const work = execute();
    work.catch(() => undefined); // if the guard wins the race, this settles later, when the browser is gone
    return await guard.race(work);
  } finally {
    guard.dispose();
    phaseStart = performance.now();
    // An agent's load hands its browser over to close while the report is made (the next load waits for it).
    if (spec.ahead) spec.ahead.retire(guard.launched);
    else await closeGuarded(guard.launched);
    phase('close');
    phases.total = Math.round(performance.now() - started);
  }

  async function execute(): Promise<RunResult> {
    // Every connection of the browser goes through its guard: the operator's target policy, addresses pinned, the link.
    let prepared = await ahead?.take();
    if (prepared) {
      try {
        await prepared.connections.configure(conditions.dns, throttle);
      } catch {
        await closeGuarded(prepared);
        prepared = undefined;
      }
    }
    guard.adopt(prepared ?? await launchGuarded(launchSettings, { dns: conditions.dns, link: throttle, sameProcessFrames }));
    const { browser, connections } = guard.launched!;
    phase('launch');

    const page = (await browser.pages())[0] ?? (await browser.newPage());
    const emulation = resolveEmulation(options, spec.device, await browser.userAgent());
    // The screen is emulated on puppeteer's own session as well as by Lighthouse: Lighthouse's session (and
    // its emulation) goes away when it finishes, and the screenshot and RUM SpeedIndex come after that.
    await page.setViewport({ width: emulation.width, height: emulation.height, deviceScaleFactor: emulation.dppx,
      isMobile: emulation.mobile, hasTouch: emulation.mobile });
    await page.setUserAgent({
      userAgent: emulation.userAgent,
      userAgentMetadata: userAgentMetadata(emulation.userAgent, emulation.mobile),
    });

    // The host's benchmark index: the agent's reading, taken while it was idle; without one, and for the run guard,
    // Lighthouse's CPU benchmark (about 1 s) in this browser now. Lighthouse reports it and does not measure it again.
    let benchmarkIndex = spec.benchmarkIndex;
    if (benchmarkIndex === undefined && spec.measureHost) benchmarkIndex = (await readHost(browser)).benchmarkIndex;
    if (benchmarkIndex !== undefined) provideBenchmarkIndex(benchmarkIndex);
    phase('benchmark');
    const browserPid = browser.process()?.pid;
    let cpuAtStart: CpuSample | undefined;
    let cpuAtEnd: CpuSample | undefined;

    const session = await page.createCDPSession();
    await session.send('Page.enable');
    await session.send('Network.enable');
    const mainFrameId = (await session.send('Page.getFrameTree')).frameTree.frame.id;
    const warnings = await setCookies(session, options.url, conditions.cookies);
    const interceptor = await startInterceptor({ session, mainFrameId, testedUrl: options.url, ...filters });
    let mainDocumentUrl = options.url;
    session.on('Network.requestWillBeSent', (e: Protocol.Network.RequestWillBeSentEvent) => {
      if (e.type === 'Document' && e.frameId === mainFrameId) mainDocumentUrl = e.request.url;
    });
    const screencast = await startScreencast(session);

    let failure: string | undefined;
    const maxWaitMs = loadWaitLimit(spec.timeoutMs);
    const loadWait = createLoadWait({
      session, page, url: options.url, mainFrameId, stopOnload: options.stop_onload === 1, maxWaitMs,
      onFailure: (message) => (failure ??= message),
      beforeNavigate: async () => {
        // The browsers of earlier loads are gone before this one loads the page (they close while it is set up).
        await spec.ahead?.quiet();
        if (spec.measureHost) cpuAtStart = await sampleCpu(browserPid);
      },
      isStopped: () => guard.error !== undefined,
      // Named after the last hop of the main document's redirects: that is the one that failed.
      describeNavigationError: async (errorText) => {
        await connections.settled(); // the guard's verdict on the connection may still be on its way
        return navigationErrorMessage(errorText, mainDocumentUrl, (host) => connections.ledger.failureOf(host));
      },
    });
    const config = lighthouseConfig({ emulation, throttle, maxWaitForLoadMs: maxWaitMs });
    phase('setup');

    // Once the load is over (and Lighthouse's trace with it), the video encodes in another process while
    // Lighthouse gathers and audits: nothing measured runs any more, so it costs the test no time.
    let video: Promise<Buffer> | undefined;
    // Until when (epoch ms) the film shows the screen: the end of the load wait; with stop_onload the load ends at
    // onload, and so does its film.
    let observedUntil: number | undefined;
    // After the load, from the live page, read the moment the load is over, while Lighthouse collects what it
    // needs: the screencast (nothing after the load wait is filmed), navigation timings, RUM SpeedIndex and the DOM
    // facts of the structure audits and legacy rules, in one evaluate (collect-facts.ts must stay self-contained:
    // it runs in the page). Further facts read from the page after the load belong here, before the screenshot
    // scrolls it.
    const readLoadedPage = async () => {
      const frames = await screencast.stop();
      const timings = await readTimings(page);
      if (!timings) throw new RunError('The page has no navigation timing (it did not load as a document)');
      const rumSi = await rumSpeedIndex(page);
      let dom = emptyDomFacts();
      try {
        dom = await page.evaluate(collectPageFactsInPage);
      } catch (err) {
        warnings.push(`The page's DOM could not be read for the structure analysis: ${(err as Error).message}`);
      }
      const facts: PageFacts = { url: options.url, finalUrl: timings.url, dom };
      return { frames, timings, rumSi, facts };
    };
    let loadedPage: ReturnType<typeof readLoadedPage> | undefined;
    const requestor = async (): Promise<void> => {
      await loadWait.requestor();
      observedUntil = options.stop_onload === 1 ? 0 : Date.now();
      // The page's own time: from asking for the navigation to the end of the load wait (the floor of a test).
      const navigated = loadWait.navigationStartedAt();
      if (navigated !== undefined) phases.observation = Math.round(performance.now() - navigated);
      if (spec.measureHost) cpuAtEnd = await sampleCpu(browserPid);
      // The load is over: from here on nothing reaches the tested site (or anyone else) any more.
      await interceptor.afterLoad().catch(() => undefined);
      connections.seal();
      // The measurement is over: the next load of the same test gets its browser launched while this one's report
      // is made (that launch slows the report by about what it saves the next load, so only then; otherwise the
      // agent launches it once the test is reported).
      if (spec.anotherLoadFollows) ahead?.prepare();
      if (failure !== undefined || guard.error) return;
      const loaded = readLoadedPage();
      loaded.catch(() => undefined); // awaited after Lighthouse; a failure must not go unhandled meanwhile
      loadedPage = loaded;
      const over = loadWait.loadOverAt();
      if (options.video === 1 && over !== undefined) {
        video = startVideo(over, observedUntil, loaded);
        video.catch(() => undefined); // awaited after Lighthouse; a failure must not go unhandled meanwhile
      }
    };
    const startVideo = async (loadOverAt: number, until: number, loaded: ReturnType<typeof readLoadedPage>): Promise<Buffer> => {
      const { frames, timings: t } = await loaded;
      const film = filmOfLoad(frames, t.timeOrigin, until - t.timeOrigin,
        Math.max(t.loadEventEnd, Math.round(loadOverAt - t.timeOrigin)));
      const started = performance.now();
      try {
        return await encodeVideo(film.frames,
          { dir: spec.workDir, endMs: film.endMs, ffmpegPath: spec.ffmpegPath, timeoutMs: spec.timeoutMs, signal: spec.signal });
      } finally {
        phases.video_encode = Math.round(performance.now() - started);
      }
    };

    // An error of Lighthouse's, in the words the user reads.
    const lighthouseFailure = (err: unknown): unknown => {
      if (err instanceof RunError) return err;
      if (failure) return new RunError(failure);
      if (guard.error) return guard.error;
      const code = lighthouseErrorCode(err);
      if (code === 'PAGE_HUNG' && !loadWait.mainDocumentResponded()) {
        return new RunError(`The server at ${new URL(options.url).host} did not respond within ` +
          `${Math.round(maxWaitMs / 1000)} s`);
      }
      const message = code && lighthouseErrorMessage(code, maxWaitMs);
      return message ? new RunError(message) : err;
    };
    let gathered: LighthouseGathered;
    try {
      const lighthouse = gatherLighthouse(page, requestor, config);
      lighthouse.catch(() => undefined); // after a failure it ends when the browser closes
      const outcome = await Promise.race([lighthouse, loadWait.failed.then((message) => ({ failure: message }))]);
      if ('failure' in outcome) throw new RunError(outcome.failure);
      gathered = outcome;
    } catch (err) {
      throw lighthouseFailure(err);
    }
    if (failure) throw new RunError(failure);
    phase('lighthouse');

    const { devtoolsLog } = gathered;
    const mainDoc = findMainDocument(devtoolsLog, mainFrameId);
    if (mainDoc?.status !== undefined && mainDoc.status >= 400) {
      throw new RunError(httpStatusMessage(mainDoc.status, mainDoc.statusText));
    }
    // Lighthouse's audits compute while the page is read: they need nothing of the page any more.
    const audited = gathered.audit();
    audited.catch(() => undefined);
    const readPage = async () => {
      const loaded = await (loadedPage ?? readLoadedPage());
      // Lighthouse's screen emulation left with its session; the screenshot needs it back.
      await session.send('Emulation.setDeviceMetricsOverride', {
        width: emulation.width, height: emulation.height, deviceScaleFactor: emulation.dppx, mobile: emulation.mobile,
      });
      return { ...loaded, screenshot: await takeScreenshot(page) };
    };
    const fromPage = readPage();
    fromPage.catch(() => undefined); // awaited after the audits; a failure must not go unhandled meanwhile
    let lhr: Result;
    try {
      lhr = await audited;
    } catch (err) {
      throw lighthouseFailure(err);
    }
    Object.assign(phases, lighthousePhases(lhr));
    if (lhr.runtimeError) {
      const { code, message } = lhr.runtimeError;
      throw new RunError(lighthouseErrorMessage(code, maxWaitMs, message) ?? `The page could not be measured: ${message}`);
    }
    const { frames, timings, rumSi, facts, screenshot } = await fromPage;
    phase('audits_and_page');

    // The load's end on the protocol clock: fully loaded, or the end of onload with stop_onload.
    const navStart = observedNavigationStart(lhr) ?? mainDoc?.startTime ?? 0;
    const onloadEnd = navStart + timings.loadEventEnd / 1000;
    const stopOnload = options.stop_onload === 1;
    const loadEnd = stopOnload ? onloadEnd : fullyLoadedTime(devtoolsLog, onloadEnd);
    const endMs = Math.round((loadEnd - navStart) * 1000);
    const { frames: filmstrip } = filmOfLoad(frames, timings.timeOrigin, (observedUntil ?? 0) - timings.timeOrigin,
      Math.max(endMs, timings.loadEventEnd));

    // Secrets are scrubbed by core when the artifacts are stored (core/secrets.ts).
    const har = buildHar(devtoolsLog);
    await connections.settled();
    // The browser only knows it talked to the guard: the HAR names the address the guard connected to, and the
    // guard's DNS lookup of a host, which the browser saw inside its first connect to that host, is its `dns`.
    const looked = new Set<string>();
    for (const entry of har.log.entries) {
      const host = hostname(entry.request.url);
      const address = connections.ledger.addressOf(host);
      if (address) entry.serverIPAddress = address;
      else delete entry.serverIPAddress;
      const lookup = Math.round(connections.ledger.lookupMs(host) ?? 0);
      const t = entry.timings;
      if (!looked.has(host) && t.connect !== undefined && t.connect > 0) {
        looked.add(host);
        if (lookup > 0 && lookup <= t.connect) [t.dns, t.connect] = [lookup, t.connect - lookup];
      }
    }
    keepEntries(har, requestsStartedBy(devtoolsLog, loadEnd));
    const figures = harFigures(har, mainDoc?.requestId);
    phase('har');

    // Image bodies for the optimized-images archive (a Lighthouse-report resource) and, for legacy reports, the
    // bodies of the HTML, CSS, JS and images for the PageSpeed rules: from the browser's buffer, read once.
    const legacy = options.report.includes('legacy');
    const images = options.report.includes('lighthouse') || legacy ? await collectImages(session, har.log.entries) : undefined;
    const bodies = legacy ? await collectBodies(session, har.log.entries, images ?? []) : undefined;
    phase('images');
    let videoFile: Buffer | undefined;
    if (options.video === 1) {
      try {
        videoFile = await (video ?? Promise.reject(new Error('the load did not finish')));
      } catch (err) {
        warnings.push(`The video could not be made: ${(err as Error).message}`);
      }
    }
    phase('video');

    const metrics: RunMetrics = {
      ...figures,
      ...timingFigures(timings),
      // Of the authorized response: an HTTP auth challenge's round trip is not the server's first byte.
      time_to_first_byte: Math.max(0, timingFigures(timings).time_to_first_byte - authChallengeMs(har, mainDoc?.requestId)),
      fully_loaded_time: stopOnload ? -1 : Math.max(endMs, Math.round(timings.loadEventEnd)),
      rum_speed_index: rumSi,
      ...lighthouseMetrics(lhr),
    };
    for (const w of lhr.runWarnings) warnings.push(typeof w === 'string' ? w : String(w));
    const refusedConnections = connections.ledger.refused.filter((r) => r.reason === 'non-public');
    if (refusedConnections.length > 0) {
      const hosts = [...new Set(refusedConnections.map((r) => `${r.host} (${r.kind} address ${r.address})`))];
      warnings.push(`${connections.ledger.refusedCount} connection(s) of the page to private or local addresses were refused: ` +
        `${hosts.slice(0, 5).join(', ')}${hosts.length > 5 ? ', …' : ''}`);
    }
    warnings.push(...loadWait.warnings);
    if (benchmarkIndex !== undefined) lhr.environment.benchmarkIndex = benchmarkIndex;
    const host = spec.measureHost
      ? { benchmarkIndex, otherCpuCores: cpuAtStart && cpuAtEnd ? otherCpuCores(cpuAtStart, cpuAtEnd) : undefined }
      : undefined;
    return {
      finalUrl: timings.url,
      userAgent: emulation.userAgent,
      metrics,
      lighthouse: lhr as unknown as Record<string, unknown>,
      har,
      screenshot,
      filmstrip,
      video: videoFile,
      images: options.report.includes('lighthouse') ? images : undefined,
      facts,
      bodies,
      phases,
      warnings,
      host,
    };
  }
}

/**
 * Enforces spec.timeoutMs and spec.signal: whichever comes first rejects the race with a RunError and
 * closes the browser, which makes every pending protocol call of the run fail fast.
 */
class RunGuard {
  launched: GuardedBrowser | undefined;
  error: RunError | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly aborted: Promise<never>;
  private reject: (err: RunError) => void = () => undefined;
  private readonly onAbort = (): void => this.stop(new RunError('The test was cancelled'));

  constructor(private readonly signal: AbortSignal | undefined, timeoutMs: number) {
    this.aborted = new Promise<never>((_, reject) => (this.reject = reject));
    this.aborted.catch(() => undefined);
    this.timer = setTimeout(
      () => this.stop(new RunError(`The test did not finish within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    if (signal?.aborted) this.onAbort();
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Registers the browser; if the run was already stopped it is closed straight away. */
  adopt(launched: GuardedBrowser): void {
    this.launched = launched;
    if (this.error) {
      void closeGuarded(launched);
      throw this.error;
    }
  }

  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.aborted]);
  }

  private stop(error: RunError): void {
    if (this.error) return;
    this.error = error;
    this.reject(error);
    void closeGuarded(this.launched);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}
