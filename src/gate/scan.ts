/**
 * `webgauge scan URL`: the CI gate for a whole site. Starts a site scan through API 2.0 (Webgauge's extension,
 * docs/scans.md), shows discovery and the pages' progress, prints the site's figures and checks site budgets
 * (`--budget lcp_p75=2500`) when the scan completed, and with `--compare-to` compares it with an earlier scan of the site
 * (scan-regressions.ts). Exit codes as `webgauge test`: 0 all budgets passed and no page got worse, 1 a budget failed or a
 * page got significantly worse, 2 the scan could not be run (refused, ended in error or cancelled, no page measured,
 * server unreachable).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { plural } from '../lib/words.js';
import { ApiClient, apiErrorText, GateError, resourceOf, type Reply, type Resource } from './api-client.js';
import { exitCodeOf, type Budget, type Check } from './checks.js';
import { failureMessage, parseDeviceList, pollMsOf, pollPause, Progress, testOptionAttributes, writeMarkdown, writeOutput, type GateIo } from './cli.js';
import {
  budgetFor, checkSiteBudgets, parseDeviceBudgets, siteBudgetTable, type DeviceBudgets, type ScanAttributes, type ScanPage,
} from './scan-budgets.js';
import { checkFieldBudgets, fetchField, fieldBudgetTable, splitFieldBudget } from './field-budgets.js';
import { scansJson, scansJunit, scansMarkdown, scansText, type ScanResult } from './scan-outputs.js';
import { DEVICE_NAME_WORDS } from '../core/vocabulary/device-names.js';
import type { DeviceClass } from '../core/vocabulary/device-classes.js';
import { fetchComparison, parseCompareTo, worsePages } from './scan-regressions.js';

export const SCAN_USAGE = `Usage: webgauge scan URL [--sitemap | --crawl | --urls FILE] [--sitemap-url URL]... [--max-pages N] [--sample N]
         [--crawl-depth N] [--include PATTERN]... [--exclude PATTERN]... [--template PATTERN]... [--no-robots]
         [--keep-query] [--server URL] [--key KEY] [--location ID] [--browser ID] [--runs N]
         [--throttle DOWN/UP/LATENCY] [--report TYPE] [--device DEVICE[,DEVICE]...] [--budget [DEVICE:]NAME=VALUE]...
         [--compare-to last|SCAN_ID]
         [--junit FILE] [--json [FILE]] [--markdown FILE]
  Tests the pages of the site at URL, found in its sitemaps (the default: robots.txt's Sitemap: lines, else
  /sitemap.xml, or each --sitemap-url), by following its links (--crawl, --crawl-depth links deep, 0-10, default
  3), or listed in FILE (--urls: one URL or path a line; blank lines and # comments ignored).
  --include, --exclude: path patterns (* matches any characters); --template: URL shapes to group pages by
  (/p/:id, /docs/*); --sample: pages tested per template (default 5, 0 all); --max-pages: pages tested at most
  (default 50); --no-robots: ignore robots.txt (your own site); --keep-query: keep query strings.
  The test options (--location ... --report) apply to each page's test.
  --device: the devices each page is tested as, a scan each (${DEVICE_NAME_WORDS}; e.g. --device desktop,phone-mid);
  default: the server's one device for the options. Every output then gives each device's results.
  --server and --key default to WEBGAUGE_SERVER and WEBGAUGE_KEY.
  Budgets on the site's figures (--budget NAME=VALUE, checked when the scan completed; --budget DEVICE:NAME=VALUE for
  one device's scan, in place of a budget of the same name without a device):
${siteBudgetTable('    ')}
  and on the site's real visitors (its field site, last 28 days, the scan's device: desktop ↔ desktop, phone ↔ mobile;
  under 50 page views, no field site or a server without field figures: skipped, saying why):
${fieldBudgetTable('    ')}
  --compare-to last|SCAN_ID: once the scan completed, compare it with the site's previous completed scan (last; none
  yet: nothing is compared; of each device, with its own device's) or with that scan (one device only); pages that got significantly worse fail the gate, each listed with
  what got worse and on what basis (a test over the runs, or a threshold: docs/scans.md "Compare two scans").
  --junit FILE: a test case per page (it fails when the page is part of a budget that failed, or got worse) and per
  budget.
  --json [FILE]: the scan and its pages as one JSON document, on standard output without FILE (--json=FILE when
  FILE could be taken for the URL). --markdown FILE: a summary, also appended to $GITHUB_STEP_SUMMARY when set.
  Exit codes: 0 all budgets passed (and no page got worse), 1 a budget failed or a page got significantly worse, 2 the
  scan could not be run or compared (refused, ended in error or cancelled, no page measured, server unreachable, bad
  arguments).`;

export interface ScanOptions {
  url: string;
  server: string;
  key: string;
  /** The POST /scans attributes. */
  attributes: Record<string, unknown>;
  budget: DeviceBudgets;
  /** --device: the devices asked, a scan each (their results keyed by device); none: the server's one device. */
  devices?: DeviceClass[];
  /** --compare-to: last, or the ID of the scan to compare with. */
  compareTo?: string;
  junit?: string;
  markdown?: string;
  /** --json: '-' for standard output, else its file. */
  json?: string;
  /** Poll interval (ms): the server's Retry-After unless WEBGAUGE_POLL_MS says otherwise. */
  pollMs?: number;
}

