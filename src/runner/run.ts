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
import type { RunResult, RunSpec } from './types.js';
import { resolveEmulation } from './conditions/emulation.js';
import { lighthouseConfig, warmLighthouse, type LighthouseGather } from './lighthouse.js';
import { loadWaitLimit, planLoad } from './load/context.js';
import { setUpLoad } from './load/setup.js';
import { gatherSteps } from './load/navigate.js';
import { collect } from './load/collect.js';
import { cleanUp } from './load/cleanup.js';
import { runFirefoxTest } from './firefox/load.js';

export { RunError } from './types.js';

/**
 * What the runner does once per process, done when an agent warms up rather than in its first test: Lighthouse's
 * configuration of a default desktop load resolved (lighthouse.ts) for each of its gathers (its report, the network
 * alone, a journey's metrics), which also loads Lighthouse's audits.
 */
export function warmRunner(timeoutMs: number): Promise<void> {
  const emulation = resolveEmulation({} as RunSpec['options'], undefined, '');
  const warm = (gather: LighthouseGather) =>
    warmLighthouse(lighthouseConfig({ emulation, throttle: undefined, maxWaitForLoadMs: loadWaitLimit(timeoutMs), gather }));
  return warm('performance').then(() => warm('network')).then(() => warm('metrics'));
}

/**
 * One load, in phases over one load context (load/context.ts), as Lighthouse's navigation runner runs its own: set up
 * (load/setup.ts), navigate and gather (load/navigate.ts), collect (load/collect.ts), clean up (load/cleanup.ts); the
 * whole under the run's deadline (load/deadline.ts), which stops it at spec.timeoutMs or spec.signal.
 */
export function runTest(spec: RunSpec): Promise<RunResult> {
  // Firefox has no CDP and no Lighthouse: the same phases over WebDriver BiDi (firefox/load.ts).
  return spec.browser === 'firefox' ? runFirefoxTest(spec) : runChromeTest(spec);
}

async function runChromeTest(spec: RunSpec): Promise<RunResult> {
  const plan = planLoad(spec);
  try {
    const work = (async () => {
      spec.onPhase?.('launching');
      const ctx = await setUpLoad(plan);
      spec.onPhase?.('loading');
      return collect(ctx, await gatherSteps(ctx));
    })();
    work.catch(() => undefined); // if the deadline wins the race, this settles later, when the browser is gone
    return await plan.deadline.race(work);
  } finally {
    await cleanUp(plan);
  }
}
