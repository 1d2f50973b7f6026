/**
 * The navigation Lighthouse measures, driven by us (Lighthouse's "requestor" callback): navigate, then
 * hold the load open until it is over by the spec's rule (onload, then 2 s of network silence, or just
 * onload with stop_onload) and then as long as Lighthouse's observed TTI needs (at most 10 s more). Lighthouse
 * stops its trace and devtools log when this resolves. Hopeless loads (net errors, HTTP >= 400) are
 * reported at once through `onFailure` so the run can end without waiting out Lighthouse's timeouts.
 */
import type { CDPSession, Page, Protocol } from 'puppeteer-core';
import { httpStatusMessage } from './failures.js';
import { ACTIVITY_EVENTS, NETWORK_QUIET_MS, NetworkActivity, usesNetwork } from './network-activity.js';

/**
 * Observed TTI needs a 5 s window without long tasks (and with at most 2 requests in flight) after FCP,
 * ending inside the trace. Lighthouse's own margin is 250 ms; we keep it.
 */
const TTI_WINDOW_MS = 5250;
/** How long past network quiet we wait for that window before giving up on TTI (and TBT, score). */
const TTI_MAX_EXTRA_MS = 10_000;

/**
 * What starts the navigation: the URL asked for (Page.navigate), or a step of a journey that navigates (a click),
 * which rejects when the step itself fails.
 */
export type NavigationTrigger =
  | { url: string }
  | { run(): Promise<void>; describeFailure(err: unknown): string; noNavigation: string; navigationWithinMs: number };

export interface LoadWaitOptions {
  session: CDPSession;
  page: Page;
  trigger: NavigationTrigger;
  mainFrameId: string;
  stopOnload: boolean;
  /** Hold the load open for observed TTI's window (Lighthouse reports only: TTI, TBT and the score need it). */
  waitForTti: boolean;
  maxWaitMs: number;
  /** Runs right before the navigation (after Lighthouse prepared the page): the host's CPU sample. */
  beforeNavigate?(): Promise<void>;
  /** Called once when the load cannot succeed; the caller ends the run with this message. */
  onFailure(message: string): void;
  /** True once the run was stopped from outside (timeout, abort): stop waiting. */
  isStopped(): boolean;
  /** Turns a net error of the main document into a message. */
  describeNavigationError(errorText: string): string | Promise<string>;
}

export interface LoadWait {
  requestor: () => Promise<void>;
  /**
   * Epoch ms when the load was over by the spec's rule (the last network activity before the quiet window,
   * or the load event with stop_onload); undefined until then, or when the load never got there.
   */
  loadOverAt(): number | undefined;
  warnings: string[];
  /** performance.now() when the navigation was asked for: the start of the page's own observation. */
  navigationStartedAt(): number | undefined;
  /** Whether the main document's response (headers) arrived. */
  mainDocumentResponded(): boolean;
  /**
   * Resolves with the failure message once the load failed and Lighthouse's own waits are over (the
   * error page fired its load event, or 2 s passed): closing the browser then ends Lighthouse at once,
   * instead of its ~5 s trace flush of an error page, and leaves none of its wait timers running.
   */
  failed: Promise<string>;
  /** Stops listening to the session (the next navigation of a journey has a load wait of its own). */
  dispose(): void;
}

// Reads the end of the last long task and FCP in the page (a string: see capture/timings.ts).
const CPU_STATE = `(() => {
  let end = 0;
  try {
    const o = new PerformanceObserver(() => undefined);
    o.observe({ type: 'longtask', buffered: true });
    for (const e of o.takeRecords()) end = Math.max(end, e.startTime + e.duration);
    o.disconnect();
  } catch (e) {}
  const fcp = performance.getEntriesByName('first-contentful-paint', 'paint')[0];
  return { now: performance.now(), lastLongTaskEnd: end, fcp: fcp ? fcp.startTime : -1 };
})()`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A long task, in Lighthouse's TTI as in the longtask observer. */
const LONG_TASK_MS = 50;

/**
 * The main thread's tasks the page cannot observe. The longtask observer reports only the page's own work, but
 * Lighthouse's TTI counts every top-level task of the renderer's main thread in its trace: a garbage collection's
 * (seen: a 57 ms "finalize incremental marking" task, 0.7 s after FCP, on a machine busy with other loads, and no
 * TTI in the report). The renderer's total task time (Performance.getMetrics' TaskDuration), sampled from the load
 * event on, shows them: a sample interval with 50 ms or more of it may hold a long task, and is counted as one.
 */