/**
 * `--json [FILE]` out of the arguments (parseArgs has no optional values): `--json=FILE`, or `--json FILE` when the
 * next argument is no option and no http(s) URL (the site's), else standard output ('-').
 */
function takeJson(args: readonly string[]): { rest: string[]; json?: string } {
  const rest: string[] = [];
  let json: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (arg.startsWith('--json=')) {
      json = arg.slice('--json='.length) || '-';
    } else if (arg === '--json') {
      const next = args[i + 1];
      json = next !== undefined && !next.startsWith('-') && !/^https?:\/\//i.test(next) ? (i++, next) : '-';
    } else {
      rest.push(arg);
    }
  }
  return { rest, json };
}

/** A whole number flag within its bounds. */
function whole(flag: string, text: string | undefined, min: number, max?: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || (max !== undefined && n > max)) {
    throw new GateError(`--${flag} ${text}: give a whole number, ${max === undefined ? `${min} or more` : `${min} to ${max}`}`);
  }
  return n;
}

/** `--urls FILE`: one URL (or path of the site) a line; blank lines and lines starting with # are left out. */
async function readUrlList(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch((err: Error) => {
    throw new GateError(`cannot read --urls ${file}: ${err.message}`);
  });
  const urls = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  if (urls.length === 0) throw new GateError(`--urls ${file} lists no URL (one a line; blank lines and # comments are ignored)`);
  return urls;
}

