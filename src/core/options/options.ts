/**
 * Analysis options of POST /tests (spec 4.1): parse, validate, normalise, fingerprint.
 * Input is lenient the way deployed clients need it (COMPAT "Lenient input on POST /tests"); output is one
 * canonical AnalysisOptions so that equal requests give equal pages. Every refusal names the attribute and
 * what it accepts.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import type { AnalysisOptions, Flag, ReportType, Retention } from './analysis-options.js';
import { deviceSlug, locationOffers, type Catalog } from '../catalog/catalog.js';
import { capabilitiesUsed, IDENTITY_OPTIONS, OPTION_ORDER, optionsOfKind, PRO_OPTIONS, WRITE_ONLY_OPTIONS } from '../vocabulary/options.js';
import { defaultReportType, REPORT_TYPE_NAMES, REPORT_TYPE_WORDS } from '../vocabulary/report-types.js';
import { DEFAULT_RETENTION, RETENTION_MONTHS, RETENTION_WORDS } from '../vocabulary/retentions.js';
import { ApiError, eachEntry, show } from '../errors.js';
import { hasControlCharacter } from '../ids.js';
import type { Plan } from '../accounts/plans.js';
import type { ThrottleFigures } from '../../runner/conditions/types.js';
import { canonicalCookie, parseCookie } from './cookies.js';
import { parseJourney } from './journey.js';
import { defaultDeviceClass, DEVICE_CLASS_WORDS, isDeviceClass } from '../vocabulary/device-classes.js';

export interface OptionsContext {
  plan: Plan;
  catalog: Catalog;
  /** The account's default location and browser, used when the request names none. */
  defaultLocation: string;
  defaultBrowser: string;
}

/** Limits the spec leaves open (docs/api.md "Test options: syntax the spec leaves open"); browser_dppx 1-5 is the spec's own. */
const MAX = {
  items: 100, url: 4096, pattern: 2048, cookie: 4096, text: 1024, viewport: 10_000, kbps: 10_000_000, latencyMs: 60_000,
};

/** Pro options given as values (asked when given), and pro flags (asked when 1), from the options table. */
const flags = optionsOfKind('flag');
const PRO_VALUES = PRO_OPTIONS.filter((k) => !flags.includes(k));
const PRO_FLAGS = PRO_OPTIONS.filter((k) => flags.includes(k));

export type Attrs = Record<string, unknown>;

const bad = (detail: string) => new ApiError('E40004', detail);

/** COMPAT: null, a missing key and an empty (or blank) string all mean "not given". */
export function given(v: unknown): boolean {
  return v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
}

export function flag(a: Attrs, name: string): Flag {
  const v = a[name];
  if (!given(v)) return 0;
  if (v === 0 || v === false || v === '0' || v === 'false') return 0;
  if (v === 1 || v === true || v === '1' || v === 'true') return 1;
  throw bad(`${name} must be 0 or 1 (also accepted: "0"/"1", false/true); got ${show(v)}`);
}

/** A string attribute; control characters are refused (they would end up in headers and logs). */
export function text(a: Attrs, name: string, trim = true): string | undefined {
  const v = a[name];
  if (!given(v)) return undefined;
  if (typeof v !== 'string') throw bad(`${name} must be a string; got ${show(v)}`);
  const s = trim ? v.trim() : v;
  if (s.length > MAX.text) throw bad(`${name} is ${s.length} characters long; at most ${MAX.text} are accepted`);
  if (hasControlCharacter(s)) throw bad(`${name} must not contain control characters (line breaks, tabs...)`);
  return s;
}

/** An ID (location, browser): a string, or an integer as some clients send. */
function id(a: Attrs, name: string): string | undefined {
  const v = a[name];
  if (!given(v)) return undefined;
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  if (typeof v === 'string') return v.trim();
  throw bad(`${name} must be an ID string such as "1"; got ${show(v)}`);
}

