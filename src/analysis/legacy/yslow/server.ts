/** YSlow's "server" rules: ycdn, yexpires, ycompress, yetags, yxhrmethod, yemptysrc. */
import { servedByCdn } from '../../cdn.js';
import { hostname, kb, responseHeader, shortUrl } from '../../har.js';
import { byHost, componentsOf, delivered, ofType, type Component } from '../components.js';
import { plural, type LegacyInput, type RuleResult } from '../rule.js';
import { penalty, yslowResult } from './ruleset.js';

const STATIC_TYPES = ['js', 'css', 'image', 'cssimage', 'flash', 'favicon'] as const;

/** 10 points per static component not served by a CDN (headers or known CDN host); the site's own /favicon.ico is exempt. */
export function ycdn(input: LegacyInput): RuleResult {
  const comps = componentsOf(input.har, input.facts);
  const docHost = hostname(input.facts.finalUrl);
  const offenders = ofType(delivered(comps), ...STATIC_TYPES)
    .filter((c) => !(c.type === 'favicon' && hostname(c.url) === docHost))
    .filter((c) => !servedByCdn(c.entry));
  return yslowResult('ycdn', penalty(10, offenders.length),
    byHost(offenders).map((h) => `${h.host}: ${plural(h.count, 'component')}, ${kb(h.bytes)}`),
    offenders.length ? `There ${offenders.length === 1 ? 'is 1 static component' : `are ${offenders.length} static components`} not on a CDN.` : '');
}

/** 11 points per static component that expires within 2 days (Expires or Cache-Control max-age). */
export function yexpires(input: LegacyInput): RuleResult {
  const offenders = ofType(delivered(componentsOf(input.har, input.facts)), ...STATIC_TYPES)
    .filter((c) => c.lifetime <= 2 * 24 * 3600);
  return yslowResult('yexpires', penalty(11, offenders.length), offenders.map((c) => shortUrl(c.url)),
    offenders.length ? `There ${offenders.length === 1 ? 'is 1 static component' : `are ${offenders.length} static components`} without a far-future expiration date.` : '');
}

/** 11 points per document, iframe, AJAX, script or stylesheet of 500 bytes or more sent without compression. */
export function ycompress(input: LegacyInput): RuleResult {
  const offenders = ofType(delivered(componentsOf(input.har, input.facts)), 'doc', 'iframe', 'xhr', 'js', 'css')
    .filter((c) => !c.compressed && c.size >= 500);
  return yslowResult('ycompress', penalty(11, offenders.length), offenders.map((c) => `${shortUrl(c.url)} (${kb(c.size)})`),
    offenders.length ? `There ${offenders.length === 1 ? 'is 1 plain text component' : `are ${offenders.length} plain text components`} that should be sent compressed.` : '');
}

/**
 * YSlow's test for the default ETag formats of Apache (inode-size-mtime) and IIS (filetime:changenumber),
 * which differ between servers of a cluster and so defeat revalidation.
 */
export function isEtagGood(etag: string | undefined): boolean {
  if (!etag) return true;
  const value = etag.replace(/^W\//, '').replace(/^["']|["'][\s\S]*$/g, '');
  return !(/^[0-9a-f]+-[0-9a-f]+-[0-9a-f]+$/i.test(value) || /^[0-9a-f]+:([1-9a-f]|[0-9a-f]{2,})$/i.test(value));
}

/** 11 points per static component with a server-specific ETag. */
export function yetags(input: LegacyInput): RuleResult {
  const offenders = ofType(delivered(componentsOf(input.har, input.facts)), ...STATIC_TYPES)
    .filter((c: Component) => !isEtagGood(responseHeader(c.entry, 'etag')));
  return yslowResult('yetags', penalty(11, offenders.length),
    offenders.map((c) => `${shortUrl(c.url)} (ETag ${responseHeader(c.entry, 'etag')})`),
    offenders.length ? `There ${offenders.length === 1 ? 'is 1 component' : `are ${offenders.length} components`} with misconfigured ETags.` : '');
}

/** 5 points per AJAX request sent with a method other than GET (GET responses can be cached). */
export function yxhrmethod(input: LegacyInput): RuleResult {
  const offenders = ofType(componentsOf(input.har, input.facts), 'xhr').filter((c) => c.method !== 'GET');
  return yslowResult('yxhrmethod', penalty(5, offenders.length), offenders.map((c) => `${c.method} ${shortUrl(c.url)}`),
    offenders.length ? `There ${offenders.length === 1 ? 'is 1 AJAX request' : `are ${offenders.length} AJAX requests`} that do not use GET.` : '');
}

/** 100 points per element with an empty src or href: one alone gives 0. */
export function yemptysrc(input: LegacyInput): RuleResult {
  const empty = input.facts.dom.emptySrc;
  const counts = new Map<string, number>();
  for (const tag of empty) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  const parts = [...counts].map(([tag, n]) => `${n} ${tag}`);
  return yslowResult('yemptysrc', penalty(100, empty.length), parts,
    empty.length ? `${parts.join(', ')} found with an empty src or href.` : '');
}
