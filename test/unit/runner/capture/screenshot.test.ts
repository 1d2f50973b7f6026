/**
 * capture/screenshot.ts screenFromFilm: the film's last frame is the full-page screenshot only when the page fits its
 * viewport and the frame is the screen's size in device pixels; otherwise the screenshot is captured (undefined).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { screenFromFilm } from '../../../../src/runner/capture/screenshot.js';
import type { RawFrame } from '../../../../src/runner/capture/filmstrip.js';

const jpeg = async (width: number, height: number, background: string): Promise<string> =>
  (await sharp({ create: { width, height, channels: 3, background } }).jpeg().toBuffer()).toString('base64');
const screen = { width: 320, height: 200, dppx: 1 };
const fits = { width: 320, height: 200, scrollWidth: 320 };

test('a page that fits its viewport: the last frame of the film, as it is', async () => {
  const frames: RawFrame[] = [{ wallMs: 1000, data: await jpeg(320, 200, '#ffffff') }, { wallMs: 1500, data: await jpeg(320, 200, '#000000') }];
  const shot = await screenFromFilm(frames, fits, screen);
  assert.ok(shot);
  assert.equal(shot.toString('base64'), frames[1]!.data);
});

test('a page taller or wider than its viewport, a frame of another size, or no frame: captured instead', async () => {
  const frames: RawFrame[] = [{ wallMs: 1000, data: await jpeg(320, 200, '#ffffff') }];
  assert.equal(await screenFromFilm(frames, { ...fits, height: 201 }, screen), undefined);
  assert.equal(await screenFromFilm(frames, { ...fits, scrollWidth: 480 }, screen), undefined);
  // A phone's screen (2.625 device pixels a CSS pixel): Chromium's screencast sends its frames in CSS pixels.
  assert.equal(await screenFromFilm(frames, fits, { ...screen, dppx: 2.625 }), undefined);
  assert.equal(await screenFromFilm([], fits, screen), undefined);
  assert.equal(await screenFromFilm([{ wallMs: 1, data: 'not a jpeg' }], fits, screen), undefined);
});
