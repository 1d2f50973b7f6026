/**
 * Use a CDN (ours; Lighthouse has no such audit). Over the page's own static resources (scripts, styles,
 * images, fonts, media of the page's site that loaded with 2xx), the share of their bytes served by a CDN,
 * known from the response headers a CDN adds or its hostname (../cdn.ts).
 * score = CDN bytes / all such bytes. Not applicable when the site serves no static resource of its own
 * (an all-third-party page: third parties are not the site's to move).
 */
import { servedByCdn } from '../cdn.js';
import { hostname, isOk, kindOf, sameSite, STATIC_KINDS, transferSize } from '../har.js';
import { NOT_APPLICABLE, pageUrl, type StructureAudit } from './audit.js';

export const useCdn: StructureAudit = {
  id: 'use-cdn',
  title: 'Use a Content Delivery Network (CDN)',
  impact: 'medium',
  source: 'webgauge',
  run(input) {
    const page = pageUrl(input);
    if (!page || !input.har) return NOT_APPLICABLE;
    const own = input.har.log.entries.filter((e) => isOk(e) && STATIC_KINDS.has(kindOf(e)) && sameSite(e.request.url, page));
    if (own.length === 0) return NOT_APPLICABLE;
    let total = 0;
    let onCdn = 0;
    const offHosts = new Set<string>();
    for (const e of own) {
      const bytes = Math.max(1, transferSize(e)); // a cached or empty response still counts as one resource
      total += bytes;
      if (servedByCdn(e)) onCdn += bytes;
      else offHosts.add(hostname(e.request.url));
    }
    const score = onCdn / total;
    return {
      score,
      displayValue: `${Math.round(score * 100)}% of the site's static bytes from a CDN`,
      offenders: [...offHosts],
    };
  },
};
