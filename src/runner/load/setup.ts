/**
 * The load's set-up: its browser (taken from the agent's launched ahead, or launched), the emulated screen and user
 * agent, the host's benchmark index, the page's session with the cookies, the request interceptor, the screencast,
 * and the load wait that drives the navigation (load-wait.ts) with Lighthouse's configuration of the load.
 */
import type { Browser, CDPSession, Page, Protocol } from 'puppeteer-core';
import type { RunSpec } from '../types.js';
import { closeGuarded, launchGuarded, readHost, type GuardedBrowser } from '../launch-ahead.js';
import { resolveEmulation, userAgentMetadata, type Emulation } from '../conditions/emulation.js';
import { setCookies } from '../conditions/cookies.js';
import { startInterceptor } from '../conditions/interceptor.js';
import { afterLoadFetcher } from '../conditions/after-load-fetch.js';
import { createLoadWait, type LoadWait, type NavigationTrigger } from '../load-wait.js';
import { StepReplayer } from '../journey/replay.js';
import { StepType } from '@puppeteer/replay';
import { lighthouseConfig, lighthouseGather, provideBenchmarkIndex } from '../lighthouse.js';
import { navigationErrorMessage } from '../failures.js';
import { startScreencast } from '../capture/filmstrip.js';
import { sampleCpu } from '../host-load.js';
import { calibrateCpu, cpuUsed, type CpuUsed } from '../cpu-calibration.js';
import type { LoadContext, LoadPlan } from './context.js';
import { feedsLighthouse } from '../conditions/types.js';

export async function setUpLoad(plan: LoadPlan): Promise<LoadContext> {
  const { spec, timer } = plan;
  const { options, conditions } = spec;
  plan.deadline.adopt(await takeBrowser(plan));
  const { browser, connections } = plan.deadline.launched!;
  timer.end('launch');

  const page = (await browser.pages())[0] ?? (await browser.newPage());
  const emulation = await emulate(page, spec, browser, plan.steps.recording);
  const benchmarkIndex = await benchmarkHost(spec, browser);
  const cpu = await deviceCpu(spec, page, benchmarkIndex);
  timer.end('benchmark');

  const { session, mainFrameId } = await openSession(page);
  const warnings = await setCookies(session, options.url, conditions.cookies);
  if (cpu && !cpu.reachable) {
    warnings.push(`This test agent's CPU (benchmark index ${Math.round(cpu.hostIndex)}) is slower than the device's ` +
      `(${cpu.target}): the device's speed was not reachable on this agent, so the page ran on the agent's CPU, unthrottled.`);
  }
  const gather = lighthouseGather({ options, journey: plan.steps.journey });
  const interceptor = await startInterceptor({ session, mainFrameId, testedUrl: options.url, ...plan.filters,
    sourceMaps: gather === 'performance' });
  const screencast = await startScreencast(session);
  const browserPid = browser.process()?.pid;
  const ctx: LoadContext = {
    ...plan, browser, connections, browserPid, page, session, mainFrameId, emulation, benchmarkIndex, cpu, interceptor,
    screencast, warnings, mainDocumentUrl: options.url, progress: [],
    replayer: new StepReplayer(browser, page, plan.steps.recording, plan.steps.secrets),
    fetchAfterLoad: afterLoadFetcher({ policy: spec.policy, dns: conditions.dns, extraCertificates: spec.trustStore?.certificates,
      named: interceptor.namedSourceMap }),
    config: lighthouseConfig({ emulation, throttle: conditions.throttle, cpuRate: cpu?.rate, maxWaitForLoadMs: plan.maxWaitMs,
      gather }),
  };
  session.on('Network.requestWillBeSent', (e: Protocol.Network.RequestWillBeSentEvent) => {
    if (e.type === 'Document' && e.frameId === mainFrameId) ctx.mainDocumentUrl = e.request.url;
  });
  timer.end('setup');
  return ctx;
}

/**
 * The load's browser: the one launched ahead, given the load's `dns` entries and link, or a fresh one. Every
 * connection of the browser goes through its guard: the operator's target policy, addresses pinned, the link.
 */
async function takeBrowser(plan: LoadPlan): Promise<GuardedBrowser> {
  const { conditions } = plan.spec;
  let prepared = await plan.ahead?.take();
  if (prepared) {
    try {
      await prepared.connections.configure(conditions.dns, conditions.throttle);
    } catch {
      await closeGuarded(prepared);
      prepared = undefined;
    }
  }
  return prepared ?? await launchGuarded(plan.launchSettings,
    { dns: conditions.dns, link: conditions.throttle, sameProcessFrames: plan.sameProcessFrames });
}

