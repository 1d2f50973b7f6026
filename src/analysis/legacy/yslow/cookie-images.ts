/** YSlow's "cookie" rules (ymincookie, ycookiefree) and "images" rules (yimgnoscale, yfavicon). */
import { hostname, shortUrl } from '../../har.js';
import { componentsOf, delivered, ofType } from '../components.js';
import type { LegacyInput, RuleResult } from '../rule.js';
import { penalty, yslowResult } from './ruleset.js';

/**
 * Cookies over 1000 bytes: 100 − (1 + 10 × floor(bytes / 1000)). The size is document.cookie's length,
 * the cookies a script can see (HttpOnly ones are invisible to the page, and the HAR has their values removed).
 */
export function ymincookie(input: LegacyInput): RuleResult {
  const bytes = input.facts.dom.cookieBytes;
  const score = bytes > 1000 ? 100 - (1 + 10 * Math.floor(bytes / 1000)) : 100;
  return yslowResult('ymincookie', score, [], bytes > 1000 ? `The page's cookies total ${bytes} bytes.` : '');
}

/** 5 points per static component whose request carried cookies; the site's own /favicon.ico is exempt. */
export function ycookiefree(input: LegacyInput): RuleResult {
  const docHost = hostname(input.facts.finalUrl);
  const offenders = ofType(delivered(componentsOf(input.har, input.facts)), 'js', 'css', 'image', 'cssimage', 'flash', 'favicon')
    .filter((c) => c.cookie && !(c.type === 'favicon' && hostname(c.url) === docHost));
  return yslowResult('ycookiefree', penalty(5, offenders.length), offenders.map((c) => shortUrl(c.url)),
    offenders.length ? `There ${offenders.length === 1 ? 'is 1 component' : `are ${offenders.length} components`} not sent from a cookie-free domain.` : '');
}

/**
 * 5 points per image shown smaller than it is: displayed size × device pixel ratio below the natural size
 * (high-density images shown at half size on a 2× screen are not scaled). Needs the DOM facts.
 */
export function yimgnoscale(input: LegacyInput): RuleResult {
  const dpr = input.facts.dom.devicePixelRatio || 1;
  const offenders = input.facts.dom.images.filter((img) => img.naturalWidth > 0 && img.displayWidth > 0 && img.displayHeight > 0 &&
    (img.displayWidth * dpr + 1 < img.naturalWidth || img.displayHeight * dpr + 1 < img.naturalHeight));
  return yslowResult('yimgnoscale', penalty(5, offenders.length),
    offenders.map((img) => `${shortUrl(img.src)} (${img.naturalWidth}×${img.naturalHeight} shown at ${img.displayWidth}×${img.displayHeight})`),
    offenders.length ? `There ${offenders.length === 1 ? 'is 1 image' : `are ${offenders.length} images`} scaled down in HTML.` : '');
}

/**
 * The favicon should exist, weigh at most 2000 bytes and be cacheable for an hour: 5 points for each failing.
 * A favicon the browser did not request during the load cannot be judged and passes (as in YSlow).
 */
export function yfavicon(input: LegacyInput): RuleResult {
  const favicon = ofType(componentsOf(input.har, input.facts), 'favicon')[0];
  if (!favicon) return yslowResult('yfavicon', 100, [], 'No favicon request was seen during the load.');
  const problems: string[] = [];
  if (favicon.status === 404) problems.push('Favicon was not found');
  if (favicon.size > 2000) problems.push('Favicon is more than 2000 bytes');
  if (favicon.lifetime < 3600) problems.push('Favicon is not cacheable');
  return yslowResult('yfavicon', penalty(5, problems.length), problems.length ? [shortUrl(favicon.url)] : [], problems.join('. '));
}
