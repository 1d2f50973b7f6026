/**
 * Two scans of a site compared (docs/scans.md "Compare two scans"): the pages of scan A (before) and B (after)
 * matched by URL, each matched page's change of grade, performance score, LCP, TBT, CLS and fully loaded time, and a
 * verdict: significantly worse, better, or unchanged, with the reasons. Pure: the caller reads the two scans' rows.
 *
 * How a change counts: the one rule of differences (analysis/noise.ts judgeDifference), which every screen shares:
 * - With per-run values on both sides (the pages' tests loaded them `runs` > 1 times) and enough of them for the test
 *   to reach `alpha` at all (smallest one-sided p = 1 / C(n1 + n2, n1): at 0.05, 3 and 3 runs cannot, 3 and 4 can), the
 *   Mann-Whitney U test the alerts use (one-sided, p < alpha), and the medians moved by at least half the figure's
 *   noise (a tiny change can be significant; it is not worth a failed build). Said to be a test, with its p.
 * - Otherwise a change of the report's figure by at least the figure's noise (the one table of figures: LCP 500 ms,
 *   TBT 200 ms, CLS 0.1, fully loaded 1,000 ms, performance 10 points). Said to be a threshold, not a test.
 * - The grade is one letter of one report: it counts when it moves 2 letters or more (B → D), never under a test; and
 *   not at all when the two reports read different structure audits (Lighthouse 12 against 13: the grade is 40 %
 *   structure, analysis/structure sameStructureAudits).
 * A page is worse when any figure got worse, better when some got better and none worse. A template is worse as a
 * whole when its matched pages' values moved: the Mann-Whitney test of the pages' values when each side has at least
 * 3 pages and the test can reach alpha, else the median change beyond the figure's noise.
 */
import { judgeDifference, smallestP, testable, TESTED_SHARE } from './noise.js';
import { median } from './statistics.js';
import { sameStructureAudits } from './structure/index.js';
import { figure, formatChange, formatChangeSize, formatFigure, shortOf, SITE_FIGURES, type FigureUnit, type SiteFigure } from './figures.js';
import { COMPARED_SITE_FIGURES } from './named-site-figures.js';
import { scanSite, type SiteFigures } from './site-figures.js';
import type {
  ComparedMetric, ComparedPage, ComparedTemplate, ComparePageInput, CompareScanInput, FailedPage, OtherPage, PageSide, Reason,
  ScanComparison, SiteFigureRow, Verdict,
} from './scan-comparison-types.js';

export interface MetricRule {
  /** As a reason names it. */
  short: string;
  unit: FigureUnit;
  better: 'higher' | 'lower';
  /** The least change of one report's figure that counts (one run a side, or too few runs for the test). */
  threshold: number;
}

/** The compared figures (the one table's site figures), in the order the comparison lists them, with the least change that counts. */
export const COMPARE_RULES: Readonly<Record<ComparedMetric, MetricRule>> = Object.fromEntries(SITE_FIGURES.map((name) => {
  const f = figure(name);
  return [name, { short: shortOf(f), unit: f.unit, better: f.better, threshold: f.noise.change }];
})) as Record<ComparedMetric, MetricRule>;
export const COMPARED_METRICS: readonly ComparedMetric[] = SITE_FIGURES;
/** Letters a grade must fall (worse) or rise (better) to count. */
export const GRADE_LETTERS = 2;
/** Pages a template needs on each side for the test of its pages' values. */
export const TEMPLATE_TEST_MIN_PAGES = 3;
const LETTERS = 'ABCDEF';

/* Formatting, as reasons say it: the one table's way for each unit. */

