// lane: pairs 140
/**
 * Site scans through HTTP on both engines, without a page load (the pages' tests are completed with a stub result
 * and figures written into their reports; the browser scan is in scan-browser.test.ts): discovery from the fixture
 * site, the credits reserved and given back, the queue's order (a scan's tests wait behind everyone's and scans take
 * turns), the account's concurrency left alone, cancel, 404 for another account, bad input refused with nothing
 * created, the site figures once the pages are done, the pages list sorted and filtered, the downloads; two scans of the
 * same pages compared (a slower page worse by a threshold, a page tested over runs worse by the test, new and gone
 * pages, a note for a different throttle, "last", 404 for another account, 400 for a scan still running).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { claimTest } from '../../src/core/tests/tests.js';
import { completeTest } from '../../src/core/reports/reports.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { SCAN_SITE } from '../fixtures/site/scan-site.js';
import { call, engines, errorOf, startServer, type TestServer } from '../helpers/server.js';
import { creditsOf } from '../helpers/assertions.js';
import { claimScanTests, completeScan, scanBody, startListScan, waitForScan } from '../helpers/scans.js';
import { stubResult } from '../helpers/stub-result.js';
import { webSession } from '../helpers/web-session.js';
import { newId } from '../../src/core/ids.js';
import { finishScan } from '../../src/core/scans/completion.js';
import type { RunsFile } from '../../src/core/tests/runs.js';

/** Five kept runs whose LCP starts at `lcp` (the report is the third). */
const fiveRuns = (lcp: number): RunsFile => ({
  count: 5, median_run: 3,
  runs: [0, 1, 2, 3, 4].map((i) => ({ run: i + 1, discarded: false, discard_reason: null, benchmark_index: null, baseline_benchmark_index: null,
    other_cpu_cores: null, attributes: { largest_contentful_paint: lcp + i * 20, total_blocking_time: 50, performance_score: 90, fully_loaded_time: 2000 } })),
});

let site: FixtureSite;
before(async () => {
  site = await startFixtureSite();
});
after(async () => {
  await site?.close();
});

