/**
 * Discovery: which pages of a site a scan tests. The start page first (through the policy, following its
 * redirects: its origin is the site; a start page that does not answer 200 ends discovery with a sentence saying
 * what to fix), then robots.txt (RFC 9309), then the source: the sitemaps, a crawl or the given list. Every URL
 * is normalised once (url.ts) and meets the same checks in the same order: other host, duplicate, not a page,
 * robots.txt, then `include`/`exclude`, the sample per template and `maxPages` (templates.ts). Never throws for
 * anything a site does: `fatal` says why no page came out.
 */
import { Collector } from './collect.js';
import { crawl, fetchPage, type PageFetch } from './crawl.js';
import { Fetcher } from './fetch.js';
import { readRobots, type Robots } from './robots.js';
import { readSitemaps } from './sitemap.js';
import { assignTemplates, compilePattern, passesFilters, selectPages } from './templates.js';
import type { DiscoveryInput, DiscoveryResult, SkipReason } from './types.js';
import { normalizeUrl, Site } from './url.js';

export const DEFAULT_USER_AGENT = 'Webgauge';
/** The crawl's page fetches at most: max(maxPages × 5, 50), never over 5,000. */
export const crawlBudget = (maxPages: number): number => Math.min(5000, Math.max(maxPages * 5, 50));

export async function discover(input: DiscoveryInput): Promise<DiscoveryResult> {
  const timeLimit = AbortSignal.timeout(Math.max(1, input.timeLimitMs));
  const signal = input.signal ? AbortSignal.any([input.signal, timeLimit]) : timeLimit;
  const userAgent = input.userAgent ?? DEFAULT_USER_AGENT;
  const fetcher = new Fetcher({
    policy: input.policy, dns: input.dns, userAgent, signal,
    ...(input.extraCaCerts ? { extraCaCerts: input.extraCaCerts } : {}),
    ...(input.httpAuth ? { httpAuth: input.httpAuth } : {}),
  });
  try {
    const result = await run(input, fetcher, signal, userAgent, timeLimit);
    if (input.signal?.aborted) {
      return { ...result, pages: [], fatal: 'discovery was stopped before it ended (the scan was cancelled, or the service is stopping)' };
    }
    return result;
  } catch (err) {
    // A fault of ours, not the site's: said, not thrown (the scan ends in error with it).
    return { site: '', pages: [], found: 0, skipped: {}, errors: [], fatal: `discovery failed: ${(err as Error).message}` };
  } finally {
    fetcher.close();
  }
}

async function run(input: DiscoveryInput, fetcher: Fetcher, signal: AbortSignal, userAgent: string,
  timeLimit: AbortSignal): Promise<DiscoveryResult> {
  const fail = (fatal: string, site = ''): DiscoveryResult => ({ site, pages: [], found: 0, skipped: {}, errors: [], fatal });
  const startUrl = normalizeUrl(input.url, undefined, true);
  if (startUrl === undefined) return fail(`the start URL ${JSON.stringify(input.url.slice(0, 200))} is not an http(s) URL`);
  const given = new Site(startUrl);
  fetcher.mayAuthenticate = (origin) => given.mayAuthenticate(origin);

  // 1. The start page: the site is where it ends up.
  const start = await fetchPage(fetcher, startUrl, input.source === 'crawl');
  const refusal = startProblem(startUrl, start, input.httpAuth !== undefined);
  if (refusal) return fail(refusal);
  const answered = start as Exclude<PageFetch, { kind: 'error' }>;
  const site = new Site(answered.url);
  fetcher.mayAuthenticate = (origin) => site.mayAuthenticate(origin);

  // 2. robots.txt: its rules (when respected) and its Sitemap lines (when the sitemaps are not given).
  let robots: Robots | undefined;
  if (input.respectRobots || (input.source === 'sitemap' && !input.sitemaps?.length)) {
    robots = await readRobots(fetcher, site.origin, userAgent, input.respectRobots);
    if (robots.fatal) return fail(robots.fatal, site.origin);
  }
  const collector = new Collector(site, input.keepQuery, input.respectRobots ? robots : undefined, input.onProgress);
  if (robots?.note) collector.error(robots.note);
  const startPage = normalizeUrl(answered.url, undefined, input.keepQuery)!;

  // 3. The source.
  let first: string | undefined;
  if (input.source === 'crawl') {
    first = collector.see(startPage, undefined, { pagesOnly: false });
    await crawl({ fetcher, collector, depth: input.crawlDepth, budget: crawlBudget(input.maxPages), signal }, first, start);
  } else if (input.source === 'sitemap') {
    const roots = input.sitemaps?.length ? input.sitemaps : robots?.sitemaps.length ? robots.sitemaps : [`${site.origin}/sitemap.xml`];
    await readSitemaps({ fetcher, collector, keepQuery: input.keepQuery, signal }, roots);
    first = site.own(startPage);
  } else {
    const base = site.own(startPage) ?? `${site.origin}/`;
    (input.urls ?? []).forEach((raw, i) => {
      const own = collector.see(raw.trim(), base, { pagesOnly: false });
      if (own !== undefined) collector.candidates.push(own);
      else if (normalizeUrl(raw.trim(), base, input.keepQuery) === undefined) collector.error(`urls[${i}]: not an http(s) URL`);
    });
  }
  collector.progress();
  if (timeLimit.aborted) collector.errorFirst(`discovery reached its time limit (${seconds(input.timeLimitMs)}): the pages found by then are used`);

  // 4. include / exclude, templates, sample, maxPages.
  const include = input.include.map(compilePattern);
  const exclude = input.exclude.map(compilePattern);
  const kept = collector.candidates.filter((url) => {
    // A candidate is a URL of the site: its path and query follow the origin.
    if (passesFilters(url.slice(site.origin.length), include, exclude)) return true;
    collector.skip('excluded');
    return false;
  });
  const templates = assignTemplates(kept, input.templates);
  const chosen = selectPages(kept.map((url, i) => ({ url, template: templates[i]! })), {
    sample: input.sample, maxPages: input.maxPages, ...(first ? { first } : {}), keepOrder: input.source === 'list',
  });
  collector.skip('sampled_out', chosen.sampledOut);
  collector.skip('over_max_pages', chosen.overMaxPages);
  const result: DiscoveryResult = {
    site: site.origin, pages: chosen.pages, found: collector.found, skipped: { ...collector.skipped }, errors: collector.errors,
  };
  if (result.pages.length === 0) {
    result.fatal = input.source === 'crawl' && first === undefined
      ? `robots.txt disallows the start page ${startPage} for ${userAgent}, so the crawl cannot begin; start from a page it allows, ` +
        'or set respect_robots: false if the site is your own'
      : nothingLeft(input, collector, robots);
  }
  return result;
}

