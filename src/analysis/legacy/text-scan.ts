/** Scans of CSS and JS source text that the legacy rules share (the page-side collector has its own copy). */

/** YSlow's test: a body is not minified when dropping newlines, tabs and double spaces saves more than 20 %. */
export function looksMinified(text: string): boolean {
  if (text.length === 0) return true;
  const stripped = text.replace(/\n| {2}|\t|\r/g, '').length;
  return (text.length - stripped) / text.length <= 0.2;
}

/** CSS expression( occurrences (old IE evaluated them on every mouse move). */
export const countCssExpressions = (css: string): number => (css.match(/expression\s*\(/gi) ?? []).length;

/** AlphaImageLoader filters: plain, and behind the underscore hack that only IE6 read. */
export function countAlphaFilters(css: string): { filter: number; hackFilter: number } {
  return {
    hackFilter: (css.match(/_filter\s*:\s*progid:DXImageTransform\.Microsoft\.AlphaImageLoader/gi) ?? []).length,
    filter: (css.match(/(^|[^_\w-])filter\s*:\s*progid:DXImageTransform\.Microsoft\.AlphaImageLoader/gi) ?? []).length,
  };
}

/** @import rules: each one is a request the browser only discovers after downloading the importing sheet. */
export const countCssImports = (css: string): number => (css.replace(/\/\*[\s\S]*?\*\//g, '').match(/@import\s/gi) ?? []).length;
