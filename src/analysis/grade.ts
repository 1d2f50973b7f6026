/**
 * Structure score and grade.
 *
 * Structure score: a weighted mean of Lighthouse's non-metric performance audits (the "opportunities" and
 * "diagnostics" that say how the page is built, not how fast it was), each weighted by impact:
 * high 3, medium 2, low 1. An audit counts only when Lighthouse scored it (`binary`/`numeric`/`metricSavings`
 * modes with a numeric score); `notApplicable`, `informative` and `manual` audits are left out of both the sum
 * and the weights. score = round(100 × Σ(weight × audit score) / Σ weight). With no scorable audit it is absent.
 *
 * Grade (GTmetrix's published weighting): percent = 0.6 × performance + 0.4 × structure;
 * A ≥ 90, B ≥ 80, C ≥ 70, D ≥ 60, E ≥ 50, F below. service_score = round(percent).
 */
export type Impact = 'high' | 'medium' | 'low';
export const IMPACT_WEIGHT: Record<Impact, number> = { high: 3, medium: 2, low: 1 };

/** Lighthouse 12 audit id → impact. */
export const STRUCTURE_AUDITS: Record<string, Impact> = {
  'render-blocking-resources': 'high',
  'uses-text-compression': 'high',
  'uses-optimized-images': 'high',
  'uses-responsive-images': 'medium',
  'offscreen-images': 'medium',
  'modern-image-formats': 'medium',
  'efficient-animated-content': 'low',
  'uses-long-cache-ttl': 'medium',
  'unused-css-rules': 'medium',
  'unused-javascript': 'medium',
  'unminified-css': 'medium',
  'unminified-javascript': 'medium',
  'redirects': 'high',
  'server-response-time': 'high',
  'dom-size': 'low',
  'font-display': 'low',
  'third-party-summary': 'low',
  'uses-http2': 'medium',
  'long-tasks': 'low',
  'mainthread-work-breakdown': 'medium',
  'bootup-time': 'medium',
  'total-byte-weight': 'medium',
  'duplicated-javascript': 'low',
  'legacy-javascript': 'low',
  'uses-rel-preconnect': 'low',
  'prioritize-lcp-image': 'medium',
  'unsized-images': 'low',
  'no-document-write': 'low',
  'uses-passive-event-listeners': 'low',
  'layout-shifts': 'low',
  'lcp-lazy-loaded': 'medium',
  'non-composited-animations': 'low',
};

interface LhAudit {
  score?: number | null;
  scoreDisplayMode?: string;
}

export function structureScore(audits: Record<string, LhAudit> | undefined): number | undefined {
  if (!audits) return undefined;
  let sum = 0;
  let weights = 0;
  for (const [id, impact] of Object.entries(STRUCTURE_AUDITS)) {
    const audit = audits[id];
    if (!audit || typeof audit.score !== 'number') continue;
    if (!['binary', 'numeric', 'metricSavings'].includes(audit.scoreDisplayMode ?? '')) continue;
    const w = IMPACT_WEIGHT[impact];
    sum += w * Math.min(1, Math.max(0, audit.score));
    weights += w;
  }
  return weights === 0 ? undefined : Math.round((100 * sum) / weights);
}

export type Grade = 'A' | 'B' | 'C' | 'D' | 'E' | 'F';

export function grade(performance: number, structure: number): { grade: Grade; score: number } {
  const percent = 0.6 * performance + 0.4 * structure;
  const score = Math.round(percent);
  const letter: Grade = percent >= 90 ? 'A' : percent >= 80 ? 'B' : percent >= 70 ? 'C' : percent >= 60 ? 'D' : percent >= 50 ? 'E' : 'F';
  return { grade: letter, score };
}
