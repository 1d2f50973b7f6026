/**
 * The bookkeeping every source shares: which URLs were seen (normalised once, url.ts), the fate of each (a page to
 * consider, or one skip reason, counted once), and the messages (at most MAX_ERRORS, the last saying how many more).
 */
import type { Robots } from './robots.js';
import type { SkipReason } from './types.js';
import { isNonPageFile, normalizeUrl, type Site } from './url.js';

export const MAX_ERRORS = 20;

export interface SeeOptions {
  /** A URL whose path names a file that is not a page (.pdf, .jpg …) is `not_html` (sitemaps and crawled links). */
  pagesOnly: boolean;
}

export class Collector {
  /** Distinct URLs found (of any host). */
  found = 0;
  readonly skipped: Partial<Record<SkipReason, number>> = {};
  /** Site URLs that passed every check so far, in discovery order. */
  readonly candidates: string[] = [];
  private readonly seen = new Set<string>();
  private readonly messages: string[] = [];
  private moreMessages = 0;
  private lastProgress = 0;

  constructor(
    readonly site: Site,
    readonly keepQuery: boolean,
    private readonly robots: Robots | undefined,
    private readonly onProgress?: (found: number) => void,
  ) {}

  skip(reason: SkipReason, n = 1): void {
    if (n > 0) this.skipped[reason] = (this.skipped[reason] ?? 0) + n;
  }

  error(message: string): void {
    if (this.messages.length < MAX_ERRORS) this.messages.push(message);
    else this.moreMessages++;
  }

  /** A message that must not be lost among many: put first. */
  errorFirst(message: string): void {
    this.messages.unshift(message);
    if (this.messages.length > MAX_ERRORS) {
      this.messages.pop();
      this.moreMessages++;
    }
  }

  get errors(): string[] {
    if (this.moreMessages === 0) return [...this.messages];
    const shown = this.messages.slice(0, MAX_ERRORS - 1);
    return [...shown, `… and ${this.moreMessages + 1} more messages like these`];
  }

  /**
   * A URL found (`raw`, relative to `base`): its site form when it is new, on the site, a page and allowed by
   * robots.txt; undefined otherwise (counted: duplicate, other_host, not_html or robots_txt). Undefined and
   * uncounted for what is not an http(s) URL at all (the caller says so where it matters).
   */
  see(raw: string, base: string | undefined, o: SeeOptions): string | undefined {
    const url = normalizeUrl(raw, base, this.keepQuery);
    return url === undefined ? undefined : this.seeNormal(url, o);
  }

  /** As `see`, for a URL already normalised (normalizeUrl with this scan's keepQuery). */
  seeNormal(url: string, o: SeeOptions): string | undefined {
    const own = this.site.own(url);
    const key = own ?? url;
    if (this.seen.has(key)) {
      this.skip('duplicate');
      return undefined;
    }
    this.seen.add(key);
    this.found++;
    if (this.onProgress && this.found - this.lastProgress >= 100) this.progress();
    if (own === undefined) return this.skip('other_host'), undefined;
    if (o.pagesOnly && isNonPageFile(own)) return this.skip('not_html'), undefined;
    if (this.robots && !this.robots.allowed(own)) return this.skip('robots_txt'), undefined;
    return own;
  }

  /**
   * A crawled page (`requested`, as `see` gave it) answered from `finalUrl`: its site form when that is the same
   * URL, or a page not seen under another URL after redirects; otherwise the page's fate is counted (other_host, duplicate, robots_txt) and undefined returned.
   */
  answered(requested: string, finalUrl: string): string | undefined {
    const url = normalizeUrl(finalUrl, undefined, this.keepQuery);
    const own = url === undefined ? undefined : this.site.own(url);
    if (own === requested) return own;
    if (own === undefined) return this.skip('other_host'), undefined;
    if (this.seen.has(own)) return this.skip('duplicate'), undefined;
    this.seen.add(own); // the same page: found once, under the URL that led to it
    if (this.robots && !this.robots.allowed(own)) return this.skip('robots_txt'), undefined;
    return own;
  }

  progress(): void {
    this.lastProgress = this.found;
    this.onProgress?.(this.found);
  }
}

/**
 * `fn` over `items`, at most `n` at once, each result handed to `onResult` in the items' order as soon as those
 * before it are done (so the outcome does not depend on which answered first, and results do not pile up: no item
 * starts more than `window` ahead of the first unfinished one).
 */
export async function inOrder<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>,
  onResult: (result: R, item: T) => void, window = 16): Promise<void> {
  const done = new Map<number, R>();
  let next = 0;
  let settled = 0;
  let waiting: (() => void)[] = [];
  const flush = () => {
    while (done.has(settled)) {
      const result = done.get(settled)!;
      done.delete(settled);
      onResult(result, items[settled]!);
      settled++;
    }
    const wake = waiting;
    waiting = [];
    for (const w of wake) w();
  };
  const worker = async () => {
    for (;;) {
      while (next < items.length && next >= settled + window) await new Promise<void>((resolve) => waiting.push(resolve));
      if (next >= items.length) return;
      const i = next++;
      done.set(i, await fn(items[i]!));
      flush();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}
