// lane: alone
/**
 * The end-to-end flow through the HTTP API with a real Chromium run: start a test of the fixture page, poll it,
 * read the report and every resource, and check the numbers against what the fixture page really does.
 * One full run, on the first engine; every assertion below shares it, on each engine: the later engine's agent is
 * handed that same load's result (test/helpers/replayed-loads.ts), so what the store does with it is checked there
 * too, and the numbers are the same truths. The failing page is loaded once the same way; the retest, about the
 * queue and the page it reuses, completes with a stub result (test/helpers/stub-result.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { call, engines, errorOf, startServer, waitForTest, type Res, type TestServer } from '../helpers/server.js';
import { isInt } from '../helpers/assertions.js';
import { stubResult } from '../helpers/stub-result.js';
import { replayedLoads } from '../helpers/replayed-loads.js';
import type { RunSpec } from '../../src/runner/types.js';

/** One fixture site for both engines: the later engine's replayed loads are of its URLs. */
let site: FixtureSite;
before(async () => {
  site = await startFixtureSite();
});
const loads = replayedLoads();
after(async () => {
  await site?.close();
  process.stderr.write(`[flow] page loads: ${loads.counts.real} real, ${loads.counts.replayed} replayed\n`);
});

for (const engine of engines()) {
  describe(`a real test of the fixture page (${engine})`, () => {
    let server: TestServer;
    let started: Res;
    let done: Res;
    let report: Res;
    let testId: string;
    let turnaroundMs = 0;
    /** Tests whose load is a stub result, and the stub loads made. */
    const stubbed = new Set<string>();
    let stubLoads = 0;
    const load = loads.runFor(engine);
    const run = async (spec: RunSpec) => {
      if (!stubbed.has(spec.options.url)) return load(spec);
      stubLoads++;
      return stubResult(spec.options.url);
    };

    before(async () => {
      // The real runner, with the browsers launched ahead as without the wrapper (where it loads pages).
      server = await startServer({ engine, agentSlots: 1, overrides: { run, launchAhead: loads.loadsOn(engine) } });
      const t0 = Date.now();
      started = await call(server, 'POST', '/tests', {
        key: server.key,
        body: { data: { type: 'test', attributes: { url: site.url('/'), cookies: 'session=secret-cookie-value' } } },
      });
      assert.equal(started.status, 202, started.text);
      testId = started.body.data.id;
      done = await waitForTest(server, server.key, testId);
      report = await call(server, 'GET', `/reports/${testId}`, { key: server.key });
      turnaroundMs = Date.now() - t0;
      process.stderr.write(`[${engine}] fixture test turnaround (POST to report): ${turnaroundMs} ms\n`);
    });

    after(async () => {
      await server?.close();
    });

    it('a completed test answers 303 with a body that stands alone', () => {
      assert.equal(done.status, 303, done.text);
      assert.equal(done.headers.get('location'), `${server.api}/reports/${testId}`);
      assert.equal(done.headers.get('retry-after'), null);
      const a = done.body.data.attributes;
      assert.equal(done.body.data.type, 'test');
      assert.equal(a.state, 'completed');
      assert.equal(a.report, testId, 'the report ID equals the test ID');
      assert.ok(isInt(a.finished) && isInt(a.started) && isInt(a.created));
      assert.ok(a.finished >= a.started && a.started >= a.created);
      assert.equal(done.body.data.links.report.split('/').pop(), testId);
      assert.equal(typeof a.page, 'string');
    });

    it('the report carries every attribute with the JSON types clients need', () => {
      assert.equal(report.status, 200, report.text);
      assert.equal(report.headers.get('cache-control'), 'max-age=31536000');
      const a = report.body.data.attributes;
      assert.equal(report.body.data.type, 'report');
      assert.equal(a.url, site.url('/'));
      assert.equal(a.page, done.body.data.attributes.page);
      assert.equal(a.test, testId);
      assert.equal(a.source, 'api');
      assert.deepEqual(a.page_tags, []);
      assert.equal(a.browser, '3');
      assert.equal(a.location, '1');
      for (const k of [
        'created', 'expires', 'service_score', 'performance_score', 'structure_score', 'html_bytes', 'page_bytes',
        'page_requests', 'redirect_duration', 'connect_duration', 'backend_duration', 'time_to_first_byte',
        'first_paint_time', 'first_contentful_paint', 'dom_interactive_time', 'dom_content_loaded_time',
        'dom_content_loaded_duration', 'onload_time', 'onload_duration', 'fully_loaded_time', 'rum_speed_index',
        'speed_index', 'largest_contentful_paint', 'time_to_interactive', 'total_blocking_time',
      ]) {
        assert.ok(isInt(a[k]), `${k} should be an integer, got ${JSON.stringify(a[k])}`);
      }
      assert.equal(typeof a.cumulative_layout_shift, 'number');
      assert.match(a.service_grade, /^[A-F]$/);
      assert.equal(a.gtmetrix_grade, a.service_grade);
      assert.equal(a.gtmetrix_score, a.service_score);
      assert.equal(a.service_score, Math.round(0.6 * a.performance_score + 0.4 * a.structure_score));
      // One month retention by default.
      assert.ok(a.expires - a.created >= 28 * 86400 && a.expires - a.created <= 31 * 86400);
    });

    it("the report's timings match what the fixture page really does", () => {
      const a = report.body.data.attributes;
      // Server delay of the HTML: 400 ms (tolerance: +300 ms for a loaded 2-core machine).
      assert.ok(a.backend_duration >= FIXTURE.htmlDelayMs - 5 && a.backend_duration < FIXTURE.htmlDelayMs + 300, `backend ${a.backend_duration}`);
      assert.ok(a.time_to_first_byte >= a.backend_duration, `ttfb ${a.time_to_first_byte}`);
      // DOMContentLoaded handler busy-waits 250 ms; onload handler 100 ms (tolerance +80 ms).
      assert.ok(a.dom_content_loaded_duration >= FIXTURE.domContentLoadedCostMs - 2 && a.dom_content_loaded_duration < FIXTURE.domContentLoadedCostMs + 80, `dcl duration ${a.dom_content_loaded_duration}`);
      assert.ok(a.onload_duration >= FIXTURE.onloadCostMs - 2 && a.onload_duration < FIXTURE.onloadCostMs + 80, `onload duration ${a.onload_duration}`);
      // The stylesheet arrives 300 ms after it is asked for, so nothing paints before HTML delay + CSS delay.
      assert.ok(a.first_contentful_paint >= FIXTURE.htmlDelayMs + FIXTURE.cssDelayMs, `fcp ${a.first_contentful_paint}`);
      assert.ok(a.dom_content_loaded_time >= a.dom_interactive_time && a.onload_time >= a.dom_content_loaded_time);
      // A request fired 600 ms after onload: fully loaded is after it.
      assert.ok(a.fully_loaded_time >= a.onload_time + FIXTURE.lateRequestDelayMs, `fully loaded ${a.fully_loaded_time} vs onload ${a.onload_time}`);
      assert.ok(a.fully_loaded_time < a.onload_time + FIXTURE.lateRequestDelayMs + 1000, `fully loaded ${a.fully_loaded_time}`);
      assert.equal(a.redirect_duration, 0);
      assert.ok(a.rum_speed_index >= a.first_paint_time - 50 && a.rum_speed_index <= a.onload_time + 1000, `rum si ${a.rum_speed_index}`);
    });

    it("the report's sizes match the fixture's bytes", () => {
      const a = report.body.data.attributes;
      assert.equal(a.page_requests, FIXTURE.mainPageRequests);
      // Bodies are exact; each response adds at most maxResponseHeaderBytes of headers.
      assert.ok(a.html_bytes >= FIXTURE.htmlBytes && a.html_bytes <= FIXTURE.htmlBytes + FIXTURE.maxResponseHeaderBytes, `html ${a.html_bytes}`);
      const body = FIXTURE.mainPageBodyBytes;
      assert.ok(a.page_bytes >= body && a.page_bytes <= body + FIXTURE.mainPageRequests * FIXTURE.maxResponseHeaderBytes, `page ${a.page_bytes} vs ${body}`);
    });

    it('the report links only to resources that exist, all absolute', async () => {
      const l = report.body.data.links;
      for (const k of ['analysis_options', 'har', 'report_url', 'screenshot', 'filmstrip', 'lighthouse', 'report_pdf',
        'report_pdf_full', 'optimized_images', 'resource_summary']) {
        assert.ok(typeof l[k] === 'string' && l[k].startsWith('http://127.0.0.1:'), `link ${k}: ${l[k]}`);
      }
      // No video was asked for; no legacy report was made.
      for (const k of ['video', 'pagespeed', 'yslow', 'pagespeed_files']) assert.equal(l[k], undefined, k);
    });

    it('serves the Lighthouse JSON, by name and by alias', async () => {
      for (const name of ['lighthouse.json', 'lighthouse']) {
        const res = await call(server, 'GET', `/reports/${testId}/resources/${name}`, { key: server.key });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(res.headers.get('cache-control'), 'max-age=31536000');
        assert.equal(Math.round(res.body.categories.performance.score * 100), report.body.data.attributes.performance_score);
        const audit = res.body.audits['first-contentful-paint'];
        for (const f of ['score', 'scoreDisplayMode', 'title', 'description', 'displayValue']) assert.ok(f in audit, f);
        assert.equal(res.body.configSettings.throttlingMethod, 'provided', 'observed, not simulated');
      }
    });

    it('serves a HAR with the fields clients read and no cookie or credential values', async () => {
      const res = await call(server, 'GET', `/reports/${testId}/resources/net.har`, { key: server.key });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const entries = res.body.log.entries;
      assert.equal(entries.length, FIXTURE.mainPageRequests);
      for (const e of entries) {
        assert.equal(typeof e.time, 'number');
        assert.equal(typeof e.request.url, 'string');
        assert.equal(typeof e.response.bodySize, 'number');
        assert.equal(typeof e.response._transferSize, 'number');
        assert.equal(typeof e.response.content.size, 'number');
      }
      assert.ok(entries.some((e: any) => e.request.url.endsWith('/late.json')), 'the request after onload is in the HAR');
      assert.ok(!res.text.includes('secret-cookie-value'), 'cookie values are scrubbed from the HAR');
      const alias = await call(server, 'GET', `/reports/${testId}/resources/har`, { key: server.key });
      assert.equal(alias.status, 200);
    });

    it('serves the screenshot and a filmstrip whose frames line up with first paint', async () => {
      const shot = await fetch(`${server.api}/reports/${testId}/resources/screenshot.jpg`, {
        headers: { authorization: `Basic ${Buffer.from(`${server.key}:`).toString('base64')}` },
      });
      assert.equal(shot.status, 200);
      assert.equal(shot.headers.get('content-type'), 'image/jpeg');
      const jpeg = Buffer.from(await shot.arrayBuffer());
      assert.equal(jpeg.readUInt16BE(0), 0xffd8);

      const film = await call(server, 'GET', `/reports/${testId}/resources/filmstrip.json`, { key: server.key });
      assert.equal(film.status, 200);
      const frames = film.body.frames;
      assert.ok(frames.length >= 2, `frames: ${frames.length}`);
      for (let i = 1; i < frames.length; i++) assert.ok(frames[i].timestamp >= frames[i - 1].timestamp);
      assert.ok(frames[0].timestamp < report.body.data.attributes.first_contentful_paint, 'a frame before first paint');
      assert.equal(frames[0].data, undefined);

      const b64 = await call(server, 'GET', `/reports/${testId}/resources/filmstrip.json?base64=1`, { key: server.key });
      const data = Buffer.from(b64.body.frames[0].data, 'base64');
      assert.equal(data.readUInt16BE(0), 0xffd8);

      const frame = await fetch(`${frames[frames.length - 1].url}`, {
        headers: { authorization: `Basic ${Buffer.from(`${server.key}:`).toString('base64')}` },
      });
      assert.equal(frame.status, 200);
      assert.equal(frame.headers.get('content-type'), 'image/jpeg');
      const noId = await call(server, 'GET', `/reports/${testId}/resources/filmstrip-frame.jpg`, { key: server.key });
      assert.equal(errorOf(noId).code, 'E40001');
      const badId = await call(server, 'GET', `/reports/${testId}/resources/filmstrip-frame.jpg?id=9999`, { key: server.key });
      assert.equal(badId.status, 404);
      assert.equal(errorOf(badId).code, 'E40409');
    });

    it('serves the analysis options with the cookies the test was given', async () => {
      const res = await call(server, 'GET', `/reports/${testId}/resources/analysis-options`, { key: server.key });
      assert.equal(res.status, 200);
      assert.equal(res.body.url, site.url('/'));
      assert.deepEqual(res.body.cookies, ['session=secret-cookie-value']);
      assert.equal(res.body.report, 'lighthouse');
    });

    it('answers the spec codes for resources this report does not have', async () => {
      const cases: [string, number, string][] = [
        ['video.mp4', 404, 'E40407'],
        ['pagespeed.json', 404, 'E40413'],
        ['yslow.json', 404, 'E40414'],
        ['pagespeed-files.tar', 404, 'E40415'],
        ['no-such-thing', 400, 'E40001'],
      ];
      for (const [name, status, code] of cases) {
        const res = await call(server, 'GET', `/reports/${testId}/resources/${name}`, { key: server.key });
        assert.equal(res.status, status, name);
        assert.equal(errorOf(res).code, code, name);
      }
    });

    it('another account sees none of it (404, not 403)', async () => {
      const other = await server.account({ plan: 'pro' });
      assert.equal((await call(server, 'GET', `/tests/${testId}`, { key: other })).status, 404);
      assert.equal(errorOf(await call(server, 'GET', `/reports/${testId}`, { key: other })).code, 'E40401');
      assert.equal(errorOf(await call(server, 'GET', `/reports/${testId}/resources/net.har`, { key: other })).code, 'E40401');
      assert.equal(errorOf(await call(server, 'DELETE', `/reports/${testId}`, { key: other })).code, 'E40401');
    });

    it('the report page is readable without the API key at its unguessable URL', async () => {
      const url = report.body.data.links.report_url;
      const page = await fetch(url);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.ok(html.includes(site.url('/')));
      assert.ok(html.includes(`>${report.body.data.attributes.service_grade}<`));
      const shot = await fetch(`${url}/screenshot.jpg`);
      assert.equal(shot.status, 200);
      assert.equal(shot.headers.get('content-type'), 'image/jpeg');
      assert.equal((await fetch(url.replace(testId, 'nosuchreport'))).status, 404);
    });

    it('a page that fails to load ends the test in error with a message the user can act on, and refunds it', async () => {
      const before = (await call(server, 'GET', '/status', { key: server.key })).body.data.attributes.api_credits;
      const res = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: { url: site.url('/status/404') } } } });
      assert.equal(res.status, 202);
      const failed = await waitForTest(server, server.key, res.body.data.id);
      assert.equal(failed.status, 200);
      assert.equal(failed.body.data.attributes.state, 'error');
      assert.match(failed.body.data.attributes.error, /404/);
      assert.ok(isInt(failed.body.data.attributes.finished));
      assert.equal(failed.headers.get('retry-after'), null);
      const afterCredits = (await call(server, 'GET', '/status', { key: server.key })).body.data.attributes.api_credits;
      assert.equal(afterCredits, before);
    });

    it('a retest queues a new test with the same settings, and deleting the report removes it', async () => {
      // The page's real load is the one above: the retest's is a stub result.
      stubbed.add(site.url('/'));
      const pageLoads = site.requests.filter((r) => r.path === '/').length;
      const retest = await call(server, 'POST', `/reports/${testId}/retest`, { key: server.key, contentType: null });
      assert.equal(retest.status, 202, retest.text);
      assert.equal(retest.headers.get('location'), retest.body.links.self);
      assert.equal(retest.body.meta.credits_used, 1);
      const second = await waitForTest(server, server.key, retest.body.data.id);
      assert.equal(second.status, 303, second.text);
      assert.equal(stubLoads, 1, 'the retest ran once, with a stub result');
      assert.equal(site.requests.filter((r) => r.path === '/').length, pageLoads);
      assert.equal(second.body.data.attributes.page, done.body.data.attributes.page, 'the same URL and options reuse the page');

      const del = await call(server, 'DELETE', `/reports/${testId}`, { key: server.key });
      assert.equal(del.status, 200);
      assert.deepEqual(del.body, { data: { type: 'report', id: testId } });
      assert.equal(errorOf(await call(server, 'GET', `/reports/${testId}`, { key: server.key })).code, 'E40401');
      assert.equal(errorOf(await call(server, 'GET', `/reports/${testId}/resources/net.har`, { key: server.key })).code, 'E40401');
      assert.equal((await fetch(report.body.data.links.report_url)).status, 404);
    });
  });
}
