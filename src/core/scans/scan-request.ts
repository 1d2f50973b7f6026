/**
 * POST /scans' attributes (docs/scans.md): the scan's own (source, limits, patterns) and every option of POST /tests,
 * which each page's test gets, parsed by the tests' own parser so the same rules give the same errors.
 */
import type { AnalysisOptions } from '../options/analysis-options.js';
import { flag, given, number, parseTestOptions, type Attrs, type OptionsContext } from '../options/options.js';
import { ApiError, eachEntry, show } from '../errors.js';
import { checkPathPattern } from '../../discovery/templates.js';
import type { ScanSource } from '../../discovery/types.js';
import { parseAlertConditions, type AlertCondition } from './alert-conditions.js';
import { deviceClassOf } from '../vocabulary/device-classes.js';
import { parseDevices, type DeviceScan } from './scan-devices.js';

export const SCAN_SOURCES: readonly ScanSource[] = ['sitemap', 'crawl', 'list'];
export const DEFAULT_MAX_PAGES = 50;
export const DEFAULT_SAMPLE = 5;
export const DEFAULT_CRAWL_DEPTH = 3;
const MAX_CRAWL_DEPTH = 10;
const MAX_SAMPLE = 100_000;
/** A list scan's URLs (a sitemap file's own limit). */
const MAX_LIST_URLS = 50_000;
const MAX_PATTERNS = 50;
const MAX_SITEMAPS = 20;
const MAX_URL = 2048;

/** What a scan was asked to do besides the test options (stored as the scan's settings). */
export interface ScanSettings {
  source: ScanSource;
  urls: string[];
  sitemaps: string[];
  include: string[];
  exclude: string[];
  templates: string[];
  max_pages: number;
  sample: number;
  crawl_depth: number;
  respect_robots: boolean;
  keep_query: boolean;
  /** Checked when the scan completes (alert-conditions.ts); a scan stored before them has none. */
  alert_conditions: AlertCondition[];
}

/** A scan's (or a schedule's) settings as stored; settings stored before alert conditions existed have none. */
export function readScanSettings(text: string): ScanSettings {
  const stored = JSON.parse(text) as Partial<ScanSettings>;
  // The stored keys keep their order: a schedule's scans store its settings as they were stored.
  return { ...stored, alert_conditions: stored.alert_conditions ?? [] } as ScanSettings;
}

/** The attributes that are the scan's and not a test option. */
const SCAN_ATTRIBUTES = ['source', 'urls', 'sitemaps', 'include', 'exclude', 'templates', 'max_pages', 'sample', 'crawl_depth',
  'respect_robots', 'keep_query', 'alert_conditions', 'devices'] as const;

/** A scan request read: one scan per device (in the order asked), and the settings they share. */
export interface ScanRequest {
  devices: DeviceScan[];
  settings: ScanSettings;
}

const bad = (detail: string) => new ApiError('E40004', detail);

function strings(a: Attrs, name: string, max: number, check?: (s: string) => string | undefined): string[] {
  const v = a[name];
  if (!given(v)) return [];
  if (!Array.isArray(v)) throw bad(`${name} must be an array of strings; got ${show(v)}`);
  if (v.length > max) throw bad(`${name} has ${v.length} entries; at most ${max} are allowed`);
  // Every bad entry is named, not only the first.
  return eachEntry(name, v as unknown[], (s, at) => {
    if (typeof s !== 'string' || s.trim() === '') throw bad(`${at} must be a non-empty string; got ${show(s)}`);
    const problem = check?.(s.trim());
    if (problem) throw bad(`${at} ${show(s)}: ${problem}`);
    return s.trim();
  });
}

function bool(a: Attrs, name: string, fallback: boolean): boolean {
  return given(a[name]) ? flag(a, name) === 1 : fallback;
}

const httpUrl = (s: string): string | undefined => {
  if (s.length > MAX_URL) return `is longer than ${MAX_URL} characters`;
  if (s.startsWith('/')) return undefined;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'is not an http(s) URL or a path of the site';
  } catch {
    return 'is not an absolute http(s) URL or a path of the site (starting with /)';
  }
};

/**
 * Each device's test options: those given, as the device `devices` names (each parsed by the tests' parser, so a phone in
 * a browser that cannot slow its CPU is refused as a test would be), or the one device the options name.
 */
