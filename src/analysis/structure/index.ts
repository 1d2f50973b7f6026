/**
 * Structure score: how well the page is built, as opposed to how fast it was.
 *
 *   structure = round(100 × Σ(weight × score) / Σ weight)
 *
 * over every audit below whose score is not null, with weight by impact: high 3, medium 2, low 1. Audit
 * scores are 0-1: Lighthouse's own for its audits (lighthouse-audits.ts), ours for the audits Lighthouse
 * lacks (one file each). The score exists only for Lighthouse reports: without `lhr.audits` it is undefined.
 *
 * Which Lighthouse audits count depends on the Lighthouse that made the result (its `lighthouseVersion`): Lighthouse 13
 * replaced most of 12's with insights, so a result of 12 is read with 12's table and one of 13 with 13's (an audit
 * set each). A report keeps the audits it was scored with (structure.json): nothing stored is re-scored.
 */
import type { PageFacts } from '../facts.js';
import type { HarLike } from '../har.js';
import { IMPACT_WEIGHT, type Impact, type LhAudit, type Savings, type StructureAudit, type StructureItem } from './audit.js';
import { avoidBadRequests } from './avoid-bad-requests.js';
import { avoidEmptySrc } from './avoid-empty-src.js';
import { enableKeepAlive } from './enable-keep-alive.js';
import { LIGHTHOUSE_12_AUDITS, LIGHTHOUSE_13_AUDITS, lighthouseAudit, type LighthouseAuditSpec } from './lighthouse-audits.js';
import { noDuplicateRequests } from './no-duplicate-requests.js';
import { useCdn } from './use-cdn.js';

export { IMPACT_WEIGHT, type Impact, type LhAudit, type Savings, type StructureAudit, type StructureItem } from './audit.js';

/** The structure audits Lighthouse lacks, the same whichever Lighthouse ran. */
const OUR_AUDITS: readonly StructureAudit[] = [useCdn, avoidBadRequests, avoidEmptySrc, enableKeepAlive, noDuplicateRequests];

/**
 * The Lighthouse audits a structure score reads, by the Lighthouse major version that made the result: `12` for
 * Lighthouse 12 (and older), `13` for 13 on. A structure score compares only with scores of the same set.
 */
export type StructureAuditSet = '12' | '13';
export const LIGHTHOUSE_AUDIT_TABLES: Readonly<Record<StructureAuditSet, readonly LighthouseAuditSpec[]>> = {
  12: LIGHTHOUSE_12_AUDITS,
  13: LIGHTHOUSE_13_AUDITS,
};
/** The set the service scores new results with. */
export const CURRENT_AUDIT_SET: StructureAuditSet = '13';

/** The audit set of a result made by this Lighthouse version (`lhr.lighthouseVersion`); unknown: the current one. */
export function structureAuditSet(lighthouseVersion: string | null | undefined): StructureAuditSet {
  const major = Number(/^(\d+)\./.exec(lighthouseVersion ?? '')?.[1]);
  return Number.isFinite(major) && major <= 12 ? '12' : '13';
}

/** Whether structure scores of results of these two Lighthouse versions were computed from the same audits. */
export function sameStructureAudits(a: string | null | undefined, b: string | null | undefined): boolean {
  return structureAuditSet(a) === structureAuditSet(b);
}

export const STRUCTURE_AUDIT_LISTS: Readonly<Record<StructureAuditSet, readonly StructureAudit[]>> = {
  12: [...LIGHTHOUSE_12_AUDITS.map(lighthouseAudit), ...OUR_AUDITS],
  13: [...LIGHTHOUSE_13_AUDITS.map(lighthouseAudit), ...OUR_AUDITS],
};
/** The audits new reports are scored with. */
export const STRUCTURE_AUDIT_LIST: readonly StructureAudit[] = STRUCTURE_AUDIT_LISTS[CURRENT_AUDIT_SET];

/** One audit of a report's structure section (structure.json's `audits`). */
export interface StructureAuditResult {
  id: string;
  title: string;
  impact: Impact;
  weight: number;
  source: 'lighthouse' | 'webgauge';
  /** 0-1, or null when it does not apply (left out of the score). */
  score: number | null;
  /** Lighthouse's summary line (or ours): "Est savings of 33 KiB", "1 long task found". */
  display_value?: string;
  savings?: Savings;
  /** What the audit names: resources, elements, failed checks (at most lighthouse-details ITEMS_KEPT). */
  items: StructureItem[];
}

