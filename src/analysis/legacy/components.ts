/**
 * The HAR seen as YSlow's "components": each response typed the way the legacy rules expect (doc, js, css,
 * image, cssimage, favicon, xhr, redirect...), with the few figures the rules read.
 */
import type { PageFacts } from '../facts.js';
import {
  bodySize, cacheLifetime, hostname, isCompressed, isRedirect, kindOf, mainDocumentChain, mimeType, requestHeader,
  transferSize, type HarEntryLike, type HarLike,
} from '../har.js';

export type ComponentType = 'doc' | 'iframe' | 'redirect' | 'js' | 'css' | 'image' | 'cssimage' | 'favicon' | 'flash'
  | 'xhr' | 'font' | 'other';

export interface Component {
  entry: HarEntryLike;
  url: string;
  type: ComponentType;
  status: number;
  method: string;
  /** Decoded body bytes. */
  size: number;
  /** Bytes on the wire. */
  transfer: number;
  compressed: boolean;
  /** Freshness lifetime in seconds (0: must revalidate or not cacheable). */
  lifetime: number;
  /** The request carried cookies. */
  cookie: boolean;
}

export function isFaviconUrl(url: string, facts: PageFacts): boolean {
  if (facts.dom.favicon && url === facts.dom.favicon) return true;
  try {
    return new URL(url).pathname === '/favicon.ico';
  } catch {
    return false;
  }
}

function typeOf(e: HarEntryLike, mainDoc: HarEntryLike | undefined, stylesheets: Set<string>, facts: PageFacts): ComponentType {
  if (isRedirect(e)) return 'redirect';
  if (e === mainDoc) return 'doc';
  const url = e.request.url;
  if (mimeType(e) === 'application/x-shockwave-flash') return 'flash';
  const kind = kindOf(e);
  // Chromium fetches the favicon as type "Other", not "Image".
  if ((kind === 'image' || kind === 'other') && isFaviconUrl(url, facts)) return 'favicon';
  switch (kind) {
    case 'document': return 'iframe';
    case 'script': return 'js';
    case 'stylesheet': return 'css';
    case 'xhr': return 'xhr';
    case 'font': return 'font';
    case 'image':
      // A background image: requested by a stylesheet, not by the document or a script.
      if (e._initiator && (stylesheets.has(e._initiator) || /\.css(\?|$)/i.test(e._initiator))) return 'cssimage';
      return 'image';
    default: return 'other';
  }
}

export function componentsOf(har: HarLike, facts: PageFacts): Component[] {
  const entries = har.log.entries;
  const mainDoc = mainDocumentChain(har).at(-1);
  const stylesheets = new Set(entries.filter((e) => kindOf(e) === 'stylesheet').map((e) => e.request.url));
  return entries.map((entry) => ({
    entry,
    url: entry.request.url,
    type: typeOf(entry, mainDoc, stylesheets, facts),
    status: entry.response.status,
    method: (entry.request.method ?? 'GET').toUpperCase(),
    size: bodySize(entry),
    transfer: transferSize(entry),
    compressed: isCompressed(entry),
    lifetime: cacheLifetime(entry),
    cookie: requestHeader(entry, 'cookie') !== undefined || (entry.request.cookies?.length ?? 0) > 0,
  }));
}

export const ofType = (comps: readonly Component[], ...types: ComponentType[]): Component[] =>
  comps.filter((c) => types.includes(c.type));

/** Components that were delivered: neither a redirect hop nor an error. Rules about content look only at these. */
export const delivered = (comps: readonly Component[]): Component[] =>
  comps.filter((c) => c.type !== 'redirect' && c.status < 400);

/** Hosts with their component count and bytes, for offender lists summarised by domain. */
export function byHost(comps: readonly Component[]): { host: string; count: number; bytes: number }[] {
  const hosts = new Map<string, { host: string; count: number; bytes: number }>();
  for (const c of comps) {
    const host = hostname(c.url);
    const h = hosts.get(host) ?? { host, count: 0, bytes: 0 };
    h.count += 1;
    h.bytes += c.transfer;
    hosts.set(host, h);
  }
  return [...hosts.values()];
}