/**
 * The screen is emulated on puppeteer's own session as well as by Lighthouse: Lighthouse's session (and its
 * emulation) goes away when it finishes, and the screenshot and RUM SpeedIndex come after that. A journey whose
 * first step is a setViewport is measured on the screen it recorded.
 */
async function emulate(page: Page, spec: RunSpec, browser: Browser, recording: LoadContext['steps']['recording']): Promise<Emulation> {
  const first = recording.steps[0];
  const screen = first?.type === StepType.SetViewport
    ? { width: first.width, height: first.height, dppx: first.deviceScaleFactor, mobile: first.isMobile }
    : undefined;
  const emulation = resolveEmulation(spec.options, spec.device, await browser.userAgent(), screen, spec.conditions.device.phoneScreen);
  await page.setViewport({ width: emulation.width, height: emulation.height, deviceScaleFactor: emulation.dppx,
    isMobile: emulation.mobile, hasTouch: emulation.mobile });
  await page.setUserAgent({
    userAgent: emulation.userAgent,
    userAgentMetadata: userAgentMetadata(emulation.userAgent, emulation.mobile),
  });
  return emulation;
}

/**
 * The host's benchmark index: the agent's reading, taken while it was idle; without one, and for the agent's
 * host-quality check, Lighthouse's CPU benchmark (about 1 s) in this browser now. Lighthouse reports it and does
 * not measure it again.
 */
async function benchmarkHost(spec: RunSpec, browser: Browser): Promise<number | undefined> {
  let benchmarkIndex = spec.benchmarkIndex;
  if (benchmarkIndex === undefined && spec.measureHost) benchmarkIndex = (await readHost(browser)).benchmarkIndex;
  if (benchmarkIndex !== undefined) provideBenchmarkIndex(benchmarkIndex);
  return benchmarkIndex;
}

/**
 * The CPU of the load's device class: the agent's calibration, or (none given: a stand-in agent, a calibration that
 * failed) one made now in this browser for the class's target alone. A host slower than the target runs unthrottled.
 */
async function deviceCpu(spec: RunSpec, page: Page, hostIndex: number | undefined): Promise<CpuUsed | undefined> {
  const { deviceClass, cpuTarget } = spec.conditions.device;
  if (cpuTarget === undefined) return undefined;
  if (spec.cpu) return spec.cpu;
  const calibration = await calibrateCpu(page, [cpuTarget], { hostIndex });
  return calibration && cpuUsed(deviceClass, calibration, cpuTarget);
}

/** The device's CPU from here on (`rate` 1: the host's again). Lighthouse clears it when it prepares a step: set after. */
export async function throttleCpu(ctx: Pick<LoadContext, 'cpu' | 'session'>, on: boolean): Promise<void> {
  if (!ctx.cpu || ctx.cpu.rate === 1) return;
  await ctx.session.send('Emulation.setCPUThrottlingRate', { rate: on ? ctx.cpu.rate : 1 });
}

async function openSession(page: Page): Promise<{ session: CDPSession; mainFrameId: string }> {
  const session = await page.createCDPSession();
  await session.send('Page.enable');
  await session.send('Network.enable');
  const mainFrameId = (await session.send('Page.getFrameTree')).frameTree.frame.id;
  return { session, mainFrameId };
}

/**
 * The load wait (load-wait.ts) of one navigation of the load: it navigates when Lighthouse asks (or runs the journey's
 * step that navigates), and holds the load open until it is over. A failure is named after the step in a journey.
 */
export function startLoadWait(ctx: LoadContext, trigger: NavigationTrigger, stepName: string | undefined): LoadWait {
  const { spec, session, page, mainFrameId, browserPid } = ctx;
  const first = ctx.observationStartedAt === undefined;
  return createLoadWait({
    session, page, trigger, mainFrameId, stopOnload: spec.options.stop_onload === 1, maxWaitMs: ctx.maxWaitMs,
    waitForTti: feedsLighthouse(spec.options),
    onFailure: (message) => (ctx.failure ??= stepName ? `${stepName}: ${message}` : message),
    beforeNavigate: async () => {
      // Each navigation on the device's CPU: Lighthouse cleared the throttling while it prepared the step.
      await throttleCpu(ctx, true);
      if (!first) return;
      // The browsers of earlier loads are gone before this one loads the page (they close while it is set up).
      await spec.ahead?.quiet();
      if (spec.measureHost) ctx.cpuAtStart = await sampleCpu(browserPid);
    },
    isStopped: () => ctx.deadline.error !== undefined,
    // Named after the last hop of the main document's redirects: that is the one that failed.
    describeNavigationError: async (errorText) => {
      const { connections } = ctx;
      await connections.settled(); // the guard's verdict on the connection may still be on its way
      return navigationErrorMessage(errorText, ctx.mainDocumentUrl, (host) => connections.ledger.failureOf(host));
    },
  });
}
