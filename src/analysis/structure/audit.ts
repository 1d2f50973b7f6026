/** The shape every structure audit shares: a pure function from captured data to a 0-1 score. */
import type { PageFacts } from '../facts.js';
import { mainDocumentChain, type HarLike } from '../har.js';

export type Impact = 'high' | 'medium' | 'low';
export const IMPACT_WEIGHT: Record<Impact, number> = { high: 3, medium: 2, low: 1 };

/** The fields of a Lighthouse audit result (LHR `audits[id]`) that the structure score reads. */
export interface LhAudit {
  title?: string;
  score?: number | null;
  scoreDisplayMode?: string;
  displayValue?: string;
  details?: { type?: string; items?: unknown[] };
}

export interface StructureInput {
  /** `lhr.audits`; absent when Lighthouse did not run. */
  audits?: Record<string, LhAudit>;
  har?: HarLike;
  facts?: PageFacts;
}

export interface AuditOutcome {
  /** 0 (worst) to 1 (best); null when the audit does not apply or could not be measured: left out of the mean. */
  score: number | null;
  displayValue?: string;
  /** What to fix: URLs or element descriptions. */
  offenders?: string[];
}

export interface StructureAudit {
  id: string;
  title: string;
  impact: Impact;
  /** Lighthouse's own audit, or one of ours where Lighthouse has none. */
  source: 'lighthouse' | 'webgauge';
  run(input: StructureInput): AuditOutcome;
}

export const NOT_APPLICABLE: AuditOutcome = { score: null };

/** The page's own URL: the facts' final URL, else the main document of the HAR. */
export function pageUrl(input: StructureInput): string | undefined {
  if (input.facts?.finalUrl) return input.facts.finalUrl;
  const chain = mainDocumentChain(input.har);
  return chain.at(-1)?.request.url;
}

export const clamp01 = (n: number): number => Math.min(1, Math.max(0, n));
