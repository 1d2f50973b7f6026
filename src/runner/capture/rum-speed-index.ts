/**
 * RUM SpeedIndex, computed in the page from paint timing and resource timing: each visible image or
 * background image counts as painted when its resource finished (or at first paint if earlier), the rest
 * of the viewport weighs 10 % at first paint; SpeedIndex integrates the visual incompleteness over time.
 * A compact re-implementation of the algorithm of RUM-SpeedIndex by Patrick Meenan / WPO Foundation
 * (https://github.com/WPO-Foundation/RUM-SpeedIndex, Apache License 2.0). Iframes are not descended into.
 */
import type { Page } from 'puppeteer-core';

// A string, not a function: see timings.ts.
const RUM_SPEED_INDEX = `(() => {
  const vw = Math.max(document.documentElement.clientWidth, innerWidth || 0);
  const vh = Math.max(document.documentElement.clientHeight, innerHeight || 0);
  const paintEntry = performance.getEntriesByName('first-paint', 'paint')[0]
    || performance.getEntriesByName('first-contentful-paint', 'paint')[0];
  const firstPaint = paintEntry ? paintEntry.startTime : 0;
  const loaded = {};
  for (const r of performance.getEntriesByType('resource')) loaded[r.name] = r.responseEnd;
  const rects = [];
  const add = (el, url) => {
    if (!url || url.startsWith('data:')) return;
    const b = el.getBoundingClientRect();
    const w = Math.min(b.right, vw) - Math.max(b.left, 0), h = Math.min(b.bottom, vh) - Math.max(b.top, 0);
    if (w > 0 && h > 0) rects.push({ area: w * h, tm: loaded[url] !== undefined ? loaded[url] : 0 });
  };
  for (const el of document.getElementsByTagName('*')) {
    if (el.tagName === 'IMG') add(el, el.currentSrc || el.src);
    if (el.tagName === 'VIDEO' && el.poster) add(el, el.poster);
    const bg = getComputedStyle(el).backgroundImage;
    const m = bg && /url\\(\\s*['"]?(http[^'")]*)/i.exec(bg);
    if (m) add(el, m[1]);
  }
  const paints = new Map();
  let total = 0;
  for (const r of rects) {
    const tm = Math.max(r.tm, firstPaint);
    paints.set(tm, (paints.get(tm) || 0) + r.area);
    total += r.area;
  }
  const background = Math.max(vw * vh - total, 0) * 0.1;
  paints.set(firstPaint, (paints.get(firstPaint) || 0) + background);
  total += background;
  if (!total) return firstPaint;
  let si = 0, lastTime = 0, progress = 0;
  for (const [tm, area] of [...paints].sort((a, b) => a[0] - b[0])) {
    if (tm > lastTime && progress < 1) si += (1 - progress) * (tm - lastTime);
    lastTime = tm;
    progress += area / total;
  }
  return si;
})()`;

export async function rumSpeedIndex(page: Page): Promise<number> {
  const value = (await page.evaluate(RUM_SPEED_INDEX)) as number;
  return Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0;
}