/** The scan's arguments (after `webgauge scan`) as the POST /scans attributes, the budgets and the outputs. */
export async function parseScanArgs(args: string[], env: GateIo['env']): Promise<ScanOptions | 'help'> {
  const { rest, json } = takeJson(args);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest, allowPositionals: true,
      options: {
        sitemap: { type: 'boolean' }, crawl: { type: 'boolean' }, urls: { type: 'string' }, 'sitemap-url': { type: 'string', multiple: true },
        'max-pages': { type: 'string' }, sample: { type: 'string' }, 'crawl-depth': { type: 'string' },
        include: { type: 'string', multiple: true }, exclude: { type: 'string', multiple: true }, template: { type: 'string', multiple: true },
        'no-robots': { type: 'boolean' }, 'keep-query': { type: 'boolean' },
        server: { type: 'string' }, key: { type: 'string' }, location: { type: 'string' }, browser: { type: 'string' },
        runs: { type: 'string' }, throttle: { type: 'string' }, report: { type: 'string' }, budget: { type: 'string', multiple: true },
        'compare-to': { type: 'string' }, junit: { type: 'string' }, markdown: { type: 'string' }, help: { type: 'boolean', short: 'h' },
        device: { type: 'string', multiple: true },
      },
    });
  } catch (err) {
    throw new GateError(`${(err as Error).message}\n${SCAN_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) {
    const hint = positionals.length === 0 && json !== undefined && json !== '-' ? ` (--json took "${json}" as its file: write --json=FILE)` : '';
    throw new GateError(`give one URL: the site's start page${hint}\n${SCAN_USAGE}`);
  }
  const sources = [values.sitemap && '--sitemap', values.crawl && '--crawl', values.urls !== undefined && '--urls'].filter(Boolean);
  if (sources.length > 1) throw new GateError(`give one of ${sources.join(', ')}: where the pages come from`);
  const source = values.crawl ? 'crawl' : values.urls !== undefined ? 'list' : 'sitemap';
  if (values['sitemap-url'] && source !== 'sitemap') throw new GateError('--sitemap-url belongs to --sitemap (the default), not --crawl or --urls');
  if (values['crawl-depth'] !== undefined && source !== 'crawl') throw new GateError('--crawl-depth belongs to --crawl');
  const devices = parseDeviceList(values.device);
  const budget = parseDeviceBudgets(values.budget ?? []);
  for (const device of budget.byDevice.keys()) {
    if (!devices) throw new GateError(`--budget ${device}:...: a budget of one device needs --device (e.g. --device desktop,${device})`);
    if (!devices.includes(device as DeviceClass)) {
      throw new GateError(`--budget ${device}:...: ${device} is not scanned; --device gives ${devices.join(', ')}`);
    }
  }
  const compareTo = parseCompareTo(values['compare-to']);
  if (compareTo !== undefined && compareTo !== 'last' && devices && devices.length > 1) {
    throw new GateError(`--compare-to ${compareTo}: a scan's ID compares one device's scan; with several devices give --compare-to last ` +
      '(each device\'s scan with its own device\'s previous scan)');
  }
  const server = values.server ?? env.WEBGAUGE_SERVER;
  if (!server) throw new GateError('no server: give --server or set WEBGAUGE_SERVER');

  const attributes: Record<string, unknown> = { url: positionals[0], source };
  if (values['sitemap-url']) attributes.sitemaps = values['sitemap-url'];
  if (values.urls !== undefined) attributes.urls = await readUrlList(values.urls);
  const numbers = { crawl_depth: whole('crawl-depth', values['crawl-depth'], 0, 10), max_pages: whole('max-pages', values['max-pages'], 1),
    sample: whole('sample', values.sample, 0) };
  for (const [name, n] of Object.entries(numbers)) if (n !== undefined) attributes[name] = n;
  for (const [flag, name] of [['include', 'include'], ['exclude', 'exclude'], ['template', 'templates']] as const) {
    if (values[flag]) attributes[name] = values[flag];
  }
  if (values['no-robots']) attributes.respect_robots = false;
  if (values['keep-query']) attributes.keep_query = true;
  Object.assign(attributes, testOptionAttributes(values));
  if (devices) attributes.devices = devices;
  return { url: positionals[0]!, server, key: values.key ?? env.WEBGAUGE_KEY ?? '', attributes,
    budget, ...(devices ? { devices } : {}), ...(compareTo === undefined ? {} : { compareTo }), junit: values.junit, markdown: values.markdown, json, pollMs: pollMsOf(env) };
}

const FINISHED = new Set(['completed', 'cancelled', 'error']);

/** The scan's state as its progress shows it: URLs found while discovering, pages done while running. */
function scanState(a: ScanAttributes): string {
  if (a.state === 'discovering') return `discovering: found ${plural(typeof a.found === 'number' ? a.found : 0, 'URL')}`;
  if (a.state === 'running' && a.pages) {
    const { total, completed = 0, failed = 0, cancelled = 0 } = a.pages;
    return `running: ${completed + failed + cancelled} of ${plural(total, 'page')} done${failed ? `, ${failed} failed` : ''}`;
  }
  return a.state;
}

/** One device's scan as the gate follows it: its resource, and where to poll it. */
interface Followed {
  scan: Resource;
  poll: string;
}

const deviceOf = (scan: Resource): string | undefined => {
  const d = (scan.attributes as ScanAttributes).device_class;
  return typeof d === 'string' ? d : undefined;
};

/**
 * Starts the scan (a scan per device with --device) and polls each until it ends; an `error` end is a GateError with its
 * reason and discovery's errors. The scans in the order of their devices.
 */
