/**
 * `webgauge scan` (gate/scan.ts) without Webgauge's server: its arguments, the site budgets (gate/scan-budgets.ts)
 * against a scan of the shape docs/scans.md gives, its outputs (gate/scan-outputs.ts: text, JUnit XML, Markdown, JSON)
 * with the regressions of --compare-to (gate/scan-regressions.ts), and the whole gate against a small node:http stub
 * that answers POST /scans, GET /scans/{id} and its pages as the document says: polling, progress and the exit codes.
 * One file for the four modules: they share that scan and its pages.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { GateError } from '../../../src/gate/api-client.js';
import { parseScanArgs, runScanGate, SCAN_USAGE, type ScanOptions } from '../../../src/gate/scan.js';
import {
  budgetFor, checkSiteBudgets, pageBlame, parseDeviceBudgets, parseSiteBudgets, SITE_BUDGET_NAMES, type ScanAttributes, type ScanPage,
} from '../../../src/gate/scan-budgets.js';
import { scanJson, scanJunit, scanMarkdown, scanText, scansJunit, type ScanResult } from '../../../src/gate/scan-outputs.js';
import type { GateComparison } from '../../../src/gate/scan-regressions.js';
import { compareScans } from '../../../src/analysis/scan-comparison-rules.js';
import type { ComparePageInput } from '../../../src/analysis/scan-comparison-types.js';
import { capturedIo } from '../../helpers/gate-process.js';

const dir = mkdtempSync(join(tmpdir(), 'webgauge-scan-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Seven measured pages and one failed, and the figures the server would compute from them (p75 interpolated). */
const PAGES: ScanPage[] = [
  ['/', '/', 'A', 96, 1200, 40, 0.01, 2100], ['/blog/a', '/blog/:slug', 'B', 85, 2100, 150, 0.02, 2600],
  ['/blog/b', '/blog/:slug', 'C', 72, 2700, 250, 0.05, 3100], ['/blog/c', '/blog/:slug', 'E', 41, 5200, 900, 0.3, 6200],
  ['/p/1', '/p/:id', 'B', 80, 2400, 180, 0.12, 2900], ['/p/2', '/p/:id', 'D', 58, 4300, 640, 0.08, 4800],
  ['/about', '/about', 'A', 92, 1500, 60, 0, 1900],
].map(([path, template, grade, perf, lcp, tbt, cls, fl], i) => ({
  id: `t${i + 1}`, url: `https://shop.example${path}`, template: template as string, position: i + 1, state: 'completed' as const,
  error: null, test: `t${i + 1}`, report: `t${i + 1}`, grade: grade as string, performance_score: perf as number, structure_score: 90,
  largest_contentful_paint: lcp as number, total_blocking_time: tbt as number, cumulative_layout_shift: cls as number,
  fully_loaded_time: fl as number, page_bytes: 812000, page_requests: 41,
}));
PAGES.push({ id: 't8', url: 'https://shop.example/p/3', template: '/p/:id', position: 8, state: 'failed', error: 'net::ERR_CONNECTION_RESET',
  test: 't8', report: null, grade: null, performance_score: null, largest_contentful_paint: null });

const SCAN: ScanAttributes = {
  url: 'https://shop.example/', site: 'https://shop.example', source: 'sitemap', state: 'completed', error: null,
  created: 1764400000, started: 1764400001, finished: 1764400253,
  max_pages: 50, sample: 3, include: [], exclude: [], templates: [], crawl_depth: 3, respect_robots: true, keep_query: false, urls_given: 0,
  found: 64, skipped: { sampled_out: 40, other_host: 12, robots_txt: 3, duplicate: 1 },
  discovery_errors: ['sitemap https://shop.example/news.xml: line 3: not a <urlset> or <sitemapindex>'],
  pages: { total: 8, queued: 0, started: 0, completed: 7, failed: 1 },
  credits_reserved: 0, credits_used: 7,
  figures: {
    pages_measured: 7,
    largest_contentful_paint: { good: 4, needs_improvement: 1, poor: 2, median: 2400, p75: 3500 },
    cumulative_layout_shift: { good: 5, needs_improvement: 1, poor: 1, median: 0.05, p75: 0.1 },
    total_blocking_time: { good: 4, needs_improvement: 1, poor: 2, median: 180, p75: 445 },
    fully_loaded_time: { median: 2900, p75: 3950 },
    performance_score: { median: 80, p75: 65 },
    grades: { A: 2, B: 2, C: 1, D: 1, E: 1, F: 0 },
    worst_pages: [
      { url: 'https://shop.example/blog/c', template: '/blog/:slug', report: 't4', grade: 'E', performance_score: 41,
        largest_contentful_paint: 5200, total_blocking_time: 900, cumulative_layout_shift: 0.3 },
      { url: 'https://shop.example/p/2', template: '/p/:id', report: 't6', grade: 'D', performance_score: 58,
        largest_contentful_paint: 4300, total_blocking_time: 640, cumulative_layout_shift: 0.08 },
      { url: 'https://shop.example/blog/b', template: '/blog/:slug', report: 't3', grade: 'C', performance_score: 72,
        largest_contentful_paint: 2700, total_blocking_time: 250, cumulative_layout_shift: 0.05 },
    ],
    worst_templates: [
      { template: '/p/:id', pages: 2, performance_score: 69, largest_contentful_paint: 3350 },
      { template: '/blog/:slug', pages: 3, performance_score: 72, largest_contentful_paint: 2700 },
    ],
    structure: [
      { id: 'render-blocking-insight', title: 'Render blocking requests', impact: 'high', failing_pages: 6, savings_ms: 2300, savings_bytes: null },
      { id: 'document-latency-insight', title: 'Document request latency', impact: 'high', failing_pages: 5, savings_ms: 9100, savings_bytes: 1210000 },
      { id: 'image-delivery-insight', title: 'Improve image delivery', impact: 'medium', failing_pages: 4, savings_ms: null, savings_bytes: 2400000 },
    ],
    third_parties: [{ origin: 'https://cdn.example.net', pages: 7, requests: 42, bytes: 2300000, time_ms: 5400 }],
  },
};

const result = (budgets: string[], over: Partial<ScanResult> = {}): ScanResult => {
  const checks = checkSiteBudgets(parseSiteBudgets(budgets), SCAN);
  return { id: 's1', scan: SCAN, links: {}, web: 'https://wg.example', pages: PAGES, checks,
    exitCode: checks.some((c) => c.outcome === 'fail') ? 1 : 0, ...over };
};

/**
 * The server's comparison of SCAN (after) with an earlier scan s0 (before), made by the service's own comparison: the
 * same pages, /blog/c slower by 3,400 ms (a threshold's change), /about new, /old gone.
 */
