/**
 * The slice of HAR 1.2 (as chrome-har writes it) that the audits and rules read, and the small helpers they
 * share. Typed structurally so the runner's own `Har` (and any HAR 1.2 file) fits without a cast.
 */
export interface HarHeaderLike { name: string; value: string }

export interface HarEntryLike {
  startedDateTime?: string;
  time?: number;
  serverIPAddress?: string;
  request: {
    method?: string;
    url: string;
    httpVersion?: string;
    headers?: HarHeaderLike[];
    headersSize?: number;
    cookies?: unknown[];
  };
  response: {
    status: number;
    httpVersion?: string;
    headers?: HarHeaderLike[];
    redirectURL?: string;
    bodySize?: number;
    headersSize?: number;
    _transferSize?: number;
    content?: { size?: number; mimeType?: string };
  };
  /** chrome-har: the protocol's resource type, lower case (document, script, stylesheet, image, xhr, fetch...). */
  _resourceType?: string;
  /** chrome-har: URL of the document, stylesheet or script that started the request. */
  _initiator?: string;
}

export interface HarLike { log: { entries: HarEntryLike[] } }

/** What a response is, for the rules: the protocol's resource type, else guessed from the MIME type. */
export type ResourceKind = 'document' | 'script' | 'stylesheet' | 'image' | 'font' | 'media' | 'xhr' | 'other';

export function header(headers: HarHeaderLike[] | undefined, name: string): string | undefined {
  const lower = name.toLowerCase();
  const found = (headers ?? []).filter((h) => h.name.toLowerCase() === lower).map((h) => h.value);
  return found.length ? found.join(', ') : undefined;
}

export const responseHeader = (e: HarEntryLike, name: string): string | undefined => header(e.response.headers, name);
export const requestHeader = (e: HarEntryLike, name: string): string | undefined => header(e.request.headers, name);

export function mimeType(e: HarEntryLike): string {
  const raw = e.response.content?.mimeType || responseHeader(e, 'content-type') || '';
  return raw.split(';')[0].trim().toLowerCase();
}

export function kindOf(e: HarEntryLike): ResourceKind {
  switch (e._resourceType) {
    case 'document': return 'document';
    case 'script': return 'script';
    case 'stylesheet': return 'stylesheet';
    case 'image': return 'image';
    case 'font': return 'font';
    case 'media': return 'media';
    case 'xhr': case 'fetch': case 'eventsource': return 'xhr';
    case undefined: break;
    default: return 'other';
  }
  const mime = mimeType(e);
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'document';
  if (mime === 'text/css') return 'stylesheet';
  if (/(java|ecma)script/.test(mime)) return 'script';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('font/') || /font|woff/.test(mime)) return 'font';
  if (mime.startsWith('video/') || mime.startsWith('audio/')) return 'media';
  if (/json|xml/.test(mime)) return 'xhr';
  return 'other';
}

/** Resources a browser can cache and a CDN can serve: the page's building blocks, not its data or documents. */
export const STATIC_KINDS: ReadonlySet<ResourceKind> = new Set(['script', 'stylesheet', 'image', 'font', 'media']);

export const isRedirect = (e: HarEntryLike): boolean =>
  e.response.status >= 300 && e.response.status < 400 && e.response.status !== 304;
export const isOk = (e: HarEntryLike): boolean => e.response.status >= 200 && e.response.status < 300;
export const isBad = (e: HarEntryLike): boolean => e.response.status >= 400;

/** Bytes on the wire (headers and body), as the browser saw them. */
export function transferSize(e: HarEntryLike): number {
  const r = e.response;
  if (typeof r._transferSize === 'number' && r._transferSize >= 0) return r._transferSize;
  return Math.max(0, r.bodySize ?? 0) + Math.max(0, r.headersSize ?? 0);
}

/** Decoded body size (after content-encoding), falling back to the bytes on the wire. */
export function bodySize(e: HarEntryLike): number {
  const size = e.response.content?.size;
  if (typeof size === 'number' && size > 0) return size;
  return Math.max(0, e.response.bodySize ?? 0);
}

