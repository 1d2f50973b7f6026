/**
 * PageSpeed rules about how responses travel and are kept: EnableGzipCompression,
 * SpecifyAVaryAcceptEncodingHeader, LeverageBrowserCaching, SpecifyACacheValidator,
 * RemoveQueryStringsFromStaticResources.
 */
import {
  bodySize, cacheLifetime, isCompressed, isCompressible, isOk, kb, kindOf, responseHeader, shortUrl, STATIC_KINDS,
  transferSize, type HarEntryLike,
} from '../../har.js';
import { plural, type LegacyInput } from '../rule.js';
import { bytesScore, pagespeedResult, percent, shareScore, type PagespeedRuleResult } from './ruleset.js';

/** Below this a response gains little from compression (YSlow's threshold too). */
export const MIN_COMPRESSIBLE_BYTES = 500;
/** Without the body, gzip is assumed to save two thirds of a text response (typical for HTML, CSS and JS). */
const ESTIMATED_GZIP_SAVING = 2 / 3;
const WEEK = 7 * 24 * 3600;

const staticResources = (input: LegacyInput): HarEntryLike[] =>
  input.har.log.entries.filter((e) => isOk(e) && STATIC_KINDS.has(kindOf(e)));

/** bytes: what gzip would save on compressible text responses of 500 bytes or more sent uncompressed. */
export function EnableGzipCompression(input: LegacyInput): PagespeedRuleResult {
  const eligible = input.har.log.entries.filter((e) => isOk(e) && isCompressible(e) && bodySize(e) >= MIN_COMPRESSIBLE_BYTES);
  let wasted = 0;
  let estimated = 0;
  const offenders: string[] = [];
  for (const e of eligible) {
    if (isCompressed(e)) continue;
    const size = bodySize(e);
    const gzip = input.bodies?.byUrl.get(e.request.url)?.gzipBytes;
    const saving = gzip !== undefined ? Math.max(0, size - gzip) : Math.round(size * ESTIMATED_GZIP_SAVING);
    if (gzip === undefined) estimated++;
    wasted += saving;
    offenders.push(`${shortUrl(e.request.url)} (could save ${kb(saving)}, ${percent(saving, size)})`);
  }
  const inspected = eligible.reduce((sum, e) => sum + (isCompressed(e) ? transferSize(e) : bodySize(e)), 0);
  const message = offenders.length
    ? `Compressing ${plural(offenders.length, 'resource')} with gzip or brotli could save ${kb(wasted)}.` +
      (estimated ? ` ${estimated} saving(s) estimated without the body.` : '')
    : '';
  return pagespeedResult('EnableGzipCompression', bytesScore(wasted, inspected), offenders, message, wasted);
}

/** share: publicly cacheable compressible static resources should say `Vary: Accept-Encoding` to shared caches. */
export function SpecifyAVaryAcceptEncodingHeader(input: LegacyInput): PagespeedRuleResult {
  const eligible = staticResources(input).filter((e) => isCompressible(e) && cacheLifetime(e) > 0 &&
    !/private/i.test(responseHeader(e, 'cache-control') ?? ''));
  const offenders = eligible.filter((e) => !/accept-encoding|\*/i.test(responseHeader(e, 'vary') ?? ''));
  return pagespeedResult('SpecifyAVaryAcceptEncodingHeader', shareScore(offenders.length, eligible.length),
    offenders.map((e) => shortUrl(e.request.url)),
    offenders.length ? `${plural(offenders.length, 'publicly cacheable, compressible resource')} without Vary: Accept-Encoding.` : '');
}

function lifetimeText(seconds: number): string {
  if (seconds <= 0) return 'expiration not specified';
  if (seconds < 3600) return `${Math.round(seconds / 60)} minutes`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} hours`;
  return `${Math.round(seconds / 86400)} days`;
}

/** share with partial credit: each static resource earns min(1, lifetime / 7 days); offenders live less than a week. */
export function LeverageBrowserCaching(input: LegacyInput): PagespeedRuleResult {
  const eligible = staticResources(input);
  let credit = 0;
  const offenders: string[] = [];
  for (const e of eligible) {
    const lifetime = cacheLifetime(e);
    credit += Math.min(1, lifetime / WEEK);
    if (lifetime < WEEK) offenders.push(`${shortUrl(e.request.url)} (${lifetimeText(lifetime)})`);
  }
  const score = eligible.length ? (100 * credit) / eligible.length : 100;
  return pagespeedResult('LeverageBrowserCaching', score, offenders,
    offenders.length ? `${plural(offenders.length, 'static resource')} can be cached for less than a week.` : '');
}

/** share: static resources with neither Last-Modified nor ETag cannot be revalidated cheaply. */
export function SpecifyACacheValidator(input: LegacyInput): PagespeedRuleResult {
  const eligible = staticResources(input);
  const offenders = eligible.filter((e) => !responseHeader(e, 'last-modified') && !responseHeader(e, 'etag'));
  return pagespeedResult('SpecifyACacheValidator', shareScore(offenders.length, eligible.length),
    offenders.map((e) => shortUrl(e.request.url)),
    offenders.length ? `${plural(offenders.length, 'resource')} without a Last-Modified or ETag validator.` : '');
}

/** share: some proxies do not cache URLs with a query string. */
export function RemoveQueryStringsFromStaticResources(input: LegacyInput): PagespeedRuleResult {
  const eligible = staticResources(input);
  const offenders = eligible.filter((e) => {
    try {
      return new URL(e.request.url).search.length > 1;
    } catch {
      return false;
    }
  });
  return pagespeedResult('RemoveQueryStringsFromStaticResources', shareScore(offenders.length, eligible.length),
    offenders.map((e) => shortUrl(e.request.url)),
    offenders.length ? `${plural(offenders.length, 'static resource')} with a query string in the URL.` : '');
}
