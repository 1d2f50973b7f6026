/**
 * YSlow V2 ("ydefault"): the 23 rules over the HAR, the DOM facts and (when captured) the bodies.
 *
 *   yslow_score = round(Σ(weight × max(0, score)) / Σ weight) over the rules with a score
 *
 * as YSlow's own controller computes it; yexternal is informational ("n/a") and left out, as are body rules
 * that could check nothing. yslow.json keeps the keys of YSlow's command-line JSON (w, o, u, r, i, g) so
 * existing readers work, with each rule's name, weight, grade and offenders added.
 */
import { transferSize } from '../../har.js';
import { letter, overallScore, type LegacyInput, type Rule, type RuleResult } from '../rule.js';
import { ydns, ymindom, yno404, ynumreq, yredirects, yxhr } from './content.js';
import { yfavicon, yimgnoscale, ycookiefree, ymincookie } from './cookie-images.js';
import { ycsstop, ydupes, yexpressions, yexternal, yjsbottom, yminify, ynofilter } from './css-javascript.js';
import { ycdn, ycompress, yemptysrc, yetags, yexpires, yxhrmethod } from './server.js';
import { YSLOW_RULESET, type YslowRuleId } from './ruleset.js';

export { YSLOW_RULESET, type YslowRuleId } from './ruleset.js';

/** In the ruleset's order. */
export const YSLOW_RULES: Readonly<Record<YslowRuleId, Rule>> = {
  ynumreq, ycdn, yemptysrc, yexpires, ycompress, ycsstop, yjsbottom, yexpressions, yexternal, ydns, yminify,
  yredirects, ydupes, yetags, yxhr, yxhrmethod, ymindom, yno404, ymincookie, ycookiefree, ynofilter, yimgnoscale,
  yfavicon,
};

export interface YslowRuleJson {
  name: string;
  /** 0-100, or "n/a". */
  score: number | 'n/a';
  grade: string;
  weight: number;
  message: string;
  components: string[];
}

export interface YslowJson {
  /** Page bytes on the wire. */
  w: number;
  /** Overall score. */
  o: number;
  u: string;
  /** Requests. */
  r: number;
  /** Ruleset id. */
  i: 'ydefault';
  grade: string;
  g: Record<string, YslowRuleJson>;
  notes: string[];
}

export function yslowReport(input: LegacyInput): { score: number; json: YslowJson; results: RuleResult[] } {
  const results = (Object.keys(YSLOW_RULESET) as YslowRuleId[]).map((id) => YSLOW_RULES[id](input));
  const score = overallScore(results);
  const entries = input.har.log.entries;
  const g: Record<string, YslowRuleJson> = {};
  for (const r of results) {
    g[r.id] = {
      name: r.name, score: r.score ?? 'n/a', grade: r.score === null ? 'n/a' : letter(r.score), weight: r.weight,
      message: r.message, components: r.offenders,
    };
  }
  const notes: string[] = [];
  if (!input.bodies) notes.push('Response bodies were not captured: minification, CSS expressions and filters are judged on inline code only.');
  return {
    score,
    results,
    json: {
      w: entries.reduce((sum, e) => sum + transferSize(e), 0),
      o: score,
      u: input.facts.finalUrl,
      r: entries.length,
      i: 'ydefault',
      grade: letter(score),
      g,
      notes,
    },
  };
}
