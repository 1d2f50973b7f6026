import type { Page } from 'puppeteer-core';

/** Longest page we capture in full, in CSS pixels; beyond that the JPEG gets huge and slow. */
const MAX_HEIGHT = 8000;

/** A full-page JPEG of the page after the load. */
export async function takeScreenshot(page: Page, quality = 80): Promise<Buffer> {
  const { width, height } = (await page.evaluate(
    `({ width: document.documentElement.clientWidth, height: Math.max(document.documentElement.scrollHeight,
      document.body ? document.body.scrollHeight : 0) })`,
  )) as { width: number; height: number };
  const shot = height > MAX_HEIGHT
    ? await page.screenshot({ type: 'jpeg', quality, clip: { x: 0, y: 0, width, height: MAX_HEIGHT },
      captureBeyondViewport: true })
    : await page.screenshot({ type: 'jpeg', quality, fullPage: true });
  return Buffer.from(shot);
}

/**
 * The screen as it is, without scrolling or resizing the page: a journey's report step when later steps follow (a
 * full-page capture would resize the page under them).
 */
export async function takeViewportScreenshot(page: Page, quality = 80): Promise<Buffer> {
  return Buffer.from(await page.screenshot({ type: 'jpeg', quality }));
}
