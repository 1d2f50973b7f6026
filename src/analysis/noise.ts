/**
 * The one rule that says whether a difference of a figure between two sides (two reports, two scans' pages, a page's
 * reports) is news: better, worse, or within noise. Compare, the page view, the comparison of two scans and the alerts
 * read it; a screen says its basis once (NOISE_BASIS).
 *
 * - With the values of several runs on both sides, and enough of them for the Mann-Whitney U test to reach ALPHA at
 *   all (its smallest one-sided p is 1 / C(n1 + n2, n1): at 0.05, 3 and 3 runs cannot, 3 and 4 can): the test the
 *   alerts use (one-sided, p < ALPHA), and the medians moved by at least TESTED_SHARE of the figure's noise (a tiny
 *   change can be significant; it is not news).
 * - Otherwise the figure's noise (the one table of figures, analysis/figures.ts `noise`): a difference of the two
 *   values smaller than it is within noise.
 *
 * Lives in analysis/, the lowest layer that needs it (the comparison of two scans is analysis); core/vocabulary/metrics.ts
 * is its view for the service.
 */
import { figureSpec, formatChangeSize, type FigureSpec } from './figures.js';
import { mannWhitneyU } from './mann-whitney.js';
import { median } from './statistics.js';

/** The significance level of every test of a difference (the alerts' regression, the comparisons). */
export const ALPHA = 0.05;
/** Under a test, the least change of the medians that counts: this share of the figure's noise. */
export const TESTED_SHARE = 0.5;

export type Difference = 'better' | 'worse' | 'within_noise';

export interface Judgement {
  difference: Difference;
  /** `test`: the Mann-Whitney test over the runs decided; `threshold`: the figure's noise did. */
  basis: 'test' | 'threshold';
  /** After minus before: of the medians under a test, else of the two values. */
  change: number;
  before: number;
  after: number;
  /** The least change that counts: the figure's noise, or its TESTED_SHARE under a test. */
  least: number;
  /** The test's one-sided p, when it ran (1 when the medians moved less than `least`). */
  p?: number;
  /** Values on each side (1 and 1 for single values). */
  n: [number, number];
}

/** The smallest one-sided p the exact Mann-Whitney test can give with n1 and n2 values: 1 / C(n1 + n2, n1). */
export function smallestP(n1: number, n2: number): number {
  let c = 1;
  for (let i = 1; i <= n1; i++) c = (c * (n2 + i)) / i;
  return 1 / c;
}

/** Whether n1 and n2 values are enough for the test to find a difference at `alpha`. */
export const testable = (n1: number, n2: number, alpha = ALPHA): boolean => n1 >= 2 && n2 >= 2 && smallestP(n1, n2) < alpha;

const round4 = (v: number): number => Math.round(v * 10_000) / 10_000;
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export interface Sides {
  /** The figure's value on each side (the report's figure; a side's median when only runs are given). */
  before?: number | null;
  after?: number | null;
  /** The values of each side's runs (or pages), when there were several. */
  runs?: readonly [readonly number[], readonly number[]];
}

/**
 * A difference of a figure (its spec or its name in the one table), better, worse or within noise; undefined when a
 * side has no value. `noise` overrides the table's (the comparison of two scans judges templates by the same value).
 */
export function judgeDifference(fig: FigureSpec | string, sides: Sides, options: { alpha?: number; minRuns?: number } = {}): Judgement | undefined {
  const spec = typeof fig === 'string' ? figureSpec(fig) : fig;
  if (!spec) throw new RangeError(`no figure ${String(fig)} in the table of figures`);
  const alpha = options.alpha ?? ALPHA;
  const minRuns = options.minRuns ?? 2;
  const noise = spec.noise.change;
  const worseBy = (change: number) => (spec.better === 'lower' ? change : -change);
  const a = sides.runs?.[0].filter(finite) ?? [];
  const b = sides.runs?.[1].filter(finite) ?? [];
  if (a.length >= minRuns && b.length >= minRuns && testable(a.length, b.length, alpha)) {
    const before = median(a);
    const after = median(b);
    const change = round4(after - before);
    const least = round4(noise * TESTED_SHARE);
    const w = worseBy(change);
    const towards = (worse: boolean) => ((spec.better === 'lower') === worse ? 'greater' : 'less');
    let difference: Difference = 'within_noise';
    let p = 1;
    if (Math.abs(w) >= least && w !== 0) {
      p = mannWhitneyU(b, a, towards(w > 0)).p;
      if (p < alpha) difference = w > 0 ? 'worse' : 'better';
    }
    return { difference, basis: 'test', change, before, after, least, p, n: [a.length, b.length] };
  }
  const before = finite(sides.before) ? sides.before : a.length ? median(a) : undefined;
  const after = finite(sides.after) ? sides.after : b.length ? median(b) : undefined;
  if (before === undefined || after === undefined) return undefined;
  const change = round4(after - before);
  const w = worseBy(change);
  const difference: Difference = w >= noise && w > 0 ? 'worse' : -w >= noise && w < 0 ? 'better' : 'within_noise';
  return { difference, basis: 'threshold', change, before, after, least: noise, n: [Math.max(1, a.length), Math.max(1, b.length)] };
}

/** The words of a difference: "better", "worse", "within noise". */
export const DIFFERENCE_WORDS: Readonly<Record<Difference, string>> = { better: 'better', worse: 'worse', within_noise: 'within noise' };

/** A figure's noise as its unit prints a change: "500 ms", "10 points", "0.1". */
export const noiseText = (spec: FigureSpec): string => formatChangeSize(spec.unit, spec.noise.change);

/** The fewest runs a side for the test at ALPHA, as [fewer side, other side]: [3, 4] at 0.05. */
export function fewestTestable(alpha = ALPHA): [number, number] {
  for (let total = 4; ; total++) {
    for (let n1 = Math.floor(total / 2); n1 >= 2; n1--) if (testable(n1, total - n1, alpha)) return [n1, total - n1];
  }
}

const noiseOf = (name: string): string => noiseText(figureSpec(name)!);
const [fewer, other] = fewestTestable();

/** The basis of the rule, said once on each screen that marks differences. */
export const NOISE_BASIS = `Differences smaller than a figure's usual load-to-load change (its noise: ${noiseOf('performance_score')} of ` +
  `performance, ${noiseOf('largest_contentful_paint')} of LCP, ${noiseOf('total_blocking_time')} of TBT, …) are marked within noise; ` +
  `where both sides have enough runs (${fewer} and ${other} or more), a Mann-Whitney test (p < ${ALPHA}) decides instead.`;