/** A report's structure section as structure.json keeps it. */
export interface StructureReport {
  /** 0-100; undefined without Lighthouse audits or when no audit could be scored. */
  score: number | undefined;
  /** The Lighthouse whose audits were read, when known. */
  lighthouse_version?: string;
  audit_set: StructureAuditSet;
  audits: StructureAuditResult[];
}

/** A URL of the page, or words (our audits' offenders: hosts, elements, "url (2 times)"). */
function itemOf(offender: string): StructureItem {
  return /^https?:\/\/\S+$/.test(offender) ? { url: offender } : { label: offender };
}

export function structureReport(audits: Record<string, LhAudit> | undefined, har?: HarLike, facts?: PageFacts,
  lighthouseVersion?: string): StructureReport {
  const set = structureAuditSet(lighthouseVersion);
  const results: StructureAuditResult[] = STRUCTURE_AUDIT_LISTS[set].map((audit) => {
    const outcome = audit.run({ audits, har, facts });
    return {
      id: audit.id, title: outcome.title ?? audit.title, impact: audit.impact, weight: IMPACT_WEIGHT[audit.impact],
      source: audit.source, score: outcome.score,
      ...(outcome.displayValue ? { display_value: outcome.displayValue } : {}),
      ...(outcome.savings ? { savings: outcome.savings } : {}),
      items: outcome.items ?? (outcome.offenders ?? []).map(itemOf),
    };
  });
  return { score: audits ? weightedScore(results) : undefined, ...(lighthouseVersion ? { lighthouse_version: lighthouseVersion } : {}),
    audit_set: set, audits: results };
}

/** `structureReport(...).score`: the HAR and facts count our own audits. */
export function structureScore(audits: Record<string, LhAudit> | undefined, har?: HarLike, facts?: PageFacts,
  lighthouseVersion?: string): number | undefined {
  return structureReport(audits, har, facts, lighthouseVersion).score;
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

const IMPACTS = new Set<string>(['high', 'medium', 'low']);

/**
 * A stored structure.json in today's shape, whenever it was written: reports made before Lighthouse 13 kept
 * `displayValue` and `offenders` and no version (they were Lighthouse 12's audits). Undefined when it is not one.
 */
export function readStructureReport(stored: unknown): StructureReport | undefined {
  if (typeof stored !== 'object' || stored === null || !Array.isArray((stored as { audits?: unknown }).audits)) return undefined;
  const s = stored as { score?: unknown; lighthouse_version?: unknown; audit_set?: unknown; audits: unknown[] };
  const audits: StructureAuditResult[] = [];
  for (const raw of s.audits) {
    if (typeof raw !== 'object' || raw === null) continue;
    const a = raw as Record<string, unknown>;
    if (typeof a.id !== 'string' || typeof a.title !== 'string' || !IMPACTS.has(String(a.impact))) continue;
    const impact = a.impact as Impact;
    const shown = typeof a.display_value === 'string' ? a.display_value : typeof a.displayValue === 'string' ? a.displayValue : undefined;
    const items = Array.isArray(a.items) ? (a.items as StructureItem[])
      : Array.isArray(a.offenders) ? a.offenders.filter((o): o is string => typeof o === 'string').map(itemOf) : [];
    audits.push({
      id: a.id, title: a.title, impact, weight: typeof a.weight === 'number' ? a.weight : IMPACT_WEIGHT[impact],
      source: a.source === 'webgauge' ? 'webgauge' : 'lighthouse',
      score: typeof a.score === 'number' ? a.score : null,
      ...(shown ? { display_value: shown } : {}),
      ...(typeof a.savings === 'object' && a.savings !== null ? { savings: a.savings as Savings } : {}),
      items,
    });
  }
  const version = typeof s.lighthouse_version === 'string' ? s.lighthouse_version : undefined;
  return {
    score: typeof s.score === 'number' ? s.score : undefined,
    ...(version ? { lighthouse_version: version } : {}),
    audit_set: s.audit_set === '12' || s.audit_set === '13' ? s.audit_set : version ? structureAuditSet(version) : '12',
    audits,
  };
}
