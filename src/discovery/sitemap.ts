/**
 * The site's sitemaps, read breadth-first: the roots (robots.txt's `Sitemap:` lines, the scan's `sitemaps`, else
 * /sitemap.xml) are level 1, the sitemaps an index lists the next level. The files of a level are fetched four at
 * a time and streamed into their parser (sitemap-parser.ts); their URLs are taken in the files' order, so the
 * result does not depend on which answered first. The roots may be paths of the site. Refused, each with a message naming the sitemap and the line:
 * a sitemap on another host (`other_host`), an index nested deeper than MAX_INDEX_DEPTH, a sitemap listed again
 * (an index listing itself, a cycle), a file over the protocol's limits (50,000 entries, 50 MB decoded: the URLs
 * before the limit are kept), one that is not a sitemap or not well-formed. Each such file counts once as
 * `sitemap_error`, and so does a file with unusable entries (an over-long or non-http `<loc>`). At most
 * MAX_SITEMAP_URLS URLs and MAX_SITEMAP_FILES files are read in all (said in the errors when reached).
 */
import { inOrder, type Collector } from './collect.js';
import { FetchError, MAX_SITEMAP_BYTES, type Fetcher } from './fetch.js';
import { SitemapParser, SitemapRefusal, type SitemapKind } from './sitemap-parser.js';
import { normalizeUrl } from './url.js';

export const MAX_INDEX_DEPTH = 3;
export const MAX_SITEMAP_URLS = 200_000;
/** The most sitemap files read (an index of indexes could list billions). */
export const MAX_SITEMAP_FILES = 1_000;
const CONCURRENCY = 4;
const ACCEPT = 'application/xml, text/xml;q=0.9, text/plain;q=0.8, */*;q=0.5';

export interface SitemapContext {
  fetcher: Fetcher;
  collector: Collector;
  keepQuery: boolean;
  signal: AbortSignal;
}

interface FileResult {
  kind?: SitemapKind;
  /** Normalised URLs: the pages of a URL set, the sitemaps of an index. */
  entries: string[];
  /** The file's message (without the sitemap's URL); `failed`: it counts as a sitemap_error. */
  problem?: string;
  failed: boolean;
  /** Not fetched at all (the time limit, the cap on URLs). */
  unread?: 'time' | 'cap';
}

interface Budget {
  left: number;
}

export async function readSitemaps(ctx: SitemapContext, roots: readonly string[]): Promise<void> {
  const { collector } = ctx;
  const seen = new Set<string>();
  let level: string[] = [];
  for (const raw of roots) {
    const url = normalizeUrl(raw, `${collector.site.origin}/`, true);
    if (url === undefined) {
      collector.error(`sitemap ${raw.slice(0, 200)}: not an http(s) URL`);
      continue;
    }
    const own = collector.site.own(url);
    if (own === undefined) {
      collector.skip('other_host');
      collector.error(`sitemap ${url}: on another host than the site (${collector.site.origin}): not read`);
    } else if (!seen.has(own)) {
      seen.add(own);
      level.push(own);
    }
  }
  const budget: Budget = { left: MAX_SITEMAP_URLS };
  const unread = { time: 0, cap: 0, files: 0 };
  const take = (r: FileResult, url: string) => {
    if (r.unread) return void unread[r.unread]++;
    if (r.problem) collector.error(`sitemap ${url}: ${r.problem}`);
    if (r.failed) collector.skip('sitemap_error');
    if (r.kind !== 'index') {
      for (const page of r.entries) {
        const own = collector.seeNormal(page, { pagesOnly: true });
        if (own !== undefined) collector.candidates.push(own);
      }
      return;
    }
    for (const child of r.entries) {
      const own = collector.site.own(child);
      if (own === undefined) {
        collector.skip('other_host');
        collector.error(`sitemap ${url}: lists ${child}, on another host than the site: not read`);
      } else if (seen.has(own)) {
        collector.skip('sitemap_error');
        collector.error(`sitemap ${url}: lists ${own === url ? 'itself (a cycle)' : `${own}, which was listed already`}: not read again`);
      } else if (seen.size >= MAX_SITEMAP_FILES) {
        unread.files++;
      } else {
        seen.add(own);
        level.push(own);
      }
    }
  };
  for (let depth = 1; level.length > 0; depth++) {
    const files = level;
    level = [];
    await inOrder(files, CONCURRENCY, (url) => readFile(ctx, url, depth, budget), take);
    collector.progress();
  }
  if (unread.files > 0) {
    collector.error(`${unread.files} sitemap(s) not read: a scan reads at most ${MAX_SITEMAP_FILES.toLocaleString('en')} sitemap files`);
  }
  if (unread.cap > 0) {
    collector.error(`${unread.cap} sitemap(s) not read: the ${MAX_SITEMAP_URLS.toLocaleString('en')} URLs a scan reads from sitemaps were reached`);
  }
  if (unread.time > 0) collector.error(`${unread.time} sitemap(s) not read: discovery reached its time limit`);
}

