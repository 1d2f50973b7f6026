/**
 * PageSpeed rules about requests: MinimizeRedirects, AvoidLandingPageRedirects, AvoidBadRequests,
 * EnableKeepAlive, MinimizeRequestSize, ServeStaticContentFromACookielessDomain.
 */
import {
  isBad, isOk, isRedirect, kindOf, mainDocumentChain, redirectTarget, requestHeader, shortUrl, STATIC_KINDS,
  type HarEntryLike,
} from '../../har.js';
import { keepAliveOffenders } from '../../structure/enable-keep-alive.js';
import { plural, type LegacyInput } from '../rule.js';
import { pagespeedResult, shareScore, type PagespeedRuleResult } from './ruleset.js';

/** One TCP packet: requests larger than this need a second one before the server can answer. */
export const MAX_REQUEST_BYTES = 1500;

const hop = (e: HarEntryLike): string => `${shortUrl(e.request.url, 100)} → ${shortUrl(redirectTarget(e) ?? '?', 100)}`;

/** penalty: 10 points per redirect of a resource (the landing page's own chain is AvoidLandingPageRedirects). */
export function MinimizeRedirects(input: LegacyInput): PagespeedRuleResult {
  const landing = new Set(mainDocumentChain(input.har));
  const redirects = input.har.log.entries.filter((e) => isRedirect(e) && !landing.has(e));
  return pagespeedResult('MinimizeRedirects', 100 - 10 * redirects.length, redirects.map(hop),
    redirects.length ? `${plural(redirects.length, 'resource redirect')}: link to the final URLs instead.` : '');
}

/** penalty: 40 points per redirect before the page itself (http → https → www is two: 20). */
export function AvoidLandingPageRedirects(input: LegacyInput): PagespeedRuleResult {
  const hops = mainDocumentChain(input.har).filter(isRedirect);
  return pagespeedResult('AvoidLandingPageRedirects', 100 - 40 * hops.length, hops.map(hop),
    hops.length ? `The page was reached through ${plural(hops.length, 'redirect')}.` : '');
}

/** penalty: 25 points per response with status 400 or above. */
export function AvoidBadRequests(input: LegacyInput): PagespeedRuleResult {
  const bad = input.har.log.entries.filter(isBad);
  return pagespeedResult('AvoidBadRequests', 100 - 25 * bad.length,
    bad.map((e) => `${e.response.status} ${shortUrl(e.request.url)}`),
    bad.length ? `${plural(bad.length, 'request')} answered with an error: remove the references or fix them.` : '');
}

/** share: HTTP/1.x responses that close the connection, among those from hosts the page asks more than once. */
export function EnableKeepAlive(input: LegacyInput): PagespeedRuleResult {
  const { eligible, offenders } = keepAliveOffenders(input.har.log.entries);
  return pagespeedResult('EnableKeepAlive', shareScore(offenders.length, eligible.length),
    offenders.map((e) => shortUrl(e.request.url)),
    offenders.length ? `${plural(offenders.length, 'response')} closed the connection (Connection: close).` : '');
}

function requestBytes(e: HarEntryLike): number {
  const size = e.request.headersSize;
  if (typeof size === 'number' && size > 0) return size;
  // Request line plus "name: value\r\n" per header, when the HAR did not record the size.
  return e.request.url.length + 16 + (e.request.headers ?? []).reduce((n, h) => n + h.name.length + h.value.length + 4, 0);
}

/** share: requests whose headers (cookies included) exceed one packet, 1500 bytes. */
export function MinimizeRequestSize(input: LegacyInput): PagespeedRuleResult {
  const entries = input.har.log.entries;
  const offenders = entries.filter((e) => requestBytes(e) > MAX_REQUEST_BYTES);
  return pagespeedResult('MinimizeRequestSize', shareScore(offenders.length, entries.length),
    offenders.map((e) => `${shortUrl(e.request.url)} (${requestBytes(e)} bytes of request headers)`),
    offenders.length ? `${plural(offenders.length, 'request')} larger than one packet (${MAX_REQUEST_BYTES} bytes).` : '');
}

/** share: static resources whose request carried cookies (a cookieless host saves those bytes on every request). */
export function ServeStaticContentFromACookielessDomain(input: LegacyInput): PagespeedRuleResult {
  const eligible = input.har.log.entries.filter((e) => isOk(e) && STATIC_KINDS.has(kindOf(e)));
  const offenders = eligible.filter((e) => requestHeader(e, 'cookie') !== undefined || (e.request.cookies?.length ?? 0) > 0);
  return pagespeedResult('ServeStaticContentFromACookielessDomain', shareScore(offenders.length, eligible.length),
    offenders.map((e) => shortUrl(e.request.url)),
    offenders.length ? `${plural(offenders.length, 'static resource')} sent with cookies.` : '');
}
