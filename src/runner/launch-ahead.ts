/**
 * The next load's browser, launched ahead of it: while the agent is idle, or while the previous load's report is
 * being made (that load's measurement is over by then), a fresh browser and profile with a connection guard of
 * their own are made ready, so a load starts at its navigation instead of at a browser launch. Every load still
 * gets a browser and profile that no load used before; the guard gets the load's `dns` entries and link when the
 * load takes it. A load whose browser must be launched otherwise (cross-site frames kept in the page's process
 * for the request interceptor) launches its own, and the prepared one waits for the next load.
 *
 * The host readings of the agent's host-quality check (agent/host-check.ts) are taken here too, the same way every
 * time: Lighthouse's CPU benchmark, one sample, in a browser launched ahead and otherwise idle, with the CPU other
 * processes used meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'puppeteer-core';
import { pageFunctions } from 'lighthouse/core/lib/page-functions.js';
import type { TargetPolicy } from '../net/policy.js';
import type { DnsOverride } from '../net/resolve.js';
import { closeBrowser, launchBrowser, type BrowserSandbox } from './browser.js';
import { GuardThread } from './conditions/guard-thread.js';
import { launchFirefox } from './firefox/launch.js';
import type { LinkShape } from './conditions/link.js';
import { otherCpuCores, sampleCpu } from './host-load.js';
import type { TrustStore } from './trust-store.js';
import { calibrateCpu, type CpuCalibration } from './cpu-calibration.js';

/** How long a browser launched ahead may take to answer before it is taken for dead. */
const ANSWER_MS = 2000;
/**
 * A reading of the host takes about 1 s. One seen hanging until the protocol timeout (60 s: the agent's warm-up, and
 * so its first claim, held that long) gives up sooner: the browser is dropped and the loads read the host themselves.
 */
const HOST_READING_MS = 10_000;
/** A calibration is at most MAX_RUNS benchmark runs of about 1 s; one that takes far longer is given up, as a reading. */
const CALIBRATION_MS = 20_000;

/** What every browser of an agent is launched with: the agent's settings, the same for all its loads. */
export interface LaunchSettings {
  chromePath: string;
  /** Set for Firefox: the browsers are this Firefox (firefox/launch.ts), not Chromium. */
  firefoxPath?: string;
  sandbox?: BrowserSandbox;
  trustStore?: TrustStore;
  /** The run time limit: no protocol call of the load waits longer. */
  protocolTimeoutMs: number;
  /** The operator's target policy, which the browser's connection guard enforces. */
  policy: TargetPolicy;
}

/** A fresh browser whose every connection goes through its own connection guard. */
export interface GuardedBrowser {
  browser: Browser;
  connections: GuardThread;
}

/** Lighthouse's benchmark index of the host, and how busy other processes kept it meanwhile. */
export interface HostReading {
  benchmarkIndex: number;
  /** CPU cores other processes used during the reading (undefined where /proc is missing). */
  otherCpuCores?: number;
  /** Date.now() when taken. */
  at: number;
}

/** Launches a browser with a guard of its own (the guard first: the browser's flags name its port). */
export async function launchGuarded(s: LaunchSettings, load: { dns: readonly DnsOverride[]; link?: LinkShape; sameProcessFrames?: boolean }):
Promise<GuardedBrowser> {
  const connections = await GuardThread.start(s.policy, load.dns, load.link);
  try {
    const browser = s.firefoxPath ? await launchFirefox({ firefoxPath: s.firefoxPath, sandbox: s.sandbox,
      guardPort: connections.port, protocolTimeoutMs: s.protocolTimeoutMs, trustStore: s.trustStore }) : await launchBrowser({
      chromePath: s.chromePath,
      sandbox: s.sandbox,
      flags: connections.browserFlags(),
      sameProcessFrames: load.sameProcessFrames,
      protocolTimeoutMs: s.protocolTimeoutMs,
      trustStore: s.trustStore,
    });
    return { browser, connections };
  } catch (err) {
    await connections.close();
    throw err;
  }
}

export async function closeGuarded(g: GuardedBrowser | undefined): Promise<void> {
  if (!g) return;
  await closeBrowser(g.browser);
  await g.connections.close();
}

/** One sample of Lighthouse's benchmark index in this browser, with the CPU other processes used meanwhile. */
export async function readHost(browser: Browser): Promise<HostReading> {
  const page = (await browser.pages())[0] ?? (await browser.newPage());
  const pid = browser.process()?.pid;
  const before = await sampleCpu(pid);
  const benchmarkIndex = await page.evaluate(pageFunctions.computeBenchmarkIndex);
  const after = await sampleCpu(pid);
  return { benchmarkIndex, otherCpuCores: before && after ? otherCpuCores(before, after) : undefined, at: Date.now() };
}

/** `work`'s outcome, or `late` once `ms` passed without one (the timer does not outlive the race). */
async function within<T, L>(work: Promise<T>, ms: number, late: L): Promise<T | L> {
  const timer = new AbortController();
  try {
    return await Promise.race([work, sleep(ms, late, { signal: timer.signal }).catch(() => late)]);
  } finally {
    timer.abort();
  }
}

