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
  /**
   * -1 when the page never painted. Chromium's paint timing (startTime): the paint's presentation time, which headless
   * Chromium reports 40-90 ms after the compositor made the frame (see paintsAsShown).
   */
  firstPaint: number;
  firstContentfulPaint: number;
  /** When the browser painted them (PerformancePaintTiming.paintTime), -1 when it does not say. */
  firstPaintRendered: number;
  firstContentfulPaintRendered: number;
}

// A string, not a function: it runs in the page, and transpilers may wrap functions with helpers
// (e.g. esbuild's __name) that do not exist there.
const READ_TIMINGS = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const entry = (name) => performance.getEntriesByName(name, 'paint')[0];
  const paint = (name) => { const e = entry(name); return e ? e.startTime : -1; };
  const rendered = (name) => { const e = entry(name); return e && typeof e.paintTime === 'number' ? e.paintTime : -1; };
  if (!nav) return null;
  return {
    timeOrigin: performance.timeOrigin, url: location.href,
    responseStart: nav.responseStart, domInteractive: nav.domInteractive,
    domContentLoadedEventStart: nav.domContentLoadedEventStart, domContentLoadedEventEnd: nav.domContentLoadedEventEnd,
    loadEventStart: nav.loadEventStart, loadEventEnd: nav.loadEventEnd,
    firstPaint: paint('first-paint'), firstContentfulPaint: paint('first-contentful-paint'),
    firstPaintRendered: rendered('first-paint'), firstContentfulPaintRendered: rendered('first-contentful-paint'),
  };
})()`;

export async function readTimings(page: Page): Promise<PageTimings | undefined> {
  return ((await page.evaluate(READ_TIMINGS)) as PageTimings | null) ?? undefined;
}

/**
 * The first paints when the screen showed them: the compositor's first frame after the paint (the screencast's frame
 * swap time, `frameWallMs` in epoch ms, the filmstrip's own clock), never later than Chromium's presentation time.
 * Headless Chromium 156 reports a frame's presentation 40-90 ms after it was made (with or without GPU compositing;
 * a screen would show it within a refresh): the filmstrip shows the frame from when it was made, and so do these.
 */
export function paintsAsShown(t: PageTimings, frameWallMs: readonly number[]): PageTimings {
  const frames = frameWallMs.map((w) => w - t.timeOrigin).sort((a, b) => a - b);
  const shown = (rendered: number, presented: number): number => {
    if (rendered < 0 || presented < 0) return presented;
    const frame = frames.find((f) => f >= rendered);
    return frame === undefined ? presented : Math.min(frame, presented);
  };
  return { ...t, firstPaint: shown(t.firstPaintRendered, t.firstPaint),
    firstContentfulPaint: shown(t.firstContentfulPaintRendered, t.firstContentfulPaint) };
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