async function runScans(api: ApiClient, o: ScanOptions, progress: Progress, io: GateIo): Promise<Resource[]> {
  let reply: Reply = await api.expect('POST', '/scans', { data: { type: 'scan', attributes: o.attributes } });
  const first = resourceOf(reply.body);
  const included = Array.isArray(reply.body?.included) ? (reply.body.included as Partial<Resource>[])
    .filter((r): r is Resource => typeof r?.id === 'string' && r.type === 'scan' && typeof r.attributes === 'object' && r.attributes !== null)
    .map((r) => ({ ...r, links: r.links ?? {} })) : [];
  const followed: Followed[] = [{ scan: first, poll: reply.headers.get('location') ?? `/scans/${encodeURIComponent(first.id)}` },
    ...included.map((scan) => ({ scan, poll: scan.links.self ?? `/scans/${encodeURIComponent(scan.id)}` }))];
  const several = followed.length > 1;
  // A server without devices (another of API 2.0) ignores them and starts one scan: no device's budgets could be judged.
  const got = followed.map((f) => deviceOf(f.scan));
  if (o.devices && (followed.length !== o.devices.length || o.devices.some((d, i) => got[i] !== d))) {
    throw new GateError(`asked for ${o.devices.join(', ')}, the server started ${plural(followed.length, 'scan')} ` +
      `(${got.map((d) => d ?? 'no device said').join(', ')}): it does not scan per device (docs/scans.md "Devices"); ` +
      `scan ${followed.map((f) => f.scan.id).join(', ')} runs on`);
  }
  const meta = reply.body?.meta as { credits_reserved?: unknown; credits_left?: unknown } | undefined;
  if (typeof meta?.credits_reserved === 'number') {
    const which = several ? `Scans ${followed.map((f) => `${f.scan.id} (${deviceOf(f.scan) ?? '?'})`).join(', ')}` : `Scan ${first.id}`;
    io.stderr.write(`${which}: ${plural(meta.credits_reserved, 'credit')} reserved` +
      `${typeof meta.credits_left === 'number' ? `, ${meta.credits_left} left` : ''}\n`);
  }
  const state = (f: Followed) => (f.scan.attributes as ScanAttributes).state;
  for (;;) {
    progress.update(followed.map((f) => `${several ? `${deviceOf(f.scan) ?? f.scan.id}: ` : ''}${scanState(f.scan.attributes as ScanAttributes)}`).join(' · '));
    if (followed.every((f) => FINISHED.has(state(f)))) break;
    await pollPause(reply, o.pollMs);
    for (const f of followed) {
      if (FINISHED.has(state(f))) continue;
      reply = await api.request('GET', f.poll);
      if (reply.status >= 400) throw new GateError(`GET /scans/${f.scan.id}: ${apiErrorText(reply)}`);
      f.scan = resourceOf(reply.body);
    }
  }
  for (const { scan } of followed) {
    const a = scan.attributes as ScanAttributes;
    if (a.state !== 'error') continue;
    const errors = (a.discovery_errors ?? []).map((e) => `\n  discovery error: ${e}`).join('');
    throw new GateError(`the ${several ? `${deviceOf(scan) ?? scan.id} ` : ''}scan ended in error: ${a.error ?? 'no reason given'}${errors}`);
  }
  return followed.map((f) => f.scan);
}

const PAGE_SIZE = 100;

/** Every page of the scan: the JSON:API list, page by page, until a page is short or has no `next` link. */
async function scanPages(api: ApiClient, id: string): Promise<ScanPage[]> {
  const pages: ScanPage[] = [];
  for (let n = 1; ; n++) {
    const reply = await api.expect('GET', `/scans/${encodeURIComponent(id)}/pages?page[size]=${PAGE_SIZE}&page[number]=${n}`);
    const data = reply.body?.data;
    if (!Array.isArray(data)) throw new GateError('the server answered the scan\'s pages without a JSON:API list');
    for (const item of data as Partial<Resource>[]) pages.push({ id: item.id, ...(item.attributes ?? {}) } as ScanPage);
    const links = reply.body?.links as { next?: unknown } | undefined;
    if (data.length < PAGE_SIZE || (links !== undefined && !links.next)) return pages;
  }
}

/** The server's web origin (and path prefix) where its report pages are: the API's links without `/api/2.0/...`. */
function webOrigin(scan: Resource, api: ApiClient): string {
  const from = (url: string) => url.slice(0, url.indexOf('/api/2.0'));
  const self = scan.links.self;
  return self && /^https?:\/\//.test(self) && self.includes('/api/2.0/') ? from(self) : from(api.root);
}

