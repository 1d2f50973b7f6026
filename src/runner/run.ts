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
import type { Browser, Protocol } from 'puppeteer-core';
import { RunError, type RunMetrics, type RunResult, type RunSpec } from './types.js';
import { closeBrowser, launchBrowser } from './browser.js';
import { resolveEmulation, userAgentMetadata } from './conditions/emulation.js';
import { adblockEngine, adblockJudge } from './conditions/adblock.js';
import { setCookies } from './conditions/cookies.js';
import { needsInterceptor, startInterceptor } from './conditions/interceptor.js';
import { GuardThread } from './conditions/guard-thread.js';
import { createLoadWait } from './load-wait.js';
import { lighthouseConfig, lighthouseMetrics, lighthousePhases, observedNavigationStart, runLighthouse } from './lighthouse.js';
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
import { pageFunctions } from 'lighthouse/core/lib/page-functions.js';
import { hostname } from '../analysis/har.js';
import { emptyDomFacts, type PageFacts } from '../analysis/facts.js';

export { RunError } from './types.js';

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
  // Every connection of the browser goes through it: the operator's target policy, addresses pinned, the link.
  const connections = await GuardThread.start(spec.policy, conditions.dns, throttle);
  const guard = new RunGuard(spec.signal, spec.timeoutMs);
  try {
    const work = execute();
    work.catch(() => undefined); // if the guard wins the race, this settles later, when the browser is gone
    return await guard.race(work);
  } finally {
    guard.dispose();
    phaseStart = performance.now();
    await closeBrowser(guard.browser);
    await connections.close();
    phase('close');
    phases.total = Math.round(performance.now() - started);
  }

  async function execute(): Promise<RunResult> {
    const browser = await launchBrowser({
      chromePath: spec.chromePath,
      sandbox: spec.sandbox,
      flags: connections.browserFlags(),
      // Cross-site iframes stay in the page's process so the interceptor sees their requests too.
      sameProcessFrames: needsInterceptor(filters),
      protocolTimeoutMs: spec.timeoutMs,
      trustStore: spec.trustStore,
    });
    guard.adopt(browser);
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

    // The run guard's benchmark index: Lighthouse's own CPU benchmark (about 1 s), in this browser, right before
    // the load. (The patched Lighthouse measures it only once per process: patches/lighthouse+12.8.2.patch.)
    const benchmarkIndex = spec.measureHost ? await page.evaluate(pageFunctions.computeBenchmarkIndex) : undefined;
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
    const maxWaitMs = Math.max(5000, Math.min(60_000, Math.round(spec.timeoutMs * 0.6)));
    const loadWait = createLoadWait({
      session, page, url: options.url, mainFrameId, stopOnload: options.stop_onload === 1, maxWaitMs,
      onFailure: (message) => (failure ??= message),
      beforeNavigate: async () => {
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
    const requestor = async (): Promise<void> => {
      await loadWait.requestor();
      observedUntil = options.stop_onload === 1 ? 0 : Date.now();
      if (spec.measureHost) cpuAtEnd = await sampleCpu(browserPid);
      // The load is over: from here on nothing reaches the tested site (or anyone else) any more.
      await interceptor.afterLoad().catch(() => undefined);
      connections.seal();
      const over = loadWait.loadOverAt();
      if (options.video === 1 && over !== undefined && failure === undefined && !guard.error) {
        video = startVideo(over, observedUntil);
        video.catch(() => undefined); // awaited after Lighthouse; a failure must not go unhandled meanwhile
      }
    };
    const startVideo = async (loadOverAt: number, until: number): Promise<Buffer> => {
      const t = await readTimings(page);
      if (!t) throw new Error('no navigation timing');
      const film = filmOfLoad(screencast.snapshot(), t.timeOrigin, until - t.timeOrigin,
        Math.max(t.loadEventEnd, Math.round(loadOverAt - t.timeOrigin)));
      const started = performance.now();
      try {
        return await encodeVideo(film.frames,
          { dir: spec.workDir, endMs: film.endMs, ffmpegPath: spec.ffmpegPath, timeoutMs: spec.timeoutMs, signal: spec.signal });
      } finally {
        phases.video_encode = Math.round(performance.now() - started);
      }
    };

    let lh: Awaited<ReturnType<typeof runLighthouse>>;
    try {
      const lighthouse = runLighthouse(page, requestor, config);
      lighthouse.catch(() => undefined); // after a failure it ends when the browser closes
      const outcome = await Promise.race([lighthouse, loadWait.failed.then((message) => ({ failure: message }))]);
      if ('failure' in outcome) throw new RunError(outcome.failure);
      lh = outcome;
    } catch (err) {
      if (err instanceof RunError) throw err;
      if (failure) throw new RunError(failure);
      if (guard.error) throw guard.error;
      const code = lighthouseErrorCode(err);
      if (code === 'PAGE_HUNG' && !loadWait.mainDocumentResponded()) {
        throw new RunError(`The server at ${new URL(options.url).host} did not respond within ` +
          `${Math.round(maxWaitMs / 1000)} s`);
      }
      const message = code && lighthouseErrorMessage(code, maxWaitMs);
      throw message ? new RunError(message) : err;
    }
    if (failure) throw new RunError(failure);
    phase('lighthouse');
    Object.assign(phases, lighthousePhases(lh.lhr));

    const { lhr, devtoolsLog } = lh;
    const mainDoc = findMainDocument(devtoolsLog, mainFrameId);
    if (mainDoc?.status !== undefined && mainDoc.status >= 400) {
      throw new RunError(httpStatusMessage(mainDoc.status, mainDoc.statusText));
    }
    if (lhr.runtimeError) {
      const { code, message } = lhr.runtimeError;
      throw new RunError(lighthouseErrorMessage(code, maxWaitMs, message) ?? `The page could not be measured: ${message}`);
    }
    const frames = await screencast.stop();
    // Lighthouse's screen emulation left with its session; the screenshot and RUM SpeedIndex need it back.
    await session.send('Emulation.setDeviceMetricsOverride', {
      width: emulation.width, height: emulation.height, deviceScaleFactor: emulation.dppx, mobile: emulation.mobile,
    });

    // After the load, from the live page: navigation timings and RUM SpeedIndex. (Further facts read from the
    // page after the load belong here, before the screenshot scrolls it.)
    const timings = await readTimings(page);
    if (!timings) throw new RunError('The page has no navigation timing (it did not load as a document)');
    const rumSi = await rumSpeedIndex(page);
    // The DOM facts of the structure audits and legacy rules, in one evaluate (collect-facts.ts must stay
    // self-contained: it runs in the page).
    let dom = emptyDomFacts();
    try {
      dom = await page.evaluate(collectPageFactsInPage);
    } catch (err) {
      warnings.push(`The page's DOM could not be read for the structure analysis: ${(err as Error).message}`);
    }
    const facts: PageFacts = { url: options.url, finalUrl: timings.url, dom };
    phase('page_timings');

    // The load's end on the protocol clock: fully loaded, or the end of onload with stop_onload.
    const navStart = observedNavigationStart(lhr) ?? mainDoc?.startTime ?? 0;
    const onloadEnd = navStart + timings.loadEventEnd / 1000;
    const stopOnload = options.stop_onload === 1;
    const loadEnd = stopOnload ? onloadEnd : fullyLoadedTime(devtoolsLog, onloadEnd);
    const endMs = Math.round((loadEnd - navStart) * 1000);
    const { frames: filmstrip } = filmOfLoad(frames, timings.timeOrigin, (observedUntil ?? 0) - timings.timeOrigin,
      Math.max(endMs, timings.loadEventEnd));

    const screenshot = await takeScreenshot(page);
    phase('screenshot');

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
  browser: Browser | undefined;
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
  adopt(browser: Browser): void {
    this.browser = browser;
    if (this.error) {
      void closeBrowser(browser);
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
    void closeBrowser(this.browser);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}
