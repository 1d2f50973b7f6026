/**
 * report=legacy: PageSpeed and YSlow scores and JSON from one load's HAR, DOM facts and (optionally) bodies.
 * See pagespeed/index.ts and yslow/index.ts for the formulas, ../README.md (src/analysis/README.md) for every rule.
 */
import type { BodyStore, PageFacts } from '../facts.js';
import type { HarLike } from '../har.js';
import { analyseBodies, type AnalysedBodies, type AnalyseOptions } from './bodies.js';
import { pagespeedReport, type PagespeedJson } from './pagespeed/index.js';
import { yslowReport, type YslowJson } from './yslow/index.js';

export { buildPagespeedFiles } from './files.js';
export type { AnalysedBodies, AnalyseOptions } from './bodies.js';
export type { PagespeedJson } from './pagespeed/index.js';
export type { YslowJson } from './yslow/index.js';

export interface LegacyAnalysis {
  /** pagespeed_score and pagespeed.json. */
  pagespeed: { score: number; json: PagespeedJson };
  /** yslow_score and yslow.json. */
  yslow: { score: number; json: YslowJson };
  /** What the bodies gave (minified and re-encoded outputs included): hand to buildPagespeedFiles. */
  bodies?: AnalysedBodies;
}

export async function legacyAnalysis(har: HarLike, facts: PageFacts, bodies?: BodyStore,
  options?: AnalyseOptions): Promise<LegacyAnalysis> {
  const analysed = bodies ? await analyseBodies(har, bodies, options) : undefined;
  const input = { har, facts, bodies: analysed };
  const pagespeed = pagespeedReport(input);
  const yslow = yslowReport(input);
  return {
    pagespeed: { score: pagespeed.score, json: pagespeed.json },
    yslow: { score: yslow.score, json: yslow.json },
    bodies: analysed,
  };
}
