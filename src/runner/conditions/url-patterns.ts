/**
 * URL patterns of allow_url / block_url: a URL prefix, or a pattern with `*` wildcards matching the whole URL.
 * Chromium's blocked-URL list only knows whole-URL wildcards, so a plain prefix gets a trailing `*`.
 */
export function toWildcardPattern(pattern: string): string {
  return pattern.includes('*') ? pattern : `${pattern}*`;
}

/** Blocked URL patterns for Lighthouse's `blockedUrlPatterns` (Network.setBlockedURLs). */
export function blockedUrlPatterns(blockUrl: readonly string[]): string[] {
  return blockUrl.filter((p) => p.length > 0).map(toWildcardPattern);
}

/** A predicate that is true when a URL matches any of the patterns. */
export function urlMatcher(patterns: readonly string[]): (url: string) => boolean {
  const regexes = patterns
    .filter((p) => p.length > 0)
    .map((p) => {
      const body = toWildcardPattern(p)
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*');
      return new RegExp(`^${body}$`, 's');
    });
  return (url) => regexes.some((re) => re.test(url));
}
