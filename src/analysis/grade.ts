/**
 * Grade (GTmetrix's published weighting): percent = 0.6 × performance + 0.4 × structure;
 * A ≥ 90, B ≥ 80, C ≥ 70, D ≥ 60, E ≥ 50, F below; service_score = round(percent). The letter comes from the
 * exact percent, so 89.6 is a B with service_score 90.
 *
 * Performance is Lighthouse's performance category score from the observed metrics, on the desktop curves
 * for desktop tests and the mobile curves for simulated phones and tablets (the runner sets formFactor).
 * Structure is the impact-weighted mean of the structure audits: see structure/index.ts.
 */
import { GRADE_WEIGHTS } from './figures.js';

export { GRADE_WEIGHTS };
import { CURRENT_AUDIT_SET, LIGHTHOUSE_AUDIT_TABLES, STRUCTURE_AUDIT_LIST, type Impact } from './structure/index.js';

export {
  IMPACT_WEIGHT, readStructureReport, sameStructureAudits, structureAuditSet, structureReport, structureScore, type Impact,
  type StructureAuditSet, type StructureReport,
} from './structure/index.js';

/** Audit id → impact, every structure audit new reports are scored with (Lighthouse's and ours). */
export const STRUCTURE_AUDITS: Readonly<Record<string, Impact>> = Object.fromEntries(
  STRUCTURE_AUDIT_LIST.map((a) => [a.id, a.impact]));

/** The Lighthouse audit ids among them. */
export const LIGHTHOUSE_AUDIT_IDS: readonly string[] = LIGHTHOUSE_AUDIT_TABLES[CURRENT_AUDIT_SET].map((a) => a.id);

export type Grade = 'A' | 'B' | 'C' | 'D' | 'E' | 'F';

/** The lowest percent of each letter, best first; below the last, F. */
export const GRADE_FLOORS: readonly (readonly [Grade, number])[] = [['A', 90], ['B', 80], ['C', 70], ['D', 60], ['E', 50]];

export function grade(performance: number, structure: number): { grade: Grade; score: number } {
  const percent = GRADE_WEIGHTS.performance * performance + GRADE_WEIGHTS.structure * structure;
  const score = Math.round(percent);
  const letter: Grade = GRADE_FLOORS.find(([, floor]) => percent >= floor)?.[0] ?? 'F';
  return { grade: letter, score };
}
