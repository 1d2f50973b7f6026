/** Text formatting shared by the report page's parts. */

export const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Milliseconds as people read them: 850 ms, 1.24 s, 12.4 s. */
export function ms(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (v < 0) return 'stopped at onload';
  if (v < 1000) return `${Math.round(v)} ms`;
  return v < 10_000 ? `${(v / 1000).toFixed(2)} s` : `${(v / 1000).toFixed(1)} s`;
}

export function bytes(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (v >= 1_048_576) return `${(v / 1_048_576).toFixed(2)} MB`;
  if (v >= 1024) return `${(v / 1024).toFixed(1)} KB`;
  return `${v} B`;
}
