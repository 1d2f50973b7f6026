/** Text formatting shared by the report page's parts: times and sizes print as the one table of figures says. */
import { formatFigure } from '../analysis/figures.js';

export const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Milliseconds as people read them: 850 ms, 1.24 s, 12.4 s; a negative time is a test that stopped at onload. */
export function ms(v: number | null | undefined): string {
  if (v !== null && v !== undefined && v < 0) return 'stopped at onload';
  return formatFigure('time', v);
}

/** Bytes: 512 B, 12.3 KB, 1.25 MB. */
export const bytes = (v: number | null | undefined): string => formatFigure('size', v);

/** Layout shift: 0.123, 0.1, 0. */
export const cls = (v: number | null | undefined): string => formatFigure('cls', v);

/** A 0-100 score: 88%. */
export const pct = (v: number | null | undefined): string => formatFigure('score', v);
