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

/**
 * Lighthouse's short texts (audit titles, summary lines, item labels) as HTML: its markdown's `code` becomes <code>
 * and its [links](https://…) become links, never raw backticks and brackets; escaped first, so nothing else is markup.
 */
export function inlineMarkdown(text: string): string {
  return esc(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\[([^\]]+)\]\((https:\/\/[^)\s]+)\)/g, '<a href="$2" rel="noreferrer nofollow">$1</a>');
}

const KIB = 1024;
/**
 * Lighthouse's summary lines in the report's units: "Est savings of 750 KiB" → "750.0 KB", "took 2,884 ms" → "2.88 s",
 * so a row never mixes Lighthouse's KiB and ms with the sizes and times printed beside them (the stored text is kept).
 */
export function inOurUnits(text: string): string {
  return text.replace(/(\d[\d,]*(?:\.\d+)?)\s?(KiB|MiB|ms)\b/g, (_all, n: string, unit: string) => {
    const v = Number(n.replace(/,/g, ''));
    return unit === 'ms' ? ms(v) : bytes(v * (unit === 'MiB' ? KIB * KIB : KIB));
  });
}
