/**
 * The Mann-Whitney U test (Wilcoxon rank-sum): do the values of `x` tend to be larger than those of `y`?
 * Distribution-free, so one slow outlier weighs no more than any other larger value, which suits page timings
 * (skewed, with occasional spikes). A pure function of its inputs.
 *
 * The p-value is exact when there are no ties and both samples are small (n1 × n2 ≤ EXACT_MAX_CELLS): the
 * null distribution of U is counted over all arrangements. Otherwise it is the normal approximation with the
 * tie correction of the variance and a continuity correction of 0.5.
 */

export type Alternative = 'greater' | 'less' | 'two-sided';

export interface MannWhitneyResult {
  /** U of x: the number of pairs (xi, yj) with xi > yj, ties counting one half. */
  u: number;
  /** Probability of a U at least this extreme when both samples come from one distribution. */
  p: number;
  method: 'exact' | 'normal';
}

/** Largest n1 × n2 counted exactly (the counting is O(n1 · n2 · (n1 + n2)) at most, cheap below this). */
export const EXACT_MAX_CELLS = 400;

/** Mid-ranks of the pooled sample (ties share the mean of their ranks) and the tie groups' sizes. */
function midRanks(values: number[]): { ranks: number[]; ties: number[] } {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(values.length);
  const ties: number[] = [];
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k][1]] = rank;
    if (j > i) ties.push(j - i + 1);
    i = j + 1;
  }
  return { ranks, ties };
}

/**
 * counts[u] = number of ways to pick n1 of n1 + n2 distinct values whose U is u, by the recurrence
 * f(n1, n2, u) = f(n1 - 1, n2, u - n2) + f(n1, n2 - 1, u); divided by C(n1 + n2, n1) it is the distribution.
 */
function exactDistribution(n1: number, n2: number): number[] {
  // table[b][u] for the current a, built up over a = 0..n1.
  let prev: number[][] = Array.from({ length: n2 + 1 }, () => [1]); // a = 0: U is 0 in one way
  for (let a = 1; a <= n1; a++) {
    const cur: number[][] = [];
    for (let b = 0; b <= n2; b++) {
      const size = a * b + 1;
      const row = new Array<number>(size).fill(0);
      for (let u = 0; u < size; u++) {
        // The largest value belongs to x (adds b to U) or to y.
        const fromX = u - b >= 0 ? (prev[b][u - b] ?? 0) : 0;
        const fromY = b > 0 ? (cur[b - 1][u] ?? 0) : 0;
        row[u] = fromX + fromY;
      }
      cur.push(row);
    }
    prev = cur;
  }
  return prev[n2];
}

/** Standard normal upper tail P(Z ≥ z) (Abramowitz and Stegun 7.1.26 on erfc; error below 1.5e-7). */
export function normalUpperTail(z: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(z) / Math.SQRT2));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erfc = poly * Math.exp(-(z * z) / 2);
  return z >= 0 ? erfc / 2 : 1 - erfc / 2;
}

export function mannWhitneyU(x: readonly number[], y: readonly number[], alternative: Alternative = 'two-sided'): MannWhitneyResult {
  const n1 = x.length;
  const n2 = y.length;
  if (n1 === 0 || n2 === 0) throw new RangeError('mannWhitneyU needs at least one value in each sample');
  if ([...x, ...y].some((v) => !Number.isFinite(v))) throw new RangeError('mannWhitneyU takes finite numbers only');
  const { ranks, ties } = midRanks([...x, ...y]);
  const rankSumX = ranks.slice(0, n1).reduce((s, r) => s + r, 0);
  const u = rankSumX - (n1 * (n1 + 1)) / 2;
  const mean = (n1 * n2) / 2;

  if (ties.length === 0 && n1 * n2 <= EXACT_MAX_CELLS) {
    const counts = exactDistribution(n1, n2);
    const total = counts.reduce((s, c) => s + c, 0);
    const atLeast = (k: number) => counts.slice(Math.ceil(k)).reduce((s, c) => s + c, 0) / total;
    const atMost = (k: number) => counts.slice(0, Math.floor(k) + 1).reduce((s, c) => s + c, 0) / total;
    const p = alternative === 'greater' ? atLeast(u) : alternative === 'less' ? atMost(u) : Math.min(1, 2 * Math.min(atLeast(u), atMost(u)));
    return { u, p, method: 'exact' };
  }

  const n = n1 + n2;
  const tieTerm = ties.reduce((s, t) => s + (t ** 3 - t), 0);
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (variance <= 0) return { u, p: 1, method: 'normal' }; // every value equal: no evidence either way
  const sd = Math.sqrt(variance);
  const upper = normalUpperTail((u - mean - 0.5) / sd);
  const lower = 1 - normalUpperTail((u - mean + 0.5) / sd);
  const p = alternative === 'greater' ? upper : alternative === 'less' ? lower : Math.min(1, 2 * Math.min(upper, lower));
  return { u, p, method: 'normal' };
}
