/**
 * What a Firefox load reads from its page once the load is over: the navigation and paint timings every browser
 * reports (capture/timings.ts), with Firefox's own first paint (its Paint Timing has only first-contentful-paint:
 * `performance.timing.timeToNonBlankPaint`, enabled by prefs.ts, is the first paint of anything), the largest
 * contentful paint, and the decoded body sizes of resource timing (the HAR's content.size, which BiDi leaves at 0).
 */
import type { Page } from 'puppeteer-core';
import { readTimings, type PageTimings } from '../capture/timings.js';

export interface FirefoxPageReadings {
  timings: PageTimings;
  /** ms since navigation start; undefined when the engine reported none. */
  largestContentfulPaint?: number;
  decodedSizes: Map<string, number>;
}

// A string, not a function: see capture/timings.ts.
const FIREFOX_READINGS = `(() => {
  const t = performance.timing;
  const nonBlank = t && t.timeToNonBlankPaint > 0 ? t.timeToNonBlankPaint - t.navigationStart : -1;
  let lcp = -1;
  try {
    const o = new PerformanceObserver(() => undefined);
    o.observe({ type: 'largest-contentful-paint', buffered: true });
    for (const e of o.takeRecords()) lcp = Math.max(lcp, e.startTime);
    o.disconnect();
  } catch (e) {}
  const sizes = [];
  const nav = performance.getEntriesByType('navigation')[0];
  for (const r of [nav, ...performance.getEntriesByType('resource')]) if (r && r.decodedBodySize > 0) sizes.push([r.name, r.decodedBodySize]);
  return { nonBlank, lcp, sizes };
})()`;

export async function readFirefoxPage(page: Page): Promise<FirefoxPageReadings | undefined> {
  const timings = await readTimings(page);
  if (!timings) return undefined;
  const r = (await page.evaluate(FIREFOX_READINGS)) as { nonBlank: number; lcp: number; sizes: [string, number][] };
  return {
    timings: { ...timings, firstPaint: r.nonBlank >= 0 ? r.nonBlank : timings.firstPaint },
    largestContentfulPaint: r.lcp >= 0 ? Math.round(r.lcp) : undefined,
    decodedSizes: new Map(r.sizes),
  };
}
