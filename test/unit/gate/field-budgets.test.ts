/**
 * The gate's field budgets (gate/field-budgets.ts; the names of analysis/named-field-figures.ts): their names from the
 * one table of field figures, an inline `--budget NAME=VALUE` told from a budget file's path, the limits in a budget file
 * (checks.ts) and beside `webgauge scan`'s site budgets (scan-budgets.ts), the checks against the server's field
 * figures (too few views, no field site and a server without the endpoint skipped, saying why), and how the outputs
 * (outputs.ts, scan-outputs.ts) show a skipped field check; `webgauge scan` whole (scan.ts) against a small stub of the
 * scans API, its field route answering or missing.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { FIELD_FIGURE_NAMES } from '../../../src/analysis/figures.js';
import { ApiClient, GateError } from '../../../src/gate/api-client.js';
import { parseDeviceBudget } from '../../../src/gate/checks.js';
import { gateMain, GATE_USAGE } from '../../../src/gate/cli.js';
import {
  checkFieldBudgets, fetchField, FIELD_BUDGET_NAMES, isInlineBudget, parseInlineBudget, splitFieldBudget, type FieldAnswer,
} from '../../../src/gate/field-budgets.js';
import { testsJunit, testsText, type GateResult } from '../../../src/gate/outputs.js';
import { parseSiteBudgets } from '../../../src/gate/scan-budgets.js';
import { scansJunit, type ScanResult } from '../../../src/gate/scan-outputs.js';
import { runScanGate, SCAN_USAGE } from '../../../src/gate/scan.js';
import { capturedIo } from '../../helpers/gate-process.js';

const metric = (page_views: number, p75: number | null, poor: number | null) => ({ page_views, p75, poor });
const answer = (over: Partial<FieldAnswer> = {}): FieldAnswer => ({
  site: { id: 'fs1', name: 'Shop' }, device: 'mobile', window: { days: 28 }, basis: 'path', path: '/p/1', template: '/p/:id',
  path_views: 120, template_views: 900, page_views: 120, min_views: 50,
  metrics: { lcp: metric(120, 3100, 0.12), inp: metric(30, 250, 0.02), cls: metric(120, 0.05, 0), fcp: metric(120, 1500, 0.01), ttfb: metric(120, 500, 0) },
  ...over,
});
const budget = (...specs: string[]) => new Map(specs.map((s) => { const b = parseInlineBudget(s); return [b.name, b.limit]; }));

describe('field budget names', () => {
  test('two per field figure of the one table, each a max, all in both usages', () => {
    assert.deepEqual(FIELD_BUDGET_NAMES, FIELD_FIGURE_NAMES.flatMap((m) => [`field_${m}_p75`, `field_${m}_poor_share`]));
    for (const name of FIELD_BUDGET_NAMES) {
      assert.match(GATE_USAGE, new RegExp(`\\n {4}${name} +max `), `${name} in webgauge test's usage`);
      assert.match(SCAN_USAGE, new RegExp(`\\n {4}${name} +max `), `${name} in webgauge scan's usage`);
    }
  });

  test('an inline budget is told from a file by its shape alone', () => {
    for (const spec of ['field_lcp_p75=2500', 'phone:field_inp_poor_share=0.1', 'lcp=1', 'x=1.json']) assert.ok(isInlineBudget(spec), spec);
    for (const spec of ['budget.json', './field_lcp_p75=2500', 'ci/budgets/a=b.json', '/tmp/x=1', '=1', 'C:\\budget.json']) assert.ok(!isInlineBudget(spec), spec);
    assert.deepEqual(parseInlineBudget('field_lcp_p75=2500'), { name: 'field_lcp_p75', limit: { max: 2500 } });
    assert.deepEqual(parseInlineBudget('phone:field_cls_poor_share= 0.05'), { device: 'phone-mid', name: 'field_cls_poor_share', limit: { max: 0.05 } });
    const bad: [string, RegExp][] = [
      ['lcp=1', /"lcp" is no field budget; inline budgets are field_lcp_p75, .* a budget file named like this one: give it as \.\/lcp=1/],
      ['field_lcp_p75=', /the max of field_lcp_p75 \(real visitors' LCP, 75th percentile \(ms\)\) must be milliseconds, 0 or more/],
      ['field_lcp_p75=-5', /must be milliseconds/],
      ['field_inp_poor_share=1.5', /must be a share from 0 to 1/],
      ['field_cls_p75=x', /must be a layout shift/],
      ['tablet:field_lcp_p75=1', /"tablet" is no device/],
    ];
    for (const [spec, message] of bad) assert.throws(() => parseInlineBudget(spec), (e: Error) => e instanceof GateError && message.test(e.message), spec);
  });

  test('in a budget file, beside report attributes, per device; a field budget is a max of its kind', () => {
    const b = parseDeviceBudget(JSON.stringify({ largest_contentful_paint: { max: 2500 }, field_lcp_p75: { max: 2500 },
      'phone:field_lcp_poor_share': { max: 0.1 } }), 'b.json');
    assert.deepEqual(splitFieldBudget(b.all), { report: new Map([['largest_contentful_paint', { max: 2500 }]]), field: new Map([['field_lcp_p75', { max: 2500 }]]) });
    assert.deepEqual([...b.byDevice.get('phone-mid')!], [['field_lcp_poor_share', { max: 0.1 }]]);
    for (const [limit, message] of [[{ min: 1 }, /is a field budget .*give \{"max": milliseconds, 0 or more\}/], [{ max: -1 }, /give \{"max"/]] as const) {
      assert.throws(() => parseDeviceBudget(JSON.stringify({ field_lcp_p75: limit }), 'b.json'), message);
    }
    assert.throws(() => parseDeviceBudget('{"field_lcp_poor_share": {"max": 2}}', 'b.json'), /a share from 0 to 1/);
    assert.throws(() => parseDeviceBudget('{"field_lcp": {"max": 2}}', 'b.json'), /or a field budget \(field_lcp_p75, /);
  });

  test('beside webgauge scan\'s site budgets', () => {
    assert.deepEqual([...parseSiteBudgets(['lcp_p75=2500', 'field_lcp_p75=2500', 'field_inp_poor_share=0.1'])],
      [['lcp_p75', { max: 2500 }], ['field_lcp_p75', { max: 2500 }], ['field_inp_poor_share', { max: 0.1 }]]);
    assert.throws(() => parseSiteBudgets(['field_inp_poor_share=2']), /the max of field_inp_poor_share .* must be a share from 0 to 1/);
    assert.throws(() => parseSiteBudgets(['field_lcp_p75=1', 'field_lcp_p75=2']), /field_lcp_p75 is given twice/);
  });

  test('webgauge test refuses two budget files, an unknown inline name and a name given twice, before any test', async () => {
    const cases: [string[], RegExp][] = [
      [['--budget', 'a.json', '--budget', 'b.json'], /give one budget file, not 2 \(a\.json, b\.json\)/],
      [['--budget', 'lcp_p75=2500'], /"lcp_p75" is no field budget/],
      [['--budget', 'field_lcp_p75=1', '--budget', 'field_lcp_p75=2'], /field_lcp_p75 is given twice/],
      [['--budget', 'phone:field_lcp_p75=1'], /"phone-mid:\.\.\." is a budget of one device; it needs --device/],
    ];
    for (const [args, message] of cases) {
      const io = capturedIo({ WEBGAUGE_SERVER: 'http://127.0.0.1:9', WEBGAUGE_KEY: 'k' });
      assert.equal(await gateMain(['https://shop.example/', ...args], io), 2, args.join(' '));
      assert.match(io.err(), message);
    }
  });
});

describe('field checks', () => {
  test('the p75 and the poor share against their max, saying whose page views they are', () => {
    const checks = checkFieldBudgets(budget('field_lcp_p75=2500', 'field_lcp_poor_share=0.2', 'field_cls_p75=0.05', 'field_ttfb_poor_share=0'), { answer: answer() });
    assert.deepEqual(checks.map((c) => c.outcome), ['fail', 'pass', 'pass', 'pass']);
    assert.equal(checks[0]!.message, 'field_lcp_p75 3.10 s is over its budget of max 2.50 s (real visitors on mobile, last 28 days: 120 page views of /p/1)');
    assert.equal(checks[0]!.value, 3100);
    assert.equal(checks[1]!.message, 'field_lcp_poor_share 12 % is within its budget (max 20 %) (real visitors on mobile, last 28 days: 120 page views of /p/1)');
    const close = checkFieldBudgets(budget('field_lcp_poor_share=0.1199'), { answer: answer() })[0]!;
    assert.match(close.message, /^field_lcp_poor_share 12 % \(0\.12\) is over its budget of max 12 % \(0\.1199\)/);
  });

  test('the template\'s page views, when the URL had too few, are said', () => {
    const [c] = checkFieldBudgets(budget('field_lcp_p75=2500'), { answer: answer({ basis: 'template', path_views: 12, template_views: 900,
      metrics: { ...answer().metrics!, lcp: metric(900, 2000, 0.01) } }) });
    assert.equal(c!.outcome, 'pass');
    assert.match(c!.message, /900 page views of the template \/p\/:id, read as the URL \/p\/1 had 12 page views, fewer than 50\)$/);
  });

  test('too few views, a metric measured too rarely, no field site and a server without field figures are skipped, said', () => {
    const tooFew = checkFieldBudgets(budget('field_lcp_p75=2500'), { answer: answer({ basis: 'too-few', path_views: 7, template_views: 20 }) })[0]!;
    assert.equal(tooFew.outcome, 'skipped');
    assert.equal(tooFew.message, 'field_lcp_p75: not judged: too few page views to judge: 7 page views of /p/1 and 20 page views of its template /p/:id, fewer than 50 on mobile');
    const rare = checkFieldBudgets(budget('field_inp_p75=200'), { answer: answer() })[0]!;
    assert.equal(rare.outcome, 'skipped');
    assert.match(rare.message, /not judged: too few page views to judge: 30 page views measured INP/);
    const none = checkFieldBudgets(budget('field_lcp_p75=2500'), { answer: answer({ site: null, metrics: null, detail: 'No field site of this account collects page views from https://shop.example: create one' }) })[0]!;
    assert.equal(none.outcome, 'skipped');
    assert.match(none.message, /not judged: No field site of this account/);
    const old = checkFieldBudgets(budget('field_lcp_p75=2500'), { unavailable: 'the server has no field figures' })[0]!;
    assert.deepEqual([old.outcome, old.message], ['skipped', 'field_lcp_p75: not judged: the server has no field figures']);
  });

  test('a 404 of the field route is a server without field figures; another error stops the gate', async (t) => {
    const server = createServer((req, res) => {
      const missing = req.url!.includes('/old/');
      res.writeHead(missing ? 404 : 500, { 'content-type': 'application/vnd.api+json' });
      res.end(JSON.stringify({ errors: [{ status: missing ? '404' : '500', code: missing ? 'E40000' : 'E50000', title: 'x', detail: 'Unknown request' }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const api = new ApiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'k');
    const source = await fetchField(api, '/old/reports/r1/field');
    assert.ok('unavailable' in source);
    assert.match(source.unavailable, /^the server has no field figures \(GET \/old\/reports\/r1\/field: 404 E40000: x: Unknown request\): an older Webgauge or another server of API 2\.0$/);
    await assert.rejects(fetchField(api, '/reports/r1/field'), (e: Error) => e instanceof GateError && /500 E50000/.test(e.message));
  });
});

describe('field checks in the outputs', () => {
  const checks = checkFieldBudgets(budget('field_lcp_p75=2500', 'field_inp_p75=200'), { answer: answer() });

  test('webgauge test: text and JUnit show each field check, a skipped one as skipped', () => {
    const r: GateResult = { url: 'https://shop.example/p/1', test: 't1', report: 't1', runs: 1, figures: {}, checks, exitCode: 1 };
    assert.match(testsText([r]), /FAIL    field_lcp_p75 3\.10 s is over .*\n {2}skipped field_inp_p75: not judged: too few page views/);
    const suite = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(testsJunit([r])).testsuites.testsuite;
    assert.deepEqual([suite.failures, suite.skipped], ['1', '1']);
  });

  test('webgauge scan: the site suite has a case per field budget, a skipped one as skipped', () => {
    const r = { id: 's1', scan: { url: 'https://shop.example/', state: 'completed' }, links: {}, web: 'https://wg.example', pages: [], checks,
      exitCode: 1 } as ScanResult;
    const suites = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(scansJunit([r])).testsuites.testsuite as
      { name: string; testcase: { name: string; failure?: unknown; skipped?: { message: string } }[] | { name: string } }[];
    const site = suites.find((s) => s.name.endsWith(' site'))!;
    const cases = site.testcase as { name: string; failure?: unknown; skipped?: { message: string } }[];
    assert.deepEqual(cases.map((c) => c.name), ['field_lcp_p75', 'field_inp_p75']);
    assert.ok(cases[0]!.failure);
    assert.match(cases[1]!.skipped!.message, /too few page views/);
  });
});

describe('webgauge scan with field budgets, against a stub of the scans API', () => {
  /** A scan completed at once with one measured page; GET /scans/s1/field answers `field` (undefined: 404, an older server). */
  async function stubServer(t: { after(fn: () => void): void }, field: FieldAnswer | undefined): Promise<string> {
    const scan = { type: 'scan', id: 's1', attributes: { url: 'https://shop.example/', site: 'https://shop.example', state: 'completed',
      pages: { total: 1, completed: 1 }, figures: { pages_measured: 1, largest_contentful_paint: { good: 1, needs_improvement: 0, poor: 0, median: 1200, p75: 1200 } } },
    links: { self: '/api/2.0/scans/s1' } };
    const server = createServer((req, res) => {
      const path = req.url!.split('?')[0];
      const send = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/vnd.api+json' }); res.end(JSON.stringify(body)); };
      if (req.method === 'POST' && path === '/api/2.0/scans') return send(202, { data: scan });
      if (path === '/api/2.0/scans/s1') return send(200, { data: scan });
      if (path === '/api/2.0/scans/s1/pages') return send(200, { data: [{ id: 'p1', type: 'scan-page', attributes: { url: 'https://shop.example/', state: 'completed', largest_contentful_paint: 1200 } }] });
      if (path === '/api/2.0/scans/s1/field' && field) return send(200, { data: { type: 'scan_field', id: 's1', attributes: field } });
      return send(404, { errors: [{ status: '404', code: 'E40000', title: 'Not found', detail: `Unknown request: GET ${path}.` }] });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const scanGate = async (base: string, budgets: string[]) => {
    const io = capturedIo({ WEBGAUGE_SERVER: base, WEBGAUGE_KEY: 'k', WEBGAUGE_POLL_MS: '10' });
    const code = await runScanGate(['https://shop.example/', ...budgets.flatMap((b) => ['--budget', b]), '--json'], io);
    return { code, doc: JSON.parse(io.out()) as { checks: { attribute: string; outcome: string; message: string }[] }, err: io.err() };
  };
  const site = answer({ basis: 'site', path: undefined, template: undefined, device: 'desktop' });

  test('a field budget over the site\'s p75 exits 1 beside a site budget that passes; under it, 0', async (t) => {
    const base = await stubServer(t, site);
    const over = await scanGate(base, ['lcp_p75=2500', 'field_lcp_p75=2500']);
    assert.equal(over.code, 1, over.err);
    assert.deepEqual(over.doc.checks.map((c) => [c.attribute, c.outcome]), [['lcp_p75', 'pass'], ['field_lcp_p75', 'fail']]);
    assert.match(over.doc.checks[1]!.message, /^field_lcp_p75 3\.10 s is over its budget of max 2\.50 s \(real visitors on desktop, last 28 days: 120 page views of the site\)$/);
    assert.equal((await scanGate(base, ['field_lcp_p75=4000'])).code, 0);
  });

  test('a server without field figures: the field budget is skipped, saying so, and the gate passes', async (t) => {
    const ran = await scanGate(await stubServer(t, undefined), ['field_lcp_p75=2500']);
    assert.equal(ran.code, 0, ran.err);
    assert.equal(ran.doc.checks[0]!.outcome, 'skipped');
    assert.match(ran.doc.checks[0]!.message, /not judged: the server has no field figures \(GET \/scans\/s1\/field: 404 E40000/);
  });
});
