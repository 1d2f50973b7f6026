/**
 * YSlow's "css" rules (ycsstop, yexpressions, ynofilter) and "javascript" rules (yjsbottom, yexternal,
 * yminify, ydupes). External CSS and JS are scanned from their bodies when captured; without them the rule
 * scores what it could see (inline code, the DOM) and says how much it could not check.
 */
import { shortUrl } from '../../har.js';
import { componentsOf, delivered, ofType, type Component } from '../components.js';
import { plural, type LegacyInput, type RuleResult } from '../rule.js';
import { countAlphaFilters, countCssExpressions, looksMinified } from '../text-scan.js';
import { penalty, uncheckedNote, yslowResult } from './ruleset.js';

/** Bodies of the given components, and how many had none. */
function withText(input: LegacyInput, comps: Component[]): { checked: { c: Component; text: string }[]; unchecked: number } {
  const checked: { c: Component; text: string }[] = [];
  let unchecked = 0;
  for (const c of comps) {
    const text = input.bodies?.byUrl.get(c.url)?.text;
    if (text === undefined) unchecked++;
    else checked.push({ c, text });
  }
  return { checked, unchecked };
}

/** Nothing could be looked at: bodies missing and no inline code of the kind. Such a rule is "n/a". */
const nothingChecked = (checked: number, unchecked: number, inline: number): boolean =>
  checked === 0 && unchecked > 0 && inline === 0;

const externalOf = (input: LegacyInput, ...types: ('js' | 'css')[]): Component[] =>
  ofType(delivered(componentsOf(input.har, input.facts)), ...types);

/** Stylesheets linked outside <head> delay rendering: 99 − 10 points each (YSlow starts at 99 so one drops a grade). */
export function ycsstop(input: LegacyInput): RuleResult {
  const inBody = input.facts.dom.stylesheetsInBody;
  const score = inBody.length ? 100 - (1 + 10 * inBody.length) : 100;
  return yslowResult('ycsstop', score, inBody.map((u) => shortUrl(u)),
    inBody.length ? `There ${inBody.length === 1 ? 'is 1 stylesheet' : `are ${inBody.length} stylesheets`} found in the body of the document.` : '');
}

/** Any CSS expression: 90 − 2 points per expression, external stylesheets and inline CSS together. */
export function yexpressions(input: LegacyInput): RuleResult {
  const { checked, unchecked } = withText(input, externalOf(input, 'css'));
  const offenders: string[] = [];
  let total = input.facts.dom.cssExpressions;
  if (total > 0) offenders.push(`inline CSS (${plural(total, 'expression')})`);
  for (const { c, text } of checked) {
    const n = countCssExpressions(text);
    if (n > 0) offenders.push(`${shortUrl(c.url)} (${plural(n, 'expression')})`);
    total += n;
  }
  const inline = input.facts.dom.inlineStyles.length + input.facts.dom.inlineStyleAttrs;
  if (nothingChecked(checked.length, unchecked, inline)) return yslowResult('yexpressions', null, [], uncheckedNote(unchecked, 'stylesheet(s)').trim());
  return yslowResult('yexpressions', total > 0 ? 90 - 2 * total : 100, offenders,
    (total > 0 ? `There ${total === 1 ? 'is 1 CSS expression' : `are ${total} CSS expressions`}.` : '') + uncheckedNote(unchecked, 'stylesheet(s)'));
}

