/**
 * Classic PageSpeed rules over the HAR, the DOM facts and (when captured) the bodies.
 *
 *   pagespeed_score = round(Σ(weight × score) / Σ weight) over the rules with a score
 *
 * with weight by impact (high 3, medium 2, low 1) and the per-rule shapes of ruleset.ts.
 */
import { letter, overallScore, type LegacyInput } from '../rule.js';
import {
  EnableGzipCompression, LeverageBrowserCaching, RemoveQueryStringsFromStaticResources, SpecifyACacheValidator,
  SpecifyAVaryAcceptEncodingHeader,
} from './compression-caching.js';
import { CombineImagesIntoCssSprites, OptimizeImages, ServeScaledImages, SpecifyImageDimensions } from './images.js';
import { InlineSmallCss, InlineSmallJavaScript, MinifyCss, MinifyHTML, MinifyJavaScript } from './minify-inline.js';
import { AvoidCssImport, AvoidRenderBlocking } from './rendering.js';
import {
  AvoidBadRequests, AvoidLandingPageRedirects, EnableKeepAlive, MinimizeRedirects, MinimizeRequestSize,
  ServeStaticContentFromACookielessDomain,
} from './requests.js';
import { PAGESPEED_RULESET, type PagespeedRuleId, type PagespeedRuleResult } from './ruleset.js';

export { PAGESPEED_RULESET, type PagespeedRuleId, type PagespeedRuleResult } from './ruleset.js';

export const PAGESPEED_RULES: Readonly<Record<PagespeedRuleId, (input: LegacyInput) => PagespeedRuleResult>> = {
  EnableGzipCompression, LeverageBrowserCaching, OptimizeImages, ServeScaledImages, AvoidRenderBlocking,
  MinimizeRedirects, AvoidLandingPageRedirects, AvoidBadRequests, MinifyCss, MinifyJavaScript, SpecifyImageDimensions,
  SpecifyACacheValidator, EnableKeepAlive, MinimizeRequestSize, AvoidCssImport, MinifyHTML,
  ServeStaticContentFromACookielessDomain, RemoveQueryStringsFromStaticResources, SpecifyAVaryAcceptEncodingHeader,
  InlineSmallCss, InlineSmallJavaScript, CombineImagesIntoCssSprites,
};

export interface PagespeedRuleJson {
  rule_name: string;
  localized_rule_name: string;
  /** 0-100, or null when the rule could not be scored. */
  rule_score: number | null;
  rule_impact: 'high' | 'medium' | 'low';
  weight: number;
  savings_bytes?: number;
  message: string;
  offenders: string[];
}

export interface PagespeedJson {
  url: string;
  score: number;
  grade: string;
  rule_results: PagespeedRuleJson[];
  notes: string[];
}

export function pagespeedReport(input: LegacyInput): { score: number; json: PagespeedJson; results: PagespeedRuleResult[] } {
  const results = (Object.keys(PAGESPEED_RULESET) as PagespeedRuleId[]).map((id) => PAGESPEED_RULES[id](input));
  const score = overallScore(results);
  const notes: string[] = [];
  if (!input.bodies) {
    notes.push('Response bodies were not captured: image optimisation, minification and @import checks are left out, ' +
      'and compression savings are estimated.');
  } else if (input.bodies.skipped.length) {
    notes.push(`${input.bodies.skipped.length} large response(s) were not analysed (size or count limit).`);
  }
  return {
    score,
    results,
    json: {
      url: input.facts.finalUrl,
      score,
      grade: letter(score),
      rule_results: results.map((r) => ({
        rule_name: r.id, localized_rule_name: r.name, rule_score: r.score, rule_impact: r.impact, weight: r.weight,
        ...(r.savingsBytes !== undefined ? { savings_bytes: r.savingsBytes } : {}),
        message: r.message, offenders: r.offenders,
      })),
      notes,
    },
  };
}