async function readFile(ctx: SitemapContext, url: string, depth: number, budget: Budget): Promise<FileResult> {
  if (budget.left <= 0) return { entries: [], failed: false, unread: 'cap' };
  if (ctx.signal.aborted) return { entries: [], failed: false, unread: 'time' };
  const result: FileResult = { entries: [], failed: false };
  const invalid = { count: 0, first: '' };
  const parser = new SitemapParser({
    entry: (loc, line) => {
      const index = parser.kind === 'index';
      const normal = normalizeUrl(loc, undefined, index || ctx.keepQuery);
      if (normal === undefined) return bad(`line ${line}: "${loc.slice(0, 100)}" is not an absolute http(s) URL`);
      if (!index && --budget.left < 0) {
        budget.left = 0;
        throw new SitemapRefusal(`the ${MAX_SITEMAP_URLS.toLocaleString('en')} URLs a scan reads from sitemaps were reached: ` +
          'the rest of this file was not read', line, false);
      }
      result.entries.push(normal);
    },
    invalid: (why, line) => bad(`line ${line}: ${why}`),
  }, { indexAllowed: depth <= MAX_INDEX_DEPTH });
  const bad = (message: string) => {
    if (invalid.count++ === 0) invalid.first = message;
  };
  const kept = () => (result.entries.length > 0 ? ` (the ${result.entries.length} entries before it were kept)` : '');
  try {
    const res = await ctx.fetcher.get(url, ACCEPT);
    if (res.status < 200 || res.status > 299) {
      res.discard();
      return { entries: [], failed: true, problem: `answered ${res.status}` };
    }
    await res.read({ maxBytes: MAX_SITEMAP_BYTES, sniffGzip: true }, (chunk) => parser.write(chunk));
    parser.end();
  } catch (err) {
    if (err instanceof SitemapRefusal) {
      result.problem = `line ${err.line}: ${err.message}`;
      result.failed = err.countsAsError;
    } else if (err instanceof FetchError && err.kind === 'stopped' && result.entries.length === 0 && parser.entries === 0) {
      return { entries: [], failed: false, unread: 'time' };
    } else if (err instanceof FetchError) {
      const at = parser.kind ? `line ${parser.line}: ` : '';
      result.problem = err.kind === 'too_large'
        ? `${at}larger than 50 MB decoded (the protocol's limit): the rest was not read${kept()}`
        : `${at}${err.message}${kept()}`;
      result.failed = err.kind !== 'stopped'; // the time limit is not the file's fault
    } else {
      throw err;
    }
  }
  result.kind = parser.kind;
  if (invalid.count > 0) {
    const more = invalid.count > 1 ? ` (and ${invalid.count - 1} more entries not usable)` : '';
    result.problem = [result.problem, `${invalid.first}${more}`].filter(Boolean).join('; ');
    result.failed = true;
  }
  return result;
}
