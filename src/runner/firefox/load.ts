/**
 * One Firefox load: the same phases as Chromium's (load/: set up, navigate and wait, collect, clean up) over
 * WebDriver BiDi, since Firefox has no CDP and no Lighthouse. The same connection guard (every connection, the
 * target policy, the test's dns entries and throttle link), the same quiet rule of fully loaded (network-activity.ts),
 * the same HAR figures (capture/har.ts) and run deadline (load/deadline.ts). What Firefox cannot measure is absent
 * from the result (CLS, TBT, TTI, Lighthouse's scores), never 0.
 */
import type { Browser, Page } from 'puppeteer-core';
import { RunError, type RunResult, type RunSpec } from '../types.js';
import { PhaseTimer, loadWaitLimit } from '../load/context.js';
import { RunDeadline } from '../load/deadline.js';
import { closeGuarded, launchGuarded, type LaunchSettings } from '../launch-ahead.js';
import { resolveEmulation, type Emulation } from '../conditions/emulation.js';
import type { TestCookie } from '../conditions/types.js';
import { adblockEngine, adblockJudge } from '../conditions/adblock.js';
import { httpStatusMessage, navigationErrorMessage } from '../failures.js';
import { NETWORK_QUIET_MS } from '../network-activity.js';
import { sampleCpu } from '../host-load.js';
import { FirefoxNetwork, GUARD_REFUSALS, NETWORK_EVENTS, type BidiNetworkEvent } from './network.js';
import { judgeRequests, type BidiConnection } from './requests.js';
import { collectFirefoxLoad } from './collect.js';
import type { FirefoxLoad } from './context.js';
import { DEFAULT_FIREFOX_PATH, displayOf } from './launch.js';
import { recordScreen, type ScreenRecording } from './screen-recording.js';

export async function runFirefoxTest(spec: RunSpec): Promise<RunResult> {
  const timer = new PhaseTimer();
  const deadline = new RunDeadline(spec.signal, spec.timeoutMs);
  const settings: LaunchSettings = { chromePath: spec.chromePath, firefoxPath: spec.firefoxPath ?? DEFAULT_FIREFOX_PATH,
    sandbox: spec.sandbox, trustStore: spec.trustStore, protocolTimeoutMs: spec.timeoutMs, policy: spec.policy };
  const ahead = spec.ahead?.fits(settings) ? spec.ahead : undefined;
  let current: FirefoxLoad | undefined;
  try {
    const work = (async () => {
      spec.onPhase?.('launching');
      const load = current = await setUp(spec, settings, ahead, timer, deadline);
      spec.onPhase?.('loading');
      await navigateAndWait(load);
      spec.onPhase?.('auditing');
      return collectFirefoxLoad(load);
    })();
    work.catch(() => undefined); // if the deadline wins the race, this settles later, when the browser is gone
    return await deadline.race(work);
  } finally {
    deadline.dispose();
    void current?.recording?.stop().catch(() => undefined); // a load that failed: ffmpeg must not outlive it
    timer.restart();
    if (ahead) ahead.retire(deadline.launched);
    else await closeGuarded(deadline.launched);
    timer.end('close');
    timer.finish();
  }
}

async function setUp(spec: RunSpec, settings: LaunchSettings, ahead: RunSpec['ahead'], timer: PhaseTimer,
  deadline: RunDeadline): Promise<FirefoxLoad> {
  const { conditions, options } = spec;
  let launched = await ahead?.take();
  if (launched) {
    try {
      await launched.connections.configure(conditions.dns, conditions.throttle);
    } catch {
      await closeGuarded(launched);
      launched = undefined;
    }
  }
  launched ??= await launchGuarded(settings, { dns: conditions.dns, link: conditions.throttle });
  deadline.adopt(launched);
  const { browser } = launched;
  timer.end('launch');

  const warnings: string[] = [];
  // The recording of the viewport starts first (ffmpeg takes a few hundred ms to grab its first frame) and runs while
  // the rest is set up; the load waits for that first frame (the blank page before navigation).
  const recording = startRecording(browser, resolveEmulation(spec.options, spec.device, ''), spec.ffmpegPath, warnings);
  try {
    // puppeteer's BiDi connection (not in its public typings): raw network events, and the commands it has no API for.
    const connection = (browser as unknown as { connection: BidiConnection }).connection;
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    const tree = (await connection.send('browsingContext.getTree', { maxDepth: 0 })).result as { contexts: { context: string }[] };
    const topContext = tree.contexts[0]!.context;
    const emulation = await emulate(page, spec, await browser.userAgent(), warnings);
    await setCookies(connection, options.url, conditions.cookies, warnings);
    const network = new FirefoxNetwork(topContext);
    for (const method of NETWORK_EVENTS) connection.on(method, (e: BidiNetworkEvent) => network.event(method, e));
    const adblock = conditions.adblock ? adblockJudge(adblockEngine(spec.adblockLists)) : undefined;
    await judgeRequests({ page, connection, topContext, testedUrl: options.url, allowUrl: conditions.allowUrl,
      blockUrl: conditions.blockUrl, adblock, auth: conditions.auth });
    const film = await recording;
    timer.end('setup');
    return { spec, timer, deadline, launched, browser, page, connection, topContext, emulation, network, warnings,
      maxWaitMs: loadWaitLimit(spec.timeoutMs), recording: film };
  } catch (err) {
    void recording.then((r) => r?.stop()).catch(() => undefined);
    throw err;
  }
}

