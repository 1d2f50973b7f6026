/**
 * URL patterns of allow_url and block_url (docs/api.md "Test options"): a pattern matches a request URL when its
 * parts between `*` wildcards occur in the URL in that order, anywhere in it. That is Chrome's own
 * request-blocking rule, and the one core/options/options.ts documents to the API: `example.com` matches every URL that
 * contains it, `https://cdn.example.com/*.js` every script under that origin, `*` every URL. Matching is
 * case-sensitive and compares the URL as the browser requests it (absolute, percent-encoded).
 */
export function urlPatternMatches(pattern: string, url: string): boolean {
  let pos = 0;
  for (const part of pattern.split('*')) {
    const found = url.indexOf(part, pos);
    if (found < 0) return false;
    pos = found + part.length;
  }
  return true;
}

/** A predicate that is true when a URL matches any of the patterns (empty patterns are ignored). */
export function urlMatcher(patterns: readonly string[]): (url: string) => boolean {
  const usable = patterns.filter((p) => p.length > 0);
  return (url) => usable.some((p) => urlPatternMatches(p, url));
}