const seconds = (ms: number): string => `${ms < 10_000 ? Math.round(ms / 100) / 10 : Math.round(ms / 1000)} s`;

/** Why the start page cannot begin a scan, in a sentence that says what to fix; undefined when it answered. */
function startProblem(url: string, start: PageFetch, withCredentials: boolean): string | undefined {
  if (start.kind === 'error') {
    const { kind, message } = start.error;
    if (kind === 'refused') return `the start page ${url} was not fetched: ${message}`;
    if (kind === 'redirects') return `the start page ${url} redirects too often: ${message}; give the scan the URL it ends at`;
    if (kind === 'timeout') return `the start page ${url} did not answer: ${message}; check that the site is up`;
    if (kind === 'stopped') return `the start page ${url} did not answer before discovery ended`;
    return `the start page ${url} could not be fetched: ${message}; check the URL and that the site is up`;
  }
  const { status } = start;
  const at = start.url === url ? `the start page ${url}` : `the start page ${url} (redirected to ${start.url})`;
  if (start.kind === 'status') {
    if (status === 401) {
      if (!/\bbasic\b/i.test(start.challenge)) {
        return `${at} answered 401 and asks for ${start.challenge.split(/\s/)[0] || 'an'} authentication, which a scan cannot give; ` +
          'scan a page that needs none, or HTTP Basic auth';
      }
      return withCredentials ? `${at} answered 401 even with the scan's HTTP credentials: check the http auth username and password`
        : `${at} answered 401: it needs HTTP authentication; give the scan's http auth username and password`;
    }
    if (status === 404 || status === 410) return `${at} answered ${status} (not found): check the URL`;
    if (status === 403) return `${at} answered 403 (forbidden): the site refuses Webgauge's requests; allow them, or scan another page`;
    if (status === 429) return `${at} answered 429 (too many requests): try again later`;
    if (status >= 500) return `${at} answered ${status} (a server error): try again when the site works`;
    return `${at} answered ${status}; a scan starts from a page that answers 200`;
  }
  if (start.kind === 'not_html') return `${at} is not an HTML page (${start.contentType}); start the scan from one of the site's pages`;
  return undefined;
}

const REASON_WORDS: Record<SkipReason, string> = {
  other_host: 'on other hosts', robots_txt: 'disallowed by robots.txt', excluded: 'left out by include/exclude',
  not_html: 'not pages (files or non-HTML answers)', duplicate: 'duplicates', sitemap_error: 'unreadable sitemaps',
  fetch_error: 'pages that could not be fetched', crawl_limit: 'beyond the crawl\'s limits', sampled_out: 'sampled out',
  over_max_pages: 'over max_pages',
};

/** The fatal sentence when no page remains. */
function nothingLeft(input: DiscoveryInput, c: Collector, robots: Robots | undefined): string {
  const why = (Object.entries(c.skipped) as [SkipReason, number][])
    .filter(([reason]) => reason !== 'sitemap_error')
    .map(([reason, n]) => `${n} ${REASON_WORDS[reason]}`).join(', ');
  if (input.source === 'sitemap') {
    const from = input.sitemaps?.length ? 'the given sitemaps' : robots?.sitemaps.length ? 'the sitemaps robots.txt names'
      : `${c.site.origin}/sitemap.xml (robots.txt names no sitemap)`;
    if (c.found === 0) {
      const first = c.errors[0];
      return `${from} listed no URL${first ? ` (${first})` : ''}: give the scan's sitemaps, or use source crawl`;
    }
    return `${from} listed ${c.found} URL(s) and none is left to test (${why}; the site is ${c.site.origin})`;
  }
  if (input.source === 'list') return `none of the ${input.urls?.length ?? 0} given URL(s) is left to test (${why || 'none usable'}; the site is ${c.site.origin})`;
  return `the crawl found ${c.found} URL(s) and none is left to test (${why}; the site is ${c.site.origin})`;
}
