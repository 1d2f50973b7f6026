/** PageSpeed rules on code size: MinifyCss, MinifyJavaScript, MinifyHTML, InlineSmallCss, InlineSmallJavaScript. */
import { bodySize, isOk, kb, kindOf, sameSite, shortUrl, type ResourceKind } from '../../har.js';
import type { BodyKind } from '../bodies.js';
import { plural, type LegacyInput } from '../rule.js';
import { bytesScore, pagespeedResult, percent, shareScore, type PagespeedRuleId, type PagespeedRuleResult } from './ruleset.js';

/** Minification counts when it saves at least 5 % and 100 bytes (a minified file still loses a byte or two). */
export const MIN_MINIFY_SAVING = { bytes: 100, ratio: 0.05 };
/** External files this small cost a request for less than a packet's worth of code. */
export const INLINE_MAX_BYTES = 1024;

function minifyRule(id: PagespeedRuleId, resource: ResourceKind, body: BodyKind, what: string) {
  return (input: LegacyInput): PagespeedRuleResult => {
    const urls = [...new Set(input.har.log.entries.filter((e) => isOk(e) && kindOf(e) === resource).map((e) => e.request.url))];
    let inspected = 0;
    let wasted = 0;
    let unchecked = 0;
    let unparsed = 0;
    const offenders: string[] = [];
    for (const url of urls) {
      const analysed = input.bodies?.byUrl.get(url);
      if (!analysed || analysed.kind !== body) {
        unchecked++;
        continue;
      }
      if (analysed.optimisedBytes === undefined) { // the minifier could not parse it: not ours to judge
        unparsed++;
        continue;
      }
      inspected += analysed.bytes;
      const saving = analysed.bytes - analysed.optimisedBytes;
      if (saving >= MIN_MINIFY_SAVING.bytes && saving >= analysed.bytes * MIN_MINIFY_SAVING.ratio) {
        wasted += saving;
        offenders.push(`${shortUrl(url)} (could save ${kb(saving)}, ${percent(saving, analysed.bytes)})`);
      }
    }
    const note = (unchecked ? ` ${plural(unchecked, what)} not checked: response body not captured.` : '') +
      (unparsed ? ` ${plural(unparsed, what)} could not be parsed by the minifier.` : '');
    if (urls.length > 0 && inspected === 0 && unchecked > 0) return pagespeedResult(id, null, [], note.trim());
    return pagespeedResult(id, bytesScore(wasted, inspected), offenders,
      (offenders.length ? `Minifying ${plural(offenders.length, what)} could save ${kb(wasted)}.` : '') + note, wasted);
  };
}

/** bytes: what lightningcss's minifier saves on the stylesheets. */
export const MinifyCss = minifyRule('MinifyCss', 'stylesheet', 'css', 'stylesheet');
/** bytes: what terser (whitespace, comments, local names) saves on the scripts. */
export const MinifyJavaScript = minifyRule('MinifyJavaScript', 'script', 'js', 'script');
/** bytes: what dropping comments and collapsing whitespace saves on the documents (page and iframes). */
export const MinifyHTML = minifyRule('MinifyHTML', 'document', 'html', 'document');

function inlineRule(id: PagespeedRuleId, resource: ResourceKind, what: string) {
  return (input: LegacyInput): PagespeedRuleResult => {
    const own = input.har.log.entries.filter((e) => isOk(e) && kindOf(e) === resource && sameSite(e.request.url, input.facts.finalUrl));
    const small = own.filter((e) => bodySize(e) < INLINE_MAX_BYTES);
    return pagespeedResult(id, shareScore(small.length, own.length),
      small.map((e) => `${shortUrl(e.request.url)} (${kb(bodySize(e))})`),
      small.length ? `${plural(small.length, what)} small enough to inline into the page.` : '');
  };
}

/** share: the site's own stylesheets under 1 KiB. */
export const InlineSmallCss = inlineRule('InlineSmallCss', 'stylesheet', 'stylesheet');
/** share: the site's own scripts under 1 KiB. */
export const InlineSmallJavaScript = inlineRule('InlineSmallJavaScript', 'script', 'script');
