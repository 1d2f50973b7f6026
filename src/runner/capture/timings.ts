/**
 * Navigation timings read from the page after the load (PerformanceNavigationTiming + paint entries).
 * Lighthouse's own observed DOMContentLoaded is unreliable, the page's timeline is not.
 */
import type { Page } from 'puppeteer-core';
import type { RunMetrics } from '../types.js';

export interface PageTimings {
  /** performance.timeOrigin: navigation start as epoch ms (the filmstrip's zero). */
  timeOrigin: number;
  url: string;
  responseStart: number;
  domInteractive: number;
  domContentLoadedEventStart: number;
  domContentLoadedEventEnd: number;
  loadEventStart: number;
  loadEventEnd: number;
  /** -1 when the page never painted. */
  firstPaint: number;
  firstContentfulPaint: number;
}

// A string, not a function: it runs in the page, and transpilers may wrap functions with helpers
// (e.g. esbuild's __name) that do not exist there.
const READ_TIMINGS = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const paint = (name) => { const e = performance.getEntriesByName(name, 'paint')[0]; return e ? e.startTime : -1; };
  if (!nav) return null;
  return {
    timeOrigin: performance.timeOrigin, url: location.href,
    responseStart: nav.responseStart, domInteractive: nav.domInteractive,
    domContentLoadedEventStart: nav.domContentLoadedEventStart, domContentLoadedEventEnd: nav.domContentLoadedEventEnd,
    loadEventStart: nav.loadEventStart, loadEventEnd: nav.loadEventEnd,
    firstPaint: paint('first-paint'), firstContentfulPaint: paint('first-contentful-paint'),
  };
})()`;

export async function readTimings(page: Page): Promise<PageTimings | undefined> {
  return ((await page.evaluate(READ_TIMINGS)) as PageTimings | null) ?? undefined;
}

/** The report metrics read from the page's navigation and paint timing. */
export type TimingFigures = Pick<
  RunMetrics,
  'time_to_first_byte'
  | 'first_paint_time'
  | 'first_contentful_paint'
  | 'dom_interactive_time'
  | 'dom_content_loaded_time'
  | 'dom_content_loaded_duration'
  | 'onload_time'
  | 'onload_duration'
>;

/** All integers, ms since navigation start. */
export function timingFigures(t: PageTimings): TimingFigures {
  const r = (n: number): number => Math.max(0, Math.round(n));
  const fcp = t.firstContentfulPaint >= 0 ? t.firstContentfulPaint : 0;
  return {
    time_to_first_byte: r(t.responseStart),
    // Chromium reports first-paint whenever it paints; fall back to FCP if only that exists.
    first_paint_time: r(t.firstPaint >= 0 ? t.firstPaint : fcp),
    first_contentful_paint: r(fcp),
    dom_interactive_time: r(t.domInteractive),
    dom_content_loaded_time: r(t.domContentLoadedEventStart),
    dom_content_loaded_duration: r(t.domContentLoadedEventEnd - t.domContentLoadedEventStart),
    onload_time: r(t.loadEventStart),
    onload_duration: r(t.loadEventEnd - t.loadEventStart),
  };
}
