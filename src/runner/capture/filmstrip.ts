/**
 * Filmstrip frames from a CDP screencast running during the load: full-size JPEGs as the compositor
 * produced them, stamped with the swap time. Lighthouse's own trace thumbnails are ~120 px wide.
 */
import type { CDPSession, Protocol } from 'puppeteer-core';
import type { FilmstripFrame } from '../types.js';

export interface RawFrame {
  /** Epoch ms of the frame swap. */
  wallMs: number;
  data: string;
}

export interface Screencast {
  /** What was captured so far (the screencast goes on). */
  snapshot(): RawFrame[];
  /** Stops the screencast and returns what was captured. */
  stop(): Promise<RawFrame[]>;
}

export async function startScreencast(session: CDPSession, quality = 80): Promise<Screencast> {
  const frames: RawFrame[] = [];
  let stopped = false;
  const onFrame = (e: Protocol.Page.ScreencastFrameEvent): void => {
    if (!stopped) frames.push({ wallMs: (e.metadata.timestamp ?? Date.now() / 1000) * 1000, data: e.data });
    // Chromium sends the next frame only after the previous one is acknowledged.
    session.send('Page.screencastFrameAck', { sessionId: e.sessionId }).catch(() => undefined);
  };
  session.on('Page.screencastFrame', onFrame);
  await session.send('Page.startScreencast', { format: 'jpeg', quality, everyNthFrame: 1 });
  return {
    snapshot: () => [...frames],
    async stop() {
      stopped = true;
      session.off('Page.screencastFrame', onFrame);
      await session.send('Page.stopScreencast').catch(() => undefined);
      return frames;
    },
  };
}

/**
 * The film of a load: every frame from navigation start until the last change of the screen seen while the load
 * was observed (`untilMs`, ms since navigation start: the load wait's end). The screencast sends a frame only when
 * the screen changes, so the last frame is the last visual change, which may come after fully loaded (a paint after
 * the last request). The film ends at that change or at the load's end (`loadEndMs`), whichever is later.
 */
export function filmOfLoad(raw: readonly RawFrame[], timeOriginMs: number, untilMs: number, loadEndMs: number):
{ frames: FilmstripFrame[]; endMs: number } {
  const frames = filmstripFrames(raw, timeOriginMs, Math.max(untilMs, loadEndMs));
  return { frames, endMs: Math.max(loadEndMs, frames.at(-1)?.timestamp ?? 0) };
}

/**
 * Frames in ms since navigation start, up to `endMs`. What the screen showed at navigation start (the last
 * earlier frame, normally the blank page) becomes the frame at 0.
 */
function filmstripFrames(raw: readonly RawFrame[], timeOriginMs: number, endMs: number): FilmstripFrame[] {
  const timed = raw
    .map((f) => ({ t: Math.round(f.wallMs - timeOriginMs), data: f.data }))
    .sort((a, b) => a.t - b.t);
  const before = timed.filter((f) => f.t <= 0).pop();
  const during = timed.filter((f) => f.t > 0 && f.t <= endMs);
  const frames: FilmstripFrame[] = [];
  for (const f of before ? [{ ...before, t: 0 }, ...during] : during) {
    const last = frames[frames.length - 1];
    const jpeg = Buffer.from(f.data, 'base64');
    // Two frames in the same millisecond: the later one is what stayed on screen.
    if (last && last.timestamp === f.t) last.jpeg = jpeg;
    else frames.push({ timestamp: f.t, jpeg });
  }
  return frames;
}