/** The film of the load's viewport on the browser's display (display.ts), when it fits on the screen. */
async function startRecording(browser: Browser, screen: Emulation, ffmpegPath: string | undefined, warnings: string[]):
Promise<ScreenRecording | undefined> {
  const display = displayOf(browser);
  if (!display) return undefined;
  const { width, height } = screen;
  if (width > display.width || height > display.height) {
    warnings.push(`No filmstrip or video: the viewport (${width} x ${height}) is larger than Firefox's screen ` +
      `(${display.width} x ${display.height})`);
    return undefined;
  }
  try {
    return await recordScreen({ display, width, height, ffmpegPath });
  } catch (err) {
    warnings.push(`No filmstrip or video: ${(err as Error).message}`);
    return undefined;
  }
}

/**
 * The test's cookies, host-only for the tested URL's host (a domain without a leading dot), in the browser's own
 * cookie store, not partitioned: puppeteer's page.setCookie would partition them by the blank page they are set from.
 */
async function setCookies(connection: BidiConnection, url: string, cookies: readonly TestCookie[], warnings: string[]): Promise<void> {
  const { hostname, host } = new URL(url);
  for (const c of cookies) {
    try {
      await connection.send('storage.setCookie', {
        cookie: { domain: hostname, name: c.name, value: { type: 'string', value: c.value }, path: c.path, secure: c.secure,
          httpOnly: c.httpOnly, ...(c.sameSite ? { sameSite: c.sameSite.toLowerCase() } : {}) },
        partition: { type: 'storageKey', userContext: 'default' },
      });
    } catch {
      warnings.push(`Cookie "${c.name}" could not be set for ${host}`);
    }
  }
}

/** The screen and user agent (conditions/emulation.ts). Firefox emulates no phone's layout viewport (meta viewport). */
async function emulate(page: Page, spec: RunSpec, browserUserAgent: string, warnings: string[]): Promise<Emulation> {
  const emulation = resolveEmulation(spec.options, spec.device, browserUserAgent);
  await page.setViewport({ width: emulation.width, height: emulation.height, deviceScaleFactor: emulation.dppx,
    hasTouch: emulation.mobile, isLandscape: spec.options.browser_rotate === 1 });
  if (emulation.userAgent !== browserUserAgent) await page.setUserAgent({ userAgent: emulation.userAgent });
  if (emulation.mobile) {
    warnings.push('Firefox (Desktop) loaded the page at the device\'s screen size, pixel ratio, touch and user agent, ' +
      'but lays it out as a desktop browser does (it does not emulate a phone\'s meta viewport)');
  }
  return emulation;
}

/**
 * Firefox's errors as Chromium's (failures.ts words them); a failure answered by the guard is explained by its ledger
 * (a refusal of the policy, a host without address, an upstream that refused or timed out).
 */
