/** PageSpeed rules about what holds rendering back: AvoidRenderBlocking, AvoidCssImport. */
import { isOk, kindOf, shortUrl } from '../../har.js';
import { plural, type LegacyInput } from '../rule.js';
import { countCssImports } from '../text-scan.js';
import { pagespeedResult, type PagespeedRuleResult } from './ruleset.js';

/**
 * penalty: 10 points per external script in <head> that blocks the parser (no async, defer or type=module)
 * and per stylesheet linked in <body> (CSS belongs in <head>, where it blocks once, before the first paint).
 */
export function AvoidRenderBlocking(input: LegacyInput): PagespeedRuleResult {
  const scripts = input.facts.dom.scriptsInHead.filter((s) => s.src && !s.async && !s.defer && !s.module);
  const sheets = input.facts.dom.stylesheetsInBody;
  const offenders = [
    ...scripts.map((s) => `${shortUrl(s.src ?? '')} (script blocking the parser in <head>: add defer or async)`),
    ...sheets.map((href) => `${shortUrl(href)} (stylesheet in <body>: move it to <head>)`),
  ];
  return pagespeedResult('AvoidRenderBlocking', 100 - 10 * offenders.length, offenders,
    offenders.length ? `${plural(scripts.length, 'blocking script')} and ${plural(sheets.length, 'stylesheet')} outside <head>.` : '');
}

/**
 * penalty: 20 points per @import, in inline <style> blocks and (when captured) external stylesheets. n/a when
 * there is external CSS, none of it captured, and no inline CSS to look at.
 */
export function AvoidCssImport(input: LegacyInput): PagespeedRuleResult {
  const sheets = [...new Set(input.har.log.entries.filter((e) => isOk(e) && kindOf(e) === 'stylesheet').map((e) => e.request.url))];
  let imports = input.facts.dom.cssImports;
  const offenders: string[] = imports > 0 ? [`inline <style> (${plural(imports, '@import')})`] : [];
  let unchecked = 0;
  for (const url of sheets) {
    const text = input.bodies?.byUrl.get(url)?.text;
    if (text === undefined) {
      unchecked++;
      continue;
    }
    const n = countCssImports(text);
    if (n > 0) offenders.push(`${shortUrl(url)} (${plural(n, '@import')})`);
    imports += n;
  }
  const note = unchecked ? ` ${plural(unchecked, 'stylesheet')} not checked: response body not captured.` : '';
  if (unchecked === sheets.length && unchecked > 0 && input.facts.dom.inlineStyles.length === 0) {
    return pagespeedResult('AvoidCssImport', null, [], note.trim());
  }
  return pagespeedResult('AvoidCssImport', 100 - 20 * imports, offenders,
    (imports ? `${plural(imports, '@import')} found: link the stylesheets from the page instead.` : '') + note);
}
