/** What every legacy (YSlow, PageSpeed) rule takes and gives, and the arithmetic they share. */
import type { PageFacts } from '../facts.js';
import type { HarLike } from '../har.js';
import type { AnalysedBodies } from './bodies.js';

export interface LegacyInput {
  har: HarLike;
  facts: PageFacts;
  /** What was learnt from the response bodies; absent when no BodyStore was given. */
  bodies?: AnalysedBodies;
}

export interface RuleResult {
  id: string;
  name: string;
  /** 0-100, or null when the rule could not be scored ("n/a"): left out of the overall score. */
  score: number | null;
  weight: number;
  /** What to fix: URLs, hosts or element descriptions, each with a short reason. */
  offenders: string[];
  message: string;
  /** Bytes the fix would save, for the byte-based PageSpeed rules. */
  savingsBytes?: number;
}

export type Rule = (input: LegacyInput) => RuleResult;

/** YSlow's and PageSpeed's letter for a 0-100 score. */
export function letter(score: number): 'A' | 'B' | 'C' | 'D' | 'E' | 'F' {
  return score >= 90 ? 'A' : score >= 80 ? 'B' : score >= 70 ? 'C' : score >= 60 ? 'D' : score >= 50 ? 'E' : 'F';
}

/** round(Σ(weight × max(0, score)) / Σ weight) over the scored rules (YSlow's controller formula). */
export function overallScore(results: readonly RuleResult[]): number {
  let sum = 0;
  let weights = 0;
  for (const r of results) {
    if (r.score === null) continue;
    sum += r.weight * Math.max(0, r.score);
    weights += r.weight;
  }
  return weights === 0 ? 100 : Math.round(sum / weights);
}

export const clampScore = (n: number): number => Math.max(0, Math.min(100, Math.round(n)));

export { plural } from '../../lib/words.js';
