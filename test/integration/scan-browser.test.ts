// lane: pairs 30
/**
 * A site scan as a CI job runs it, against the real service with real page loads (SQLite; the store's rules of
 * scans are proven on both engines without a browser in scans.test.ts): `webgauge scan` of the fixture site's scan
 * pages from its robots.txt (a sitemap index, a nested index, a .xml.gz and a text sitemap), one page of each template
 * and two of them (max-pages 2: the first two templates), Lighthouse on each, two agent slots sharing the scan. The scan completes with site figures from the
 * pages' real reports; each page is an ordinary report of source scan with its page; the JUnit file has a case per
 * page and per budget; a budget the site cannot meet exits 1. The same invocation scans the site as a mid-tier phone too
 * (--device desktop,phone): a sibling scan whose pages are real phone loads (the agent's CPU slowed to the phone's, its
 * report says so), other pages than the desktop's, judged by the phone's own budget, every output keyed by device.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runScanGate } from '../../src/gate/scan.js';
import { SCAN_SITE } from '../fixtures/site/scan-site.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { call, startServer, type TestServer } from '../helpers/server.js';
import { capturedIo } from '../helpers/gate-process.js';
import { webSession } from '../helpers/web-session.js';

describe('webgauge scan of the fixture site, real loads (sqlite)', () => {
  let site: FixtureSite;
  let server: TestServer;
  let dir: string;

  before(async () => {
    site = await startFixtureSite();
    server = await startServer({ engine: 'sqlite', agentSlots: 2 });
    dir = await mkdtemp(join(tmpdir(), 'webgauge-scan-'));
  });
  after(async () => {
    await server?.close();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('one page of a template each, two templates, tested with Lighthouse on two slots, as a desktop and as a phone; the site figures come from their reports', async () => {
    const junit = join(dir, 'scan.xml');
    const json = join(dir, 'scan.json');
    const out = capturedIo({ WEBGAUGE_SERVER: server.base, WEBGAUGE_KEY: server.key, WEBGAUGE_POLL_MS: '200' });
    const code = await runScanGate([site.url(SCAN_SITE.start), '--sitemap', '--sample', '1', '--max-pages', '2', '--device', 'desktop,phone',
      '--budget', 'poor_lcp_pages=0', '--budget', 'desktop:fully_loaded_p75=1', '--budget', 'phone:fully_loaded_p75=600000',
      '--junit', junit, `--json=${json}`], out);
    // The desktop's fully_loaded_p75=1 (ms) cannot be met: the exit code says a budget failed (1), not that the scan failed (2).
    assert.equal(code, 1, `${out.err()}\n${out.out()}`);
    assert.match(out.out(), /poor_lcp_pages/);
    assert.match(out.out(), /\nFAILED over 2 devices: desktop failed, phone-mid passed\n$/);

    const both = JSON.parse(await readFile(json, 'utf8'));
    assert.deepEqual(Object.keys(both.devices), ['desktop', 'phone-mid']);
    const doc = both.devices.desktop;
    const phone = both.devices['phone-mid'];
    assert.deepEqual([both.exitCode, doc.exitCode, phone.exitCode], [1, 1, 0], 'each device judged by its own budgets');
    assert.equal(doc.exitCode, 1);
    assert.equal(doc.pages.length, 2);
    const scan = (await call(server, 'GET', `/scans/${doc.scan.id}`, { key: server.key })).body.data.attributes;
    assert.equal(scan.state, 'completed');
    assert.equal(scan.site, site.origin);
    // One page of each of the first two templates; robots.txt's disallowed page is skipped and said to be, and so are
    // the pages sampled out and those over max_pages.
    assert.equal(scan.pages.total, 2, JSON.stringify(scan));
    assert.equal(scan.pages.completed, 2, JSON.stringify(scan));
    assert.equal(scan.skipped.robots_txt, 1);
    assert.equal(scan.skipped.sampled_out, SCAN_SITE.pages.length - 4);
    assert.equal(scan.skipped.over_max_pages, 2);
    assert.deepEqual(scan.discovery_errors, []);
    const f = scan.figures;
    assert.equal(f.pages_measured, 2);
    // Tiny pages of no subresource: every one good on each vital, its LCP a measured value.
    assert.equal(f.largest_contentful_paint.good, 2);
    assert.ok(f.largest_contentful_paint.median > 0 && f.largest_contentful_paint.p75 >= f.largest_contentful_paint.median);
    assert.equal(f.cumulative_layout_shift.poor, 0);
    assert.equal(Object.values(f.grades as Record<string, number>).reduce((a, b) => a + b, 0), 2);
    assert.equal(f.worst_pages.length, 2);
    assert.equal(f.worst_templates.length, 2);
    assert.ok(Array.isArray(f.structure));

    const pages = (await call(server, 'GET', `/scans/${doc.scan.id}/pages?sort=template`, { key: server.key })).body.data;
    const web = webSession(server);
    const cookie = await web.signIn(server.key);
    assert.equal(new Set(pages.map((p: any) => p.attributes.template)).size, 2);
    for (const p of pages) {
      assert.equal(p.attributes.state, 'completed');
      assert.ok(p.attributes.largest_contentful_paint > 0);
      assert.ok(SCAN_SITE.templates[p.attributes.template]!.includes(new URL(p.attributes.url).pathname));
      // An ordinary report of an ordinary page: source scan, the scan's test.
      const report = await call(server, 'GET', `/reports/${p.attributes.report}`, { key: server.key });
      assert.equal(report.status, 200);
      assert.equal(report.body.data.attributes.source, 'scan');
      // In the app, the report says it is one page of the scan, and links back to it.
      const screen = await web.get(cookie, `/reports/${p.attributes.report}`);
      assert.match(screen.html, new RegExp(`<p class="report-scan">Part of the <a href="/scans/${doc.scan.id}">scan of ${scan.url.replace(/[.]/g, '\\.')}</a> ` +
        'on \\d{1,2} [A-Z][a-z]{2} \\d{4}, \\d\\d:\\d\\d UTC\\.</p>'), 'the app\'s report names its scan');
      const test = await call(server, 'GET', `/tests/${p.attributes.test}`, { key: server.key });
      assert.equal(test.body.data.attributes.scan, doc.scan.id);
      assert.ok(test.body.data.attributes.page);
    }

    // The phone's scan: the same two pages, loaded as a mid-tier phone (other pages than the desktop's), its figures its own.
    const phoneScan = (await call(server, 'GET', `/scans/${phone.scan.id}`, { key: server.key })).body.data.attributes;
    assert.deepEqual([phoneScan.state, phoneScan.device_class, phoneScan.siblings[0].scan], ['completed', 'phone-mid', doc.scan.id]);
    assert.equal(phoneScan.figures.pages_measured, 2);
    const phonePages = (await call(server, 'GET', `/scans/${phone.scan.id}/pages?sort=template`, { key: server.key })).body.data;
    assert.deepEqual(phonePages.map((p: any) => p.attributes.url), pages.map((p: any) => p.attributes.url), 'the same pages');
    for (const [i, p] of phonePages.entries()) {
      const report = (await call(server, 'GET', `/reports/${p.attributes.report}`, { key: server.key })).body.data.attributes;
      assert.equal(report.device_class, 'phone-mid', 'a phone\'s load');
      assert.equal(report.cpu_benchmark_target, 1000);
      const desktopTest = (await call(server, 'GET', `/tests/${pages[i].attributes.test}`, { key: server.key })).body.data.attributes;
      const phoneTest = (await call(server, 'GET', `/tests/${p.attributes.test}`, { key: server.key })).body.data.attributes;
      assert.notEqual(phoneTest.page, desktopTest.page, 'a URL\'s phone page is not its desktop page');
    }

    const xml = await readFile(junit, 'utf8');
    assert.equal((xml.match(/<testcase /g) ?? []).length, 2 * (2 + 2), xml);
    assert.match(xml, /fully_loaded_p75/);
    assert.match(xml, /<testsuite name="webgauge scan [^"]+ as phone-mid pages"/);
  });
});