/**
 * Lighthouse makes an Intl.Segmenter in the blank page before every navigation (prepare.js warmUpIntlSegmenter), so
 * its page functions do not pay ICU's first use later; the first one in a renderer costs 30-60 ms here. A browser
 * launched ahead makes it while it waits, off the load's path (Lighthouse's own is then ~1 ms). Never rejects, and
 * waits at most ANSWER_MS: a browser that does not answer is found out by take(), which closes it.
 */
async function warmForLighthouse(g: GuardedBrowser): Promise<GuardedBrowser> {
  const warm = async (): Promise<void> => {
    const page = (await g.browser.pages())[0];
    await page?.evaluate(`[...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment('aaa')].length`);
  };
  await within(warm().catch(() => undefined), ANSWER_MS, undefined);
  return g;
}

export class LaunchAhead {
  private next: Promise<GuardedBrowser | undefined> | undefined;
  /** A reading of the host or a calibration under way in the browser launched ahead: a load takes that browser only after it. */
  private reading: Promise<unknown> | undefined;
  /** Browsers of finished loads still closing: the next load does not navigate before they are gone. */
  private readonly closing = new Set<Promise<void>>();
  private closed = false;
  /** A load asked for the browser: a calibration in it stops at its next benchmark run. */
  private wanted = false;

  constructor(readonly settings: LaunchSettings) {}

  /** Whether a load with these settings can take this agent's browsers (the agent's own loads always can). */
  fits(s: LaunchSettings): boolean {
    const a = this.settings;
    return a.chromePath === s.chromePath && a.firefoxPath === s.firefoxPath && a.sandbox === s.sandbox && a.trustStore === s.trustStore &&
      a.protocolTimeoutMs === s.protocolTimeoutMs && a.policy === s.policy;
  }

  /**
   * The device classes' CPU calibrated (cpu-calibration.ts) in the browser launched ahead, after `hostIndex` (a reading
   * just taken); undefined if it failed, or stopped because a load wanted the browser (after at most one benchmark run).
   */
  async calibrate(targets: readonly number[], hostIndex: number | undefined): Promise<CpuCalibration | undefined> {
    if (this.settings.firefoxPath) return undefined;
    this.wanted = false;
    return this.inAheadBrowser(async (browser) => {
      const page = (await browser.pages())[0] ?? (await browser.newPage());
      return calibrateCpu(page, targets, { hostIndex, stop: () => this.wanted || this.closed });
    }, CALIBRATION_MS);
  }

  /** Starts launching the next load's browser, unless one is ready or on its way. */
  prepare(): void {
    if (this.closed || this.next) return;
    const next = launchGuarded(this.settings, { dns: [] })
      .then(async (g) => (this.settings.firefoxPath ? g : warmForLighthouse(g)))
      .catch(() => undefined);
    this.next = next;
  }

  /** The browser launched ahead, left where it is (for a look at it); undefined when none is ready or on its way. */
  ready(): Promise<GuardedBrowser | undefined> {
    return this.next ?? Promise.resolve(undefined);
  }

  /** The browser launched ahead (waiting for its launch if need be), or undefined: the load launches its own. */
  async take(): Promise<GuardedBrowser | undefined> {
    this.wanted = true; // a calibration under way stops after its current benchmark run
    await this.reading;
    const next = this.next;
    this.next = undefined;
    const ready = await next;
    if (!ready) return undefined;
    // It may have died while it waited (its pipe's end may not have been noticed yet): one round trip tells.
    if (!(await within(ready.browser.version().then(() => true, () => false), ANSWER_MS, false))) {
      await closeGuarded(ready); // the load launches a fresh one
      return undefined;
    }
    return ready;
  }

  /** A reading of the host in the browser launched ahead (launched now if need be); undefined if it failed. */
  readHost(): Promise<HostReading | undefined> {
    return this.inAheadBrowser(readHost, HOST_READING_MS);
  }

  /**
   * `work` in the browser launched ahead (launched now if need be), while no load takes it: undefined if it failed or
   * took longer than `ms` (that browser, which did not answer in time, is then not given to a load).
   */
  private async inAheadBrowser<T>(work: (browser: Browser) => Promise<T | undefined>, ms: number): Promise<T | undefined> {
    this.prepare();
    const next = this.next;
    // Set before the launch is awaited: a load that comes meanwhile takes this browser only after the work.
    const running = (async () => {
      const ready = await next;
      if (!ready) {
        if (this.next === next) this.next = undefined;
        return undefined;
      }
      const outcome = await within(work(ready.browser).catch(() => undefined), ms, 'late' as const);
      if (outcome !== 'late') return outcome;
      if (this.next === next) this.next = undefined;
      this.retire(ready);
      return undefined;
    })();
    this.reading = running;
    try {
      return await running;
    } finally {
      if (this.reading === running) this.reading = undefined;
    }
  }

  /** Closes a finished load's browser without holding up its report; the next load waits for it (quiet()). */
  retire(g: GuardedBrowser | undefined): void {
    if (!g) return;
    const done = closeGuarded(g).finally(() => this.closing.delete(done));
    this.closing.add(done);
  }

  /** Resolves when no browser of an earlier load is still closing. */
  async quiet(): Promise<void> {
    await Promise.all([...this.closing]);
  }

  async close(): Promise<void> {
    this.closed = true;
    const next = this.next;
    this.next = undefined;
    await closeGuarded(await next);
    await this.quiet();
  }
}
