/**
 * video.mp4 of the load (`video=1`): the same screencast frames as the filmstrip, laid on a steady 30 fps
 * timeline and encoded by Debian's ffmpeg (libx264, yuv420p, +faststart so players and Range requests can
 * start before the end). The first frame is the screen at navigation start; frame k (at k/30 s) shows the last
 * screencast frame that had appeared by then (never one from the future), up to the end of the load.
 */
import { execFile } from 'node:child_process';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { FilmstripFrame } from '../types.js';

export const VIDEO_FPS = 30;
/** Longest side of the video in pixels: phones at 3 dppx give 1080 x 1920 frames; halve those, keep desktop. */
const MAX_SIDE = 1366;

/** Where a journey's step begins on the video (ms since its start), and its name. */
export interface StepMark {
  atMs: number;
  label: string;
}

/** The font of the step captions (Debian's fonts-liberation, installed with Chromium); no captions without it. */
const CAPTION_FONT = '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf';

export interface VideoOptions {
  ffmpegPath?: string;
  /** Scratch directory (the run's workDir). */
  dir: string;
  /** End of the load in ms since navigation start: the video lasts until then. */
  endMs: number;
  timeoutMs?: number;
  /** Stops ffmpeg when the run is cancelled. */
  signal?: AbortSignal;
  /** A journey's steps: each a chapter of the mp4, and a caption while it runs. */
  marks?: readonly StepMark[];
}

/** ffmetadata's escaping of a value. */
const metaValue = (s: string): string => s.replace(/[=;#\\\n]/g, (c) => (c === '\n' ? ' ' : `\\${c}`));

/**
 * The chapters (an ffmetadata file) and caption filters of a journey's steps. Captions read their text from files, so
 * no step name needs the filter graph's escaping.
 */
async function stepMarks(marks: readonly StepMark[], endMs: number, dir: string, height: number):
Promise<{ metadata: string; filters: string[] }> {
  const lines = [';FFMETADATA1'];
  const filters: string[] = [];
  let font = true;
  await access(CAPTION_FONT).catch(() => (font = false));
  for (const [i, mark] of marks.entries()) {
    const end = i + 1 < marks.length ? marks[i + 1]!.atMs : endMs;
    lines.push('[CHAPTER]', 'TIMEBASE=1/1000', `START=${Math.round(mark.atMs)}`, `END=${Math.round(Math.max(end, mark.atMs + 1))}`,
      `title=${metaValue(mark.label)}`);
    if (!font) continue;
    const textFile = join(dir, `step-${i}.txt`);
    await writeFile(textFile, `${i + 1}/${marks.length}  ${mark.label}`);
    const size = Math.max(12, Math.round(height / 40));
    filters.push(`drawtext=fontfile=${CAPTION_FONT}:textfile=${textFile}:fontsize=${size}:fontcolor=white:box=1:` +
      `boxcolor=black@0.65:boxborderw=${Math.round(size / 3)}:x=8:y=h-th-${Math.round(size / 2)}:` +
      `enable=gte(t\\,${(mark.atMs / 1000).toFixed(3)})*lt(t\\,${(end / 1000).toFixed(3)})`);
  }
  return { metadata: `${lines.join('\n')}\n`, filters };
}

/**
 * Each image is read at 1000 fps, so its time base is 1 ms: at the image demuxer's default (25 fps) the concat
 * demuxer put every frame on a 40 ms grid, up to 20 ms before its time.
 */
const MS_TIME_BASE = 'option framerate 1000';

const even = (n: number): number => Math.max(2, Math.floor(n / 2) * 2);

export async function encodeVideo(frames: readonly FilmstripFrame[], o: VideoOptions): Promise<Buffer> {
  if (frames.length === 0) throw new Error('no frames to encode');
  const dir = join(o.dir, 'video');
  await mkdir(dir, { recursive: true });
  const { width = 0, height = 0 } = await sharp(frames[0].jpeg).metadata();
  const scale = Math.min(1, MAX_SIDE / Math.max(width, height));
  const [w, h] = [even(width * scale), even(height * scale)];

  // A blank first frame when the screencast had nothing at navigation start: the video must not show later
  // content at 0 s.
  const timeline = [...frames];
  if (timeline[0].timestamp > 0) {
    const white = await sharp({ create: { width, height, channels: 3, background: '#ffffff' } }).jpeg().toBuffer();
    timeline.unshift({ timestamp: 0, jpeg: white });
  }
  // The last change shows from output frame ceil(t * fps) on (round=up below): the video lasts a frame beyond it, or
  // a change between two output frames near the end would never be shown.
  const lastShownMs = (Math.ceil((timeline[timeline.length - 1].timestamp * VIDEO_FPS) / 1000) * 1000) / VIDEO_FPS;
  const endMs = Math.max(o.endMs, lastShownMs + 1000 / VIDEO_FPS);
  const lines = ['ffconcat version 1.0'];
  await Promise.all(timeline.map((f, i) => writeFile(join(dir, `${i}.jpg`), f.jpeg)));
  timeline.forEach((f, i) => {
    const next = i + 1 < timeline.length ? timeline[i + 1].timestamp : endMs;
    lines.push(`file '${i}.jpg'`, MS_TIME_BASE, `duration ${((next - f.timestamp) / 1000).toFixed(3)}`);
  });
  // The concat demuxer only honours the last duration when the last file is listed once more.
  lines.push(`file '${timeline.length - 1}.jpg'`, MS_TIME_BASE);
  await writeFile(join(dir, 'frames.ffconcat'), lines.join('\n') + '\n');

  const out = join(dir, 'video.mp4');
  const marks = o.marks && o.marks.length > 0 ? await stepMarks(o.marks, endMs, dir, h) : undefined;
  if (marks) await writeFile(join(dir, 'chapters.txt'), marks.metadata);
  const args = [
    '-v', 'error', '-nostdin', '-y',
    '-f', 'concat', '-safe', '0', '-i', join(dir, 'frames.ffconcat'),
    ...(marks ? ['-f', 'ffmetadata', '-i', join(dir, 'chapters.txt'), '-map', '0:v', '-map_chapters', '1'] : []),
    // Scale and convert each screencast frame once, then repeat it on the steady timeline (round=up: an
    // output frame never shows a screencast frame before its time). ultrafast: a static page costs ~3 ms of
    // CPU per output frame at 1366 x 768 (veryfast ~7 ms, for a file a third the size).
    '-vf', [...(w !== width || h !== height ? [`scale=${w}:${h}:flags=bicubic`] : []), 'format=yuv420p',
      `fps=${VIDEO_FPS}:round=up`, ...(marks?.filters ?? [])].join(','),
    '-t', (endMs / 1000).toFixed(3),
    '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '26', '-g', String(VIDEO_FPS),
    '-movflags', '+faststart', '-an', out,
  ];
  await new Promise<void>((resolve, reject) => {
    execFile(o.ffmpegPath ?? '/usr/bin/ffmpeg', args, { timeout: o.timeoutMs ?? 60_000, signal: o.signal }, (err, _stdout, stderr) =>
      err ? reject(new Error(`ffmpeg failed: ${String(stderr).trim() || err.message}`)) : resolve());
  });
  return readFile(out);
}
