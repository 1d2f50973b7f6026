/**
 * The crawl: breadth-first from the start page over the site's `<a href>` links (htmlparser2, as the page streams;
 * `<base href>` honoured; `rel=nofollow` is a hint to search engines about endorsement, not a crawl rule, so it is
 * followed; robots.txt is the rule), level by level: a level's pages are fetched four at a time, and their links
 * taken in the order of the pages, then of the links in each page, so the same site gives the same pages whatever
 * answered first. Every page of depth 0 … crawlDepth is fetched (a page is tested only once it answered HTML); the
 * links of the last level, the links past the fetch budget and those the time limit left are `crawl_limit`.
 */
import { Parser } from 'htmlparser2';
import { inOrder, type Collector } from './collect.js';
import { FetchError, type Fetcher } from './fetch.js';

/** The most of a page read for its links. */
export const MAX_PAGE_BYTES = 5 * 1024 * 1024;
/** The most links taken from one page. */
export const MAX_LINKS_PER_PAGE = 10_000;
/** The most distinct URLs a crawl keeps track of. */
export const MAX_CRAWL_URLS = 200_000;
const CONCURRENCY = 4;
export const ACCEPT_HTML = 'text/html, application/xhtml+xml;q=0.9, */*;q=0.5';

export type PageFetch =
  | { kind: 'html'; url: string; status: number; links: string[]; note?: string }
  | { kind: 'not_html'; url: string; status: number; contentType: string }
  | { kind: 'status'; url: string; status: number; challenge: string }
  | { kind: 'error'; error: FetchError };

const isHtml = (type: string) => type === '' || type === 'text/html' || type === 'application/xhtml+xml';

/** GET a page; with `links`, its body is parsed for them (HTML only, the first MAX_PAGE_BYTES). */
export async function fetchPage(fetcher: Fetcher, url: string, links: boolean): Promise<PageFetch> {
  let res;
  try {
    res = await fetcher.get(url, ACCEPT_HTML);
  } catch (err) {
    if (err instanceof FetchError) return { kind: 'error', error: err };
    throw err;
  }
  const { status } = res;
  if (status < 200 || status > 299) {
    res.discard();
    return { kind: 'status', url: res.url, status, challenge: String(res.headers['www-authenticate'] ?? '') };
  }
  if (!isHtml(res.contentType)) {
    res.discard();
    return { kind: 'not_html', url: res.url, status, contentType: res.contentType };
  }
  if (!links) {
    res.discard();
    return { kind: 'html', url: res.url, status, links: [] };
  }
  const hrefs: string[] = [];
  let base: string | undefined;
  let tooMany = false;
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === 'a' && attribs.href !== undefined) {
        if (hrefs.length < MAX_LINKS_PER_PAGE) hrefs.push(attribs.href);
        else tooMany = true;
      } else if (name === 'base' && base === undefined && attribs.href !== undefined) {
        base = attribs.href;
      }
    },
  }, { decodeEntities: true });
  const decoder = new TextDecoder();
  let truncated = false;
  try {
    ({ truncated } = await res.read({ maxBytes: MAX_PAGE_BYTES, truncate: true }, (chunk) => {
      parser.write(decoder.decode(chunk, { stream: true }));
    }));
    parser.end(decoder.decode());
  } catch (err) {
    if (err instanceof FetchError) return { kind: 'error', error: err };
    throw err;
  }
  // The document's base URL: its first <base href>, resolved against the page's own URL.
  let pageBase = res.url;
  if (base !== undefined) {
    try {
      pageBase = new URL(base.trim(), res.url).href;
    } catch { /* an unusable <base> is ignored, as browsers do */ }
  }
  const absolute: string[] = [];
  for (const href of hrefs) {
    try {
      absolute.push(new URL(href.trim(), pageBase).href);
    } catch { /* not a URL: not a link */ }
  }
  const note = truncated ? `is larger than 5 MB: links after its first 5 MB were not followed`
    : tooMany ? `has more than ${MAX_LINKS_PER_PAGE.toLocaleString('en')} links: the rest were not followed` : undefined;
  return { kind: 'html', url: res.url, status, links: absolute, ...(note ? { note } : {}) };
}

export interface CrawlContext {
  fetcher: Fetcher;
  collector: Collector;
  /** Links deep from the start page. */
  depth: number;
  /** Page fetches at most (the start page's included). */
  budget: number;
  signal: AbortSignal;
}

/**
 * Crawls from the start page (fetched already, `start`; `startUrl` as the collector saw it, undefined when
 * robots.txt disallows it: then nothing is followed).
 */
export async function crawl(c: CrawlContext, startUrl: string | undefined, start: PageFetch): Promise<void> {
  const { collector } = c;
  if (startUrl === undefined) return;
  let fetched = 1;
  let unseen = 0;
  let next: string[] = [];
  let depth = 0;
  const take = (url: string, page: PageFetch) => {
    for (const link of settle(collector, url, page)) {
      // A site of endless distinct links: past MAX_CRAWL_URLS, links are no longer looked at (said below).
      if (collector.found >= MAX_CRAWL_URLS) {
        unseen++;
        continue;
      }
      const own = collector.see(link, undefined, { pagesOnly: true });
      if (own === undefined) continue;
      if (depth >= c.depth) collector.skip('crawl_limit');
      else next.push(own);
    }
  };
  take(startUrl, start);
  while (next.length > 0) {
    const level = next;
    next = [];
    depth++;
    const allowed = c.signal.aborted ? 0 : Math.max(0, c.budget - fetched);
    const toFetch = level.slice(0, allowed);
    if (level.length > toFetch.length) {
      collector.skip('crawl_limit', level.length - toFetch.length);
      collector.error(`crawl: ${level.length - toFetch.length} link(s) at depth ${depth} not fetched: ` +
        (c.signal.aborted ? 'discovery reached its time limit' : `the crawl's budget of ${c.budget} page fetches was spent`));
    }
    fetched += toFetch.length;
    await inOrder(toFetch, CONCURRENCY, (url) => fetchPage(c.fetcher, url, true), (page, url) => take(url, page));
    collector.progress();
  }
  if (unseen > 0) {
    collector.error(`crawl: ${unseen} link(s) not looked at: the crawl had found ${MAX_CRAWL_URLS.toLocaleString('en')} distinct URLs, ` +
      'the most it keeps');
  }
}

/** A fetched page's fate (a candidate, or counted); the links to follow from it. */
function settle(collector: Collector, url: string, page: PageFetch): string[] {
  if (page.kind === 'error') {
    if (page.error.kind === 'stopped') {
      collector.skip('crawl_limit');
      return [];
    }
    collector.skip('fetch_error');
    collector.error(`page ${url}: ${page.error.message}`);
    return [];
  }
  const own = collector.answered(url, page.url);
  if (own === undefined) return [];
  if (page.kind === 'status') {
    collector.skip('fetch_error');
    collector.error(`page ${url}: answered ${page.status}`);
    return [];
  }
  if (page.kind === 'not_html') {
    collector.skip('not_html');
    return [];
  }
  if (page.note) collector.error(`page ${own} ${page.note}`);
  collector.candidates.push(own);
  return page.links;
}