const NAVIGATION_ERRORS: Record<string, string> = {
  NS_ERROR_NET_RESET: 'net::ERR_CONNECTION_RESET',
  NS_ERROR_NET_INTERRUPT: 'net::ERR_CONNECTION_RESET',
  NS_ERROR_NET_EMPTY_RESPONSE: 'net::ERR_EMPTY_RESPONSE',
  NS_ERROR_REDIRECT_LOOP: 'net::ERR_TOO_MANY_REDIRECTS',
  NS_ERROR_PORT_ACCESS_NOT_ALLOWED: 'net::ERR_UNSAFE_PORT',
  SEC_ERROR_UNKNOWN_ISSUER: 'net::ERR_CERT_AUTHORITY_INVALID',
  MOZILLA_PKIX_ERROR_SELF_SIGNED_CERT: 'net::ERR_CERT_AUTHORITY_INVALID',
  SEC_ERROR_EXPIRED_CERTIFICATE: 'net::ERR_CERT_DATE_INVALID',
  MOZILLA_PKIX_ERROR_NOT_YET_VALID_CERTIFICATE: 'net::ERR_CERT_DATE_INVALID',
  SSL_ERROR_BAD_CERT_DOMAIN: 'net::ERR_CERT_COMMON_NAME_INVALID',
  SEC_ERROR_REVOKED_CERTIFICATE: 'net::ERR_CERT_REVOKED',
};

export function firefoxErrorCode(errorText: string): string {
  const name = /[A-Z][A-Z0-9_]+/.exec(errorText)?.[0] ?? errorText;
  if (GUARD_REFUSALS.has(name)) return 'net::ERR_SOCKS_CONNECTION_FAILED';
  return NAVIGATION_ERRORS[name] ?? `net::${name}`;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Navigates and holds the load open until it is over by the spec's rule: onload, then NETWORK_QUIET_MS of network
 * silence (or onload alone with stop_onload). A hopeless load (a net error or an HTTP error of the main document)
 * ends at once with the user's message.
 */
async function navigateAndWait(load: FirefoxLoad): Promise<void> {
  const { spec, network, connection, topContext, timer } = load;
  const stopOnload = spec.options.stop_onload === 1;
  let failure: string | undefined;
  network.onMainDocument = (doc) => {
    if (failure) return;
    if (doc.error) {
      const describe = async (): Promise<string> => {
        await load.launched.connections.settled();
        return navigationErrorMessage(firefoxErrorCode(doc.error!), doc.url, (h) => load.launched.connections.ledger.failureOf(h));
      };
      failure = 'pending';
      void describe().then((message) => (failure = message));
    } else if (doc.status !== undefined && doc.status >= 400) {
      failure = httpStatusMessage(doc.status, doc.statusText);
    }
  };
  connection.on('browsingContext.load', (e: { context: string; url: string }) => {
    if (e.context === topContext && e.url !== 'about:blank') load.loadFiredAt ??= Date.now();
  });
  await spec.ahead?.quiet();
  if (spec.measureHost) load.cpuAtStart = await sampleCpu(load.browser.process()?.pid);
  const started = performance.now();
  await connection.send('browsingContext.navigate', { context: topContext, url: spec.options.url, wait: 'none' })
    .catch((err: Error) => {
      failure ??= navigationErrorMessage(firefoxErrorCode(err.message), spec.options.url);
    });
  const deadline = Date.now() + load.maxWaitMs;
  const waitUntil = async (done: () => boolean): Promise<boolean> => {
    while (!done()) {
      if (failure !== undefined || load.deadline.error || Date.now() >= deadline) return false;
      await sleep(25);
    }
    return true;
  };
  const seconds = Math.round(load.maxWaitMs / 1000);
  if (await waitUntil(() => load.loadFiredAt !== undefined)) {
    if (stopOnload) load.loadOverAt = load.loadFiredAt;
    else if (await waitUntil(() => Date.now() - Math.max(network.latestActivity(), load.loadFiredAt!) >= NETWORK_QUIET_MS)) {
      load.loadOverAt = Math.max(network.latestActivity(), load.loadFiredAt!);
    } else if (failure === undefined) load.warnings.push(`The network did not go quiet within ${seconds} s`);
  } else if (failure === undefined && !load.deadline.error) {
    load.warnings.push(`The page did not fire its load event within ${seconds} s`);
  }
  // A main document that failed is described once the guard's verdict is in.
  while (failure === 'pending') await sleep(10);
  timer.phases.observation = Math.round(performance.now() - started);
  // The film ends here: what the screenshot and the collection do to the screen is not the load.
  load.observedUntil = Date.now();
  void load.recording?.stop().catch(() => undefined); // its frames are collected later (collect.ts)
  if (spec.measureHost) load.cpuAtEnd = await sampleCpu(load.browser.process()?.pid);
  // The load is over: from here on nothing reaches the tested site (or anyone else) any more.
  load.launched.connections.seal();
  if (spec.anotherLoadFollows) spec.ahead?.prepare();
  if (load.deadline.error) throw load.deadline.error;
  if (failure !== undefined) throw new RunError(failure);
  timer.end('load');
}
