/**
 * Site discovery: which pages of a site a scan tests. A fetch of text (robots.txt, sitemaps, crawled HTML) through
 * the operator's target policy, never a page load: the runner is not involved. Imports only net/ and lib/.
 */
import type { TargetPolicy } from '../net/policy.js';
import type { DnsOverride } from '../net/resolve.js';

export type ScanSource = 'sitemap' | 'crawl' | 'list';

/** Why a URL found on the site is not tested (the scan reports a count for each). */
export const SKIP_REASONS = [
  'other_host', // a URL (or a sitemap) on another scheme/host/port than the site
  'robots_txt', // robots.txt disallows it for our user agent (respect_robots)
  'excluded', // not matched by `include`, or matched by `exclude`
  'not_html', // a crawled link to a file that is not a page (.pdf, .jpg …), or a crawled URL that answered no HTML
  'duplicate', // the same page after normalisation
  'sitemap_error', // a sitemap (or index) that could not be read: each with its message in `errors`
  'fetch_error', // a crawled page that could not be fetched (refused address, timeout, 4xx/5xx)
  'crawl_limit', // a crawled link beyond crawl_depth, the crawl's fetch budget or its time limit
  'sampled_out', // its template already has `sample` pages
  'over_max_pages', // beyond max_pages
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface DiscoveryInput {
  /** The start URL (absolute http(s)); its origin, after the start page's own redirects, is the site. */
  url: string;
  source: ScanSource;
  /** source `list`: the URLs to test (absolute, or paths relative to `url`). */
  urls?: readonly string[];
  /** source `sitemap`: sitemap URLs to read instead of robots.txt's `Sitemap:` lines and `/sitemap.xml` (same-site only). */
  sitemaps?: readonly string[];
  /** Path patterns (`*` = any run of characters, matched against path + query when kept): a page is tested when it matches one `include` (or there is none) and no `exclude`. */
  include: readonly string[];
  exclude: readonly string[];
  /** At most this many pages are tested. */
  maxPages: number;
  /** Pages kept per template; 0 = all. The same pages from one scan to the next (never random). */
  sample: number;
  /** Templates the user names (`/p/:id`, `/blog/*`), tried before the URL shape. */
  templates: readonly string[];
  /** source `crawl`: how many links deep from the start page (0 = the start page only). */
  crawlDepth: number;
  /** Respect robots.txt `Disallow` for our user agent (default true). */
  respectRobots: boolean;
  /** Keep query strings (default false: dropped, so faceted and calendar pages do not multiply). */
  keepQuery: boolean;
  /** The whole discovery's time limit. */
  timeLimitMs: number;
  policy: TargetPolicy;
  /** The test's `dns` overrides (host → ip), applied and checked as the test's browser would. */
  dns: readonly DnsOverride[];
  /** HTTP auth of the test (sent only to the site's own origin, only after a 401 challenge). */
  httpAuth?: { username: string; password: string };
  /** The operator's extra CA certificates (PEM), trusted for HTTPS on top of Node's roots. */
  extraCaCerts?: readonly string[];
  /** Product token of robots.txt matching and the User-Agent of every fetch (default `Webgauge`). */
  userAgent?: string;
  signal?: AbortSignal;
  /** Called now and then with the count of URLs found so far (the scan shows it while it discovers). */
  onProgress?(found: number): void;
}

export interface DiscoveredPage {
  /** Normalised absolute URL. */
  url: string;
  /** The template the page belongs to: a named one, or the URL shape (`/blog/:slug`). */
  template: string;
}

export interface DiscoveryResult {
  /** The site's origin (`https://example.com`). */
  site: string;
  /** The pages to test, in test order, at most maxPages. */
  pages: DiscoveredPage[];
  /** Distinct URLs found (of any host, before any skipping). */
  found: number;
  /** For each reason, how many URLs were skipped (absent: none). */
  skipped: Partial<Record<SkipReason, number>>;
  /** Messages that say what went wrong where, e.g. `sitemap https://x/s.xml: line 3: …` (at most 20). */
  errors: string[];
  /** Set when discovery found no page to test, or could not start: why, in a sentence that says what to fix. */
  fatal?: string;
}
