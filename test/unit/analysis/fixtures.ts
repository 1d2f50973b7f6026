/** Small hand-built HARs and page facts for the analysis tests. */
import { emptyDomFacts, type DomFacts, type ImageFact, type PageFacts } from '../../../src/analysis/facts.js';
import type { HarEntryLike, HarLike } from '../../../src/analysis/har.js';
import type { AnalysedBodies, AnalysedBody } from '../../../src/analysis/legacy/bodies.js';
import type { LegacyInput } from '../../../src/analysis/legacy/rule.js';

export const PAGE = 'https://www.example.com/';

const MIME: Record<string, string> = {
  document: 'text/html', script: 'application/javascript', stylesheet: 'text/css', image: 'image/png',
  font: 'font/woff2', xhr: 'application/json', fetch: 'application/json', media: 'video/mp4', other: 'text/plain',
};

export interface EntryOptions {
  type?: string;
  status?: number;
  mime?: string;
  /** Response headers. */
  headers?: Record<string, string>;
  /** Request headers. */
  request?: Record<string, string>;
  method?: string;
  /** Decoded body size. */
  size?: number;
  /** Bytes on the wire; defaults to size + 200. */
  transfer?: number;
  initiator?: string;
  httpVersion?: string;
  redirectTo?: string;
  requestHeadersSize?: number;
}

export function entry(url: string, o: EntryOptions = {}): HarEntryLike {
  const type = o.type ?? 'other';
  const size = o.size ?? 1000;
  const headers = { date: 'Mon, 01 Jan 2024 00:00:00 GMT', ...(o.redirectTo ? { location: o.redirectTo } : {}), ...o.headers };
  return {
    startedDateTime: '2024-01-01T00:00:00.000Z',
    time: 50,
    request: {
      method: o.method ?? 'GET', url, httpVersion: o.httpVersion ?? 'http/1.1',
      headers: Object.entries(o.request ?? {}).map(([name, value]) => ({ name, value })),
      headersSize: o.requestHeadersSize ?? 400,
    },
    response: {
      status: o.status ?? 200,
      httpVersion: o.httpVersion ?? 'http/1.1',
      headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
      redirectURL: o.redirectTo ?? '',
      bodySize: size,
      headersSize: 200,
      _transferSize: o.transfer ?? size + 200,
      content: { size, mimeType: o.mime ?? MIME[type] ?? 'text/plain' },
    },
    _resourceType: type,
    ...(o.initiator ? { _initiator: o.initiator } : {}),
  };
}

export const har = (...entries: HarEntryLike[]): HarLike => ({ log: { entries } });

/** The main document, 200, compressed and cacheable enough not to trip rules by itself. */
export const doc = (o: EntryOptions = {}): HarEntryLike =>
  entry(PAGE, { type: 'document', size: 400, headers: { 'content-encoding': 'gzip' }, ...o });

export function facts(dom: Partial<DomFacts> = {}, finalUrl = PAGE): PageFacts {
  return { url: finalUrl, finalUrl, dom: { ...emptyDomFacts(), ...dom } };
}

export function image(src: string, o: Partial<ImageFact> = {}): ImageFact {
  return { src, naturalWidth: 100, naturalHeight: 100, displayWidth: 100, displayHeight: 100, hasDimensions: true, ...o };
}

export function bodies(...list: Partial<AnalysedBody>[]): AnalysedBodies {
  const byUrl = new Map<string, AnalysedBody>();
  for (const b of list) byUrl.set(b.url!, { kind: 'js', mimeType: '', bytes: 0, ...b } as AnalysedBody);
  return { byUrl, missing: [], skipped: [] };
}

export function input(entries: HarEntryLike[], dom: Partial<DomFacts> = {}, analysed?: AnalysedBodies): LegacyInput {
  return { har: har(...entries), facts: facts(dom), bodies: analysed };
}

/** Cache headers that pass every caching rule: a year, with validators. */
export const CACHED = { 'cache-control': 'public, max-age=31536000', etag: '"abc"', vary: 'Accept-Encoding' };