function comparisonWith(before: Partial<Record<string, Partial<ComparePageInput>>>): GateComparison['attributes'] {
  const input = (p: ScanPage, i: number): ComparePageInput => ({
    url: p.url, template: p.template ?? '/', position: i, state: p.state, error: p.error ?? null, report_id: p.report ?? null, grade: p.grade ?? null,
    performance_score: p.performance_score ?? null, largest_contentful_paint: p.largest_contentful_paint ?? null,
    total_blocking_time: p.total_blocking_time ?? null, cumulative_layout_shift: p.cumulative_layout_shift ?? null,
    fully_loaded_time: p.fully_loaded_time ?? null, lighthouse_version: '13.5.0', run_values: null,
  });
  const after = PAGES.map(input);
  const earlier = after.filter((p) => !p.url.endsWith('/about')).map((p) => ({ ...p, report_id: `old-${p.report_id}`, ...before[p.url.slice('https://shop.example'.length)] }));
  earlier.push({ ...after[0]!, url: 'https://shop.example/old', template: '/old', position: 99, report_id: 'old-x' });
  const side = (id: string, pages: ComparePageInput[]) => ({ id, created: id === 's0' ? 1 : 2, url: SCAN.url, site: SCAN.site!, state: 'completed',
    conditions: { throttle: null }, figures: null, pages });
  return { before: { scan: 's0', created: 1764300000 }, ...compareScans(side('s0', earlier), side('s1', after), 0.05) };
}
const WORSE = comparisonWith({ '/blog/c': { largest_contentful_paint: 1800 } });
const SAME = comparisonWith({});

const env = { WEBGAUGE_SERVER: 'https://wg.example', WEBGAUGE_KEY: 'k' };
const parse = async (args: string[]) => (await parseScanArgs(args, env)) as ScanOptions;
const refused = async (args: string[], message: RegExp) =>
  assert.rejects(parseScanArgs(args, env), (e: Error) => e instanceof GateError && message.test(e.message), args.join(' '));

