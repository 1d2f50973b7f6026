/**
 * Response bodies of the load for report=legacy (the PageSpeed body rules and pagespeed-files.tar): the
 * documents, stylesheets and scripts read from the browser's own network buffer after the load, plus the
 * images collectImages already read for optimized-images (so no body is fetched twice). Decoded bodies
 * (Network.getResponseBody undoes content-encoding), keyed by the HAR's request URL, bounded.
 */
import type { CDPSession } from 'puppeteer-core';
import { isOk, kindOf } from '../../analysis/har.js';
import type { CapturedImage } from '../types.js';
import type { HarEntry } from './har.js';

/** A body over maxBytes is left out; at most maxCount bodies in all (images included). */
export const BODY_LIMITS = { maxBytes: 3 * 1024 * 1024, maxCount: 100 };

const TEXT_KINDS = new Set(['document', 'stylesheet', 'script']);

export function collectBodies(session: CDPSession, entries: readonly HarEntry[],
  images: readonly CapturedImage[]): Promise<Map<string, Buffer>> {
  return collectBodiesWith(async (e) => {
    const r = await session.send('Network.getResponseBody', { requestId: e._requestId! });
    return Buffer.from(r.body, r.base64Encoded ? 'base64' : 'utf8');
  }, entries, images);
}

/**
 * The same, reading each body with `read` (Firefox: BiDi network.getData); a body it cannot read is left out. The
 * images may still be on their way (read beside the texts).
 */
export async function collectBodiesWith(read: (entry: HarEntry) => Promise<Buffer | undefined>, entries: readonly HarEntry[],
  images: readonly CapturedImage[] | Promise<readonly CapturedImage[]>): Promise<Map<string, Buffer>> {
  const bodies = new Map<string, Buffer>();
  const seen = new Set<string>();
  const wanted = entries.filter((e) => {
    const url = e.request.url;
    const ok = TEXT_KINDS.has(kindOf(e)) && isOk(e) && e._requestId !== undefined && !url.startsWith('data:') &&
      !seen.has(url) && !(e.response.content.size > BODY_LIMITS.maxBytes);
    if (ok) seen.add(url);
    return ok;
  }).slice(0, BODY_LIMITS.maxCount);
  const texts = await Promise.all(wanted.map(async (e) => {
    try {
      return await read(e);
    } catch {
      return undefined; // evicted from the buffer, or served without a body: the rules note it as missing
    }
  }));
  wanted.forEach((e, i) => {
    const body = texts[i];
    if (body && body.length <= BODY_LIMITS.maxBytes) bodies.set(e.request.url, body);
  });
  for (const img of await images) {
    if (bodies.size >= BODY_LIMITS.maxCount) break;
    if (img.body.length <= BODY_LIMITS.maxBytes && !bodies.has(img.url)) bodies.set(img.url, img.body);
  }
  return bodies;
}