export function isCompressed(e: HarEntryLike): boolean {
  const enc = (responseHeader(e, 'content-encoding') ?? '').toLowerCase();
  return /gzip|br|deflate|zstd|compress/.test(enc);
}

/** Text formats that shrink well under gzip or brotli (already-compressed images, woff and media do not). */
export function isCompressible(e: HarEntryLike): boolean {
  const mime = mimeType(e);
  if (mime.startsWith('text/')) return true;
  return /javascript|ecmascript|json|xml|svg|manifest|wasm|font\/(ttf|otf)|x-font-(ttf|otf)|sfnt|ms-fontobject|x-icon|vnd\.microsoft\.icon|image\/bmp/
    .test(mime);
}

export function hostname(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

const SECOND_LEVEL = new Set(['co', 'com', 'net', 'org', 'gov', 'ac', 'edu', 'ne', 'or', 'go', 'gob', 'nic']);

/**
 * The registrable domain, approximated without the public suffix list: the last two labels, or three under
 * a country code's common second level (example.co.uk). IP addresses and single labels stand for themselves.
 */
export function siteOf(host: string): string {
  if (/^[\d.]+$/.test(host) || host.includes(':') || !host.includes('.')) return host;
  const labels = host.replace(/\.$/, '').split('.');
  const n = labels.length;
  if (n >= 3 && labels[n - 1].length === 2 && SECOND_LEVEL.has(labels[n - 2])) return labels.slice(-3).join('.');
  return labels.slice(-2).join('.');
}

export const sameSite = (url: string, pageUrl: string): boolean => siteOf(hostname(url)) === siteOf(hostname(pageUrl));

/**
 * Freshness lifetime in seconds a browser gives the response: 0 for no-store/no-cache, max-age when set, else
 * Expires minus the response Date (or the request time). 0 when nothing says the response may be reused.
 */
export function cacheLifetime(e: HarEntryLike): number {
  const cc = (responseHeader(e, 'cache-control') ?? '').toLowerCase();
  if (/no-store|no-cache/.test(cc)) return 0;
  const maxAge = /(?:^|[,\s])max-age\s*=\s*"?(\d+)/.exec(cc);
  if (maxAge) return Number(maxAge[1]);
  const expires = responseHeader(e, 'expires');
  if (!expires) return 0;
  const until = Date.parse(expires);
  const base = Date.parse(responseHeader(e, 'date') ?? e.startedDateTime ?? '');
  if (Number.isNaN(until) || Number.isNaN(base)) return 0;
  return Math.max(0, Math.round((until - base) / 1000));
}

/** The document the page ended up on: the main navigation's last hop (its redirect chain followed). */
export function mainDocumentChain(har: HarLike | undefined): HarEntryLike[] {
  const entries = har?.log.entries ?? [];
  const first = entries.find((e) => kindOf(e) === 'document') ?? entries[0];
  if (!first) return [];
  const chain = [first];
  let current = first;
  while (isRedirect(current)) {
    const target = redirectTarget(current);
    const next = target && entries.find((e) => !chain.includes(e) && e.request.url === target);
    if (!next) break;
    chain.push(next);
    current = next;
  }
  return chain;
}

/** Absolute URL a redirect points to (HAR's redirectURL, else the Location header). */
export function redirectTarget(e: HarEntryLike): string | undefined {
  const location = e.response.redirectURL || responseHeader(e, 'location');
  if (!location) return undefined;
  try {
    return new URL(location, e.request.url).href;
  } catch {
    return undefined;
  }
}

/** Short form of a URL for offender lists: long query strings and data: URLs cut down. */
export function shortUrl(url: string, max = 160): string {
  if (url.startsWith('data:')) return `${url.slice(0, 40)}…`;
  return url.length > max ? `${url.slice(0, max - 1)}…` : url;
}

export function kb(bytes: number): string {
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} B`;
}
