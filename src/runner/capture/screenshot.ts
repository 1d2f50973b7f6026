import type { Page } from 'puppeteer-core';
import sharp from 'sharp';
import type { RawFrame } from './filmstrip.js';

/** Longest page we capture in full, in CSS pixels; beyond that the JPEG gets huge and slow. */
const MAX_HEIGHT = 8000;

/** How far the page's document reaches, in CSS pixels: the width of its viewport, its height and its scroll width. */
export interface PageExtent {
  width: number;
  height: number;
  scrollWidth: number;
}

// A string, not a function: it runs in the page (see timings.ts).
const READ_EXTENT = `({ width: document.documentElement.clientWidth, scrollWidth: document.documentElement.scrollWidth,
  height: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0) })`;

export async function readPageExtent(page: Page): Promise<PageExtent> {
  return (await page.evaluate(READ_EXTENT)) as PageExtent;
}

/** A full-page JPEG of the page after the load. */
export async function takeScreenshot(page: Page, quality = 80): Promise<Buffer> {
  const { width, height } = await readPageExtent(page);
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

/**
 * The full-page screenshot, already taken: when the page's document fits its viewport (nothing below or beside it to
 * scroll to), the whole page is what the screen showed, and the film's last frame (the film stops at the load's end)
 * is that screen, as the browser encoded it (the same JPEG quality as a capture; ~0.1 s less than asking the
 * compositor for another frame). Undefined when the page is larger than its viewport, or when the frame is not of the
 * screen's size in device pixels (Chromium's screencast sends a phone's frames in CSS pixels): then it is captured.
 */
export async function screenFromFilm(frames: readonly RawFrame[], extent: PageExtent,
  screen: { width: number; height: number; dppx: number }): Promise<Buffer | undefined> {
  if (extent.height > screen.height || extent.scrollWidth > screen.width) return undefined;
  const last = frames.at(-1);
  if (!last) return undefined;
  const jpeg = Buffer.from(last.data, 'base64');
  const size = await sharp(jpeg).metadata().catch(() => undefined);
  const fits = size?.width === Math.round(screen.width * screen.dppx) && size.height === Math.round(screen.height * screen.dppx);
  return fits ? jpeg : undefined;
}
