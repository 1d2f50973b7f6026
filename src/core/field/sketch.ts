/**
 * The mergeable distribution of field figures that every rollup row keeps (one per metric of FIELD_FIGURES):
 * DDSketch's logarithmic buckets (Masson, Rim, Lee: "DDSketch", VLDB 2019) with a relative accuracy of 1 %, fixed for
 * every row so that any rows add up bucket by bucket, plus the exact counts of good / needs improvement / poor views
 * (web.dev's bands: the shares are exact, not estimated).
 *
 * A value x ≥ 1 (ms; CLS × 10,000) falls in bucket k = ⌈log_γ x⌉ with γ = (1 + α) / (1 − α), α = 0.01; the bucket's
 * value is 2γ^k / (γ + 1), within 1 % of every x in it. Values under 1 (under a millisecond, a CLS under 0.0001) fall
 * in the zero bucket, read as 0. A percentile is nearest-rank: the value of rank ⌈q·n⌉ of the n views, so the bucket
 * it reads is the one that holds the exact percentile of the same views, and the answer is within 1 % of it.
 *
 * Encoded (`encode`), a row is varints: a version, the views, then per metric its count n, good, needs improvement
 * and the non-empty buckets as (index delta, count) pairs; an hour of a busy site is a few hundred bytes.
 */
import { FIELD_FIGURES, rateField, type FieldFigureName } from '../../analysis/figures.js';

export const RELATIVE_ACCURACY = 0.01;
const GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY);
const LOG_GAMMA = Math.log(GAMMA);
const VERSION = 1;

/** Per unit, what a value is multiplied by before it is bucketed (layout shift is kept to 0.0001). */
const SCALE = { time: 1, cls: 10_000 } as const;
const METRICS = FIELD_FIGURES.map((f, i) => ({ name: f.name as FieldFigureName, i, scale: SCALE[f.unit], size: bucketIndex(f.max * SCALE[f.unit]) + 1 }));
const BY_NAME = new Map(METRICS.map((m) => [m.name, m]));

/** The bucket of a scaled value: 0 below 1, else ⌈log_γ x⌉ + 1. */
function bucketIndex(x: number): number {
  return x < 1 ? 0 : Math.ceil(Math.log(x) / LOG_GAMMA) + 1;
}

/** The value a bucket stands for (scaled). */
function bucketValue(index: number): number {
  return index === 0 ? 0 : (2 * GAMMA ** (index - 1)) / (GAMMA + 1);
}

/** A view's metrics as (metric, bucket, rating 0 good / 1 needs improvement / 2 poor) triples: its logarithms taken once. */
export type PlacedView = readonly number[];

export function placeView(values: Partial<Record<FieldFigureName, number | null>>): PlacedView {
  const out: number[] = [];
  for (const m of METRICS) {
    const v = values[m.name];
    if (v === null || v === undefined) continue;
    const rating = rateField(m.name, v);
    out.push(m.i, Math.min(bucketIndex(v * m.scale), m.size - 1), rating === 'good' ? 0 : rating === 'needs_improvement' ? 1 : 2);
  }
  return out;
}

export interface MetricDistribution {
  n: number;
  good: number;
  ni: number;
  poor: number;
}

class MetricSketch {
  n = 0;
  good = 0;
  ni = 0;
  counts: Float64Array;
  constructor(size: number) {
    this.counts = new Float64Array(size);
  }
}

export class FieldSketch {
  views = 0;
  private readonly metrics: MetricSketch[] = METRICS.map((m) => new MetricSketch(m.size));

  /** One page view: its metrics (those it has) and the view itself. */
  addView(values: Partial<Record<FieldFigureName, number | null>>): void {
    this.addPlaced(placeView(values));
  }

  /** A view already placed (placeView): what the rollup job adds to a dozen sketches, placed once. */
  addPlaced(placed: PlacedView): void {
    this.views++;
    for (let i = 0; i < placed.length; i += 3) {
      const s = this.metrics[placed[i]!]!;
      s.n++;
      const rating = placed[i + 2]!;
      if (rating === 0) s.good++;
      else if (rating === 1) s.ni++;
      s.counts[placed[i + 1]!]!++;
    }
  }

  merge(other: FieldSketch): void {
    this.views += other.views;
    other.metrics.forEach((o, i) => {
      const s = this.metrics[i]!;
      s.n += o.n;
      s.good += o.good;
      s.ni += o.ni;
      for (let k = 0; k < o.counts.length; k++) s.counts[k]! += o.counts[k]!;
    });
  }

  distribution(name: FieldFigureName): MetricDistribution {
    const s = this.metrics[BY_NAME.get(name)!.i]!;
    return { n: s.n, good: s.good, ni: s.ni, poor: s.n - s.good - s.ni };
  }

  /** The nearest-rank percentile q (0 < q ≤ 1) of the metric, or null without a value. */
  quantile(name: FieldFigureName, q: number): number | null {
    const m = BY_NAME.get(name)!;
    const s = this.metrics[m.i]!;
    if (s.n === 0) return null;
    const rank = Math.max(1, Math.ceil(q * s.n));
    let seen = 0;
    for (let k = 0; k < s.counts.length; k++) {
      seen += s.counts[k]!;
      if (seen >= rank) return bucketValue(k) / m.scale;
    }
    return bucketValue(s.counts.length - 1) / m.scale;
  }

  encode(): Buffer {
    const w = new VarintWriter();
    w.write(VERSION);
    w.write(this.views);
    for (const s of this.metrics) {
      w.write(s.n);
      if (s.n === 0) continue;
      w.write(s.good);
      w.write(s.ni);
      let entries = 0;
      for (const c of s.counts) if (c > 0) entries++;
      w.write(entries);
      let last = 0;
      s.counts.forEach((c, k) => {
        if (c === 0) return;
        w.write(k - last);
        w.write(c);
        last = k;
      });
    }
    return w.finish();
  }

  /** Add an encoded sketch to this one (decoding straight into its buckets). */
  mergeEncoded(bytes: Uint8Array): void {
    const r = new VarintReader(bytes);
    if (r.read() !== VERSION) throw new Error('field sketch: unknown version');
    this.views += r.read();
    for (const s of this.metrics) {
      const n = r.read();
      if (n === 0) continue;
      s.n += n;
      s.good += r.read();
      s.ni += r.read();
      const entries = r.read();
      let k = 0;
      for (let e = 0; e < entries; e++) {
        k += r.read();
        s.counts[k]! += r.read();
      }
    }
  }

  static decode(bytes: Uint8Array): FieldSketch {
    const s = new FieldSketch();
    s.mergeEncoded(bytes);
    return s;
  }
}

/** Unsigned LEB128 varints (counts up to 2^53). */
class VarintWriter {
  private buf = Buffer.allocUnsafe(256);
  private at = 0;
  write(n: number): void {
    if (this.at + 10 > this.buf.length) {
      const bigger = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(bigger, 0, 0, this.at);
      this.buf = bigger;
    }
    while (n >= 0x80) {
      this.buf[this.at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.at++] = n;
  }
  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.at));
  }
}

class VarintReader {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}
  read(): number {
    let n = 0;
    let mul = 1;
    for (;;) {
      if (this.at >= this.bytes.length) throw new Error('field sketch: truncated');
      const b = this.bytes[this.at++]!;
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 0x80;
    }
  }
}
