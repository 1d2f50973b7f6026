/**
 * The DOM half of PageFacts, read in the page after load: `const dom = await page.evaluate(collectPageFactsInPage)`.
 *
 * This function is serialised and run in the browser, so it must stay self-contained: no imports used at run
 * time, no closures over Node values, and no named inner functions or arrow functions assigned to variables
 * (tsx/esbuild wrap those in a `__name()` helper that does not exist in the page). Loops and anonymous
 * callbacks only. It is bounded (500 images, 5000 CSS rules) so a huge page cannot stall the run.
 */
import type { DomFacts, ImageFact, InlineBlock, ScriptFact } from './facts.js';

export function collectPageFactsInPage(): DomFacts {
  const doc = document;
  const head = doc.head;
  const encoder = new TextEncoder();
  const JS_TYPES = /^(|module|text\/javascript|application\/javascript|text\/ecmascript|application\/ecmascript|application\/x-javascript)$/i;

  // Inline <script>/<style> blocks: size and YSlow's minification test (more than 20 % is whitespace → not minified).
  const inlineScripts: InlineBlock[] = [];
  const inlineStyles: InlineBlock[] = [];
  const cssTexts: string[] = [];
  const scripts = Array.from(doc.querySelectorAll('script:not([src])'));
  const styles = Array.from(doc.querySelectorAll('style'));
  for (const el of [...scripts, ...styles]) {
    const isStyle = el.tagName === 'STYLE';
    if (!isStyle && !JS_TYPES.test((el.getAttribute('type') ?? '').trim())) continue;
    const text = el.textContent ?? '';
    const stripped = text.replace(/\n| {2}|\t|\r/g, '').length;
    const block = { bytes: encoder.encode(text).length, minified: text.length === 0 || (text.length - stripped) / text.length <= 0.2 };
    if (isStyle) {
      inlineStyles.push(block);
      cssTexts.push(text);
    } else {
      inlineScripts.push(block);
    }
  }
  const styled = Array.from(doc.querySelectorAll('[style]'));
  for (const el of styled) cssTexts.push(el.getAttribute('style') ?? '');

  // CSS that only old IE ran, and @import: the browser drops the former, so the source text is scanned.
  let cssExpressions = 0;
  let filter = 0;
  let hackFilter = 0;
  let cssImports = 0;
  for (const text of cssTexts) {
    cssExpressions += (text.match(/expression\s*\(/gi) ?? []).length;
    hackFilter += (text.match(/_filter\s*:\s*progid:DXImageTransform\.Microsoft\.AlphaImageLoader/gi) ?? []).length;
    filter += (text.match(/(^|[^_\w-])filter\s*:\s*progid:DXImageTransform\.Microsoft\.AlphaImageLoader/gi) ?? []).length;
    cssImports += (text.match(/@import\s/gi) ?? []).length;
  }

  // Same-origin style rules that set width or height, to tell sized images from unsized ones.
  const sizeRules: { selector: string; width: boolean; height: boolean }[] = [];
  const pending: CSSRuleList[] = [];
  for (const sheet of Array.from(doc.styleSheets)) {
    try {
      pending.push(sheet.cssRules);
    } catch {
      // cross-origin stylesheet: its rules are not readable
    }
  }
  let ruleBudget = 5000;
  while (pending.length > 0 && ruleBudget > 0) {
    const list = pending.pop() as CSSRuleList;
    for (const rule of Array.from(list)) {
      if (--ruleBudget <= 0) break;
      const media = (rule as CSSMediaRule).media;
      if (media && !window.matchMedia(media.mediaText).matches) continue;
      const style = (rule as CSSStyleRule).style;
      const selector = (rule as CSSStyleRule).selectorText;
      if (style && selector) {
        const w = style.getPropertyValue('width');
        const h = style.getPropertyValue('height');
        const width = w !== '' && w !== 'auto';
        const height = h !== '' && h !== 'auto';
        if (width || height) sizeRules.push({ selector, width, height });
      }
      const nested = (rule as CSSGroupingRule).cssRules;
      if (nested && nested.length > 0) pending.push(nested);
    }
  }

  const images: ImageFact[] = [];
  for (const img of Array.from(doc.images).slice(0, 500)) {
    const src = img.currentSrc || img.src;
    if (!src || (img.getAttribute('src') === '' && !img.srcset)) continue; // empty src: counted in emptySrc
    let width = img.hasAttribute('width') || (img.style.width !== '' && img.style.width !== 'auto');
    let height = img.hasAttribute('height') || (img.style.height !== '' && img.style.height !== 'auto');
    for (const r of sizeRules) {
      if (width && height) break;
      if ((r.width && !width) || (r.height && !height)) {
        let matches = false;
        try {
          matches = img.matches(r.selector);
        } catch {
          matches = false;
        }
        if (matches) {
          width = width || r.width;
          height = height || r.height;
        }
      }
    }
    const rect = img.getBoundingClientRect();
    images.push({
      src,
      naturalWidth: img.naturalWidth,
      naturalHeight: img.naturalHeight,
      displayWidth: Math.round(rect.width),
      displayHeight: Math.round(rect.height),
      hasDimensions: width && height,
    });
  }

  const stylesheetsInBody: string[] = [];
  let inlineStylesInBody = 0;
  for (const el of Array.from(doc.querySelectorAll('link[rel~="stylesheet" i], style'))) {
    if (head && head.contains(el)) continue;
    if (el.tagName === 'STYLE') inlineStylesInBody++;
    else if ((el as HTMLLinkElement).href) stylesheetsInBody.push((el as HTMLLinkElement).href);
  }

  const scriptsInHead: ScriptFact[] = [];
  for (const s of Array.from(head ? head.querySelectorAll('script') : [])) {
    const type = (s.getAttribute('type') ?? '').trim();
    if (!JS_TYPES.test(type)) continue;
    // The async property (not the attribute) is also true for injected scripts, which never block the parser.
    scriptsInHead.push({ src: s.src || undefined, async: s.async, defer: s.defer, module: type.toLowerCase() === 'module' });
  }

  const included = new Map<string, number>();
  for (const el of Array.from(doc.querySelectorAll('script[src], link[rel~="stylesheet" i][href]'))) {
    const url = (el as HTMLScriptElement).src || (el as HTMLLinkElement).href;
    if (url) included.set(url, (included.get(url) ?? 0) + 1);
  }
  const duplicateIncludes: string[] = [];
  for (const [url, n] of included) if (n > 1) duplicateIncludes.push(url);

  const emptySrc: string[] = [];
  const empty = doc.querySelectorAll('img[src=""], script[src=""], iframe[src=""], input[type="image" i][src=""], link[rel~="stylesheet" i][href=""]');
  for (const el of Array.from(empty)) emptySrc.push(el.tagName.toLowerCase());

  let cookieBytes = 0;
  try {
    cookieBytes = doc.cookie.length;
  } catch {
    cookieBytes = 0; // sandboxed or opaque-origin document
  }
  const icon = doc.querySelector('link[rel~="icon" i][href]') as HTMLLinkElement | null;

  return {
    elementCount: doc.getElementsByTagName('*').length,
    iframes: doc.querySelectorAll('iframe, frame').length,
    devicePixelRatio: window.devicePixelRatio || 1,
    images,
    stylesheetsInBody,
    inlineStylesInBody,
    scriptsInHead,
    duplicateIncludes,
    inlineScripts,
    inlineStyles,
    inlineStyleAttrs: styled.length,
    cssExpressions,
    alphaImageFilters: { filter, hackFilter },
    cssImports,
    emptySrc,
    cookieBytes,
    favicon: icon ? icon.href : undefined,
  };
}
