/**
 * The field figures by name (issue 51): `field_<figure>_p75` (ms; CLS unitless) and `field_<figure>_poor_share` (0-1)
 * of each entry of the one table's field figures (figures.ts FIELD_FIGURES), both a max: what a limit on real
 * visitors' figures is called wherever one is set (the gate's `--budget field_lcp_p75=2500`, in a budget file too) and
 * how its limit reads. Adding a field figure to FIELD_FIGURES adds its two names here.
 */
import { FIELD_FIGURES, formatAgainst, formatFigure, type FieldFigureName, type FieldFigureSpec } from './figures.js';

export interface NamedFieldFigure {
  name: string;
  metric: FieldFigureName;
  /** The metric's 75th percentile, or the share of its page views in the poor band. */
  stat: 'p75' | 'poor_share';
  unit: FieldFigureSpec['unit'] | 'share';
  /** The metric's short name: "LCP". */
  short: string;
  /** What the figure is, for usage texts and messages. */
  about: string;
}

const specs = FIELD_FIGURES as readonly FieldFigureSpec[];

/** Two per field figure, in the table's order. */
export const NAMED_FIELD_FIGURES: readonly NamedFieldFigure[] = specs.flatMap((f): NamedFieldFigure[] => [
  { name: `field_${f.name}_p75`, metric: f.name as FieldFigureName, stat: 'p75', unit: f.unit, short: f.short,
    about: `real visitors' ${f.short}, 75th percentile${f.unit === 'time' ? ' (ms)' : ' (unitless)'}` },
  { name: `field_${f.name}_poor_share`, metric: f.name as FieldFigureName, stat: 'poor_share', unit: 'share', short: f.short,
    about: `share of real visitors' page views with a poor ${f.short} (over ${formatFigure(f.unit, f.bands.poor)}), 0-1` },
]);
export const NAMED_FIELD_FIGURE_NAMES: readonly string[] = NAMED_FIELD_FIGURES.map((b) => b.name);
export const namedFieldFigure = (name: string): NamedFieldFigure | undefined => NAMED_FIELD_FIGURES.find((b) => b.name === name);

/** What a limit of the figure must be, as messages say it. */
export function fieldLimitKind(b: Pick<NamedFieldFigure, 'unit'>): string {
  return b.unit === 'share' ? 'a share from 0 to 1' : b.unit === 'time' ? 'milliseconds, 0 or more' : 'a layout shift, 0 or more';
}

/** Whether `v` is a limit of the figure's kind. */
export function fitsFieldLimit(b: Pick<NamedFieldFigure, 'unit'>, v: number): boolean {
  return Number.isFinite(v) && v >= 0 && (b.unit !== 'share' || v <= 1);
}

/** A value of the figure as outputs print it: 2.50 s, 0.12, 12.5 %. */
export function formatNamedField(b: Pick<NamedFieldFigure, 'unit'>, v: number): string {
  return b.unit === 'share' ? `${Math.round(v * 1000) / 10} %` : formatFigure(b.unit, v);
}

/** A value and its limit, never printed alike when they differ (formatAgainst's rule). */
export function formatNamedFieldAgainst(b: Pick<NamedFieldFigure, 'unit'>, v: number, limit: number): [string, string] {
  if (b.unit !== 'share') return formatAgainst(b.unit, v, limit);
  const [a, l] = [formatNamedField(b, v), formatNamedField(b, limit)];
  return a !== l || v === limit ? [a, l] : [`${a} (${v})`, `${l} (${limit})`];
}