/** A number given as a JSON number or a numeric string ("1366", "1.5"); `integer` refuses fractions. */
export function number(a: Attrs, name: string, integer: boolean, min: number, max: number): number | undefined {
  const v = a[name];
  if (!given(v)) return undefined;
  const re = integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  const n = typeof v === 'number' ? v : typeof v === 'string' && re.test(v.trim()) ? Number(v) : NaN;
  const kind = integer ? 'an integer' : 'a number';
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    throw bad(`${name} must be ${kind} from ${min} to ${max}; got ${show(v)}`);
  }
  return n;
}

/** An array of strings; COMPAT: a single string is one item. Blank items are dropped. */
function list(a: Attrs, name: string, check: (item: string, where: string) => string): string[] {
  const v = a[name];
  if (!given(v)) return [];
  if (!Array.isArray(v) && typeof v !== 'string') throw bad(`${name} must be an array of strings; got ${show(v)}`);
  const items: unknown[] = Array.isArray(v) ? v : [v];
  if (items.length > MAX.items) throw bad(`${name} has ${items.length} entries; at most ${MAX.items} are accepted`);
  // Every bad entry is named, not only the first.
  const out = eachEntry(name, items, (item, at) => {
    if (!given(item)) return undefined;
    const where = Array.isArray(v) ? at : name;
    if (typeof item !== 'string') throw bad(`${where} must be a string; got ${show(item)}`);
    return check(item.trim(), where);
  });
  return out.filter((item) => item !== undefined);
}

function parseUrl(v: unknown): string {
  const example = 'give an absolute http:// or https:// address such as https://example.com/';
  if (!given(v)) throw bad(`url is required; ${example}`);
  if (typeof v !== 'string') throw bad(`url must be a string; ${example}`);
  let s = v.trim();
  if (s.length > MAX.url) throw bad(`url is ${s.length} characters long; at most ${MAX.url} are accepted`);
  if (s.startsWith('//')) s = `http:${s}`;
  else if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    // "mailto:x", "javascript:..." have a scheme; "example.com:8080/" is a host and port.
    const scheme = /^([a-z][a-z0-9+.-]*):(?!\d)/i.exec(s);
    if (scheme) throw bad(`url must use http or https, not ${scheme[1]}; ${example}`);
    s = `http://${s}`;
  }
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw bad(`url ${show(v)} is not a valid URL; ${example}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw bad(`url must use http or https, not ${u.protocol.slice(0, -1)}; ${example}`);
  }
  if (!u.hostname) throw bad(`url ${show(v)} has no host; ${example}`);
  // Credentials in the URL would be shown in every listing and link; the dedicated attributes are kept private.
  if (u.username || u.password) {
    throw bad('url must not contain credentials (user:password@host); use httpauth_username and httpauth_password');
  }
  return u.href;
}

/** A journey's URL is its first navigation; a `url` given beside it must be that one. */
function journeyUrl(v: unknown, first: string): string {
  if (!given(v)) return first;
  const url = parseUrl(v);
  if (url !== first) {
    throw bad(`url ${show(url)} is not the journey's first navigation (${show(first)}); leave url out (the journey gives it)`);
  }
  return url;
}

/** `fallback`: the report type of the test's browser when none is given (report-types.ts defaultReportType). */
function parseReport(v: unknown, fallback: ReportType): ReportType {
  const accepted = REPORT_TYPE_WORDS;
  if (!given(v)) return fallback;
  if (typeof v !== 'string') throw bad(`report must be one of ${accepted}; got ${show(v)}`);
  // Lenient: case, spaces and the order of "legacy,lighthouse" do not matter.
  const parts = [...new Set(v.toLowerCase().split(',').map((p) => p.trim()))].sort();
  const joined = parts.join(',');
  const found = REPORT_TYPE_NAMES.find((r) => r.split(',').sort().join(',') === joined);
  if (found !== undefined) return found;
  throw bad(`report ${show(v)} is not a report type; use one of ${accepted}`);
}

