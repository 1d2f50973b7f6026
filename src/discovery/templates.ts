/**
 * Templates, patterns and the choice of pages: pure functions the rest of the service may reuse.
 *
 * A path pattern (`include`, `exclude`, `templates`) is a path where `*` matches any run of characters (slashes
 * included: `/blog/*` is everything under /blog/) and a whole segment `:name` matches one path segment. `include`
 * and `exclude` are matched against the path (plus `?query` when the scan keeps query strings), templates against
 * the path alone, each pattern against the whole of it.
 *
 * A page's template is the first of the user's templates it matches, else the shape of its URL: `/` stays `/`;
 * numeric, hex (8 characters or more) and UUID segments become `:id`; of a path of two segments or more, the last
 * becomes `:slug` when its parent path has at least two distinct children among the URLs (`/blog/a`, `/blog/b` →
 * `/blog/:slug`); a single top-level segment (`/about`) stays itself.
 *
 * Sampling keeps `sample` pages per template, the ones whose URL has the lowest sha256: the same pages from one
 * scan to the next whatever order the sitemap lists them in. `maxPages` then takes pages round-robin across the
 * templates (in the order each template was first found; the start page first when it is kept), so every template
 * has a page before any has a second.
 */
import { createHash } from 'node:crypto';
import type { DiscoveredPage } from './types.js';

export const MAX_PATTERN_LENGTH = 1024;
const NAME = /^:[A-Za-z_][A-Za-z0-9_]*$/;

/** What is wrong with a user's path pattern (`include`, `exclude`, `templates`), or undefined when it is usable. */
export function checkPathPattern(p: string): string | undefined {
  if (p.length === 0) return 'is empty; a path pattern starts with "/" (/blog/*, /p/:id)';
  if (p.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  if (!p.startsWith('/') && !p.startsWith('*')) {
    return /^https?:\/\//i.test(p) ? 'is a URL; give the path only (/blog/*), it applies to the site\'s own pages'
      : 'must start with "/" (a path of the site: /blog/*, /p/:id) or "*"';
  }
  if (/[\s\u0000-\u001f\u007f]/.test(p)) return 'contains a space or a control character';
  if (p.includes('#')) return 'contains "#": fragments are not part of a page\'s URL';
  for (const segment of p.split('/')) {
    if (segment.startsWith(':') && !NAME.test(segment)) {
      return `has the segment "${segment}": a parameter is a whole segment ":name" (letters, digits, _)`;
    }
  }
  return undefined;
}

/** The pattern as an anchored regular expression (checkPathPattern it first). */
export function compilePattern(p: string): RegExp {
  let source = '';
  const parts = p.split('/');
  parts.forEach((segment, i) => {
    if (i > 0) source += '/';
    if (NAME.test(segment)) source += '[^/?]+';
    else source += segment.split('*').map(escapeRegExp).join('.*');
  });
  return new RegExp(`^${source}$`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether a page is tested by `include` (any of them, or none given) and `exclude` (none of them). */
export function passesFilters(pathAndQuery: string, include: readonly RegExp[], exclude: readonly RegExp[]): boolean {
  if (include.length > 0 && !include.some((r) => r.test(pathAndQuery))) return false;
  return !exclude.some((r) => r.test(pathAndQuery));
}

const ID_SEGMENT = /^(?:\d+|[0-9a-f]{8,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * The template of each URL (absolute URLs or paths), in the same order: the first of `named` (path patterns) that
 * matches its path, else its shape among all of `urls` (the `:slug` rule looks at its siblings).
 */
export function assignTemplates(urls: readonly string[], named: readonly string[] = []): string[] {
  const patterns = named.map((p) => ({ p, re: compilePattern(p) }));
  const paths = urls.map((u) => new URL(u, 'http://x').pathname);
  const shaped = paths.map((path) => path.split('/').filter(Boolean).map((s) => (ID_SEGMENT.test(s) ? ':id' : s)));
  const children = new Map<string, Set<string>>();
  for (const segments of shaped) {
    if (segments.length < 2) continue;
    const parent = `/${segments.slice(0, -1).join('/')}`;
    let set = children.get(parent);
    if (!set) children.set(parent, (set = new Set()));
    set.add(segments[segments.length - 1]!);
  }
  return paths.map((path, i) => {
    const match = patterns.find(({ re }) => re.test(path));
    if (match) return match.p;
    const segments = shaped[i]!;
    if (segments.length === 0) return '/';
    if (segments.length === 1) return `/${segments[0]}`;
    const parent = `/${segments.slice(0, -1).join('/')}`;
    const last = segments[segments.length - 1]!;
    return last !== ':id' && children.get(parent)!.size >= 2 ? `${parent}/:slug` : `${parent}/${last}`;
  });
}

export interface SelectOptions {
  /** Pages kept per template; 0 = all. */
  sample: number;
  maxPages: number;
  /** The start page's URL: first of all when it is among the candidates. */
  first?: string;
  /** The pages in the candidates' order (a given list) instead of round-robin across templates. */
  keepOrder?: boolean;
}

export interface Selection {
  pages: DiscoveredPage[];
  sampledOut: number;
  overMaxPages: number;
}

/** The pages to test out of the candidates (distinct URLs, in discovery order, with their templates). */
export function selectPages(candidates: readonly DiscoveredPage[], o: SelectOptions): Selection {
  const groups = new Map<string, { page: DiscoveredPage; rank: string; index: number }[]>();
  candidates.forEach((page, index) => {
    let group = groups.get(page.template);
    if (!group) groups.set(page.template, (group = []));
    group.push({ page, index, rank: page.url === o.first ? '' : stableRank(page.url) });
  });
  let sampledOut = 0;
  const ordered = [...groups.values()].map((group) => {
    group.sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
    if (o.sample > 0 && group.length > o.sample) {
      sampledOut += group.length - o.sample;
      return group.slice(0, o.sample);
    }
    return group;
  });
  // The start page's template first; the rest in the order their first URL was found (Map order).
  const startGroup = ordered.findIndex((g) => g[0]?.page.url === o.first);
  if (startGroup > 0) ordered.unshift(...ordered.splice(startGroup, 1));
  const chosen: { page: DiscoveredPage; index: number }[] = [];
  const total = ordered.reduce((n, g) => n + g.length, 0);
  for (let round = 0; chosen.length < Math.min(o.maxPages, total); round++) {
    for (const group of ordered) {
      if (chosen.length >= o.maxPages) break;
      const entry = group[round];
      if (entry) chosen.push(entry);
    }
  }
  if (o.keepOrder) chosen.sort((a, b) => a.index - b.index);
  return { pages: chosen.map((c) => c.page), sampledOut, overMaxPages: total - chosen.length };
}

/** The order of a URL among its template's pages: the hex sha256 of the URL (stable across scans). */
export function stableRank(url: string): string {
  return createHash('sha256').update(url).digest('hex');
}