for (const engine of engines()) {
  describe(`site scans through the API, no page load (${engine})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer({ engine, agentSlots: 0 });
    });
    after(async () => {
      await server?.close();
    });

    test('discovery of the fixture site: robots.txt, a sitemap index, a nested index, a .xml.gz and a text sitemap; or a crawl', async () => {
      const key = await server.account({ plan: 'pro' });
      const res = await call(server, 'POST', '/scans', { key, body: scanBody({ url: site.url(SCAN_SITE.start), report: 'none' }) });
      assert.equal(res.status, 202, res.text);
      const scan = await waitForScan(server, key, res.body.data.id, (s) => s !== 'discovering');
      assert.equal(scan.attributes.state, 'running', JSON.stringify(scan.attributes));
      assert.deepEqual(scan.attributes.discovery_errors, []);
      assert.equal(scan.attributes.skipped.robots_txt, 1);
      const pages = (await call(server, 'GET', `/scans/${scan.id}/pages?page[size]=100`, { key })).body.data;
      const byTemplate: Record<string, string[]> = {};
      for (const p of pages) (byTemplate[p.attributes.template] ??= []).push(new URL(p.attributes.url).pathname);
      for (const paths of Object.values(byTemplate)) paths.sort();
      const expected = Object.fromEntries(Object.entries(SCAN_SITE.templates).map(([t, paths]) => [t, [...paths].sort()]));
      assert.deepEqual(byTemplate, expected);

      const crawl = await call(server, 'POST', '/scans', { key, body: scanBody({ url: site.url(SCAN_SITE.start), source: 'crawl', crawl_depth: 3, sample: 2, report: 'none' }) });
      const crawled = await waitForScan(server, key, crawl.body.data.id, (s) => s !== 'discovering');
      assert.equal(crawled.attributes.state, 'running', JSON.stringify(crawled.attributes));
      assert.equal(crawled.attributes.skipped.robots_txt, 1);
      assert.ok(crawled.attributes.skipped.other_host >= 1);
      // Two of each template (the start page's template has one): 1 + 2 + 2 + 2.
      assert.equal(crawled.attributes.pages.total, 7);
      // The same pages from one scan to the next.
      const again = await call(server, 'POST', '/scans', { key, body: scanBody({ url: site.url(SCAN_SITE.start), source: 'crawl', crawl_depth: 3, sample: 2, report: 'none' }) });
      await waitForScan(server, key, again.body.data.id, (s) => s !== 'discovering');
      const urls = async (id: string) => (await call(server, 'GET', `/scans/${id}/pages?sort=url`, { key })).body.data.map((p: any) => p.attributes.url);
      assert.deepEqual(await urls(again.body.data.id), await urls(crawled.id));
      // Cancelled so that later tests' claims see only their own queued pages first.
      for (const id of [scan.id, crawled.id, again.body.data.id]) await call(server, 'DELETE', `/scans/${id}`, { key });
    });

    test('a list scan discovers its pages, queues them as ordinary tests of source scan and gives back the unused credits', async () => {
      const key = await server.account({ plan: 'pro' });
      const before = await creditsOf(server, key);
      const res = await call(server, 'POST', '/scans', { key, body: scanBody({
        url: site.url('/'), source: 'list', max_pages: 10, report: 'none', sample: 0,
        urls: ['/', '/faulty', site.url('/gallery'), 'http://127.0.0.2:9/elsewhere', '/faulty#again'],
      }) });
      assert.equal(res.status, 202, res.text);
      assert.equal(res.headers.get('location'), res.body.data.links.self);
      assert.equal(res.body.meta.credits_reserved, 6);
      assert.equal(res.body.meta.credits_left, before - 6);
      const scan = await waitForScan(server, key, res.body.data.id, (s) => s !== 'discovering');
      assert.equal(scan.attributes.state, 'running', JSON.stringify(scan.attributes));
      assert.equal(scan.attributes.pages.total, 3);
      assert.equal(scan.attributes.pages.queued, 3);
      assert.equal(scan.attributes.skipped.other_host, 1);
      assert.equal(scan.attributes.skipped.duplicate, 1);
      assert.equal(scan.attributes.site, site.origin);
      // Three tests (0.6 credits each: report none) paid from the reservation, the other seven tests' credits given back.
      assert.equal(await creditsOf(server, key), Math.round((before - 3 * 0.6) * 10) / 10);
      const tests = await call(server, 'GET', '/tests?filter[source]=scan', { key });
      assert.equal(tests.body.data.length, 3);
      for (const t of tests.body.data) {
        assert.equal(t.attributes.source, 'scan');
        assert.equal(t.attributes.scan, scan.id);
        assert.equal(t.attributes.state, 'queued');
      }
      // The account's own tests are not held back by the scan's: the basic plan's two at once still start.
      const basic = await server.account({ plan: 'basic' });
      const small = await call(server, 'POST', '/scans', { key: basic, body: scanBody({ url: site.url('/'), source: 'list', urls: ['/', '/faulty'], max_pages: 2, report: 'none' }) });
      assert.equal(small.status, 202, small.text);
      await waitForScan(server, basic, small.body.data.id, (s) => s === 'running');
      for (let i = 0; i < 2; i++) {
        const t = await call(server, 'POST', '/tests', { key: basic, body: { data: { type: 'test', attributes: { url: site.url('/'), report: 'none' } } } });
        assert.equal(t.status, 202, t.text);
      }
    });

    test('a test posted while scans wait is taken first; scans take turns page by page', async () => {
      const key = await server.account({ plan: 'pro' });
      const a = await call(server, 'POST', '/scans', { key, body: scanBody({ url: site.url('/'), source: 'list', urls: ['/', '/faulty', '/gallery'], report: 'none', location: '1' }) });
      const scanA = await waitForScan(server, key, a.body.data.id, (s) => s === 'running');
      const b = await call(server, 'POST', '/scans', { key, body: scanBody({ url: site.url('/'), source: 'list', urls: ['/paint', '/switchable'], report: 'none' }) });
      const scanB = await waitForScan(server, key, b.body.data.id, (s) => s === 'running');
      const posted = await call(server, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: site.url('/'), report: 'none' } } } });
      assert.equal(posted.status, 202);
      const order: string[] = [];
      for (;;) {
        const t = await claimTest(server.app.store, '1', 'order-check', 60_000);
        if (!t) break;
        order.push(t.scan_id ? `${t.scan_id === scanA.id ? 'A' : t.scan_id === scanB.id ? 'B' : 'other scan'}${t.scan_position}` : `test ${t.id}`);
      }
      // Earlier tests of this file are queued too (they come first, being no scan's, or are scans' of their own turn).
      const mine = order.filter((o) => o === `test ${posted.body.data.id}` || /^[AB]\d$/.test(o));
      assert.deepEqual(mine, [`test ${posted.body.data.id}`, 'A0', 'B0', 'A1', 'B1', 'A2']);
      assert.ok(order.indexOf(`test ${posted.body.data.id}`) < order.findIndex((o) => /^(A|B|other scan)\d/.test(o)),
        `a test that is no scan's is claimed before every scan's: ${order.join(', ')}`);
    });

    test('cancel drops the queued pages and refunds them; another account sees 404; a finished scan stays as it was', async () => {
      const key = await server.account({ plan: 'pro' });
      const before = await creditsOf(server, key);
      const res = await call(server, 'POST', '/scans', { key, body: scanBody({ url: site.url('/'), source: 'list', urls: ['/', '/faulty'], max_pages: 5, report: 'none' }) });
      const scan = await waitForScan(server, key, res.body.data.id, (s) => s === 'running');
      const stranger = await server.account({ plan: 'pro' });
      for (const [method, path] of [['GET', `/scans/${scan.id}`], ['GET', `/scans/${scan.id}/pages`], ['DELETE', `/scans/${scan.id}`],
        ['GET', `/scans/${scan.id}/pages.csv`]] as const) {
        const r = await call(server, method, path, { key: stranger });
        assert.equal(r.status, 404, `${method} ${path}`);
        assert.equal(errorOf(r).code, 'E40400');
      }
      const cancelled = await call(server, 'DELETE', `/scans/${scan.id}`, { key });
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal(cancelled.body.data.attributes.state, 'cancelled');
      assert.equal(cancelled.body.data.attributes.pages.cancelled, 2);
      assert.equal(await creditsOf(server, key), before);
      const tests = await call(server, 'GET', '/tests?filter[source]=scan', { key });
      assert.ok(tests.body.data.every((t: any) => t.attributes.state === 'error'));
      const again = await call(server, 'DELETE', `/scans/${scan.id}`, { key });
      assert.equal(again.body.data.attributes.state, 'cancelled');
    });

    test('a discovery whose process died (its lease ran out) is taken up again by a live process', async () => {
      const key = await server.account({ plan: 'pro' });
      const first = await call(server, 'POST', '/scans', { key, body: scanBody({ url: site.url('/'), source: 'list', urls: ['/faulty'], report: 'none' }) });
      await waitForScan(server, key, first.body.data.id, (s) => s === 'running');
      const { store } = server.app;
      const row = await store.db.selectFrom('scans').selectAll().where('id', '=', first.body.data.id).executeTakeFirstOrThrow();
      // A scan a killed process was discovering: its lease ran out a second ago.
      const orphan = { ...row, id: newId(), state: 'discovering', site: null, found: 0, skipped: '{}', started: Date.now() - 60_000,
        lease_owner: 'scan-killed-process', lease_expires: Date.now() - 1000, reserved_tenths: 6 };
      await store.db.insertInto('scans').values(orphan).execute();
      // Any new scan wakes the discovery; the orphan, older, is taken first.
      const next = await call(server, 'POST', '/scans', { key, body: scanBody({ url: site.url('/'), source: 'list', urls: ['/gallery'], report: 'none' }) });
      await waitForScan(server, key, next.body.data.id, (s) => s === 'running');
      const taken = await waitForScan(server, key, orphan.id, (s) => s !== 'discovering');
      assert.equal(taken.attributes.state, 'running');
      assert.equal(taken.attributes.pages.total, 1);
      for (const id of [first.body.data.id, next.body.data.id, orphan.id]) await call(server, 'DELETE', `/scans/${id}`, { key });
    });

    test('bad input is refused with the spec\'s error and creates nothing', async () => {
      const key = await server.account({ plan: 'basic' });
      const before = await creditsOf(server, key);
      const cases: [Record<string, unknown>, number, string, RegExp][] = [
        [{ url: site.url('/'), source: 'spider' }, 400, 'E40004', /source must be one of/],
        [{ url: site.url('/'), source: 'list' }, 400, 'E40004', /needs urls/],
        [{ url: site.url('/'), urls: ['/a'] }, 400, 'E40004', /source "list"/],
        [{ url: site.url('/'), max_pages: 101 }, 400, 'E40004', /allows 1 to 100 pages/],
        [{ url: site.url('/'), max_pages: 0 }, 400, 'E40004', /max_pages/],
        [{ url: site.url('/'), crawl_depth: 2 }, 400, 'E40004', /crawl_depth is for source "crawl"/],
        [{ url: site.url('/'), source: 'crawl', crawl_depth: 11 }, 400, 'E40004', /crawl_depth/],
        [{ url: site.url('/'), include: 'blog' }, 400, 'E40004', /include must be an array/],
        [{ url: 'ftp://example.com/' }, 400, 'E40004', /url/],
        [{ url: site.url('/'), journey: { title: 'x', steps: [] } }, 400, 'E40004', /journey cannot be scanned/],
        [{ url: site.url('/'), location: 'nowhere' }, 400, 'E40003', /location/],
        // 10 pages of a lighthouse test (1 credit each) is more than the basic plan's 5 credits.
        [{ url: site.url('/'), max_pages: 10 }, 402, 'E40201', /This scan/],
      ];
      for (const [attributes, status, code, detail] of cases) {
        const r = await call(server, 'POST', '/scans', { key, body: scanBody(attributes) });
        assert.equal(r.status, status, `${JSON.stringify(attributes)}: ${r.text}`);
        assert.equal(errorOf(r).code, code);
        assert.match(errorOf(r).detail ?? '', detail);
      }
      const wrongType = await call(server, 'POST', '/scans', { key, body: { data: { type: 'test', attributes: { url: site.url('/') } } } });
      assert.equal(wrongType.status, 400);
      const list = await call(server, 'GET', '/scans', { key });
      assert.equal(list.body.data.length, 0);
      assert.equal(await creditsOf(server, key), before);
    });

    test('a start page that answers 404 ends the scan in error, saying why, every credit given back', async () => {
      const key = await server.account({ plan: 'pro' });
      const before = await creditsOf(server, key);
      const res = await call(server, 'POST', '/scans', { key, body: scanBody({ url: site.url('/no-such-page'), report: 'none', max_pages: 4 }) });
      assert.equal(res.status, 202, res.text);
      const scan = await waitForScan(server, key, res.body.data.id, (s) => s === 'error' || s === 'running');
      assert.equal(scan.attributes.state, 'error');
      assert.match(scan.attributes.error, /404/);
      assert.equal(await creditsOf(server, key), before);
    });

    test('when its pages are done the scan has site figures; its pages sort, filter and download', async () => {
      const key = await server.account({ plan: 'pro' });
      const scan = await startListScan(server, key, site.url('/'), ['/', '/faulty', '/gallery', '/paint']);
      const { store, artifacts } = server.app;
      // Complete this scan's tests as an agent would (a stub result: no page load), the others back in the queue.
      const lcp: Record<string, number> = { '/': 1800, '/faulty': 4600, '/gallery': 3100, '/paint': 900 };
      let failedOne = false;
      for (const t of await claimScanTests(server, scan.id)) {
        const path = new URL(t.url).pathname;
        if (path === '/paint' && !failedOne) {
          failedOne = true;
          await store.db.updateTable('tests').set({ state: 'error', error: 'The page crashed the browser.', finished: Date.now() }).where('id', '=', t.id).execute();
          continue;
        }
        assert.ok(await completeTest(store, artifacts, t.id, 'stub-agent', stubResult(t.url)));
        await store.db.updateTable('reports').set({ largest_contentful_paint: lcp[path]!, total_blocking_time: path === '/faulty' ? 700 : 50,
          cumulative_layout_shift: 0.02, performance_score: path === '/faulty' ? 40 : 90, service_grade: path === '/faulty' ? 'E' : 'A' })
          .where('id', '=', t.id).execute();
      }
      await server.app.scanFollow.drain();
      const done = await waitForScan(server, key, scan.id, (s) => s === 'completed');
      const a = done.attributes;
      assert.deepEqual(a.pages, { total: 4, queued: 0, started: 0, completed: 3, failed: 1, cancelled: 0 });
      assert.equal(a.figures.pages_measured, 3);
      assert.deepEqual(a.figures.largest_contentful_paint, { good: 1, needs_improvement: 1, poor: 1, median: 3100, p75: 4600 });
      assert.equal(a.figures.total_blocking_time.poor, 1);
      assert.deepEqual(a.figures.grades, { A: 2, E: 1 });
      assert.equal(a.figures.worst_pages[0].url, site.url('/faulty'));
      assert.ok(a.finished >= a.created);
      // A process that listed the scan while it ran, and finishes it after another did, finishes nothing (it counted a
      // second completion: scan-alerts.test's "complete it once", seen once in CI).
      assert.equal(await finishScan({ store, artifacts }, scan.id), false, 'a completed scan is not finished again');
      const after = (await call(server, 'GET', `/scans/${scan.id}`, { key })).body.data.attributes;
      assert.deepEqual([after.finished, after.figures], [a.finished, a.figures], 'and it stays as it was');

      const slowest = await call(server, 'GET', `/scans/${scan.id}/pages?sort=-largest_contentful_paint`, { key });
      assert.equal(slowest.status, 200, slowest.text);
      assert.deepEqual(slowest.body.data.map((p: any) => new URL(p.attributes.url).pathname), ['/faulty', '/gallery', '/', '/paint']);
      assert.equal(slowest.body.data[0].attributes.report, slowest.body.data[0].id);
      const failed = await call(server, 'GET', `/scans/${scan.id}/pages?filter[state]=failed`, { key });
      assert.equal(failed.body.data.length, 1);
      assert.match(failed.body.data[0].attributes.error, /crashed/);
      const badSort = await call(server, 'GET', `/scans/${scan.id}/pages?sort=colour`, { key });
      assert.equal(badSort.status, 400);

      const csv = await call(server, 'GET', `/scans/${scan.id}/pages.csv`, { key });
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type') ?? '', /text\/csv/);
      const lines = csv.text.trim().split('\r\n');
      assert.equal(lines.length, 5);
      assert.match(lines[0]!, /^url,template,position,state,error,test,report,grade,performance_score/);
      const json = await call(server, 'GET', `/scans/${scan.id}/pages.json`, { key });
      assert.equal(json.body.pages.length, 4);
      assert.equal(json.body.site, site.origin);
      const list = await call(server, 'GET', '/scans?filter[state]=completed', { key });
      assert.deepEqual(list.body.data.map((s: any) => s.id), [scan.id]);
    });

    test('a scan per device: siblings that link each other, their pages tested as each device, figures, history, comparison and alerts per device', async () => {
      const key = await server.account({ plan: 'pro' });
      const { db } = server.app.store;
      const before = await creditsOf(server, key);
      // Every device's condition, and one of the phone's alone.
      const lcpOver = [{ figure: 'lcp_p75', operator: 'gt', value: 2500 }, { figure: 'lcp_p75', operator: 'gt', value: 3450, device: 'phone' }];
      const startBoth = async () => {
        const res = await call(server, 'POST', '/scans', { key, body: scanBody({ url: site.url('/'), source: 'list', urls: ['/', '/gallery'], max_pages: 2,
          report: 'none', location: '1', devices: ['desktop', 'phone'], alert_conditions: lcpOver }) });
        assert.equal(res.status, 202, res.text);
        return res;
      };
      const res = await startBoth();
      const [desktop, phone] = [res.body.data, res.body.included?.[0]];
      assert.deepEqual([desktop.attributes.device_class, phone?.attributes.device_class], ['desktop', 'phone-mid'], '"phone" is a mid-tier phone');
      assert.equal(res.headers.get('location'), desktop.links.self);
      assert.deepEqual(res.body.meta.scans, [desktop.id, phone.id]);
      assert.ok(desktop.attributes.scan_set && desktop.attributes.scan_set === phone.attributes.scan_set);
      assert.deepEqual(desktop.attributes.siblings, [{ scan: phone.id, device_class: 'phone-mid', state: 'discovering' }]);
      assert.equal(phone.links['sibling_desktop'], `${server.api}/scans/${desktop.id}`);
      assert.deepEqual(desktop.relationships.siblings.data, [{ type: 'scan', id: phone.id }], 'included is linked from the scan');
      // Both devices' pages reserved: 2 devices × 2 pages × 0.6 credits.
      assert.equal(res.body.meta.credits_reserved, 2.4);
      assert.equal(res.body.meta.credits_left, Math.round((before - 2.4) * 10) / 10);
      for (const id of [desktop.id, phone.id]) await waitForScan(server, key, id, (s) => s === 'running');

      // Each page is tested once per device, as that device: two pages of each URL.
      const tests = await db.selectFrom('tests').select(['scan_id', 'url', 'options', 'fingerprint']).where('scan_id', 'in', [desktop.id, phone.id]).execute();
      assert.equal(tests.length, 4);
      for (const t of tests) assert.equal(JSON.parse(t.options).device_class, t.scan_id === phone.id ? 'phone-mid' : undefined, t.options);
      assert.equal(new Set(tests.map((t) => t.fingerprint)).size, 4, 'a URL\'s desktop and phone tests are two pages');

      const lcp = (v: number) => ({ '/': { largest_contentful_paint: v }, '/gallery': { largest_contentful_paint: v } });
      await completeScan(server, desktop.id, lcp(1200));
      await completeScan(server, phone.id, lcp(3400));
      const d1 = await waitForScan(server, key, desktop.id, (s) => s === 'completed');
      const p1 = await waitForScan(server, key, phone.id, (s) => s === 'completed');
      assert.deepEqual([d1.attributes.figures.largest_contentful_paint.p75, p1.attributes.figures.largest_contentful_paint.p75], [1200, 3400]);
      assert.deepEqual([d1.attributes.alerts[0].holds, p1.attributes.alerts[0].holds], [false, true]);
      assert.deepEqual([d1.attributes.alerts[0].change, p1.attributes.alerts[0].change], [null, 'triggered']);
      assert.deepEqual([d1.attributes.alerts.length, p1.attributes.alerts.length], [1, 2], 'the phone\'s condition is judged on its scan alone');
      assert.deepEqual([p1.attributes.alerts[1].device, p1.attributes.alerts[1].holds], ['phone-mid', false]);
      assert.deepEqual(d1.attributes.alert_conditions, [lcpOver[0]].map((c) => ({ kind: 'figure', ...c })), 'each scan lists the conditions judged on it');
      assert.equal(p1.attributes.siblings[0].state, 'completed');

      // The next request's scans: each compared, charted and alerted on with the same device's earlier scan only.
      const again = await startBoth();
      const [desktop2, phone2] = [again.body.data.id as string, again.body.included[0].id as string];
      for (const id of [desktop2, phone2]) await waitForScan(server, key, id, (s) => s === 'running');
      await completeScan(server, desktop2, lcp(1300));
      await completeScan(server, phone2, lcp(3500));
      const p2 = await waitForScan(server, key, phone2, (s) => s === 'completed');
      assert.equal(p2.attributes.alerts[0].previous_scan, phone.id);
      assert.equal(p2.attributes.alerts[0].change, null, 'it held on the phone\'s previous scan too (the desktop\'s did not)');
      assert.deepEqual([p2.attributes.alerts[1].holds, p2.attributes.alerts[1].change, p2.attributes.alerts[1].previous_scan], [true, 'triggered', phone.id]);
      const last = await call(server, 'GET', `/scans/${phone2}/compare/last`, { key });
      assert.equal(last.status, 200, last.text);
      assert.deepEqual([last.body.data.attributes.before.scan, last.body.data.attributes.before.device_class], [phone.id, 'phone-mid']);
      const history = await call(server, 'GET', `/scans/${desktop2}/history`, { key });
      assert.deepEqual(history.body.data.map((h: any) => [h.attributes.scan, h.attributes.lcp_p75]), [[desktop.id, 1200], [desktop2, 1300]]);
      assert.equal(history.body.meta.device_class, 'desktop');
      const across = await call(server, 'GET', `/scans/${desktop.id}/compare/${phone2}`, { key });
      assert.equal(across.status, 400, across.text);
      assert.equal(errorOf(across).code, 'E40003');
      assert.match(errorOf(across).detail!, /ran as desktop and scan .* as phone-mid: a site's figures are compared between scans of the same device/);
      // The app says the same, at the same status: a 400 screen, no comparison.
      const web = webSession(server);
      const cookie = await web.signIn(key);
      const screen = await web.get(cookie, `/scans/${desktop.id}/compare/${phone2}`);
      assert.equal(screen.status, 400, screen.html.slice(0, 300));
      assert.match(screen.html, /compared between scans of the same device/);
      const shown = await web.get(cookie, `/scans/${phone.id}`);
      assert.match(shown.html, /<p class="muted scan-facts">Phone \(mid-tier\) · /);
      assert.match(shown.html, new RegExp(`<a href="/scans/${desktop.id}">Desktop</a>`), 'the phone\'s screen links its desktop sibling');
      const phones = await call(server, 'GET', '/scans?filter[device_class]=phone-mid', { key });
      assert.deepEqual(phones.body.data.map((x: any) => x.id).sort(), [phone.id, phone2].sort());
      const json = await call(server, 'GET', `/scans/${phone.id}/pages.json`, { key });
      assert.equal(json.body.device_class, 'phone-mid');

      // One account never sees another's: the sibling is a 404 there too.
      const other = await server.account({ plan: 'pro' });
      assert.equal((await call(server, 'GET', `/scans/${phone.id}`, { key: other })).status, 404);
      assert.equal((await call(server, 'GET', `/scans/${phone.id}/compare/last`, { key: other })).status, 404);
    });

    test('bad devices are refused with what to fix, and nothing is created or charged', async () => {
      const key = await server.account({ plan: 'basic' });
      const before = await creditsOf(server, key);
      const list = { url: site.url('/'), source: 'list', urls: ['/', '/gallery', '/paint'], max_pages: 3 };
      const cases: [Record<string, unknown>, number, string, RegExp][] = [
        [{ ...list, devices: ['tablet'] }, 400, 'E40004', /devices\[0\] "tablet" is no device class; use desktop, phone-mid, phone-low or phone \(phone-mid\)/],
        [{ ...list, devices: ['desktop', 'watch', 7] }, 400, 'E40004', /2 entries of devices are refused: devices\[1\] "watch" .*; devices\[2\] 7 is no device class/],
        [{ ...list, devices: [] }, 400, 'E40004', /devices is empty/],
        [{ ...list, devices: 'desktop' }, 400, 'E40004', /devices must be an array/],
        [{ ...list, devices: ['phone', 'phone-mid'] }, 400, 'E40004', /devices\[1\] "phone-mid" is phone-mid, already listed/],
        [{ ...list, devices: ['desktop', 'phone-mid'], device_class: 'phone-mid' }, 400, 'E40004', /device_class and devices were both given/],
        [{ ...list, devices: ['desktop', 'phone-low'], browser: '1', report: 'none' }, 400, 'E40004', /devices\[1\] "phone-low": .*phone's CPU/],
        [{ ...list, devices: ['desktop', 'phone'], alert_conditions: [{ kind: 'pages_worse', device: 'phone-low' }] }, 400, 'E40004',
          /alert_conditions\[0\]\.device "phone-low" is not scanned: this request scans desktop, phone-mid/],
        [{ ...list, alert_conditions: [{ kind: 'pages_worse' }, { kind: 'pages_worse', device: 'phone' }] }, 400, 'E40004',
          /alert_conditions\[1\]\.device "phone-mid" is not scanned: this request scans desktop/],
        // 3 pages a device of a lighthouse test (1 credit each): one device's 3 credits fit the basic plan's 5, two devices' 6 do not.
        [{ ...list, devices: ['desktop', 'phone-mid'] }, 402, 'E40201', /These 2 scans \(desktop, phone-mid: max_pages 3 each, 1 \+ 1 credits a page, reserved now/],
      ];
      for (const [attributes, status, code, detail] of cases) {
        const r = await call(server, 'POST', '/scans', { key, body: scanBody(attributes) });
        assert.equal(r.status, status, `${JSON.stringify(attributes)}: ${r.text}`);
        assert.equal(errorOf(r).code, code);
        assert.match(errorOf(r).detail ?? '', detail);
      }
      assert.equal((await call(server, 'GET', '/scans', { key })).body.data.length, 0);
      assert.equal(await creditsOf(server, key), before);
    });

    test('two scans of the same pages compared: a slower page worse by a threshold, one tested over runs, new and gone pages, a note for the throttle; 404 for another account', async () => {
      const key = await server.account({ plan: 'pro' });
      const start = async (urls: string[], extra: Record<string, unknown> = {}) =>
        (await startListScan(server, key, site.url('/'), urls, extra)).id as string;
      const first = await start(['/', '/gallery', '/paint', '/faulty']);
      // The "last" of a scan still running: nothing to compare until it has completed.
      const running = await call(server, 'GET', `/scans/${first}/compare/last`, { key });
      assert.equal(running.status, 400, running.text);
      assert.equal(errorOf(running).code, 'E40003');
      assert.match(errorOf(running).detail!, /is still running \(0 of 4 pages finished\): compare it once it has completed/);
      await completeScan(server, first, { '/': { largest_contentful_paint: 1000 }, '/gallery': { largest_contentful_paint: 1800 },
        '/paint': { largest_contentful_paint: 900 }, '/faulty': { largest_contentful_paint: 2000 } }, { '/': fiveRuns(1000) });
      await waitForScan(server, key, first, (s) => s === 'completed');
      const rows = await server.app.store.db.selectFrom('scan_pages').select(['url', 'run_values', 'lighthouse_version']).where('scan_id', '=', first).execute();
      const home = rows.find((r) => r.url === site.url('/'))!;
      assert.deepEqual(JSON.parse(home.run_values!).largest_contentful_paint, [1000, 1020, 1040, 1060, 1080], 'the kept runs\' values are kept with the page');
      assert.equal(home.lighthouse_version, '13.5.0');
      assert.equal(rows.find((r) => r.url === site.url('/paint'))!.run_values, null, 'a page loaded once has none');

      const second = await start(['/', '/gallery', '/paint', '/landing'], { throttle: '5000/1000/30' });
      await completeScan(server, second, { '/': { largest_contentful_paint: 1400 }, '/gallery': { largest_contentful_paint: 2900, service_grade: 'D' },
        '/paint': { largest_contentful_paint: 1100 }, '/landing': { largest_contentful_paint: 1200 } }, { '/': fiveRuns(1400) });
      await waitForScan(server, key, second, (s) => s === 'completed');

      const res = await call(server, 'GET', `/scans/${first}/compare/${second}`, { key });
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers.get('content-type') ?? '', /^application\/vnd\.api\+json/);
      const c = res.body.data;
      assert.equal(c.type, 'scan-comparison');
      assert.equal(c.links.before, `${server.api}/scans/${first}`);
      const a = c.attributes;
      assert.deepEqual([a.before.scan, a.after.scan, a.before.options.throttle, a.after.options.throttle], [first, second, null, '5000/1000/30']);
      assert.equal(a.notes.length, 1, JSON.stringify(a.notes));
      assert.match(a.notes[0], /different options: throttle not set → 5000\/1000\/30/);
      assert.deepEqual(a.counts, { matched: 3, worse: 2, better: 0, unchanged: 1, new: 1, gone: 1, failed: 0 });
      const byPath = Object.fromEntries(a.pages.map((p: any) => [new URL(p.url).pathname, p]));
      assert.deepEqual(a.pages.map((p: any) => new URL(p.url).pathname), ['/gallery', '/', '/paint'], 'the most reasons first');
      const gallery = byPath['/gallery'];
      assert.equal(gallery.verdict, 'worse');
      assert.equal(gallery.basis, 'threshold');
      assert.deepEqual(gallery.reasons.map((r: any) => `${r.basis}: ${r.text} (${r.why})`),
        ['threshold: grade A → D (3 letters down, threshold 2 letters)', 'threshold: LCP 1.80 s → 2.90 s (+1.10 s, threshold 500 ms)']);
      assert.ok(gallery.before.report && gallery.after.report && gallery.before.report !== gallery.after.report, 'each side links its report');
      const home2 = byPath['/'];
      assert.equal(home2.verdict, 'worse', 'LCP +400 ms: under the threshold, but five runs a side show it');
      assert.equal(home2.basis, 'test');
      assert.equal(home2.reasons[0].basis, 'test');
      assert.ok(home2.reasons[0].p < 0.05);
      assert.equal(byPath['/paint'].verdict, 'unchanged', '+200 ms of one run is under the threshold');
      assert.deepEqual(a.new_pages.map((p: any) => new URL(p.url).pathname), ['/landing']);
      assert.deepEqual(a.gone_pages.map((p: any) => new URL(p.url).pathname), ['/faulty']);
      assert.equal(a.figures.before.pages_measured, 4);
      assert.equal(a.figures.after.pages_measured, 4);
      assert.ok(a.site_figures.some((r: any) => r.figure === 'lcp_median'));

      // "last": the account's previous completed scan of the site and source; none before the first.
      const last = await call(server, 'GET', `/scans/${second}/compare/last`, { key });
      assert.equal(last.status, 200, last.text);
      assert.deepEqual([last.body.data.attributes.before.scan, last.body.data.attributes.after.scan], [first, second]);
      const none = await call(server, 'GET', `/scans/${first}/compare/last`, { key });
      assert.equal(none.status, 404, none.text);
      assert.match(errorOf(none).detail!, /No completed scan of .* started before scan/);

      const stranger = await server.account({ plan: 'pro' });
      for (const path of [`/scans/${first}/compare/${second}`, `/scans/${second}/compare/last`]) {
        const r = await call(server, 'GET', path, { key: stranger });
        assert.equal(r.status, 404, path);
        assert.equal(errorOf(r).code, 'E40400');
      }
      const same = await call(server, 'GET', `/scans/${first}/compare/${first}`, { key });
      assert.equal(same.status, 400);
    });
  });
}