function parseRetention(v: unknown): Retention {
  if (!given(v)) return DEFAULT_RETENTION;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  const r = RETENTION_MONTHS.find((x) => x === n);
  if (r === undefined) throw bad(`retention must be ${RETENTION_WORDS} (months); got ${show(v)}`);
  return r;
}

export type { ThrottleFigures };

/** Reads `down/up/latency` (Kbit/s, Kbit/s, ms), e.g. "5000/1000/30"; undefined when it is not of that form. */
export function throttleFigures(s: string): ThrottleFigures | undefined {
  const m = /^(\d{1,9})\s*\/\s*(\d{1,9})\s*\/\s*(\d{1,9})$/.exec(s);
  return m ? { downloadKbps: Number(m[1]), uploadKbps: Number(m[2]), latencyMs: Number(m[3]) } : undefined;
}

function parseThrottle(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  const t = throttleFigures(s);
  const [down, up, latency] = t ? [t.downloadKbps, t.uploadKbps, t.latencyMs] : [NaN, NaN, NaN];
  if (!(down >= 1 && down <= MAX.kbps && up >= 1 && up <= MAX.kbps && latency >= 0 && latency <= MAX.latencyMs)) {
    throw bad(
      `throttle must be "down/up/latency": download and upload in Kbit/s (1-${MAX.kbps}) and latency in ms ` +
        `(0-${MAX.latencyMs}), e.g. "5000/1000/30"; got ${show(s)}`,
    );
  }
  return `${down}/${up}/${latency}`;
}

function checkCookie(s: string, where: string): string {
  if (s.length > MAX.cookie) throw bad(`${where} is ${s.length} characters long; at most ${MAX.cookie} are accepted`);
  try {
    return canonicalCookie(parseCookie(s));
  } catch (e) {
    throw bad(`${where}: ${(e as Error).message}`);
  }
}

