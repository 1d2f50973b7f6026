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
  numericValue?: number;
  /** What fixing it would save of each metric (ms; CLS unitless), as Lighthouse estimates it. */
  metricSavings?: Record<string, number | undefined>;
  details?: { type?: string; items?: unknown; [key: string]: unknown };
}

export interface StructureInput {
  /** `lhr.audits`; absent when Lighthouse did not run. */
  audits?: Record<string, LhAudit>;
  har?: HarLike;
  facts?: PageFacts;
}

/** What fixing an audit would save, as Lighthouse estimates it (Lighthouse's audits only). */
export interface Savings {
  /** Time: Lighthouse's own estimate for an opportunity, else the largest of its metric savings in ms. */
  ms?: number;
  bytes?: number;
  /** Each metric's saving as Lighthouse gives it (FCP, LCP, TBT, INP in ms; CLS unitless). */
  metrics?: Record<string, number>;
}

/** One thing an audit names: a resource, an element, or a check that failed; with what it costs when known. */
export interface StructureItem {
  url?: string;
  /** An element of the page (its HTML snippet or selector). */
  element?: string;
  /** Words: a third party's name, a statistic, a failed check. */
  label?: string;
  total_bytes?: number;
  wasted_bytes?: number;
  wasted_ms?: number;
}

export interface AuditOutcome {
  /** 0 (worst) to 1 (best); null when the audit does not apply or could not be measured: left out of the mean. */
  score: number | null;
  displayValue?: string;
  /** What to fix: URLs or element descriptions (our audits). */
  offenders?: string[];
  /** Lighthouse's own title of the audit, as the result it was read from gives it. */
  title?: string;
  savings?: Savings;
  items?: StructureItem[];
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
