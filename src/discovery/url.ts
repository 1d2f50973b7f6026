/**
 * One normalisation for every source of URLs (sitemaps, crawled links, a given list), so the same page is the same
 * string wherever it was found: http(s) only, host in lower case (URL does it), default port dropped (URL does it),
 * dot segments resolved (URL does it), no fragment, no query string unless the scan keeps them (then its parameters
 * sorted). The site is the origin of the start page after its redirects; the same host over the other scheme (each
 * on its default port) counts as the site and is rewritten to the site's scheme.
 */

/** The longest URL read from a sitemap or a page (the sitemap protocol's limit). */
export const MAX_URL_LENGTH = 2048;

/** The normalised form of `raw` (resolved against `base`), or undefined when it is not an http(s) URL. */
export function normalizeUrl(raw: string, base: string | undefined, keepQuery: boolean): string | undefined {
  let u: URL;
  try {
    u = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (!u.hostname) return undefined;
  u.hash = '';
  u.username = '';
  u.password = '';
  if (!keepQuery) u.search = '';
  else if (u.search) {
    u.searchParams.sort();
    if (u.search === '?') u.search = '';
  }
  return u.href;
}

/** The site a scan tests: URLs of its origin are kept, every other one is `other_host`. */
export class Site {
  readonly origin: string;
  private readonly protocol: string;
  private readonly host: string;
  private readonly defaultPort: boolean;
  private readonly prefix: string;

  constructor(startUrl: string) {
    const u = new URL(startUrl);
    this.origin = u.origin;
    this.prefix = `${u.origin}/`;
    this.protocol = u.protocol;
    this.host = u.hostname;
    this.defaultPort = u.port === '';
  }

  /** `url` (normalised) as a URL of the site, or undefined when it is on another scheme, host or port. */
  own(url: string): string | undefined {
    if (url.startsWith(this.prefix)) return url;
    const u = new URL(url);
    if (u.origin === this.origin) return url;
    // http://host and https://host (default ports) are the same site: the site's scheme is the one tested.
    if (u.hostname === this.host && u.port === '' && this.defaultPort && u.protocol !== this.protocol) {
      u.protocol = this.protocol;
      return u.href;
    }
    return undefined;
  }

  /** Whether HTTP credentials may go to `origin`: the site's own, or its HTTPS twin (an upgrade, never a downgrade). */
  mayAuthenticate(origin: string): boolean {
    return origin === this.origin || (this.protocol === 'http:' && this.defaultPort && origin === `https://${this.host}`);
  }
}

/** Extensions of files that are not pages: a crawled link (or a sitemap entry) to one is `not_html`. */
const NOT_PAGE = new Set([
  'pdf', 'jpg', 'jpeg', 'png', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'tif', 'tiff', 'heic',
  'mp4', 'webm', 'mov', 'avi', 'mkv', 'm4v', 'mp3', 'wav', 'ogg', 'oga', 'flac', 'm4a', 'aac',
  'zip', 'gz', 'tgz', 'rar', '7z', 'tar', 'bz2', 'xz', 'exe', 'dmg', 'msi', 'apk', 'iso', 'deb', 'rpm',
  'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp', 'rtf', 'csv', 'txt', 'epub',
  'json', 'xml', 'rss', 'atom', 'css', 'js', 'mjs', 'map', 'woff', 'woff2', 'ttf', 'otf', 'eot', 'wasm',
]);

/** Whether a normalised URL's path ends in the extension of a file that is not a page (`/a/report.pdf`). */
export function isNonPageFile(url: string): boolean {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const last = path.slice(path.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  return dot > 0 && NOT_PAGE.has(last.slice(dot + 1).toLowerCase());
}