function checkPattern(s: string, where: string): string {
  if (s.length > MAX.pattern) throw bad(`${where} is ${s.length} characters long; at most ${MAX.pattern} are accepted`);
  if (/[\s\u0000-\u001f\u007f]/.test(s)) {
    throw bad(`${where} must not contain spaces or control characters; give a URL or part of one ("*": anything)`);
  }
  return s;
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** `host:ip` where host may start with "*." (all subdomains) and ip is IPv4 or IPv6 (brackets optional). */
function checkDns(s: string, where: string): string {
  const syntax = 'host:ip_address, e.g. "example.com:93.184.215.14" or "*.example.com:2606:2800::1"';
  const at = s.indexOf(':');
  if (at <= 0) throw bad(`${where} ${show(s)} must be ${syntax}`);
  const rawHost = s.slice(0, at).trim().replace(/\.$/, '');
  const wildcard = rawHost.startsWith('*.');
  const host = domainToASCII(wildcard ? rawHost.slice(2) : rawHost);
  const ip = s.slice(at + 1).trim().replace(/^\[(.*)\]$/, '$1');
  if (!host || host.length > 253 || isIP(host) !== 0 || !host.split('.').every((l) => LABEL.test(l))) {
    throw bad(`${where} ${show(s)}: ${show(rawHost)} is not a host name; expected ${syntax}`);
  }
  if (isIP(ip) === 0 || ip.includes('%')) {
    throw bad(`${where} ${show(s)}: ${show(ip)} is not an IPv4 or IPv6 address; expected ${syntax}`);
  }
  return `${wildcard ? '*.' : ''}${host}:${ip.toLowerCase()}`;
}

/**
 * A test's attributes as a client gave them (POST /tests, the web app's Analyze form) into normalised options, or
 * the spec's 400 error naming what to fix.
 */
export function parseTestOptions(a: Readonly<Attrs>, ctx: OptionsContext): AnalysisOptions {
  const { catalog, plan } = ctx;

  // Plan first: no point making someone fix the syntax of an option their plan refuses anyway.
  const proFlagsAsked = PRO_FLAGS.filter((k) => flag(a, k) === 1);
  if (!plan.proAnalysisOptions) {
    // An empty array asks for nothing, like an empty string.
    const asks = (v: unknown) => given(v) && !(Array.isArray(v) && !v.some(given));
    const asked = PRO_VALUES.find((k) => asks(a[k])) ?? proFlagsAsked[0];
    if (asked) {
      throw bad(
        `${asked} is a pro analysis option and this account's ${plan.name} plan does not include it; ` +
          'remove it or move the account to the pro plan',
      );
    }
  }

  const location = id(a, 'location') ?? ctx.defaultLocation;
  const loc = catalog.location(location);
  if (!loc) {
    const ids = catalog.locations().map((l) => `"${l.id}" (${l.name})`).join(', ');
    throw new ApiError('E40003', `location ${show(location)} is not available; use one of ${ids} (GET /locations)`);
  }
  const browser = id(a, 'browser') ?? ctx.defaultBrowser;
  const br = catalog.browser(browser);
  if (!br || !locationOffers(catalog, loc, browser)) {
    const offered = loc.browsers.length > 0 ? loc.browsers : catalog.browsers().map((b) => b.id);
    const ids = offered.map((b) => `"${b}" (${catalog.browser(b)?.name ?? b})`).join(', ');
    throw new ApiError(
      'E40003',
      `browser ${show(browser)} is not available at location "${loc.id}"; use one of ${ids} (GET /browsers)`,
    );
  }

  const journey = given(a.journey) ? parseJourney(a, parseUrl) : undefined;
  if (!journey) {
    const orphan = (['journey_secrets', 'journey_measured_step'] as const).find((k) => given(a[k]));
    if (orphan) throw bad(`${orphan} was given without journey; give the recording in journey, or leave ${orphan} out`);
  }
  const url = journey ? journeyUrl(a.url, journey.url) : parseUrl(a.url);
  const report = parseReport(a.report, defaultReportType(br.lighthouse));
  if (journey && !br.lighthouse) {
    throw bad(`browser "${br.id}" (${br.name}) cannot replay a journey: its steps are measured by Lighthouse user flows; ` +
      'pick a browser whose "lighthouse" is true (GET /browsers)');
  }
  if (journey && report !== 'lighthouse') {
    throw bad(`report ${show(report)} cannot measure a journey: its steps are measured by Lighthouse user flows; ` +
      'use report "lighthouse" (the default)');
  }
  const retention = parseRetention(a.retention);
  const httpauth_username = text(a, 'httpauth_username');
  const httpauth_password = text(a, 'httpauth_password', false);
  if (httpauth_password !== undefined && httpauth_username === undefined) {
    throw bad('httpauth_password was given without httpauth_username; give both, or only httpauth_username');
  }
  if (httpauth_username?.includes(':')) throw bad('httpauth_username must not contain ":" (Basic auth forbids it)');
  flag(a, 'anonymize_user_agent'); // older variant: validated, then ignored (we add no service tag to strip)

  const deviceAsked = text(a, 'simulate_device');
  // Lenient: the device's name ("iPhone 13 Pro") finds it as well as its ID.
  const device =
    deviceAsked === undefined ? undefined : (catalog.device(deviceAsked) ?? catalog.device(deviceSlug(deviceAsked)));
  if (deviceAsked !== undefined && !device) {
    const fix = 'use an ID from GET /simulated-devices, e.g. "pixel-5"';
    throw new ApiError('E40003', `simulate_device ${show(deviceAsked)} is not a known device; ${fix}`);
  }
  const deviceClass = text(a, 'device_class');
  if (deviceClass !== undefined && !isDeviceClass(deviceClass)) {
    throw bad(`device_class must be ${DEVICE_CLASS_WORDS}; got ${show(deviceClass)}`);
  }
  const browser_width = number(a, 'browser_width', true, 1, MAX.viewport);
  const browser_height = number(a, 'browser_height', true, 1, MAX.viewport);
  if ((browser_width === undefined) !== (browser_height === undefined)) {
    const [has, lacks] = browser_width === undefined ? ['height', 'width'] : ['width', 'height'];
    throw bad(`browser_${has} requires browser_${lacks}: give both (1-${MAX.viewport} px each), or neither`);
  }

  const runs = number(a, 'runs', true, 1, Number.MAX_SAFE_INTEGER);
  if (runs !== undefined && runs > plan.maxRuns) {
    throw bad(`runs is ${runs}; this account's ${plan.name} plan allows 1 to ${plan.maxRuns} runs per test`);
  }
  const options: AnalysisOptions = {
    url, location, browser, report, retention, httpauth_username, httpauth_password,
    adblock: flag(a, 'adblock'),
    cookies: list(a, 'cookies', checkCookie),
    video: flag(a, 'video'),
    stop_onload: flag(a, 'stop_onload'),
    throttle: parseThrottle(text(a, 'throttle')),
    allow_url: list(a, 'allow_url', checkPattern),
    block_url: list(a, 'block_url', checkPattern),
    dns: list(a, 'dns', checkDns),
    simulate_device: device?.id,
    // The default class stays out of the options: a device's tests before device classes are the same page.
    device_class: deviceClass === defaultDeviceClass({ simulate_device: device?.id }, br.cpu_throttle) ? undefined : deviceClass,
    user_agent: text(a, 'user_agent'),
    browser_width, browser_height,
    browser_dppx: number(a, 'browser_dppx', false, 1, 5),
    browser_rotate: flag(a, 'browser_rotate'),
    // One run is the default and stays out of the options (clients that never ask see what they always saw).
    runs: runs === undefined || runs === 1 ? undefined : runs,
    journey: journey?.journey,
    journey_secrets: journey?.secrets,
    journey_measured_step: journey?.measuredStep,
  };
  if (journey?.journey.steps[0]?.type === 'setViewport' && (options.browser_width !== undefined || options.simulate_device !== undefined)) {
    throw bad('journey.steps[0] is a setViewport, and browser_width/browser_height or simulate_device set the screen too: ' +
      'keep one (the recording\'s setViewport, or the options)');
  }
  for (const [cap, what] of capabilitiesUsed(options)) {
    if (!br[cap]) {
      const fix = `pick a browser whose "${cap}" is true (GET /browsers)`;
      throw bad(`browser "${br.id}" (${br.name}) does not support ${what}; ${fix}`);
    }
  }
  // Optional fields not given become absent rather than undefined; keys come out in the options table's order.
  return publicOptions(options);
}

/** sha256 (hex) of the options that define a page: all but retention, video and httpauth_password. */
export function optionsFingerprint(o: AnalysisOptions): string {
  const entries = IDENTITY_OPTIONS.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]);
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}

/** Normalised options: every option given, in the options table's fixed order. */
export function publicOptions(o: AnalysisOptions): AnalysisOptions {
  const out: Record<string, unknown> = {};
  for (const k of OPTION_ORDER) {
    const v = o[k];
    if (v !== undefined) out[k] = Array.isArray(v) ? [...v] : v;
  }
  return out as unknown as AnalysisOptions;
}

/**
 * The `analysis-options` resource: every option, including HTTP auth and cookies (spec 4.2), but not the write-only
 * ones (journey_secrets), in fixed order.
 */
export function servedOptions(o: AnalysisOptions): Partial<AnalysisOptions> {
  const out: Partial<AnalysisOptions> = publicOptions(o);
  for (const k of WRITE_ONLY_OPTIONS) delete out[k];
  return out;
}