/** The verdict on a finished scan: budgets when it completed with pages measured, else why there is none. */
function judge(budget: Budget, scan: ScanAttributes): { checks: Check[]; error?: string; exitCode: 0 | 1 | 2 } {
  const p = scan.pages;
  const finished = p ? `${(p.completed ?? 0) + (p.failed ?? 0)} of ${plural(p.total, 'page')} finished` : '';
  if (scan.state === 'cancelled') return { checks: [], exitCode: 2, error: `the scan was cancelled${finished ? ` (${finished})` : ''}` };
  if (!scan.figures || !(scan.figures.pages_measured > 0)) {
    return { checks: [], exitCode: 2,
      error: `no page of the scan could be measured${p ? ` (${p.failed ?? 0} of ${plural(p.total, 'page')} failed)` : ''}` };
  }
  const checks = checkSiteBudgets(budget, scan);
  return { checks, exitCode: exitCodeOf(checks) };
}

async function writeOutputs(o: ScanOptions, results: readonly ScanResult[], io: GateIo): Promise<void> {
  if (o.junit) await writeOutput('--junit', o.junit, scansJunit(results));
  await writeMarkdown(o.markdown, scansMarkdown(results), io.env);
  if (o.json !== undefined && o.json !== '-') await writeOutput('--json', o.json, scansJson(results));
  io.stdout.write(o.json === '-' ? scansJson(results) : scansText(results));
}

/** The scan gate from its arguments (after `webgauge scan`); the exit code. */
export async function runScanGate(args: string[], io: GateIo): Promise<number> {
  let progress: Progress | undefined;
  try {
    const o = await parseScanArgs(args, io.env);
    if (o === 'help') {
      io.stdout.write(`${SCAN_USAGE}\n`);
      return 0;
    }
    const api = new ApiClient(o.server, o.key);
    io.stderr.write(`Scanning ${o.url} (${String(o.attributes.source)}) on ${api.root}\n`);
    progress = new Progress(io.stderr);
    const scans = await runScans(api, o, progress, io);
    progress.end();
    const results: ScanResult[] = [];
    for (const scan of scans) {
      const attributes = scan.attributes as ScanAttributes;
      const device = deviceOf(scan);
      const pages = await scanPages(api, scan.id);
      const budget = splitFieldBudget(budgetFor(o.budget, device));
      const judged = judge(budget.report, attributes);
      // Field budgets: the site's real visitors on the scan's device (a server without them: skipped, said).
      if (judged.exitCode !== 2 && budget.field.size > 0) {
        judged.checks.push(...checkFieldBudgets(budget.field, await fetchField(api, `/scans/${encodeURIComponent(scan.id)}/field`)));
        judged.exitCode = exitCodeOf(judged.checks);
      }
      // The comparison is made of a completed scan only (a cancelled one, or one with no page measured, has no verdict).
      const comparison = o.compareTo !== undefined && judged.exitCode !== 2 ? await fetchComparison(api, scan.id, o.compareTo) : undefined;
      const exitCode = judged.exitCode === 0 && worsePages(comparison).length > 0 ? 1 : judged.exitCode;
      results.push({ id: scan.id, scan: attributes, links: scan.links, web: webOrigin(scan, api), pages, ...judged, exitCode,
        // Results are keyed by device once devices were asked for (the one scan of a plain run stays as it was).
        ...(o.devices && device ? { device } : {}), ...(comparison ? { comparison } : {}) });
    }
    await writeOutputs(o, results, io);
    for (const r of results) if (r.error) io.stderr.write(`webgauge scan: ${r.device ? `${r.device}: ` : ''}${r.error}\n`);
    // The worst verdict: a device not judged (2) over a budget failed (1) over passed (0).
    return Math.max(...results.map((r) => r.exitCode));
  } catch (err) {
    progress?.end();
    // No verdict was reached: exit 2, never the 1 of a failed budget.
    const message = failureMessage(err);
    io.stderr.write(`webgauge scan: ${message}\n`);
    // --json promises one JSON document, whatever happened.
    const { json } = takeJson(args);
    const doc = `${JSON.stringify({ passed: false, exitCode: 2, error: message }, null, 2)}\n`;
    if (json === '-') io.stdout.write(doc);
    else if (json !== undefined) await writeOutput('--json', json, doc).catch(() => undefined);
    return 2;
  }
}
