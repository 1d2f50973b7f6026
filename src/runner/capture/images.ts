/**
 * The images of the load, as the browser received them, for the optimized-images archive (built later and
 * lazily, outside the test slot: core/reports/images.ts). The bodies come from the browser's own network buffer after
 * the load, so no image is fetched a second time.
 */
import type { CDPSession } from 'puppeteer-core';
import type { CapturedImage } from '../types.js';
import type { HarEntry } from './har.js';

/** Bounds so a page of thousands of images cannot fill the disk: count and total bytes. */
export const IMAGE_LIMITS = { count: 300, totalBytes: 64 * 1024 * 1024 };

export async function collectImages(session: CDPSession, entries: readonly HarEntry[]): Promise<CapturedImage[]> {
  const seen = new Set<string>();
  const wanted = entries.filter((e) => {
    const mime = String(e.response.content.mimeType ?? '').toLowerCase();
    const ok = e.response.status === 200 && mime.startsWith('image/') && e._requestId !== undefined &&
      !e.request.url.startsWith('data:') && !seen.has(e.request.url);
    if (ok) seen.add(e.request.url);
    return ok;
  }).slice(0, IMAGE_LIMITS.count);
  const bodies = await Promise.all(wanted.map(async (e) => {
    try {
      const r = await session.send('Network.getResponseBody', { requestId: e._requestId! });
      return Buffer.from(r.body, r.base64Encoded ? 'base64' : 'utf8');
    } catch {
      return undefined; // evicted from the buffer, or served without a body: left out
    }
  }));
  const images: CapturedImage[] = [];
  let total = 0;
  wanted.forEach((e, i) => {
    const body = bodies[i];
    if (!body || body.length === 0 || total + body.length > IMAGE_LIMITS.totalBytes) return;
    total += body.length;
    images.push({ url: e.request.url, mimeType: String(e.response.content.mimeType).toLowerCase().split(';')[0]!.trim(), body });
  });
  return images;
}
