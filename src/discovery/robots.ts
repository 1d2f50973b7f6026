/**
 * The site's robots.txt, read as RFC 9309 says (parsed by robots-parser, which follows it): 2xx → its rules; 4xx
 * (or more redirects than we follow: "unavailable") → everything allowed; 5xx or no answer → nothing may be crawled
 * ("unreachable"), which ends a scan that respects robots.txt. Only the first 500 KiB are parsed (the RFC's floor).
 * Its `Sitemap:` lines name the site's sitemaps.
 */
import robotsParserModule from 'robots-parser';
import { FetchError, type Fetcher } from './fetch.js';

// The package is CommonJS (`module.exports = function`) typed as an ES module's default export: imported from ESM,
// the default import is the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

export const ROBOTS_MAX_BYTES = 500 * 1024;

export interface Robots {
  /** Whether our user agent may fetch `url` (a URL of the site). */
  allowed(url: string): boolean;
  /** The `Sitemap:` lines, in order (absolute URLs as written). */
  sitemaps: string[];
  /** What happened, when it is worth a line in the scan's errors (a 5xx when robots.txt is not respected). */
  note?: string;
  /** Set when the scan must stop: robots.txt is unreachable and the scan respects it. */
  fatal?: string;
}

const ALLOW_ALL = (note?: string): Robots => ({ allowed: () => true, sitemaps: [], ...(note ? { note } : {}) });

export async function readRobots(fetcher: Fetcher, origin: string, userAgent: string, respect: boolean): Promise<Robots> {
  const url = `${origin}/robots.txt`;
  const unreachable = (why: string): Robots => {
    if (!respect) return ALLOW_ALL(`robots.txt ${url}: ${why}; read as allowing everything (respect_robots is false)`);
    return {
      allowed: () => false, sitemaps: [],
      fatal: `robots.txt (${url}) ${why}, so RFC 9309 says crawl nothing of the site; fix robots.txt, or set ` +
        'respect_robots: false if the site is your own',
    };
  };
  let text = '';
  try {
    const res = await fetcher.get(url, 'text/plain, */*;q=0.5');
    if (res.status >= 500 || res.status < 200 || (res.status >= 300 && res.status < 400)) {
      res.discard();
      return unreachable(`answered ${res.status}`);
    }
    if (res.status >= 400) {
      res.discard();
      return ALLOW_ALL(); // "unavailable": no rules
    }
    const decoder = new TextDecoder();
    await res.read({ maxBytes: ROBOTS_MAX_BYTES, truncate: true }, (chunk) => {
      text += decoder.decode(chunk, { stream: true });
    });
    text += decoder.decode();
  } catch (err) {
    if (err instanceof FetchError && err.kind === 'redirects') return ALLOW_ALL(); // RFC 9309 2.3.1.2: unavailable
    if (err instanceof FetchError && err.kind === 'stopped') return unreachable('was not read before discovery ended');
    return unreachable(`could not be fetched (${err instanceof Error ? err.message : String(err)})`);
  }
  const robot = robotsParser(url, text);
  return {
    allowed: (u) => robot.isAllowed(u, userAgent) !== false,
    sitemaps: robot.getSitemaps(),
  };
}