describe('scan arguments', () => {
  test('the flags become the POST /scans attributes of docs/scans.md; the source defaults to the sitemap', async () => {
    const o = await parse(['https://shop.example/', '--sitemap-url', 'https://shop.example/a.xml', '--sitemap-url', '/b.xml',
      '--max-pages', '20', '--sample', '0', '--include', '/blog/*', '--include', '/p/*', '--exclude', '/blog/drafts/*',
      '--template', '/p/:id', '--no-robots', '--keep-query', '--location', '2', '--browser', 'firefox', '--runs', '3',
      '--throttle', '5000/1000/30', '--report', 'lighthouse', '--budget', 'lcp_p75=2500', '--budget', 'performance_median=80']);
    assert.deepEqual(o.attributes, {
      url: 'https://shop.example/', source: 'sitemap', sitemaps: ['https://shop.example/a.xml', '/b.xml'], max_pages: 20, sample: 0,
      include: ['/blog/*', '/p/*'], exclude: ['/blog/drafts/*'], templates: ['/p/:id'], respect_robots: false, keep_query: true,
      location: '2', browser: 'firefox', throttle: '5000/1000/30', report: 'lighthouse', runs: 3,
    });
    assert.deepEqual([...o.budget.all], [['lcp_p75', { max: 2500 }], ['performance_median', { min: 80 }]]);
    assert.equal(o.devices, undefined, 'no --device: the server\'s one device, no devices attribute');
    assert.deepEqual((await parse(['https://shop.example/'])).attributes, { url: 'https://shop.example/', source: 'sitemap' });
    assert.equal((await parse(['https://shop.example/', '--crawl', '--crawl-depth', '0'])).attributes.crawl_depth, 0);
    assert.equal(await parseScanArgs(['--help'], {}), 'help');
  });

  test('--urls FILE is source list: one URL a line, blank lines and # comments left out', async () => {
    const file = join(dir, 'urls.txt');
    writeFileSync(file, '# the shop\nhttps://shop.example/\n\n  /p/1  \r\n# /p/2\n/blog/a#top\n');
    const o = await parse(['https://shop.example/', '--urls', file]);
    assert.equal(o.attributes.source, 'list');
    assert.deepEqual(o.attributes.urls, ['https://shop.example/', '/p/1', '/blog/a#top']);
    writeFileSync(file, '# nothing\n\n');
    await refused(['https://shop.example/', '--urls', file], /lists no URL/);
    await refused(['https://shop.example/', '--urls', join(dir, 'absent.txt')], /cannot read --urls/);
  });

  test('--json takes an optional FILE, never the site\'s URL', async () => {
    assert.equal((await parse(['https://shop.example/', '--json'])).json, '-');
    assert.equal((await parse(['--json', 'https://shop.example/'])).json, '-');
    assert.equal((await parse(['--json', 'scan.json', 'https://shop.example/'])).json, 'scan.json');
    assert.equal((await parse(['https://shop.example/', '--json=out/scan.json', '--junit', 'j.xml'])).json, 'out/scan.json');
    assert.equal((await parse(['https://shop.example/', '--json', '--junit', 'j.xml'])).json, '-');
    await refused(['--json', 'shop.example'], /--json took "shop\.example" as its file: write --json=FILE/);
  });

  test('arguments that contradict each other or are out of bounds are refused, saying what to give', async () => {
    await refused([], /give one URL/);
    await refused(['https://a.example/', 'https://b.example/'], /give one URL/);
    await refused(['https://shop.example/', '--crawl', '--urls', 'f'], /give one of --crawl, --urls/);
    await refused(['https://shop.example/', '--sitemap', '--crawl'], /give one of --sitemap, --crawl/);
    await refused(['https://shop.example/', '--crawl', '--sitemap-url', '/s.xml'], /--sitemap-url belongs to --sitemap/);
    await refused(['https://shop.example/', '--crawl-depth', '2'], /--crawl-depth belongs to --crawl/);
    await refused(['https://shop.example/', '--crawl', '--crawl-depth', '11'], /--crawl-depth 11: give a whole number, 0 to 10/);
    await refused(['https://shop.example/', '--max-pages', '0'], /--max-pages 0: give a whole number, 1 or more/);
    await refused(['https://shop.example/', '--sample', '2.5'], /--sample 2\.5/);
    await refused(['https://shop.example/', '--runs', '0'], /--runs 0: give a whole number of loads/);
    await refused(['https://shop.example/', '--frobnicate'], /Unknown option '--frobnicate'/);
    await refused(['https://shop.example/', '--compare-to', 'a/b'], /--compare-to "a\/b": give last \(the site's previous completed scan\) or a scan's ID/);
    assert.equal((await parse(['https://shop.example/', '--compare-to', 'last'])).compareTo, 'last');
    assert.equal((await parse(['https://shop.example/'])).compareTo, undefined);
    await assert.rejects(parseScanArgs(['https://shop.example/'], {}), /no server: give --server or set WEBGAUGE_SERVER/);
  });
});

describe('devices: --device and budgets of a device', () => {
  test('--device lists the devices (phone: a mid-tier phone), a scan each; a budget without a device is every device\'s', async () => {
    const o = await parse(['https://shop.example/', '--device', 'desktop,phone', '--budget', 'lcp_p75=2500', '--budget', 'phone:lcp_p75=4000',
      '--budget', 'phone-mid:tbt_p75=600', '--budget', 'desktop:performance_median=90']);
    assert.deepEqual(o.devices, ['desktop', 'phone-mid']);
    assert.deepEqual(o.attributes.devices, ['desktop', 'phone-mid']);
    assert.deepEqual([...budgetFor(o.budget, 'desktop')], [['lcp_p75', { max: 2500 }], ['performance_median', { min: 90 }]]);
    assert.deepEqual([...budgetFor(o.budget, 'phone-mid')], [['lcp_p75', { max: 4000 }], ['tbt_p75', { max: 600 }]], 'its own replaces every device\'s');
    assert.deepEqual((await parse(['https://shop.example/', '--device', 'phone-low', '--device', 'desktop'])).devices, ['phone-low', 'desktop']);
    assert.deepEqual([...budgetFor(parseDeviceBudgets(['lcp_p75=1']), undefined)], [['lcp_p75', { max: 1 }]]);
  });

  test('a device that is none, given twice or not scanned, and an ID to compare with over several devices, are refused', async () => {
    await refused(['https://shop.example/', '--device', 'tablet'], /--device "tablet": give desktop, phone-mid, phone-low or phone \(phone-mid\)/);
    await refused(['https://shop.example/', '--device', 'phone,phone-mid'], /--device phone-mid: phone-mid is given twice/);
    await refused(['https://shop.example/', '--budget', 'phone:lcp_p75=2500'], /a budget of one device needs --device \(e\.g\. --device desktop,phone-mid\)/);
    await refused(['https://shop.example/', '--device', 'desktop,phone', '--budget', 'phone-low:lcp_p75=2500'], /phone-low is not scanned; --device gives desktop, phone-mid/);
    await refused(['https://shop.example/', '--device', 'desktop', '--budget', 'tablet:lcp_p75=2500'], /"tablet" is no device; write DEVICE:NAME=VALUE/);
    await refused(['https://shop.example/', '--device', 'phone', '--budget', 'phone:lcp_p75=1', '--budget', 'phone-mid:lcp_p75=2'],
      /--budget phone-mid:lcp_p75=2: lcp_p75 is given twice for this device/);
    await refused(['https://shop.example/', '--device', 'phone', '--budget', 'phone:lcp=1'], /--budget phone:lcp=1: "lcp" is no site budget/);
    await refused(['https://shop.example/', '--device', 'desktop,phone', '--compare-to', 's0'], /with several devices give --compare-to last/);
    assert.equal((await parse(['https://shop.example/', '--device', 'phone', '--compare-to', 's0'])).compareTo, 's0', 'one device: an ID is fine');
  });

  test('outputs of two devices: each names its device; JUnit suites and classnames by device', () => {
    const desktop = { ...result(['lcp_p75=3600']), device: 'desktop' };
    const phone = { ...result(['lcp_p75=2500']), id: 's2', device: 'phone-mid' };
    assert.match(scanText(phone), /^Scan s2 of https:\/\/shop\.example as phone-mid: completed/);
    assert.match(scanMarkdown(desktop), /^### Webgauge scan as desktop: ✅ passed/);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(scansJunit([desktop, phone]));
    const suites = doc.testsuites.testsuite as { name: string; testcase: { classname: string }[] | { classname: string } }[];
    assert.deepEqual(suites.map((x) => x.name), ['webgauge scan https://shop.example as desktop pages', 'webgauge scan https://shop.example as desktop site',
      'webgauge scan https://shop.example as phone-mid pages', 'webgauge scan https://shop.example as phone-mid site']);
    assert.equal((suites[2]!.testcase as { classname: string }[])[1]!.classname, 'phone-mid /blog/:slug');
    assert.equal((suites[3]!.testcase as { classname: string }).classname, 'webgauge.budget.phone-mid');
    assert.equal(doc.testsuites.tests, String(2 * 9));
    assert.equal(doc.testsuites.failures, '4', 'the phone\'s budget and the three pages over it');
  });
});

describe('site budgets', () => {
  test('each name has its direction: times, layout shift and counts are maxima, the performance median a minimum', () => {
    const b = parseSiteBudgets(['lcp_p75=2500', 'cls_p75=0.1', 'poor_lcp_pages=0', 'performance_median=90', 'failed_pages=2']);
    assert.deepEqual([...b], [['lcp_p75', { max: 2500 }], ['cls_p75', { max: 0.1 }], ['poor_lcp_pages', { max: 0 }],
      ['performance_median', { min: 90 }], ['failed_pages', { max: 2 }]]);
    assert.deepEqual(SITE_BUDGET_NAMES, ['lcp_p75', 'lcp_median', 'cls_p75', 'cls_median', 'tbt_p75', 'tbt_median', 'fully_loaded_p75',
      'performance_median', 'poor_lcp_pages', 'poor_cls_pages', 'poor_tbt_pages', 'failed_pages']);
    for (const name of SITE_BUDGET_NAMES) assert.match(SCAN_USAGE, new RegExp(`\\n {4}${name} +(max|min) `), `${name} in the usage`);
  });

  test('a bad name or value is refused with the valid names', () => {
    const bad: [string, RegExp][] = [
      ['lcp=2500', /"lcp" is no site budget; use one of lcp_p75, lcp_median, .* or failed_pages \(NAME=VALUE, e\.g\. lcp_p75=2500\)/],
      ['lcp_p75', /--budget lcp_p75: give NAME=VALUE; use one of lcp_p75/],
      ['lcp_p75=', /the max of lcp_p75 \(75th percentile of LCP over the measured pages\) must be milliseconds, 0 or more; budgets are lcp_p75/],
      ['lcp_p75=fast', /must be milliseconds/],
      ['lcp_p75=-1', /must be milliseconds/],
      ['poor_lcp_pages=1.5', /the max of poor_lcp_pages .* must be a whole number of pages/],
      ['performance_median=101', /the min of performance_median .* must be a score from 0 to 100/],
      ['cls_p75=x', /must be a layout shift/],
    ];
    for (const [spec, message] of bad) {
      assert.throws(() => parseSiteBudgets([spec]), (e: Error) => e instanceof GateError && message.test(e.message), spec);
    }
    assert.throws(() => parseSiteBudgets(['lcp_p75=2500', 'lcp_p75=3000']), /lcp_p75 is given twice/);
  });

  test('each budget is checked against the scan\'s figure; a failure names the budget, the value and the limit', () => {
    const checks = checkSiteBudgets(parseSiteBudgets(['lcp_p75=2500', 'poor_lcp_pages=0', 'performance_median=75', 'cls_p75=0.1',
      'tbt_median=200', 'fully_loaded_p75=3000', 'failed_pages=1', 'poor_tbt_pages=1', 'performance_median=80'].slice(0, 8)), SCAN);
    assert.deepEqual(checks.map((c) => `${c.attribute} ${c.outcome} ${c.value}`), ['lcp_p75 fail 3500', 'poor_lcp_pages fail 2',
      'performance_median pass 80', 'cls_p75 pass 0.1', 'tbt_median pass 180', 'fully_loaded_p75 fail 3950', 'failed_pages pass 1',
      'poor_tbt_pages fail 2']);
    assert.equal(checks[0]!.message, 'lcp_p75 3.50 s is over its budget of max 2.50 s');
    assert.equal(checks[1]!.message, 'poor_lcp_pages 2 is over its budget of max 0');
    assert.equal(checks[2]!.message, 'performance_median 80% is within its budget (min 75%)');
    assert.equal(checkSiteBudgets(parseSiteBudgets(['performance_median=81']), SCAN)[0]!.message,
      'performance_median 80% is under its budget of min 81%');
    // A figure the scan lacks (no Lighthouse: no performance score) fails, saying so.
    const { performance_score: _, ...noScore } = SCAN.figures!;
    const missing = checkSiteBudgets(parseSiteBudgets(['performance_median=50']), { ...SCAN, figures: noScore });
    assert.equal(missing[0]!.outcome, 'fail');
    assert.match(missing[0]!.message, /performance_median: the scan has no value/);
  });

  test('the pages a failed budget is made of: past its limit, poor on its vital, or failed', () => {
    const checks = checkSiteBudgets(parseSiteBudgets(['lcp_p75=2500', 'poor_cls_pages=0', 'failed_pages=0', 'tbt_p75=600']), SCAN);
    const blamed = Object.fromEntries(PAGES.map((p) => [p.url.replace('https://shop.example', ''), pageBlame(p, checks)]));
    assert.deepEqual(blamed['/blog/c'], ['LCP 5.20 s is over the 2.50 s limit on LCP p75', 'poor CLS: 0.3 is over 0.25']);
    assert.deepEqual(blamed['/blog/b'], ['LCP 2.70 s is over the 2.50 s limit on LCP p75']);
    assert.deepEqual(blamed['/p/3'], ['the page failed: net::ERR_CONNECTION_RESET']);
    // tbt_p75 passed: /p/2's TBT of 640 ms blames nothing; /p/1's CLS 0.12 needs improvement but is not poor.
    assert.deepEqual(blamed['/p/1'], []);
    assert.deepEqual(blamed['/'], []);
  });
});

describe('scan outputs', () => {
  test('the text summary: found and skipped, the site figures, grades, the worst pages and templates, structure audits, budgets', () => {
    const text = scanText(result(['lcp_p75=2500', 'performance_median=75']));
    assert.match(text, /^Scan s1 of https:\/\/shop\.example: completed in 4:12\n/);
    assert.match(text, /64 URLs found, 8 pages tested: 7 completed, 1 failed/);
    assert.match(text, /56 skipped: 40 sampled out \(--sample per template\), 12 on another host, 3 disallowed by robots\.txt, 1 repeated/);
    assert.match(text, /discovery error: sitemap https:\/\/shop\.example\/news\.xml: line 3/);
    assert.match(text, /Site figures of 7 measured pages:/);
    assert.match(text, /Largest contentful paint \(LCP\) +4 +1 +2 +2\.40 s +3\.50 s\n/);
    assert.match(text, /Cumulative layout shift \(CLS\) +5 +1 +1 +0\.05 +0\.1\n/);
    assert.match(text, /Performance +80% +65%\n/);
    assert.match(text, /Grades: A 2 · B 2 · C 1 · D 1 · E 1\n/);
    assert.match(text, /E +41% +LCP 5\.20 s +TBT 900 ms +CLS 0\.3 +https:\/\/shop\.example\/blog\/c +https:\/\/wg\.example\/reports\/t4\n/);
    assert.match(text, /D +58% +LCP 4\.30 s +TBT 640 ms +CLS 0\.08 +https:\/\/shop\.example\/p\/2 {5}https:\/\/wg\.example\/reports\/t6\n/);
    assert.match(text, /\/p\/:id +2 pages +performance 69% +LCP 3\.35 s/);
    assert.match(text, /Render blocking requests fails on 6 of 7 pages \(high impact\); 2\.3 s to save\n {2}Document request latency fails on 5 of 7 pages \(high impact\); 1\.2 MiB and 9\.1 s to save/);
    assert.match(text, /Failed pages:\n {2}https:\/\/shop\.example\/p\/3: net::ERR_CONNECTION_RESET/);
    assert.match(text, /FAIL {4}lcp_p75 3\.50 s is over its budget of max 2\.50 s\n {2}pass {4}performance_median 80% is within/);
    assert.match(text, /\nFAILED: 1 of 2 budgets\n$/);
    assert.match(scanText(result([])), /\nPASSED\n$/);
    assert.match(scanText(result([], { exitCode: 2, error: 'the scan was cancelled (5 of 8 pages finished)' })),
      /\nNOT JUDGED: the scan was cancelled \(5 of 8 pages finished\)\n$/);
  });

  test('JUnit XML: one case per page (classname its template) and per budget; a page fails when it is part of a failed budget', () => {
    const text = scanJunit(result(['lcp_p75=2500', 'performance_median=75']));
    assert.equal(XMLValidator.validate(text), true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(text);
    assert.equal(doc.testsuites.tests, '10');
    assert.equal(doc.testsuites.failures, '4');
    assert.equal(doc.testsuites.skipped, '1');
    const [pages, site] = doc.testsuites.testsuite as { name: string; testcase: Record<string, unknown>[] | Record<string, unknown> }[];
    assert.equal(pages!.name, 'webgauge scan https://shop.example pages');
    const cases = pages!.testcase as { classname: string; name: string; failure?: { message: string }; skipped?: { message: string }; 'system-out'?: string }[];
    assert.deepEqual(cases.map((c) => `${c.classname} ${c.name.replace('https://shop.example', '')}`),
      ['/ /', '/blog/:slug /blog/a', '/blog/:slug /blog/b', '/blog/:slug /blog/c', '/p/:id /p/1', '/p/:id /p/2', '/about /about', '/p/:id /p/3']);
    assert.deepEqual(cases.filter((c) => c.failure).map((c) => c.name.replace('https://shop.example', '')), ['/blog/b', '/blog/c', '/p/2']);
    assert.equal(cases[3]!.failure!.message, 'LCP 5.20 s is over the 2.50 s limit on LCP p75');
    assert.equal(cases[7]!.skipped!.message, 'not measured: the page failed: net::ERR_CONNECTION_RESET');
    assert.match(cases[0]!['system-out']!, /^grade A, performance 96%, structure 90%, LCP 1\.20 s \(good\), CLS 0\.01 \(good\), TBT 40 ms \(good\), fully loaded 2\.10 s, 793\.0 KB, 41 requests\nreport: https:\/\/wg\.example\/reports\/t1$/);
    assert.match(cases[3]!['system-out']!, /LCP 5\.20 s \(poor\), CLS 0\.3 \(poor\), TBT 900 ms \(poor\)/);
    const budgets = site!.testcase as { classname: string; name: string; failure?: { message: string } }[];
    assert.deepEqual(budgets.map((c) => `${c.classname} ${c.name} ${c.failure ? 'fail' : 'pass'}`),
      ['webgauge.budget lcp_p75 fail', 'webgauge.budget performance_median pass']);
    // With failed_pages failing, the failed page is a failure too; a poor page under no failed budget passes.
    const failedPages = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(scanJunit(result(['failed_pages=0'])));
    const all = failedPages.testsuites.testsuite[0].testcase as { name: string; failure?: { message: string } }[];
    assert.deepEqual(all.filter((c) => c.failure).map((c) => c.failure!.message), ['the page failed: net::ERR_CONNECTION_RESET']);
  });

  test('JUnit XML without budgets has a case for the scan; a scan that did not complete is an error case', () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
    const plain = parser.parse(scanJunit(result([])));
    assert.equal(plain.testsuites.failures, '0');
    assert.equal(plain.testsuites.testsuite[1].testcase.name, 'the scan completed');
    const cancelled = parser.parse(scanJunit(result([], { exitCode: 2, error: 'the scan was cancelled',
      scan: { ...SCAN, state: 'cancelled' }, pages: [...PAGES.slice(0, 2), { ...PAGES[2]!, state: 'cancelled' }] })));
    assert.equal(cancelled.testsuites.errors, '1');
    assert.equal(cancelled.testsuites.testsuite[1].testcase.error.message, 'the scan was cancelled');
    assert.equal(cancelled.testsuites.testsuite[0].testcase[2].skipped.message, 'not measured: cancelled when the scan was cancelled');
  });

  test('the Markdown summary and the JSON document', () => {
    const text = scanMarkdown(result(['lcp_p75=2500']));
    assert.match(text, /^### Webgauge scan: ❌ 1 of 1 budget failed\n/);
    assert.match(text, /\| lcp\\_p75 \| FAIL \| lcp\\_p75 3\.50 s is over its budget of max 2\.50 s \|/);
    assert.match(text, /\| Largest contentful paint \(LCP\) \| 4 \| 1 \| 2 \| 2\.40 s \| 3\.50 s \|/);
    assert.match(text, /\| \[https:\/\/shop\.example\/blog\/c\]\(https:\/\/wg\.example\/reports\/t4\) \| E \| 41% \| 5\.20 s \| 900 ms \| 0\.3 \|/);
    assert.match(text, /- Document request latency fails on 5 of 7 pages \(high impact\); 1\.2 MiB and 9\.1 s to save/);
    assert.match(scanMarkdown(result([])), /^### Webgauge scan: ✅ passed/);
    const doc = JSON.parse(scanJson(result(['lcp_p75=2500'])));
    assert.equal(doc.passed, false);
    assert.equal(doc.exitCode, 1);
    assert.equal(doc.scan.id, 's1');
    assert.equal(doc.scan.figures.largest_contentful_paint.p75, 3500);
    assert.equal(doc.pages.length, 8);
    assert.equal(doc.checks[0].attribute, 'lcp_p75');
  });
});

describe('scan outputs with --compare-to', () => {
  const compared = (attributes: GateComparison['attributes'], budgets: string[] = []): ScanResult => {
    const r = result(budgets);
    const comparison: GateComparison = { to: 'last', against: 's0', attributes, links: { self: 'https://wg.example/api/2.0/scans/s1/compare/last' } };
    return { ...r, comparison, exitCode: r.exitCode === 0 && attributes!.counts.worse > 0 ? 1 : r.exitCode };
  };

  test('the text lists each page that got worse, what got worse and the basis; the verdict fails', () => {
    const text = scanText(compared(WORSE, ['lcp_p75=9000']));
    assert.match(text, /\nCompared with scan s0 \(started 2025-11-28 03:20 UTC\): 1 worse, 0 better, 5 unchanged, 1 new, 1 gone, 1 not measured\n/);
    assert.match(text, /\nPages significantly worse:\n {2}https:\/\/shop\.example\/blog\/c: LCP 1\.80 s → 5\.20 s \(threshold, not a test: \+3\.40 s, threshold 500 ms\)\n/);
    assert.match(text, /\nTemplates worse as a whole:\n {2}\/blog\/:slug \(3 pages\): LCP median 2\.10 s → 2\.70 s \(threshold, not a test: \+600 ms, threshold 500 ms; 3 and 3 pages are too few for a test\)\n/);
    assert.match(text, /\nFAILED: 1 page significantly worse than scan s0\n$/);
    assert.match(scanText(compared(SAME, ['lcp_p75=9000'])), /\nPASSED: 1 budget; no page significantly worse than scan s0\n$/);
    assert.match(scanText(compared(WORSE, ['lcp_p75=2500'])), /\nFAILED: 1 of 1 budget; 1 page significantly worse than scan s0\n$/);
    const skipped = scanText({ ...result([]), comparison: { to: 'last', skipped: 'No completed scan of https://shop.example before this one.' } });
    assert.match(skipped, /\nNot compared \(--compare-to last\): No completed scan of https:\/\/shop\.example before this one\.\n\nPASSED\n$/);
  });

  test('JUnit: the worse page fails saying why, and the site suite has the comparison\'s case; Markdown and JSON carry it', () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
    const text = scanJunit(compared(WORSE));
    assert.equal(XMLValidator.validate(text), true);
    const doc = parser.parse(text);
    const [pages, site] = doc.testsuites.testsuite as { testcase: { name: string; classname: string; failure?: { message: string } }[] | { name: string; classname: string; failure?: { message: string } } }[];
    const failing = (pages!.testcase as { name: string; failure?: { message: string } }[]).filter((c) => c.failure);
    assert.deepEqual(failing.map((c) => [c.name, c.failure!.message]), [['https://shop.example/blog/c',
      'worse than scan s0: LCP 1.80 s → 5.20 s (threshold, not a test: +3.40 s, threshold 500 ms)']]);
    const siteCase = site!.testcase as { name: string; classname: string; failure?: { message: string } };
    assert.deepEqual([siteCase.classname, siteCase.name, siteCase.failure?.message],
      ['webgauge.compare', 'compared with scan s0', '1 page significantly worse than scan s0: 1 worse, 0 better, 5 unchanged, 1 new, 1 gone, 1 not measured']);
    assert.equal(doc.testsuites.failures, '2');

    const markdown = scanMarkdown(compared(WORSE));
    assert.match(markdown, /^### Webgauge scan: ❌ 1 page significantly worse than scan s0\n/);
    assert.match(markdown, /#### Compared with scan s0 \(started 2025-11-28 03:20 UTC\)\n\n1 worse, 0 better, 5 unchanged, 1 new, 1 gone, 1 not measured\n/);
    assert.match(markdown, /\| \[https:\/\/shop\.example\/blog\/c\]\(https:\/\/wg\.example\/reports\/t4\) \| LCP 1\.80 s → 5\.20 s \| threshold: \+3\.40 s, threshold 500 ms \|/);
    const json = JSON.parse(scanJson(compared(WORSE)));
    assert.equal(json.exitCode, 1);
    assert.equal(json.comparison.against, 's0');
    assert.deepEqual(json.comparison.counts, { matched: 6, worse: 1, better: 0, unchanged: 5, new: 1, gone: 1, failed: 1 });
    assert.equal(json.comparison.pages[0].reasons[0].basis, 'threshold');
  });
});

/** A stub of the scans API (docs/scans.md) on 127.0.0.1: the scan walks through `states`, one per GET. */
interface Stub {
  origin: string;
  requests: { method: string; url: string; body?: Record<string, unknown>; auth?: string }[];
  /** The scan's states the GETs answer (the last one repeats). */
  states: ScanAttributes[];
  pages: ScanPage[];
  /** POST /scans answers this error instead. */
  refuse?: { status: number; code: string; title: string; detail: string };
  /** GET /scans/{a}/compare/{b}: its answer (a comparison's attributes, or an error). */
  comparison?: { status: number; attributes?: GateComparison['attributes']; code?: string; detail?: string };
  /** With devices: the second device's scan s2 (POST answers it in `included`), its states and pages. */
  sibling?: { states: ScanAttributes[]; pages: ScanPage[] };
  close(): Promise<void>;
}

async function startStub(): Promise<Stub> {
  let polls = 0;
  let siblingPolls = 0;
  const stub = { requests: [], states: [], pages: [] } as unknown as Stub;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url!, stub.origin);
      stub.requests.push({ method: req.method!, url: url.pathname + url.search, body: text ? JSON.parse(text) : undefined, auth: req.headers.authorization });
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/vnd.api+json', ...headers });
        res.end(JSON.stringify(body));
      };
      const linksOf = (id: string) => ({ self: `${stub.origin}/api/2.0/scans/${id}`, pages: `${stub.origin}/api/2.0/scans/${id}/pages` });
      const links = linksOf('s1');
      const resource = (attributes: ScanAttributes, id = 's1') => ({ data: { type: 'scan', id, attributes, links: linksOf(id) } });
      if (req.method === 'POST' && url.pathname === '/api/2.0/scans') {
        if (stub.refuse) return send(stub.refuse.status, { errors: [{ code: stub.refuse.code, title: stub.refuse.title, detail: stub.refuse.detail }] });
        polls = 0;
        siblingPolls = 0;
        const included = stub.sibling ? { included: [resource(stub.sibling.states[0]!, 's2').data] } : {};
        return send(202, { ...resource(stub.states[0]!), ...included, meta: { credits_left: 93, credits_reserved: 50 } },
          { location: links.self, 'retry-after': '5' });
      }
      if (req.method === 'GET' && url.pathname === '/api/2.0/scans/s2' && stub.sibling) {
        siblingPolls = Math.min(siblingPolls + 1, stub.sibling.states.length - 1);
        return send(200, resource(stub.sibling.states[siblingPolls]!, 's2'), { 'retry-after': '5' });
      }
      if (req.method === 'GET' && url.pathname === '/api/2.0/scans/s2/pages' && stub.sibling) {
        return send(200, { data: stub.sibling.pages.map(({ id, ...attributes }) => ({ type: 'scan-page', id: `phone-${id}`, attributes })),
          links: { self: `${stub.origin}${url.pathname}` } });
      }
      if (req.method === 'GET' && url.pathname === '/api/2.0/scans/s1') {
        polls = Math.min(polls + 1, stub.states.length - 1);
        return send(200, resource(stub.states[polls]!), { 'retry-after': '5' });
      }
      if (req.method === 'GET' && url.pathname === '/api/2.0/scans/s1/pages') {
        const size = Number(url.searchParams.get('page[size]') ?? 20);
        const number = Number(url.searchParams.get('page[number]') ?? 1);
        const slice = stub.pages.slice((number - 1) * size, number * size);
        const at = (n: number) => `${links.pages}?page[size]=${size}&page[number]=${n}`;
        return send(200, {
          data: slice.map(({ id, ...attributes }) => ({ type: 'scan-page', id, attributes })),
          links: { self: at(number), ...(number * size < stub.pages.length ? { next: at(number + 1) } : {}) },
        });
      }
      if (req.method === 'GET' && /^\/api\/2\.0\/scans\/[^/]+\/compare\/[^/]+$/.test(url.pathname) && stub.comparison) {
        const c = stub.comparison;
        if (c.status >= 400) return send(c.status, { errors: [{ status: String(c.status), code: c.code, title: 'Test not found', detail: c.detail }] });
        return send(200, { data: { type: 'scan-comparison', id: 's0..s1', attributes: c.attributes, links: { self: `${stub.origin}${url.pathname}` } } });
      }
      send(404, { errors: [{ code: 'E40400', title: 'Not found' }] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () => new Promise((resolve) => server.close(() => resolve()));
  return stub;
}

const captureIo = (extra: Record<string, string> = {}) => capturedIo({ WEBGAUGE_KEY: 'secret-key', WEBGAUGE_POLL_MS: '5', ...extra });

describe('webgauge scan against a stub of the scans API', () => {
  let stub: Stub;
  before(async () => {
    stub = await startStub();
  });
  after(() => stub.close());

  const running = (completed: number, failed: number): ScanAttributes => ({ ...SCAN, state: 'running', figures: null, finished: null,
    pages: { total: 8, queued: 8 - completed - failed, started: 0, completed, failed } });
  const walk = (end: ScanAttributes) => {
    stub.refuse = undefined;
    stub.states = [{ ...SCAN, state: 'discovering', found: 0, figures: null, pages: { total: 0 }, finished: null },
      { ...SCAN, state: 'discovering', found: 64, figures: null, pages: { total: 0 }, finished: null },
      running(0, 0), running(3, 1), running(7, 1), end];
    stub.pages = PAGES;
    stub.requests = [];
  };

  test('it posts the scan, polls it to the end showing progress, fetches its pages, judges the budgets: exit 1', async () => {
    walk(SCAN);
    const junit = join(dir, 'scan.xml');
    const markdown = join(dir, 'scan.md');
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const io = captureIo({ GITHUB_STEP_SUMMARY: summary });
    const code = await runScanGate([`https://shop.example/`, '--server', stub.origin, '--max-pages', '50', '--sample', '3',
      '--budget', 'lcp_p75=2500', '--budget', 'failed_pages=1', '--junit', junit, '--markdown', markdown], io);
    assert.equal(code, 1, io.err());
    const post = stub.requests[0]!;
    assert.equal(post.method, 'POST');
    assert.equal(post.url, '/api/2.0/scans');
    assert.equal(post.auth, `Basic ${Buffer.from('secret-key:').toString('base64')}`);
    assert.deepEqual(post.body, { data: { type: 'scan', attributes: { url: 'https://shop.example/', source: 'sitemap', max_pages: 50, sample: 3 } } });
    assert.deepEqual(stub.requests.slice(1).map((r) => `${r.method} ${r.url}`), [
      ...Array(5).fill('GET /api/2.0/scans/s1'), 'GET /api/2.0/scans/s1/pages?page[size]=100&page[number]=1']);
    const err = io.err();
    assert.match(err, /^Scanning https:\/\/shop\.example\/ \(sitemap\) on http:\/\/127\.0\.0\.1:\d+\/api\/2\.0\n/);
    assert.match(err, /Scan s1: 50 credits reserved, 93 left\n/);
    for (const line of ['discovering: found 0 URLs', 'discovering: found 64 URLs', 'running: 0 of 8 pages done', 'running: 4 of 8 pages done, 1 failed',
      'running: 8 of 8 pages done, 1 failed', 'completed']) assert.match(err, new RegExp(`\\n${line} \\(\\d+ s\\)\\n`), line);
    const out = io.out();
    assert.match(out, /Largest contentful paint \(LCP\) +4 +1 +2 +2\.40 s +3\.50 s/);
    assert.match(out, new RegExp(`https://shop\\.example/blog/c +${stub.origin.replace(/\./g, '\\.')}/reports/t4`));
    assert.match(out, /FAILED: 1 of 2 budgets\n$/);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
    assert.equal(doc.testsuites.tests, '10');
    assert.equal(doc.testsuites.failures, '4');
    assert.match(readFileSync(markdown, 'utf8'), /^### Webgauge scan: ❌ 1 of 2 budgets failed/);
    assert.match(readFileSync(summary, 'utf8'), /^# earlier step\n### Webgauge scan: ❌/);
  });

  test('budgets that pass exit 0; --json prints the scan and all its pages, page by page past one page of the list', async () => {
    walk(SCAN);
    stub.pages = Array.from({ length: 230 }, (_, i) => ({ ...PAGES[i % 7]!, id: `p${i}`, url: `https://shop.example/p/${i}`, position: i + 1 }));
    const io = captureIo({ WEBGAUGE_SERVER: `${stub.origin}/api/2.0/` });
    const code = await runScanGate(['https://shop.example/', '--crawl', '--budget', 'lcp_p75=4000', '--budget', 'performance_median=75', '--json'], io);
    assert.equal(code, 0, io.err());
    assert.equal((stub.requests[0]!.body!.data as { attributes: { source: string } }).attributes.source, 'crawl');
    assert.deepEqual(stub.requests.filter((r) => r.url.includes('/pages')).map((r) => r.url.replace(/.*\?/, '')),
      ['page[size]=100&page[number]=1', 'page[size]=100&page[number]=2', 'page[size]=100&page[number]=3']);
    const doc = JSON.parse(io.out());
    assert.equal(doc.passed, true);
    assert.equal(doc.exitCode, 0);
    assert.equal(doc.scan.state, 'completed');
    assert.equal(doc.scan.links.self, `${stub.origin}/api/2.0/scans/s1`);
    assert.equal(doc.pages.length, 230);
    assert.equal(doc.pages[229].url, 'https://shop.example/p/229');
    assert.deepEqual(doc.checks.map((c: { outcome: string }) => c.outcome), ['pass', 'pass']);
  });

  test('a scan that ends in error, is cancelled or measured no page exits 2, saying why', async () => {
    walk({ ...SCAN, state: 'error', error: 'discovery found no page', figures: null, pages: { total: 0 } });
    let io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--budget', 'lcp_p75=2500'], io), 2);
    assert.match(io.err(), /webgauge scan: the scan ended in error: discovery found no page\n {2}discovery error: sitemap https:\/\/shop\.example\/news\.xml/);
    assert.equal(io.out(), '');

    walk({ ...SCAN, state: 'cancelled', pages: { total: 8, completed: 3, failed: 1, cancelled: 4 } });
    io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--budget', 'lcp_p75=9999'], io), 2);
    assert.match(io.err(), /webgauge scan: the scan was cancelled \(4 of 8 pages finished\)\n$/);
    assert.match(io.out(), /NOT JUDGED: the scan was cancelled/);
    assert.doesNotMatch(io.out(), /lcp_p75/, 'budgets are checked only on a completed scan');

    walk({ ...SCAN, figures: { pages_measured: 0 }, pages: { total: 8, completed: 0, failed: 8 } });
    io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--json'], io), 2);
    assert.equal(JSON.parse(io.out()).error, 'no page of the scan could be measured (8 of 8 pages failed)');
  });

  test('--compare-to last: a page significantly worse fails the gate though every budget passes, listed with what got worse', async () => {
    walk(SCAN);
    stub.comparison = { status: 200, attributes: WORSE };
    let io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--budget', 'lcp_p75=9000', '--compare-to', 'last'], io), 1, io.err());
    assert.equal(stub.requests.at(-1)!.url, '/api/2.0/scans/s1/compare/last', 'asked after the pages, once the scan completed');
    assert.match(io.out(), /Pages significantly worse:\n {2}https:\/\/shop\.example\/blog\/c: LCP 1\.80 s → 5\.20 s \(threshold, not a test/);
    assert.match(io.out(), /\nFAILED: 1 page significantly worse than scan s0\n$/);

    // A scan's ID: that scan is the before side; nothing worse passes.
    walk(SCAN);
    stub.comparison = { status: 200, attributes: SAME };
    io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--compare-to', 's0', '--json'], io), 0, io.err());
    assert.equal(stub.requests.at(-1)!.url, '/api/2.0/scans/s0/compare/s1');
    const doc = JSON.parse(io.out());
    assert.equal(doc.passed, true);
    assert.equal(doc.comparison.counts.worse, 0);

    // last with no earlier scan of the site: nothing compared, no failure (the first scan of a pipeline).
    walk(SCAN);
    stub.comparison = { status: 404, code: 'E40400', detail: 'No completed scan of https://shop.example (source sitemap) started before scan s1 in this account.' };
    io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--compare-to', 'last'], io), 0, io.err());
    assert.match(io.out(), /Not compared \(--compare-to last\): No completed scan of https:\/\/shop\.example \(source sitemap\)/);

    // A scan that cannot be compared (an ID of none, or one still running): no verdict, exit 2.
    walk(SCAN);
    stub.comparison = { status: 400, code: 'E40003', detail: 'Scan s0 is still running (3 of 8 pages finished): compare it once it has completed.' };
    io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--compare-to', 's0'], io), 2);
    assert.match(io.err(), /GET \/scans\/s0\/compare\/s1: 400 E40003: .*Scan s0 is still running/);

    // A cancelled scan is not compared at all.
    walk({ ...SCAN, state: 'cancelled', pages: { total: 8, completed: 3, failed: 1, cancelled: 4 } });
    stub.comparison = { status: 200, attributes: WORSE };
    io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--compare-to', 'last'], io), 2);
    assert.ok(!stub.requests.some((r) => r.url.includes('/compare/')));
    stub.comparison = undefined;
  });

  test('--device desktop,phone: a scan each, followed together; each judged by its own budgets; every output keyed by device', async () => {
    walk({ ...SCAN, device_class: 'desktop' });
    stub.states = stub.states.map((x) => ({ ...x, device_class: 'desktop' }));
    const phoneEnd: ScanAttributes = { ...SCAN, device_class: 'phone-mid', figures: { ...SCAN.figures!,
      largest_contentful_paint: { good: 2, needs_improvement: 3, poor: 2, median: 3100, p75: 4200 }, performance_score: { median: 62, p75: 50 } } };
    stub.sibling = { states: [{ ...phoneEnd, state: 'discovering', found: 0, figures: null, pages: { total: 0 }, finished: null },
      { ...phoneEnd, state: 'running', figures: null, finished: null, pages: { total: 8, queued: 8 } }, phoneEnd], pages: PAGES };
    const [junit, markdown, json] = ['devices.xml', 'devices.md', 'devices.json'].map((f) => join(dir, f));
    const io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    try {
      const code = await runScanGate(['https://shop.example/', '--device', 'desktop,phone', '--budget', 'lcp_p75=3600', '--budget', 'phone:lcp_p75=4500',
        '--budget', 'performance_median=70', '--junit', junit, '--markdown', markdown, `--json=${json}`], io);
      assert.equal(code, 1, io.err());
      assert.deepEqual((stub.requests[0]!.body!.data as { attributes: Record<string, unknown> }).attributes.devices, ['desktop', 'phone-mid']);
      assert.ok(stub.requests.some((r) => r.url === '/api/2.0/scans/s2'), 'the phone\'s scan is polled too');
      assert.match(io.err(), /Scans s1 \(desktop\), s2 \(phone-mid\): 50 credits reserved, 93 left\n/);
      assert.match(io.err(), /\ndesktop: discovering: found 64 URLs · phone-mid: running: 0 of 8 pages done \(\d+ s\)\n/);
      assert.match(io.err(), /\ndesktop: completed · phone-mid: completed \(\d+ s\)\n$/);
      const out = io.out();
      assert.match(out, /^Scan s1 of https:\/\/shop\.example as desktop: completed/);
      assert.match(out, /\nScan s2 of https:\/\/shop\.example as phone-mid: completed/);
      assert.match(out, /\nFAILED over 2 devices: desktop passed, phone-mid failed\n$/);
      const doc = JSON.parse(readFileSync(json, 'utf8'));
      assert.deepEqual([doc.passed, doc.exitCode, Object.keys(doc.devices)], [false, 1, ['desktop', 'phone-mid']]);
      assert.deepEqual(doc.devices['phone-mid'].checks.map((c: { attribute: string; outcome: string; value: number }) => `${c.attribute} ${c.value} ${c.outcome}`),
        ['lcp_p75 4200 pass', 'performance_median 62 fail'], 'the phone\'s own LCP budget, every device\'s performance budget');
      assert.deepEqual(doc.devices.desktop.checks.map((c: { outcome: string }) => c.outcome), ['pass', 'pass']);
      assert.equal(doc.devices['phone-mid'].scan.id, 's2');
      assert.equal(doc.devices['phone-mid'].pages.length, 8);
      const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
      assert.equal(xml.testsuites.testsuite.length, 4);
      const md = readFileSync(markdown, 'utf8');
      assert.match(md, /^### Webgauge scan as desktop: ✅ passed/);
      assert.match(md, /\n### Webgauge scan as phone-mid: ❌ 1 of 2 budgets failed/);
    } finally {
      stub.sibling = undefined;
    }
  });

  test('--device on a server that does not scan per device (one scan, no device said): exit 2, saying so, no verdict', async () => {
    walk(SCAN);
    const io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--device', 'desktop,phone', '--budget', 'phone:lcp_p75=1'], io), 2);
    assert.match(io.err(), /webgauge scan: asked for desktop, phone-mid, the server started 1 scan \(no device said\): it does not scan per device/);
    assert.equal(io.out(), '');
  });

  test('a refused scan, a bad budget and an unreachable server exit 2; --json is still one JSON document', async () => {
    walk(SCAN);
    stub.refuse = { status: 402, code: 'E40201', title: 'Not enough credits', detail: 'the scan reserves 50 tests; 12 are left' };
    let io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--json'], io), 2);
    assert.match(io.err(), /webgauge scan: POST \/scans: 402 E40201: Not enough credits: the scan reserves 50 tests; 12 are left\n/);
    assert.deepEqual(JSON.parse(io.out()), { passed: false, exitCode: 2,
      error: 'POST /scans: 402 E40201: Not enough credits: the scan reserves 50 tests; 12 are left' });

    stub.requests = [];
    io = captureIo({ WEBGAUGE_SERVER: stub.origin });
    assert.equal(await runScanGate(['https://shop.example/', '--budget', 'lcp_p99=2500'], io), 2);
    assert.match(io.err(), /"lcp_p99" is no site budget; use one of lcp_p75, .*failed_pages/);
    assert.equal(stub.requests.length, 0, 'refused before any request');

    // A port nothing listens on: one a server had a moment ago.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const file = join(dir, 'error.json');
    io = captureIo({ WEBGAUGE_SERVER: `http://127.0.0.1:${port}` });
    assert.equal(await runScanGate(['https://shop.example/', `--json=${file}`], io), 2);
    assert.match(io.err(), new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}/api/2\\.0: ECONNREFUSED`));
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).exitCode, 2);

    io = captureIo();
    assert.equal(await runScanGate(['--help'], io), 0);
    assert.match(io.out(), /^Usage: webgauge scan URL/);
  });
});
