/**
 * `webgauge test --device desktop,phone-mid` (gate/cli.ts, checks.ts, outputs.ts) without Webgauge's server: a budget
 * file's per-device limits (`"phone-mid:NAME"`, as `webgauge scan --budget DEVICE:NAME` spells them), the outputs keyed
 * by device, and the whole gate against a small node:http stub of POST /tests, GET /tests/{id}, GET /reports/{id} and a
 * page's reports: one test per device with its `device_class`, each judged by its own budget and its own page's history,
 * the worst device's exit code; a server that ignores device_class, and one device's test that fails.
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
import { budgetFor, parseBudget, parseDeviceBudget } from '../../../src/gate/checks.js';
import { gateMain, parseDeviceList } from '../../../src/gate/cli.js';
import { testsJson, testsJunit, testsMarkdown, testsText, type GateResult } from '../../../src/gate/outputs.js';
import { capturedIo } from '../../helpers/gate-process.js';

const dir = mkdtempSync(join(tmpdir(), 'webgauge-test-devices-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('per-device budgets and --device', () => {
  test('"DEVICE:NAME" keys are one device\'s limits; a device\'s replaces the one of every device', () => {
    const b = parseDeviceBudget(JSON.stringify({
      largest_contentful_paint: { max: 1800 }, 'phone:largest_contentful_paint': { max: 2500 }, performance_score: { min: 70 },
      'phone-low:total_blocking_time': { max: 600 },
    }), 'b.json');
    assert.deepEqual([...b.all], [['largest_contentful_paint', { max: 1800 }], ['performance_score', { min: 70 }]]);
    assert.deepEqual([...budgetFor(b, 'desktop')], [...b.all]);
    assert.deepEqual([...budgetFor(b, 'phone-mid')], [['largest_contentful_paint', { max: 2500 }], ['performance_score', { min: 70 }]]);
    assert.deepEqual([...budgetFor(b, 'phone-low')],
      [['largest_contentful_paint', { max: 1800 }], ['performance_score', { min: 70 }], ['total_blocking_time', { max: 600 }]]);
    const bad: [unknown, RegExp][] = [
      [{ 'tablet:largest_contentful_paint': { max: 1 } }, /"tablet" is no device; use desktop, phone-mid, phone-low or phone \(phone-mid\)/],
      [{ 'phone:largest_contentful_paint': { max: 1 }, 'phone-mid:largest_contentful_paint': { max: 2 } }, /phone-mid's budget of largest_contentful_paint is given twice/],
      [{ 'phone-mid:lcp': { max: 1 } }, /"lcp" is not a numeric report attribute/],
      [{ 'phone-mid:largest_contentful_paint': { most: 1 } }, /the limit of "phone-mid:largest_contentful_paint" must be/],
    ];
    for (const [json, message] of bad) {
      assert.throws(() => parseDeviceBudget(JSON.stringify(json), 'b.json'), (e: Error) => e instanceof GateError && message.test(e.message), String(message));
    }
    assert.throws(() => parseBudget('{"phone-mid:largest_contentful_paint": {"max": 1}}', 'b.json'), /is a budget of one device; it needs --device/);
  });

  test('--device: a list or several, each once, `phone` a mid-tier phone', () => {
    assert.equal(parseDeviceList(undefined), undefined);
    assert.deepEqual(parseDeviceList(['desktop,phone', 'phone-low']), ['desktop', 'phone-mid', 'phone-low']);
    assert.throws(() => parseDeviceList(['desktop,tablet']), /--device "tablet": give desktop, phone-mid/);
    assert.throws(() => parseDeviceList(['phone-mid,phone']), /--device phone: phone-mid is given twice/);
  });
});

describe('outputs keyed by device', () => {
  const desktop: GateResult = { url: 'https://shop.example/', device: 'desktop', test: 'td', report: 'td', reportUrl: 'https://wg.example/reports/td',
    runs: 1, figures: { largest_contentful_paint: 1200 }, exitCode: 0,
    checks: [{ kind: 'budget', attribute: 'largest_contentful_paint', outcome: 'pass', message: 'largest_contentful_paint 1.20 s is within its budget (max 1.80 s)' }] };
  const phone: GateResult = { ...desktop, device: 'phone-mid', test: 'tp', report: 'tp', reportUrl: 'https://wg.example/reports/tp',
    figures: { largest_contentful_paint: 3100 }, exitCode: 1,
    checks: [{ kind: 'budget', attribute: 'largest_contentful_paint', outcome: 'fail', message: 'largest_contentful_paint 3.10 s is over its budget of max 2.50 s' }] };
  const low: GateResult = { url: desktop.url, device: 'phone-low', test: 'tl', report: '', runs: 0, figures: {}, checks: [], exitCode: 2,
    error: 'the test failed: the page did not load' };

  test('text: each device\'s summary, then the verdict over all', () => {
    const text = testsText([desktop, phone, low]);
    assert.match(text, /^Test of https:\/\/shop\.example\/ as desktop:\nReport: https:\/\/wg\.example\/reports\/td/);
    assert.match(text, /Test of https:\/\/shop\.example\/ as phone-mid:\nReport: .*\n[\s\S]*FAIL {4}largest_contentful_paint 3\.10 s/);
    assert.match(text, /Test of https:\/\/shop\.example\/ as phone-low:\nNOT JUDGED: the test failed: the page did not load/);
    assert.match(text, /NOT JUDGED over 3 devices: desktop passed, phone-mid failed, phone-low not judged\n$/);
    assert.match(testsText([desktop, phone]), /FAILED over 2 devices: desktop passed, phone-mid failed\n$/);
  });

  test('JSON: the verdict and each device\'s document; JUnit: a suite per device; Markdown: a section per device', () => {
    const doc = JSON.parse(testsJson([desktop, phone]));
    assert.equal(doc.passed, false);
    assert.equal(doc.exitCode, 1);
    assert.deepEqual(Object.keys(doc.devices), ['desktop', 'phone-mid']);
    assert.equal(doc.devices.desktop.passed, true);
    assert.equal(doc.devices['phone-mid'].figures.largest_contentful_paint, 3100);
    const xml = testsJunit([desktop, phone, low]);
    assert.equal(XMLValidator.validate(xml), true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).testsuites;
    assert.equal(parsed.failures, '1');
    assert.equal(parsed.errors, '1');
    const suites = parsed.testsuite as { name: string; testcase: { classname: string; error?: unknown } }[];
    assert.deepEqual(suites.map((s) => s.name), ['webgauge https://shop.example/ as desktop', 'webgauge https://shop.example/ as phone-mid',
      'webgauge https://shop.example/ as phone-low']);
    assert.deepEqual(suites.map((s) => s.testcase.classname), ['webgauge.budget.desktop', 'webgauge.budget.phone-mid', 'webgauge.test.phone-low']);
    assert.ok(suites[2]!.testcase.error);
    const md = testsMarkdown([desktop, phone, low]);
    assert.match(md, /^### Webgauge as desktop: ✅ passed/m);
    assert.match(md, /^### Webgauge as phone-mid: ❌ 1 of 1 checks failed/m);
    assert.match(md, /^### Webgauge as phone-low: ⚠️ not judged: the test failed/m);
  });

  test('without devices: one test\'s outputs, as before', () => {
    const one: GateResult = { ...desktop, device: undefined };
    delete one.device;
    assert.doesNotMatch(testsText([one]), /Test of|over/);
    assert.equal(JSON.parse(testsJson([one])).devices, undefined);
    assert.match(testsMarkdown([one]), /^### Webgauge: ✅ passed/);
    assert.match(testsJunit([one]), /classname="webgauge\.budget" /);
  });
});

interface Stub {
  origin: string;
  posted: Record<string, unknown>[];
  /** The report's device_class whatever was asked (a server without devices). */
  ignoreDevices?: boolean;
  /** A device whose test ends in error. */
  failing?: string;
  close(): Promise<void>;
}