export class MainThreadSampler {
  private lastTotal: number | undefined;
  private busyUntil = 0;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(private readonly session: Pick<CDPSession, 'send'>, private readonly intervalMs = 200) {}

  start(): void {
    if (!this.stopped) this.running ??= this.run();
  }

  /** Epoch ms of the end of the last sample interval that may hold a long task (0: none seen). */
  lastBusyAt(): number {
    return this.busyUntil;
  }

  /** Stops sampling (not waiting for a sample under way: the page may be gone or hung). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    void this.running?.then(() => this.session.send('Performance.disable')).catch(() => undefined);
  }

  private async run(): Promise<void> {
    try {
      await this.session.send('Performance.enable');
      while (!this.stopped) {
        const { metrics } = await this.session.send('Performance.getMetrics');
        const total = (metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0) * 1000;
        // A new renderer (a navigation to another site) starts its total again.
        if (this.lastTotal !== undefined && total - this.lastTotal >= LONG_TASK_MS) this.busyUntil = Date.now();
        this.lastTotal = total;
        await sleep(this.intervalMs);
      }
    } catch {
      // The page closed, or the protocol has no Performance domain: the page's own observer alone decides.
    }
  }
}

export function createLoadWait(o: LoadWaitOptions): LoadWait {
  const { session, mainFrameId } = o;
  const warnings: string[] = [];
  let failed = false;
  let lastActivity = 0;
  let loadFiredAt: number | undefined;
  let loadOverAt: number | undefined;
  let mainStatus: { status: number; statusText: string } | undefined;
  let navigationStartedAt: number | undefined;
  const inFlight = new Set<string>();
  let twoQuietSince = Date.now();
  const mainThread = new MainThreadSampler(session);

  let settleFailure: (message: string) => void = () => undefined;
  const failedPromise = new Promise<string>((resolve) => (settleFailure = resolve));
  const fail = (message: string): void => {
    if (failed) return;
    failed = true;
    o.onFailure(message);
    const since = Date.now();
    const settle = (): void => {
      if (loadFiredAt !== undefined || Date.now() - since >= 2000) setTimeout(() => settleFailure(message), 100);
      else setTimeout(settle, 50);
    };
    settle();
  };
  const checkStatus = (): void => {
    if (mainStatus && mainStatus.status >= 400) fail(httpStatusMessage(mainStatus.status, mainStatus.statusText));
  };
  const updateInFlight = (): void => {
    if (inFlight.size > 2) twoQuietSince = Infinity;
    else if (twoQuietSince === Infinity) twoQuietSince = Date.now();
  };

  const listening: [string, (params: never) => void][] = [];
  const listen = <T>(event: string, handler: (params: T) => void): void => {
    session.on(event as never, handler as never);
    listening.push([event, handler as (params: never) => void]);
  };
  const activity = new NetworkActivity((t) => (lastActivity = Math.max(lastActivity, t)));
  for (const event of ACTIVITY_EVENTS) {
    listen(event, (params: { requestId?: string }) => activity.event(event, params, Date.now()));
  }
  const latestActivity = (): number => Math.max(lastActivity, activity.latestWaiting());
  let navigationSeen = false;
  const documents = new Set<string>();
  listen('Network.requestWillBeSent', (e: Protocol.Network.RequestWillBeSentEvent) => {
    // As Lighthouse's TTI counts (network-monitor.js findNetworkQuietPeriods): requests that go over the network,
    // web sockets aside. A worker's blob: script never finishes on the page's session (its worker's target sees it
    // end), so counted it held off TTI's quiet window until its cap on every page that starts three workers.
    if (usesNetwork(e.request.url) && !/^wss?:/i.test(e.request.url)) {
      inFlight.add(e.requestId);
      updateInFlight();
    }
    if (e.type === 'Document' && e.frameId === mainFrameId) {
      navigationSeen = true;
      documents.add(e.requestId);
    }
  });
  const finished = (e: { requestId: string }): void => {
    inFlight.delete(e.requestId);
    updateInFlight();
  };
  listen('Network.loadingFinished', finished);
  listen('Network.loadingFailed', (e: Protocol.Network.LoadingFailedEvent) => {
    finished(e);
    // A navigation a step started (a click) fails here, not in Page.navigate's answer; one replaced by another is not a failure.
    if (!('url' in o.trigger) && documents.has(e.requestId) && !e.canceled && !failed) {
      void Promise.resolve(o.describeNavigationError(e.errorText)).then(fail, () => fail(`The page could not be loaded (${e.errorText})`));
    }
  });
  // The status of the main document's final response (redirect hops carry no responseReceived).
  listen('Network.responseReceived', (e: Protocol.Network.ResponseReceivedEvent) => {
    if (e.type === 'Document' && e.frameId === mainFrameId) mainStatus = e.response;
  });
  listen('Page.domContentEventFired', checkStatus);
  listen('Page.loadEventFired', () => {
    loadFiredAt ??= Date.now();
    if (o.waitForTti) mainThread.start();
    checkStatus();
  });

  async function waitUntil(done: () => boolean | Promise<boolean>, deadline: number, pollMs = 50): Promise<boolean> {
    while (!failed && !o.isStopped()) {
      if (await done()) return true;
      if (Date.now() >= deadline) return false;
      await sleep(pollMs);
    }
    return false;
  }

  async function ttiWindowReached(): Promise<boolean> {
    if (Date.now() - twoQuietSince < TTI_WINDOW_MS) return false;
    if (Date.now() - mainThread.lastBusyAt() < TTI_WINDOW_MS) return false;
    // A page busy for 2 s is not quiet; a page that navigated away has no TTI to wait for.
    const state = o.page.evaluate(CPU_STATE).catch(() => undefined);
    const cpu = (await Promise.race([state, sleep(2000).then(() => undefined)])) as
      | { now: number; lastLongTaskEnd: number; fcp: number }
      | undefined;
    return cpu !== undefined && cpu.fcp >= 0 && cpu.now - Math.max(cpu.lastLongTaskEnd, cpu.fcp) >= TTI_WINDOW_MS;
  }

  async function requestor(): Promise<void> {
    const deadline = Date.now() + o.maxWaitMs;
    // Never reject: Lighthouse awaits this promise only after its own waits, and an early rejection would
    // be unhandled meanwhile. Failures travel through onFailure instead.
    try {
      await o.beforeNavigate?.();
      navigationStartedAt = performance.now();
      const { trigger } = o;
      if ('url' in trigger) {
        const { errorText } = await session.send('Page.navigate', { url: trigger.url });
        if (errorText) return fail(await o.describeNavigationError(errorText));
      } else {
        const asked = Date.now();
        try {
          await trigger.run();
        } catch (err) {
          return fail(trigger.describeFailure(err));
        }
        // The step said it navigates: a navigation must start (its own errors are the load's, as above).
        if (!(await waitUntil(() => navigationSeen || loadFiredAt !== undefined, asked + trigger.navigationWithinMs))) {
          if (!failed && !o.isStopped()) fail(trigger.noNavigation);
          return;
        }
      }
      if (!(await waitUntil(() => loadFiredAt !== undefined, deadline))) {
        if (!failed) warnings.push(`The page did not fire its load event within ${Math.round(o.maxWaitMs / 1000)} s`);
        return;
      }
      if (!o.stopOnload) {
        const quiet = await waitUntil(
          () => Date.now() - Math.max(latestActivity(), loadFiredAt ?? 0) >= NETWORK_QUIET_MS, deadline);
        if (!quiet) {
          if (!failed) warnings.push(`The network did not go quiet within ${Math.round(o.maxWaitMs / 1000)} s`);
          return;
        }
        loadOverAt = Math.max(latestActivity(), loadFiredAt ?? 0);
      } else {
        loadOverAt = loadFiredAt;
      }
      // Also with stop_onload: without this window there is no TTI, TBT or performance score. The load
      // itself (HAR, byte and request counts, filmstrip) still ends at onload; see run.ts.
      if (o.waitForTti) await waitUntil(ttiWindowReached, Math.min(deadline, Date.now() + TTI_MAX_EXTRA_MS), 200);
    } catch {
      // The browser was closed under us (abort, timeout or failure): the caller knows why.
    } finally {
      mainThread.stop();
    }
  }

  const dispose = (): void => {
    mainThread.stop();
    for (const [event, handler] of listening.splice(0)) session.off(event as never, handler as never);
  };
  return { requestor, loadOverAt: () => loadOverAt, warnings, navigationStartedAt: () => navigationStartedAt,
    mainDocumentResponded: () => mainStatus !== undefined, failed: failedPromise, dispose };
}