function parseDeviceOptions(a: Readonly<Attrs>, testAttrs: Attrs, ctx: OptionsContext): DeviceScan[] {
  const devices = parseDevices(a.devices);
  const cpuThrottle = (o: AnalysisOptions) => ctx.catalog.browser(o.browser)?.cpu_throttle ?? false;
  if (devices === undefined) {
    const options = parseTestOptions(testAttrs, ctx);
    return [{ device: deviceClassOf(options, cpuThrottle(options)), options }];
  }
  if (given(a.device_class)) {
    throw bad('device_class and devices were both given: give devices (a scan per device, e.g. ["desktop", "phone-mid"]) ' +
      'or device_class (one device), not both');
  }
  return devices.map((device, i) => {
    try {
      return { device, options: parseTestOptions({ ...testAttrs, device_class: device }, ctx) };
    } catch (err) {
      if (err instanceof ApiError && err.detail !== undefined && err.code === 'E40004') throw new ApiError(err.code, `devices[${i}] "${device}": ${err.detail}`);
      throw err;
    }
  });
}

export function parseScanRequest(a: Readonly<Attrs>, ctx: OptionsContext): ScanRequest {
  if (given(a.journey)) throw bad('journey cannot be scanned: a scan tests pages of a site; start a test with the journey instead');
  const testAttrs: Attrs = { ...a };
  for (const k of SCAN_ATTRIBUTES) delete testAttrs[k];
  const devices = parseDeviceOptions(a, testAttrs, ctx);

  const source = given(a.source) ? a.source : 'sitemap';
  if (typeof source !== 'string' || !SCAN_SOURCES.includes(source as ScanSource)) {
    throw bad(`source must be one of ${SCAN_SOURCES.map((s) => `"${s}"`).join(', ')}; got ${show(a.source)}`);
  }
  const cap = ctx.plan.maxScanPages;
  const maxPages = number(a, 'max_pages', true, 1, Number.MAX_SAFE_INTEGER) ?? Math.min(DEFAULT_MAX_PAGES, cap);
  if (maxPages > cap) throw bad(`max_pages is ${maxPages}; this account's ${ctx.plan.name} plan allows 1 to ${cap} pages per scan`);
  const urls = strings(a, 'urls', MAX_LIST_URLS, httpUrl);
  if (source === 'list' && urls.length === 0) throw bad('source "list" needs urls: the pages to test (absolute URLs of the site, or paths)');
  if (source !== 'list' && urls.length > 0) throw bad(`urls are the pages of source "list"; this scan's source is "${source}": drop urls or set source "list"`);
  const sitemaps = strings(a, 'sitemaps', MAX_SITEMAPS, httpUrl);
  if (source !== 'sitemap' && sitemaps.length > 0) throw bad(`sitemaps are read by source "sitemap"; this scan's source is "${source}"`);
  const crawlDepth = number(a, 'crawl_depth', true, 0, MAX_CRAWL_DEPTH);
  if (crawlDepth !== undefined && source !== 'crawl') throw bad(`crawl_depth is for source "crawl"; this scan's source is "${source}"`);
  const alertConditions = parseAlertConditions(a.alert_conditions);
  const scanned = devices.map((d) => d.device);
  eachEntry('alert_conditions', alertConditions, (c, at) => {
    if (c.device !== undefined && !scanned.includes(c.device)) {
      throw bad(`${at}.device "${c.device}" is not scanned: this request scans ${scanned.join(', ')}; give one of them, or leave device out`);
    }
    return c;
  });
  return {
    devices,
    settings: {
      source: source as ScanSource,
      urls, sitemaps,
      include: strings(a, 'include', MAX_PATTERNS, checkPathPattern),
      exclude: strings(a, 'exclude', MAX_PATTERNS, checkPathPattern),
      templates: strings(a, 'templates', MAX_PATTERNS, checkPathPattern),
      max_pages: maxPages,
      sample: number(a, 'sample', true, 0, MAX_SAMPLE) ?? DEFAULT_SAMPLE,
      crawl_depth: crawlDepth ?? DEFAULT_CRAWL_DEPTH,
      respect_robots: bool(a, 'respect_robots', true),
      keep_query: bool(a, 'keep_query', false),
      alert_conditions: alertConditions,
    },
  };
}