/** 5 points per AlphaImageLoader filter, 2 per filter behind the _filter hack. */
export function ynofilter(input: LegacyInput): RuleResult {
  const { checked, unchecked } = withText(input, externalOf(input, 'css'));
  let { filter, hackFilter } = input.facts.dom.alphaImageFilters;
  const offenders: string[] = filter + hackFilter > 0 ? [`inline CSS (${plural(filter + hackFilter, 'filter')})`] : [];
  for (const { c, text } of checked) {
    const n = countAlphaFilters(text);
    if (n.filter + n.hackFilter > 0) offenders.push(`${shortUrl(c.url)} (${plural(n.filter + n.hackFilter, 'filter')})`);
    filter += n.filter;
    hackFilter += n.hackFilter;
  }
  const inline = input.facts.dom.inlineStyles.length + input.facts.dom.inlineStyleAttrs;
  if (nothingChecked(checked.length, unchecked, inline)) return yslowResult('ynofilter', null, [], uncheckedNote(unchecked, 'stylesheet(s)').trim());
  return yslowResult('ynofilter', 100 - (5 * filter + 2 * hackFilter), offenders,
    (filter + hackFilter > 0 ? `There ${filter + hackFilter === 1 ? 'is 1 AlphaImageLoader filter' : `are ${filter + hackFilter} AlphaImageLoader filters`}.` : '') +
    uncheckedNote(unchecked, 'stylesheet(s)'));
}

/**
 * 5 points per external script in <head> that blocks the parser. Scripts with async, defer or type=module,
 * and scripts injected by other scripts, do not block and do not count.
 */
export function yjsbottom(input: LegacyInput): RuleResult {
  const blocking = input.facts.dom.scriptsInHead.filter((s) => s.src && !s.async && !s.defer && !s.module);
  return yslowResult('yjsbottom', penalty(5, blocking.length), blocking.map((s) => shortUrl(s.src ?? '')),
    blocking.length ? `There ${blocking.length === 1 ? 'is 1 JavaScript script' : `are ${blocking.length} JavaScript scripts`} found in the head of the document.` : '');
}

/** Informational, as in YSlow: reports inline code but has no score ("n/a"). */
export function yexternal(input: LegacyInput): RuleResult {
  const { inlineScripts, inlineStyles } = input.facts.dom;
  const offenders: string[] = [];
  if (inlineStyles.length) offenders.push(`${plural(inlineStyles.length, 'inline <style> block')}`);
  if (inlineScripts.length) offenders.push(`${plural(inlineScripts.length, 'inline <script> block')}`);
  return yslowResult('yexternal', null, offenders, 'Only consider this if your property is a common user home page.');
}

/** 10 points per script or stylesheet, external or inline, that does not look minified (YSlow's whitespace test). */
export function yminify(input: LegacyInput): RuleResult {
  const { checked, unchecked } = withText(input, externalOf(input, 'js', 'css'));
  const offenders = checked.filter(({ text }) => !looksMinified(text)).map(({ c }) => shortUrl(c.url));
  input.facts.dom.inlineStyles.forEach((b, i) => { if (!b.minified) offenders.push(`inline <style> #${i + 1}`); });
  input.facts.dom.inlineScripts.forEach((b, i) => { if (!b.minified) offenders.push(`inline <script> #${i + 1}`); });
  const inline = input.facts.dom.inlineStyles.length + input.facts.dom.inlineScripts.length;
  if (nothingChecked(checked.length, unchecked, inline)) return yslowResult('yminify', null, [], uncheckedNote(unchecked, 'external file(s)').trim());
  return yslowResult('yminify', penalty(10, offenders.length), offenders,
    (offenders.length ? `There ${offenders.length === 1 ? 'is 1 component' : `are ${offenders.length} components`} that can be minified.` : '') +
    uncheckedNote(unchecked, 'external file(s)'));
}

/** 5 points per script or stylesheet included more than once (in the markup or downloaded twice). */
export function ydupes(input: LegacyInput): RuleResult {
  const counts = new Map<string, number>();
  for (const c of externalOf(input, 'js', 'css')) counts.set(c.url, (counts.get(c.url) ?? 0) + 1);
  const dupes = new Set([...counts].filter(([, n]) => n > 1).map(([url]) => url));
  for (const url of input.facts.dom.duplicateIncludes) dupes.add(url);
  return yslowResult('ydupes', penalty(5, dupes.size), [...dupes].map((u) => shortUrl(u)),
    dupes.size ? `There ${dupes.size === 1 ? 'is 1 duplicate component' : `are ${dupes.size} duplicate components`}.` : '');
}
