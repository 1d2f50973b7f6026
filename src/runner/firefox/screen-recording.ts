/**
 * The film of a Firefox load: ffmpeg records the load's display (display.ts) as browsertime and WebPageTest do
 * (x11grab), keeps a frame only when the screen changed (mpdecimate, with thresholds no visible change passes:
 * the source is the exact framebuffer, no noise), and writes each kept frame as a JPEG. Each frame carries the
 * wall-clock time ffmpeg grabbed it (x11grab stamps frames with the epoch clock in µs; -copyts keeps it), which is
 * the clock of the page's `performance.timeOrigin`: the same RawFrame as Chromium's screencast (capture/filmstrip.ts),
 * so the filmstrip and the video are made from it the same way.
 *
 * A change reaches the film at the next grab: at RECORDING_FPS, within one frame (33 ms) of the screen showing it.
 */
import { spawn } from 'node:child_process';
import { chown, mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { RawFrame } from '../capture/filmstrip.js';
import { asBrowserUser, type VirtualDisplay } from './display.js';

export const RECORDING_FPS = 30;
/** How long ffmpeg may take to grab its first frame, and to finish once asked. */
const START_MS = 10_000;
const STOP_MS = 10_000;

export interface ScreenRecording {
  /** Ends the recording (the screen is no longer the load's) and returns its frames, oldest first. */
  stop(): Promise<RawFrame[]>;
}

/** One line of ffmpeg's showinfo filter: the frame's number and its time stamp (µs on the epoch clock). */
const SHOWINFO = /Parsed_showinfo.*?\bn:\s*(\d+)\s+pts:\s*(\d+)/;

/**
 * Starts recording the top-left `width` x `height` of the display (the load's viewport) and resolves once the first
 * frame was grabbed: what the screen showed before the load begins, so the film has its frame at navigation start.
 */
export async function recordScreen(o: { display: VirtualDisplay; width: number; height: number; ffmpegPath?: string }):
Promise<ScreenRecording> {
  const { display } = o;
  // ffmpeg runs as the display's user (it parses what the browser's X server sends) and writes where that user may.
  const dir = await mkdtemp(join(display.scratch, 'screen-'));
  if (display.user) await chown(dir, display.user.uid, display.user.gid);
  const run = asBrowserUser(display.user, o.ffmpegPath ?? '/usr/bin/ffmpeg', [
    '-hide_banner', '-nostats', '-loglevel', 'info',
    '-f', 'x11grab', '-draw_mouse', '0', '-framerate', String(RECORDING_FPS), '-video_size', `${o.width}x${o.height}`,
    '-i', `${display.name}+0,0`,
    // Compared in limited-range YUV (the cheapest conversion mpdecimate takes: 23% of a core at 1366 x 768 here, 37%
    // when ffmpeg picks the JPEG's full range for it); the frames kept are made full range for their JPEGs.
    '-copyts', '-vf', 'format=yuv420p,mpdecimate=hi=64:lo=64:frac=0:max=0,scale=out_range=full,format=yuvj420p,showinfo',
    '-fps_mode', 'passthrough', '-c:v', 'mjpeg', '-q:v', '3', '-f', 'image2', '-start_number', '0', join(dir, '%06d.jpg'),
  ]);
  const ffmpeg = spawn(run.command, run.args, { stdio: ['pipe', 'ignore', 'pipe'],
    env: { PATH: '/usr/bin:/bin', DISPLAY: display.name, XAUTHORITY: display.authority, ...run.env } });
  const stamps = new Map<number, number>();
  let log = '';
  let rest = '';
  let firstFrame: (() => void) | undefined;
  (ffmpeg.stderr as Readable).on('data', (d: Buffer) => {
    const lines = (rest + String(d)).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      const m = SHOWINFO.exec(line);
      if (m) {
        stamps.set(Number(m[1]), Number(m[2]) / 1000);
        firstFrame?.();
      } else {
        log = (log + line + '\n').slice(-2000);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => {
    ffmpeg.once('exit', (code) => resolve(code));
    ffmpeg.once('error', () => resolve(-1));
  });
  const failed = (what: string): Error => new Error(`the screen recording ${what}: ${log.trim().split('\n').at(-1) ?? ''}`);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(failed(`did not start within ${START_MS / 1000} s`)), START_MS);
      firstFrame = () => {
        clearTimeout(timer);
        resolve();
      };
      void exited.then(() => {
        clearTimeout(timer);
        reject(failed('stopped before its first frame'));
      });
    });
  } catch (err) {
    ffmpeg.kill('SIGKILL');
    throw err;
  } finally {
    firstFrame = undefined;
  }
  let stopped: Promise<RawFrame[]> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        // "q" ends ffmpeg's recording cleanly: every frame grabbed so far is written.
        ffmpeg.stdin!.end('q');
        const timer = setTimeout(() => ffmpeg.kill('SIGKILL'), STOP_MS);
        await exited;
        clearTimeout(timer);
        const frames: RawFrame[] = [];
        for (const [n, wallMs] of [...stamps].sort((a, b) => a[0] - b[0])) {
          const jpeg = await readFile(join(dir, `${String(n).padStart(6, '0')}.jpg`)).catch(() => undefined);
          if (jpeg) frames.push({ wallMs, data: jpeg.toString('base64') });
        }
        return frames;
      })();
      return stopped;
    },
  };
}
