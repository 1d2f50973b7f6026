/**
 * The classic PageSpeed rules we grade: ids (Page Speed's rule names), display names and impact.
 * Weight by impact: high 3, medium 2, low 1. Each rule scores 0-100 in one of three shapes:
 * - bytes:   100 × (1 − bytes the fix saves / bytes of the resources the rule inspects)
 * - share:   100 × (1 − offending resources / resources the rule inspects)   (caching gives partial credit)
 * - penalty: 100 − points × offenders
 * A rule with nothing to inspect scores 100; one that needs bodies it did not get scores null ("n/a").
 */
import type { Impact } from '../../structure/audit.js';
import { IMPACT_WEIGHT } from '../../structure/audit.js';
import type { RuleResult } from '../rule.js';

export const PAGESPEED_RULESET = {
  EnableGzipCompression: { name: 'Enable compression', impact: 'high' },
  LeverageBrowserCaching: { name: 'Leverage browser caching', impact: 'high' },
  OptimizeImages: { name: 'Optimize images', impact: 'high' },
  ServeScaledImages: { name: 'Serve scaled images', impact: 'high' },
  AvoidRenderBlocking: { name: 'Avoid render-blocking JavaScript and CSS in the body', impact: 'high' },
  MinimizeRedirects: { name: 'Minimize redirects', impact: 'high' },
  AvoidLandingPageRedirects: { name: 'Avoid landing page redirects', impact: 'high' },
  AvoidBadRequests: { name: 'Avoid bad requests', impact: 'high' },
  MinifyCss: { name: 'Minify CSS', impact: 'medium' },
  MinifyJavaScript: { name: 'Minify JavaScript', impact: 'medium' },
  SpecifyImageDimensions: { name: 'Specify image dimensions', impact: 'medium' },
  SpecifyACacheValidator: { name: 'Specify a cache validator', impact: 'medium' },
  EnableKeepAlive: { name: 'Enable Keep-Alive', impact: 'medium' },
  MinimizeRequestSize: { name: 'Minimize request size', impact: 'medium' },
  AvoidCssImport: { name: 'Avoid CSS @import', impact: 'medium' },
  MinifyHTML: { name: 'Minify HTML', impact: 'low' },
  ServeStaticContentFromACookielessDomain: { name: 'Serve static content from a cookieless domain', impact: 'low' },
  RemoveQueryStringsFromStaticResources: { name: 'Remove query strings from static resources', impact: 'low' },
  SpecifyAVaryAcceptEncodingHeader: { name: 'Specify a Vary: Accept-Encoding header', impact: 'low' },
  InlineSmallCss: { name: 'Inline small CSS', impact: 'low' },
  InlineSmallJavaScript: { name: 'Inline small JavaScript', impact: 'low' },
  CombineImagesIntoCssSprites: { name: 'Combine images into CSS sprites', impact: 'low' },
} as const satisfies Record<string, { name: string; impact: Impact }>;

export type PagespeedRuleId = keyof typeof PAGESPEED_RULESET;

export interface PagespeedRuleResult extends RuleResult {
  impact: Impact;
}

export function pagespeedResult(id: PagespeedRuleId, score: number | null, offenders: string[], message: string,
  savingsBytes?: number): PagespeedRuleResult {
  const { name, impact } = PAGESPEED_RULESET[id];
  return {
    id, name, impact, weight: IMPACT_WEIGHT[impact],
    score: score === null ? null : Math.max(0, Math.min(100, Math.round(score))),
    offenders, message, ...(savingsBytes !== undefined ? { savingsBytes } : {}),
  };
}

export const bytesScore = (wasted: number, inspected: number): number =>
  inspected > 0 ? 100 * (1 - Math.min(wasted, inspected) / inspected) : 100;

export const shareScore = (offenders: number, inspected: number): number =>
  inspected > 0 ? 100 * (1 - offenders / inspected) : 100;

export const percent = (part: number, whole: number): string => `${whole > 0 ? Math.round((100 * part) / whole) : 0} %`;
