/**
 * Which of a test's runs the report shows, and how far the runs spread. Pure functions of the runs' figures
 * (the numeric report attributes of each load), so every figure of a report comes from one real load.
 *
 * The rule: Lighthouse CI picks the run closest to the medians of FCP and TTI (lighthouse/core/lib/median-run.js,
 * Euclidean distance in ms, ties to the lower TTI) because a single measure such as the score can be an outlier
 * at the start or end of a load. Webgauge puts a grade on the report, and the grade is made of the performance
 * score, so a run whose score is not the median would move the grade between two tests of an unchanged page.
 * Hence: among the runs whose performance score is closest to the median score, Lighthouse CI's rule picks the
 * run. Without Lighthouse (report=legacy or none) there is no score and no TTI: Lighthouse CI's rule with FCP and
 * onload time.
 */

import { median, sampleStdev } from './statistics.js';

/** The numeric report attributes of one run (null: not measured in this run, e.g. Lighthouse metrics of report=none). */
export type RunFigures = Readonly<Record<string, number | null | undefined>>;

export interface Spread {
  min: number;
  median: number;
  max: number;
  /** Sample standard deviation (n - 1); 0 for a single run. */
  stdev: number;
}

const numeric = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** The values of one metric when every run has it, else undefined. */
function column(runs: readonly RunFigures[], metric: string): number[] | undefined {
  const values = runs.map((r) => r[metric]);
  return values.every(numeric) ? values : undefined;
}

/** Index (into `runs`) of the run the report shows. */
export function medianRunIndex(runs: readonly RunFigures[]): number {
  if (runs.length === 0) throw new Error('no runs to choose from');
  let candidates = runs.map((_, i) => i);
  const scores = column(runs, 'performance_score');
  if (scores) {
    const m = median(scores);
    const best = Math.min(...scores.map((s) => Math.abs(s - m)));
    candidates = candidates.filter((i) => Math.abs(scores[i]! - m) === best);
  }
  const fcp = column(runs, 'first_contentful_paint');
  const late = column(runs, 'time_to_interactive') ?? column(runs, 'onload_time');
  if (!fcp || !late) return candidates[0]!;
  const [mFcp, mLate] = [median(fcp), median(late)];
  const distance = (i: number) => (fcp[i]! - mFcp) ** 2 + (late[i]! - mLate) ** 2;
  // Closest to the medians; ties to the lower TTI, then to the earlier run.
  return candidates.reduce((best, i) =>
    distance(i) < distance(best) || (distance(i) === distance(best) && late[i]! < late[best]!) ? i : best);
}

/** min, median, max and standard deviation of every metric that all runs measured. */
export function runSpread(runs: readonly RunFigures[]): Record<string, Spread> {
  const out: Record<string, Spread> = {};
  if (runs.length === 0) return out;
  for (const metric of Object.keys(runs[0]!)) {
    const values = column(runs, metric);
    if (!values) continue;
    out[metric] = {
      min: Math.min(...values),
      median: median(values),
      max: Math.max(...values),
      stdev: Math.round(sampleStdev(values) * 1000) / 1000,
    };
  }
  return out;
}
