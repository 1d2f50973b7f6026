/**
 * What the analysis needs from the one page load besides the HAR and the Lighthouse result. The DOM part is
 * read after load by a single `page.evaluate(collectPageFactsInPage)` (collect-facts.ts); response bodies come
 * through an optional BodyStore. Every field is plain data, so facts can be stored and replayed in tests.
 */

/** An <img> the page holds, with what the browser decoded and what it laid out (CSS pixels). */
export interface ImageFact {
  /** The URL actually loaded (currentSrc), absolute. */
  src: string;
  /** Intrinsic size of the decoded image; 0 when it has not loaded (lazy, broken). */
  naturalWidth: number;
  naturalHeight: number;
  /** Laid-out size in CSS pixels; 0 when not rendered (display:none). */
  displayWidth: number;
  displayHeight: number;
  /** Both width and height given by attributes, inline style or a same-origin stylesheet rule. */
  hasDimensions: boolean;
}

/** A <script> element in <head>. */
export interface ScriptFact {
  /** Absolute URL; absent for an inline script. */
  src?: string;
  async: boolean;
  defer: boolean;
  /** type=module scripts are deferred by default. */
  module: boolean;
}

/** An inline <script> or <style> block: its size and whether it looks minified (YSlow's test). */
export interface InlineBlock {
  bytes: number;
  minified: boolean;
}

export interface DomFacts {
  /** All elements of the document (document.getElementsByTagName('*')), iframes' own documents excluded. */
  elementCount: number;
  iframes: number;
  devicePixelRatio: number;
  /** <img> elements with a source, in document order (at most 500). */
  images: ImageFact[];
  /** hrefs of <link rel=stylesheet> outside <head>. */
  stylesheetsInBody: string[];
  /** <style> blocks outside <head>. */
  inlineStylesInBody: number;
  /** <script> elements in <head>, external and inline. */
  scriptsInHead: ScriptFact[];
  /** URLs included more than once by <script src> or <link rel=stylesheet> (the browser may fetch them once). */
  duplicateIncludes: string[];
  /** Classic inline scripts (JSON and templates excluded) and inline <style> blocks. */
  inlineScripts: InlineBlock[];
  inlineStyles: InlineBlock[];
  /** Elements with a style="" attribute. */
  inlineStyleAttrs: number;
  /** CSS expression( occurrences in inline <style> blocks and style attributes (external CSS: see bodies). */
  cssExpressions: number;
  /** AlphaImageLoader filters in inline CSS: plain, and behind the underscore hack (_filter). */
  alphaImageFilters: { filter: number; hackFilter: number };
  /** @import rules in inline <style> blocks. */
  cssImports: number;
  /** Tag names of elements with an empty src or href (img, script, link, iframe...), one entry per element. */
  emptySrc: string[];
  /** Length of document.cookie: the cookies scripts can see, sent back with every same-site request. */
  cookieBytes: number;
  /** href of the first <link rel~=icon>, absolute; absent means the browser falls back to /favicon.ico. */
  favicon?: string;
}

export interface PageFacts {
  /** The URL the test asked for. */
  url: string;
  /** The URL the page ended on, after redirects. */
  finalUrl: string;
  dom: DomFacts;
}

/** Response bodies by URL, decoded (no content-encoding). Absent bodies make body rules degrade, not fail. */
export interface BodyStore {
  get(url: string): Promise<Buffer | undefined>;
}

export function bodyStoreFromMap(bodies: ReadonlyMap<string, Buffer>): BodyStore {
  return { get: async (url) => bodies.get(url) };
}

/** Facts for a page the collector could not read (or a HAR-only analysis): nothing known about the DOM. */
export function emptyDomFacts(): DomFacts {
  return {
    elementCount: 0, iframes: 0, devicePixelRatio: 1, images: [], stylesheetsInBody: [], inlineStylesInBody: 0, scriptsInHead: [], duplicateIncludes: [],
    inlineScripts: [], inlineStyles: [], inlineStyleAttrs: 0, cssExpressions: 0,
    alphaImageFilters: { filter: 0, hackFilter: 0 }, cssImports: 0, emptySrc: [], cookieBytes: 0,
  };
}
