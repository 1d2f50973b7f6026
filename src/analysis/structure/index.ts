/**
 * Structure score: how well the page is built, as opposed to how fast it was.
 *
 *   structure = round(100 × Σ(weight × score) / Σ weight)
 *
 * over every audit below whose score is not null, with weight by impact: high 3, medium 2, low 1. Audit
 * scores are 0-1: Lighthouse's own for its audits (lighthouse-audits.ts), ours for the audits Lighthouse
 * lacks (one file each). The score exists only for Lighthouse reports: without `lhr.audits` it is undefined.
 */
import type { PageFacts } from '../facts.js';
import type { HarLike } from '../har.js';
import { IMPACT_WEIGHT, type Impact, type LhAudit, type StructureAudit } from './audit.js';
import { avoidBadRequests } from './avoid-bad-requests.js';
import { avoidEmptySrc } from './avoid-empty-src.js';
import { enableKeepAlive } from './enable-keep-alive.js';
import { LIGHTHOUSE_STRUCTURE_AUDITS, lighthouseAudit } from './lighthouse-audits.js';
import { noDuplicateRequests } from './no-duplicate-requests.js';
import { useCdn } from './use-cdn.js';

export { IMPACT_WEIGHT, type Impact, type LhAudit, type StructureAudit } from './audit.js';

export const STRUCTURE_AUDIT_LIST: readonly StructureAudit[] = [
  ...LIGHTHOUSE_STRUCTURE_AUDITS.map(lighthouseAudit),
  useCdn,
  avoidBadRequests,
  avoidEmptySrc,
  enableKeepAlive,
  noDuplicateRequests,
];

export interface StructureAuditResult {
  id: string;
  title: string;
  impact: Impact;
  weight: number;
  source: 'lighthouse' | 'webgauge';
  /** 0-1, or null when it does not apply (left out of the score). */
  score: number | null;
  displayValue?: string;
  offenders?: string[];
}

export interface StructureReport {
  /** 0-100; undefined without Lighthouse audits or when no audit could be scored. */
  score: number | undefined;
  audits: StructureAuditResult[];
}

export function structureReport(audits: Record<string, LhAudit> | undefined, har?: HarLike, facts?: PageFacts,
  list: readonly StructureAudit[] = STRUCTURE_AUDIT_LIST): StructureReport {
  const results: StructureAuditResult[] = list.map((audit) => {
    const outcome = audit.run({ audits, har, facts });
    return {
      id: audit.id, title: audit.title, impact: audit.impact, weight: IMPACT_WEIGHT[audit.impact], source: audit.source,
      ...outcome,
    };
  });
  return { score: audits ? weightedScore(results) : undefined, audits: results };
}

/** Drop-in for the old `structureScore(lhr.audits)`: pass the HAR and facts as well to count our own audits. */
export function structureScore(audits: Record<string, LhAudit> | undefined, har?: HarLike, facts?: PageFacts): number | undefined {
  return structureReport(audits, har, facts).score;
}

export function weightedScore(results: readonly { weight: number; score: number | null }[]): number | undefined {
  let sum = 0;
  let weights = 0;
  for (const r of results) {
    if (r.score === null) continue;
    sum += r.weight * r.score;
    weights += r.weight;
  }
  return weights === 0 ? undefined : Math.round((100 * sum) / weights);
}
