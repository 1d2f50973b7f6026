/**
 * YSlow V2's default ruleset ("ydefault"): rule ids, names and the published weights. Each rule starts at
 * 100 and loses points per offender, as in YSlow; a negative result is reported as 0.
 */
import type { RuleResult } from '../rule.js';

export const YSLOW_RULESET = {
  ynumreq: { name: 'Make fewer HTTP requests', weight: 8 },
  ycdn: { name: 'Use a Content Delivery Network (CDN)', weight: 6 },
  yemptysrc: { name: 'Avoid empty src or href', weight: 30 },
  yexpires: { name: 'Add Expires headers', weight: 10 },
  ycompress: { name: 'Compress components with gzip', weight: 8 },
  ycsstop: { name: 'Put CSS at top', weight: 4 },
  yjsbottom: { name: 'Put JavaScript at bottom', weight: 4 },
  yexpressions: { name: 'Avoid CSS expressions', weight: 3 },
  yexternal: { name: 'Make JavaScript and CSS external', weight: 4 },
  ydns: { name: 'Reduce DNS lookups', weight: 3 },
  yminify: { name: 'Minify JavaScript and CSS', weight: 4 },
  yredirects: { name: 'Avoid URL redirects', weight: 4 },
  ydupes: { name: 'Remove duplicate JavaScript and CSS', weight: 4 },
  yetags: { name: 'Configure entity tags (ETags)', weight: 2 },
  yxhr: { name: 'Make AJAX cacheable', weight: 4 },
  yxhrmethod: { name: 'Use GET for AJAX requests', weight: 3 },
  ymindom: { name: 'Reduce the number of DOM elements', weight: 3 },
  yno404: { name: 'Avoid HTTP 404 (Not Found) error', weight: 4 },
  ymincookie: { name: 'Reduce cookie size', weight: 3 },
  ycookiefree: { name: 'Use cookie-free domains', weight: 3 },
  ynofilter: { name: 'Avoid AlphaImageLoader filter', weight: 4 },
  yimgnoscale: { name: 'Do not scale images in HTML', weight: 3 },
  yfavicon: { name: 'Make favicon small and cacheable', weight: 2 },
} as const;

export type YslowRuleId = keyof typeof YSLOW_RULESET;

export function yslowResult(id: YslowRuleId, score: number | null, offenders: string[], message: string): RuleResult {
  const { name, weight } = YSLOW_RULESET[id];
  return { id, name, score: score === null ? null : Math.max(0, Math.round(score)), weight, offenders, message };
}

/** "100 − points × offenders", YSlow's most common shape. */
export const penalty = (points: number, offenders: number): number => 100 - points * offenders;

/** A note for rules that read response bodies when some were not available. */
export function uncheckedNote(unchecked: number, what: string): string {
  return unchecked > 0 ? ` ${unchecked} ${what} not checked: response body not captured.` : '';
}