const round4 = (v: number): number => Math.round(v * 10_000) / 10_000;
const withUnit = (unit: FigureUnit, v: number): string => formatFigure(unit, v);
const signed = (unit: FigureUnit, v: number): string => formatChange(unit, v);
/** A threshold is the size of a change: 500 ms, 10 points, 0.1. */
const changeSize = (unit: FigureUnit, v: number): string => formatChangeSize(unit, v);
export { smallestP, TESTED_SHARE };
export const pText = (p: number): string => (p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`);

const present = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

interface Judged {
  reason?: Reason;
  tested: boolean;
}

/**
 * One figure of one page (or template), by the one rule of differences (analysis/noise.ts): the test when `runs` allow
 * it, else the figure's noise on the single values; a reason when it is better or worse, none when within noise.
 */
function judge(metric: ComparedMetric, before: number | null, after: number | null, runs: [readonly number[], readonly number[]] | undefined,
  alpha: number, unitOfN: 'runs' | 'pages', testMin = 2): Judged {
  const rule = COMPARE_RULES[metric];
  const tested = runs !== undefined && runs[0].length >= testMin && runs[1].length >= testMin && testable(runs[0].length, runs[1].length, alpha);
  const j = judgeDifference(figure(metric), tested ? { runs } : { before, after }, { alpha, minRuns: testMin });
  if (!j || j.difference === 'within_noise') return { tested };
  const direction = j.difference;
  const text = `${rule.short} ${unitOfN === 'pages' ? 'median ' : ''}${withUnit(rule.unit, j.before)} → ${withUnit(rule.unit, j.after)}`;
  if (j.basis === 'test') {
    return {
      tested: true,
      reason: {
        metric, direction, basis: 'test', before: j.before, after: j.after, change: j.change, threshold: j.least, p: j.p!, n: j.n,
        text, why: `Mann-Whitney ${pText(j.p!)} over ${j.n[0]} and ${j.n[1]} ${unitOfN}; medians ${signed(rule.unit, j.change)}, at least ${changeSize(rule.unit, j.least)}`,
      },
    };
  }
  const [n1, n2] = runs ? [Math.max(1, runs[0].length), Math.max(1, runs[1].length)] : [1, 1];
  const few = n1 > 1 && n2 > 1 ? `; ${n1} and ${n2} ${unitOfN} are too few for a test`
    : n1 > 1 || n2 > 1 ? `; no test: one side has a single ${unitOfN === 'runs' ? 'run' : 'page'}` : '';
  return {
    tested: false,
    reason: {
      metric, direction, basis: 'threshold', before: j.before, after: j.after, change: j.change, threshold: rule.threshold, text,
      why: `${signed(rule.unit, j.change)}, threshold ${changeSize(rule.unit, rule.threshold)}${few}`,
    },
  };
}

function gradeReason(before: string, after: string): Reason | undefined {
  const fell = LETTERS.indexOf(after) - LETTERS.indexOf(before);
  if (LETTERS.indexOf(after) < 0 || LETTERS.indexOf(before) < 0 || Math.abs(fell) < GRADE_LETTERS) return undefined;
  return {
    metric: 'grade', direction: fell > 0 ? 'worse' : 'better', basis: 'threshold', before, after, change: fell, threshold: GRADE_LETTERS,
    text: `grade ${before} → ${after}`, why: `${Math.abs(fell)} letters ${fell > 0 ? 'down' : 'up'}, threshold ${GRADE_LETTERS} letters`,
  };
}

function sideOf(p: ComparePageInput): PageSide {
  const runs = Math.max(1, ...Object.values(p.run_values ?? {}).map((v) => v?.length ?? 0));
  return {
    report: p.report_id, grade: p.grade, performance_score: p.performance_score, largest_contentful_paint: p.largest_contentful_paint,
    total_blocking_time: p.total_blocking_time, cumulative_layout_shift: p.cumulative_layout_shift, fully_loaded_time: p.fully_loaded_time,
    lighthouse_version: p.lighthouse_version, runs,
  };
}

const runValues = (p: ComparePageInput, metric: ComparedMetric): number[] => (p.run_values?.[metric] ?? []).filter(present);

function comparePage(a: ComparePageInput, b: ComparePageInput, alpha: number): ComparedPage {
  const reasons: Reason[] = [];
  let tested = false;
  const changes = { grade: null } as ComparedPage['changes'];
  for (const metric of COMPARED_METRICS) {
    const before = a[metric];
    const after = b[metric];
    changes[metric] = present(before) && present(after) ? round4(after - before) : null;
    const ra = runValues(a, metric);
    const rb = runValues(b, metric);
    const j = judge(metric, before, after, ra.length > 1 || rb.length > 1 ? [ra, rb] : undefined, alpha, 'runs');
    tested ||= j.tested;
    if (j.reason) reasons.push(j.reason);
  }
  if (a.grade && b.grade && sameStructureAudits(a.lighthouse_version, b.lighthouse_version)) {
    changes.grade = LETTERS.indexOf(b.grade) - LETTERS.indexOf(a.grade);
    const g = gradeReason(a.grade, b.grade);
    if (g) reasons.unshift(g);
  }
  reasons.sort((x, y) => (x.direction === y.direction ? 0 : x.direction === 'worse' ? -1 : 1));
  const verdict: Verdict = reasons.some((r) => r.direction === 'worse') ? 'worse' : reasons.length ? 'better' : 'unchanged';
  return { url: b.url, template: b.template, verdict, basis: tested ? 'test' : 'threshold', before: sideOf(a), after: sideOf(b), changes, reasons };
}

function compareTemplate(template: string, pairs: readonly [ComparePageInput, ComparePageInput][], alpha: number): ComparedTemplate {
  const reasons: Reason[] = [];
  for (const metric of COMPARED_METRICS) {
    const a = pairs.map(([x]) => x[metric]).filter(present);
    const b = pairs.map(([, y]) => y[metric]).filter(present);
    if (a.length === 0 || b.length === 0) continue;
    const j = judge(metric, median(a), median(b), [a, b], alpha, 'pages', TEMPLATE_TEST_MIN_PAGES);
    if (j.reason) reasons.push(j.reason);
  }
  reasons.sort((x, y) => (x.direction === y.direction ? 0 : x.direction === 'worse' ? -1 : 1));
  const verdict: Verdict = reasons.some((r) => r.direction === 'worse') ? 'worse' : reasons.length ? 'better' : 'unchanged';
  return { template, pages: pairs.length, verdict, reasons };
}

/** The site figures the comparison lists (named-site-figures.ts), as the API names their units: ms, cls, score, or a count. */
function siteFigureRows(a: SiteFigures | null, b: SiteFigures | null): SiteFigureRow[] {
  return COMPARED_SITE_FIGURES.map((f) => {
    const before = a ? (f.value({ figures: a }) ?? null) : null;
    const after = b ? (f.value({ figures: b }) ?? null) : null;
    return {
      figure: f.name, label: f.label, unit: f.unit === 'time' ? 'ms' : f.unit === 'pages' ? 'count' : f.unit,
      better: f.direction === 'max' ? 'lower' : 'higher', before, after, change: before !== null && after !== null ? round4(after - before) : null,
    };
  });
}

const conditionText = (v: string | number | null | undefined): string => (v === null || v === undefined || v === '' ? 'not set' : String(v));
const versionsOf = (pages: readonly ComparePageInput[]): string[] =>
  [...new Set(pages.map((p) => p.lighthouse_version).filter((v): v is string => v !== null))].sort();

/** What the reader must know before the verdicts. */
function notesOf(a: CompareScanInput, b: CompareScanInput, pairs: readonly [ComparePageInput, ComparePageInput][], gradeSkipped: number,
  fewRuns: [number, number] | undefined, alpha: number): string[] {
  const notes: string[] = [];
  const keys = [...new Set([...Object.keys(a.conditions), ...Object.keys(b.conditions)])];
  const differ = keys.filter((k) => conditionText(a.conditions[k]) !== conditionText(b.conditions[k]));
  if (differ.length) {
    notes.push(`The scans were tested under different options: ${differ.map((k) => `${k} ${conditionText(a.conditions[k])} → ${conditionText(b.conditions[k])}`).join(', ')}. ` +
      'A change may come from the options rather than from the site.');
  }
  const va = versionsOf(pairs.map(([x]) => x));
  const vb = versionsOf(pairs.map(([, y]) => y));
  if (va.join() !== vb.join() && va.length && vb.length) {
    if (gradeSkipped > 0) {
      notes.push(`Lighthouse ${va.join(', ')} made the before scan's reports and ${vb.join(', ')} the after scan's: the structure audits changed ` +
        `between them, so the structure score does not compare, nor the grade (40 % structure): grades are left out of the verdicts ` +
        `of ${gradeSkipped === pairs.length ? 'every matched page' : `${gradeSkipped} of ${pairs.length} matched pages`}.`);
    } else {
      notes.push(`Lighthouse ${va.join(', ')} made the before scan's reports and ${vb.join(', ')} the after scan's; they read the same structure audits, so every figure compares.`);
    }
  }
  const siteA = scanSite(a);
  const siteB = scanSite(b);
  if (siteA !== siteB) notes.push(`The scans are of different sites (${siteA} and ${siteB}): pages match only by their whole URL.`);
  if (a.created > b.created) notes.push('The before scan is the newer one: "worse" means worse than the later scan.');
  for (const [side, s] of [['before', a], ['after', b]] as const) {
    if (s.state === 'cancelled') notes.push(`The ${side} scan was cancelled: its pages that were not tested are listed among the pages not measured.`);
  }
  if (fewRuns) {
    const [n1, n2] = fewRuns;
    notes.push(`Some pages were loaded more than once in both scans, but too few times for the Mann-Whitney test to reach ` +
      `p < ${alpha} (with ${n1} and ${n2} runs its smallest p is ${Math.round(smallestP(n1, n2) * 1000) / 1000}): their changes are judged by the thresholds.`);
  }
  return notes;
}

const RANK: Record<Verdict, number> = { worse: 0, better: 1, unchanged: 2 };

/** Scan `a` (before) against scan `b` (after); `alpha` is the significance level of the tests (the alerts' REGRESSION.alpha). */
export function compareScans(a: CompareScanInput, b: CompareScanInput, alpha: number): ScanComparison {
  const beforeByUrl = new Map<string, ComparePageInput>();
  for (const p of a.pages) if (!beforeByUrl.has(p.url)) beforeByUrl.set(p.url, p);
  const afterUrls = new Set<string>();
  const pairs: [ComparePageInput, ComparePageInput][] = [];
  const newPages: OtherPage[] = [];
  const failed: FailedPage[] = [];
  const sideState = (p: ComparePageInput) => ({ state: p.state, error: p.error, report: p.report_id });
  for (const p of [...b.pages].sort((x, y) => x.position - y.position)) {
    if (afterUrls.has(p.url)) continue;
    afterUrls.add(p.url);
    const before = beforeByUrl.get(p.url);
    if (!before) newPages.push({ url: p.url, template: p.template, state: p.state, error: p.error, side: sideOf(p) });
    else if (before.state === 'completed' && p.state === 'completed') pairs.push([before, p]);
    else failed.push({ url: p.url, template: p.template, before: sideState(before), after: sideState(p) });
  }
  const gone: OtherPage[] = [...beforeByUrl.values()].filter((p) => !afterUrls.has(p.url)).sort((x, y) => x.position - y.position)
    .map((p) => ({ url: p.url, template: p.template, state: p.state, error: p.error, side: sideOf(p) }));

  const order = new Map(pairs.map(([, y], i) => [y.url, i]));
  const pages = pairs.map(([x, y]) => comparePage(x, y, alpha));
  const worseCount = (p: ComparedPage) => p.reasons.filter((r) => r.direction === 'worse').length;
  pages.sort((x, y) => RANK[x.verdict] - RANK[y.verdict] || (x.verdict === 'worse' ? worseCount(y) - worseCount(x) : 0) ||
    order.get(x.url)! - order.get(y.url)!);

  const byTemplate = new Map<string, [ComparePageInput, ComparePageInput][]>();
  for (const pair of pairs) byTemplate.set(pair[1].template, [...(byTemplate.get(pair[1].template) ?? []), pair]);
  const templates = [...byTemplate].map(([t, ps]) => compareTemplate(t, ps, alpha))
    .sort((x, y) => RANK[x.verdict] - RANK[y.verdict] || x.template.localeCompare(y.template));

  const gradeSkipped = pairs.filter(([x, y]) => x.grade && y.grade && !sameStructureAudits(x.lighthouse_version, y.lighthouse_version)).length;
  let fewRuns: [number, number] | undefined;
  for (const [x, y] of pairs) {
    for (const m of COMPARED_METRICS) {
      const ra = runValues(x, m).length;
      const rb = runValues(y, m).length;
      if (ra > 1 && rb > 1 && !testable(ra, rb, alpha)) fewRuns ??= [ra, rb];
    }
  }
  const count = (v: Verdict) => pages.filter((p) => p.verdict === v).length;
  return {
    notes: notesOf(a, b, pairs, gradeSkipped, fewRuns, alpha),
    grades_compared: gradeSkipped === 0,
    counts: { matched: pages.length, worse: count('worse'), better: count('better'), unchanged: count('unchanged'), new: newPages.length,
      gone: gone.length, failed: failed.length },
    figures: { before: a.figures, after: b.figures },
    site_figures: siteFigureRows(a.figures, b.figures),
    pages, new_pages: newPages, gone_pages: gone, failed_pages: failed, templates,
    rules: {
      alpha, thresholds: Object.fromEntries(COMPARED_METRICS.map((m) => [m, COMPARE_RULES[m].threshold])) as Record<ComparedMetric, number>,
      grade_letters: GRADE_LETTERS, tested_share: TESTED_SHARE, template_test_min_pages: TEMPLATE_TEST_MIN_PAGES,
    },
  };
}
