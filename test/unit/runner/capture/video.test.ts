/**
 * capture/video.ts: the video's steady 30 fps timeline shows every frame of the film from its time on, the last one
 * included (real ffmpeg; frames made by sharp).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { encodeVideo } from '../../../../src/runner/capture/video.js';
import { probeVideo, videoFrameLuminance } from '../../../helpers/images.js';

const frame = (background: string): Promise<Buffer> =>
  sharp({ create: { width: 320, height: 200, channels: 3, background } }).jpeg().toBuffer();

test('a last change between two output frames is shown for a frame before the video ends', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-video-'));
  try {
    // 817 ms is off the image demuxer's default 40 ms grid (it showed at 800 ms, early); 2,311 ms lies between output
    // frames 69 (2,300 ms) and 70 (2,333 ms), and the film ends at that change (the video ended before showing it).
    const film = [{ timestamp: 0, jpeg: await frame('#ffffff') }, { timestamp: 817, jpeg: await frame('#000000') },
      { timestamp: 2311, jpeg: await frame('#808080') }];
    const mp4 = await encodeVideo(film, { dir, endMs: 2311 });
    const shown = await videoFrameLuminance(mp4);
    assert.equal(shown.length, 71);
    assert.ok(shown[0]! > 240 && shown[24]! > 240, 'white until 817 ms (frame 24 is at 800 ms)');
    assert.ok(shown[25]! < 15 && shown[69]! < 15, 'black from frame 25 (833 ms) to frame 69 (2,300 ms)');
    assert.ok(Math.abs(shown[70]! - 128) < 10, `grey on the last frame: ${shown.slice(-3).join(', ')}`);
    assert.equal((await probeVideo(mp4)).duration, '2.367000');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