/** LCP by device; the phone's page has six earlier reports (LCP 2,000 ms), the desktop's none. */
const LCP: Record<string, number> = { desktop: 1200, 'phone-mid': 3100 };

async function startStub(): Promise<Stub> {
  const stub = { posted: [] } as unknown as Stub;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url!, stub.origin);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/vnd.api+json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && url.pathname === '/api/2.0/tests') {
        const attributes = (JSON.parse(text) as { data: { attributes: Record<string, unknown> } }).data.attributes;
        stub.posted.push(attributes);
        const id = `t-${String(attributes.device_class ?? 'default')}`;
        return send(202, { data: { type: 'test', id, attributes: { state: 'queued', queue_position: 0 } } },
          { location: `${stub.origin}/api/2.0/tests/${id}` });
      }
      const testId = /^\/api\/2\.0\/tests\/t-(.+)$/.exec(url.pathname)?.[1];
      if (req.method === 'GET' && testId) {
        const attributes = testId === stub.failing ? { state: 'error', error: 'the page did not load' } : { state: 'completed', report: `r-${testId}` };
        return send(200, { data: { type: 'test', id: `t-${testId}`, attributes } });
      }
      const reportId = /^\/api\/2\.0\/reports\/r-(.+)$/.exec(url.pathname)?.[1];
      if (req.method === 'GET' && reportId) {
        const device = reportId === 'default' || stub.ignoreDevices ? 'desktop' : reportId;
        return send(200, { data: { type: 'report', id: `r-${reportId}`, links: { report_url: `${stub.origin}/reports/r-${reportId}` },
          attributes: { url: 'https://shop.example/', page: `p-${device}`, device_class: device, largest_contentful_paint: LCP[device] ?? 1000 } } });
      }
      const pageId = /^\/api\/2\.0\/pages\/p-(.+)\/reports$/.exec(url.pathname)?.[1];
      if (req.method === 'GET' && pageId) {
        const earlier = pageId === 'phone-mid'
          ? Array.from({ length: 6 }, (_, i) => ({ type: 'report', id: `old${i}`, attributes: { largest_contentful_paint: 2000 + i } })) : [];
        return send(200, { data: earlier });
      }
      send(404, { errors: [{ code: 'E40400', title: 'Not found' }] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () => new Promise((resolve) => server.close(() => resolve()));
  return stub;
}

describe('webgauge test --device against a stub server', () => {
  let stub: Stub;
  const io = () => capturedIo({ WEBGAUGE_SERVER: stub.origin, WEBGAUGE_KEY: 'k', WEBGAUGE_POLL_MS: '5' });
  before(async () => {
    stub = await startStub();
  });
  after(() => stub.close());

  test('a test per device, each with its device_class, judged by its budget and its own page\'s history: the worst exit', async () => {
    const budget = join(dir, 'budget.json');
    writeFileSync(budget, JSON.stringify({ largest_contentful_paint: { max: 1800 }, 'phone:largest_contentful_paint': { max: 2500 } }));
    const junit = join(dir, 'junit.xml');
    stub.posted = [];
    const run = io();
    const code = await gateMain(['https://shop.example/', '--device', 'desktop,phone', '--budget', budget, '--compare-history', '--junit', junit], run);
    assert.equal(code, 1, run.err());
    assert.deepEqual(stub.posted.map((a) => a.device_class), ['desktop', 'phone-mid']);
    assert.ok(stub.posted.every((a) => a.url === 'https://shop.example/'));
    const out = run.out();
    assert.match(out, /as desktop:[\s\S]*pass {4}largest_contentful_paint 1\.20 s is within its budget \(max 1\.80 s\)[\s\S]*No comparison with history: the page has 0 earlier reports/);
    assert.match(out, /as phone-mid:[\s\S]*FAIL {4}largest_contentful_paint 3\.10 s is over its budget of max 2\.50 s/);
    assert.match(out, /largest_contentful_paint: no significant change: 3\.10 s against 2\.00 s before .*1 run against 6 earlier reports/);
    assert.match(out, /FAILED over 2 devices: desktop passed, phone-mid failed\n$/);
    assert.match(run.err(), /Testing https:\/\/shop\.example\/ as desktop, phone-mid on /);
    assert.match(readFileSync(junit, 'utf8'), /<testsuite name="webgauge https:\/\/shop\.example\/ as phone-mid"/);
    const json = io();
    assert.equal(await gateMain(['https://shop.example/', '--device', 'desktop', '--device', 'phone-mid', '--json'], json), 0, json.err());
    assert.deepEqual(Object.keys(JSON.parse(json.out()).devices), ['desktop', 'phone-mid']);
  });

  test('without --device: one test, no device_class, as before', async () => {
    stub.posted = [];
    const run = io();
    assert.equal(await gateMain(['https://shop.example/'], run), 0, run.err());
    assert.deepEqual(stub.posted, [{ url: 'https://shop.example/' }]);
    assert.match(run.out(), /^Report: .*\/reports\/r-default\n/);
    assert.match(run.out(), /PASSED\n$/);
  });

  test('one device\'s failed test is that device\'s exit 2; the others are still judged', async () => {
    stub.failing = 'phone-mid';
    try {
      const run = io();
      assert.equal(await gateMain(['https://shop.example/', '--device', 'desktop,phone-mid', '--json'], run), 2);
      const doc = JSON.parse(run.out());
      assert.equal(doc.exitCode, 2);
      assert.equal(doc.devices.desktop.exitCode, 0);
      assert.equal(doc.devices['phone-mid'].error, 'the test failed: the page did not load');
      assert.match(run.err(), /webgauge test: phone-mid: the test failed: the page did not load/);
    } finally {
      delete stub.failing;
    }
  });

  test('refused before any test: a device budget without --device or of a device not tested; a server without devices is exit 2', async () => {
    const budget = join(dir, 'phone.json');
    writeFileSync(budget, JSON.stringify({ 'phone-mid:largest_contentful_paint': { max: 2500 } }));
    stub.posted = [];
    const none = io();
    assert.equal(await gateMain(['https://shop.example/', '--budget', budget], none), 2);
    assert.match(none.err(), /"phone-mid:\.\.\." is a budget of one device; it needs --device/);
    const other = io();
    assert.equal(await gateMain(['https://shop.example/', '--device', 'desktop', '--budget', budget], other), 2);
    assert.match(other.err(), /phone-mid is not tested; --device gives desktop/);
    assert.equal(stub.posted.length, 0);
    stub.ignoreDevices = true;
    try {
      const run = io();
      assert.equal(await gateMain(['https://shop.example/', '--device', 'desktop,phone-mid'], run), 2);
      assert.match(run.err(), /phone-mid: asked for phone-mid, the report says desktop: the server does not test per device/);
      assert.match(run.out(), /desktop passed, phone-mid not judged/);
    } finally {
      delete stub.ignoreDevices;
    }
  });
});
