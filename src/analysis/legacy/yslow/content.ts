/** YSlow's "content" rules: ynumreq, ydns, yredirects, yxhr, ymindom, yno404. */
import { kb, redirectTarget, responseHeader, shortUrl } from '../../har.js';
import { byHost, componentsOf, delivered, ofType } from '../components.js';
import { plural, type LegacyInput, type RuleResult } from '../rule.js';
import { penalty, yslowResult } from './ruleset.js';

/** More than 3 scripts, 2 stylesheets or 6 CSS background images: 4, 4 and 3 points for each one over. */
export function ynumreq(input: LegacyInput): RuleResult {
  const comps = delivered(componentsOf(input.har, input.facts));
  const js = ofType(comps, 'js').length;
  const css = ofType(comps, 'css').length;
  const cssimg = ofType(comps, 'cssimage').length;
  const score = 100 - 4 * Math.max(0, js - 3) - 4 * Math.max(0, css - 2) - 3 * Math.max(0, cssimg - 6);
  const messages: string[] = [];
  if (js > 3) messages.push(`This page has ${plural(js, 'external JavaScript script')}. Try combining them into one.`);
  if (css > 2) messages.push(`This page has ${plural(css, 'external stylesheet')}. Try combining them into one.`);
  if (cssimg > 6) messages.push(`This page has ${plural(cssimg, 'external background image')}. Try combining them with CSS sprites.`);
  return yslowResult('ynumreq', score, [], messages.join(' '));
}

/** More than 4 host names: 5 points for each one over. */
export function ydns(input: LegacyInput): RuleResult {
  const hosts = byHost(componentsOf(input.har, input.facts)).filter((h) => h.host !== '');
  const score = 100 - 5 * Math.max(0, hosts.length - 4);
  return yslowResult('ydns', score,
    hosts.length > 4 ? hosts.map((h) => `${h.host}: ${plural(h.count, 'component')}, ${kb(h.bytes)}`) : [],
    hosts.length > 4 ? `The components are split over more than 4 domains (${hosts.length}).` : '');
}

/** 10 points per redirect, the main document's chain included. */
export function yredirects(input: LegacyInput): RuleResult {
  const redirects = ofType(componentsOf(input.har, input.facts), 'redirect');
  return yslowResult('yredirects', penalty(10, redirects.length),
    redirects.map((c) => `${shortUrl(c.url, 80)} redirects to ${shortUrl(redirectTarget(c.entry) ?? '?', 60)}`),
    redirects.length ? `There ${redirects.length === 1 ? 'is 1 redirect' : `are ${redirects.length} redirects`}.` : '');
}

/** AJAX responses should live in the cache at least an hour, unless marked no-cache/no-store on purpose: 5 points each. */
export function yxhr(input: LegacyInput): RuleResult {
  const xhrs = ofType(delivered(componentsOf(input.har, input.facts)), 'xhr');
  const offenders = xhrs.filter((c) => {
    const cc = (responseHeader(c.entry, 'cache-control') ?? '').toLowerCase();
    if (cc.includes('no-cache') || cc.includes('no-store')) return false;
    return c.lifetime < 3600;
  });
  return yslowResult('yxhr', penalty(5, offenders.length), offenders.map((c) => shortUrl(c.url)),
    offenders.length ? `There ${offenders.length === 1 ? 'is 1 cacheable AJAX request' : `are ${offenders.length} cacheable AJAX requests`} without a far-future expiry.` : '');
}

/** More than 900 elements: 99 − 10 points per started 250 elements over. */
export function ymindom(input: LegacyInput): RuleResult {
  const n = input.facts.dom.elementCount;
  const score = n > 900 ? 99 - Math.ceil((n - 900) / 250) * 10 : 100;
  return yslowResult('ymindom', score, [], n > 900 ? `There are ${n} DOM elements on the page.` : '');
}

/** 5 points per 404 among scripts, stylesheets, images, AJAX and the favicon. */
export function yno404(input: LegacyInput): RuleResult {
  const comps = ofType(componentsOf(input.har, input.facts), 'css', 'js', 'image', 'cssimage', 'flash', 'xhr', 'favicon');
  const missing = comps.filter((c) => c.status === 404);
  return yslowResult('yno404', penalty(5, missing.length), missing.map((c) => shortUrl(c.url)),
    missing.length ? `There ${missing.length === 1 ? 'is 1 request' : `are ${missing.length} requests`} that answered 404 Not Found.` : '');
}
