// lane: alone
/**
 * Options of POST /tests that act on the load, each checked against what the fixture server saw or what the
 * page measured, so that each test fails if its option is ignored. (runner.test.ts covers dns, cookies on the
 * tested host, user_agent, viewport/dppx/rotate, allow_url then block_url and stop_onload in one run.) Here:
 * - through the real service, in a child process whose every log line is read: simulate_device, adblock,
 *   HTTP auth and cookies (only to the tested host; never in the HAR, the public page or the logs);
 * - HTTP auth answered along the tested URL's redirects but not to a host the page navigates to (the request
 *   interceptor alone, in a plain Chromium page);
 * - the throttle's download, upload and latency, and a filmstrip that shows that same throttled load;
 * - the plan and syntax refusals of POST /tests (no browser).
 * Two Lighthouse runs and two plain page loads in all.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AD_HOST, FIXTURE, THIRD_PARTY_HOST, startFixtureSite, type FixtureSite, type RecordedRequest } from '../fixtures/site/server.js';
import { call, errorOf, startServer, type TestServer } from '../helpers/server.js';
import { startChildService } from '../helpers/child-service.js';
import { runTest } from '../../src/runner/run.js';
import { closeBrowser, launchBrowser } from '../../src/runner/browser.js';
import { startInterceptor } from '../../src/runner/conditions/interceptor.js';
import { ConnectionGuard } from '../../src/runner/conditions/connection-guard.js';
import { dnsOverride, overrideFor } from '../../src/net/resolve.js';
import { ALLOW_ALL, runSpec } from '../helpers/run-spec.js';
import { adblockEngine, adblockJudge } from '../../src/runner/conditions/adblock.js';
import { loadConfig } from '../../src/config.js';
import type { RunResult } from '../../src/runner/types.js';
import type { AnalysisOptions } from '../../src/core/options/analysis-options.js';
import { luminance } from '../helpers/images.js';

const CHROME = process.env.WEBGAUGE_CHROME_PATH ?? '/usr/bin/chromium';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let site: FixtureSite;
before(async () => {
  site = await startFixtureSite();
});
after(async () => {
  await site.close();
});

describe('device, adblock, HTTP auth and cookies through the service (its logs read)', () => {
  const host = () => `fixture.test:${site.port}`;
  const thirdParty = () => `${THIRD_PARTY_HOST}:${site.port}`;
  const cookieValue = 'cookie-secret-value-4711';
  let dataDir: string;
  let service: Awaited<ReturnType<typeof startChildService>>;
  let seen: RecordedRequest[];
  let report: any;
  let harText: string;
  let logs: string;
  let reportPage: string;
  let analysisOptions: any;
  let lighthouse: any;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'webgauge-options-'));
    service = await startChildService(dataDir);
    const from = site.requests.length;
    const started = await call(service, 'POST', '/tests', {
      key: service.key,
      body: { data: { type: 'test', attributes: {
        url: `http://${host()}/options-probe`,
        dns: [`fixture.test:127.0.0.1`, `${THIRD_PARTY_HOST}:127.0.0.1`, `${AD_HOST}:127.0.0.1`],
        simulate_device: 'iphone-x',
        adblock: 1,
        httpauth_username: FIXTURE.auth.username,
        httpauth_password: FIXTURE.auth.password,
        cookies: [`wg_session=${cookieValue}`],
      } } },
    });
    assert.equal(started.status, 202, started.text);
    const id = started.body.data.id;
    for (let i = 0; ; i++) {
      const res = await call(service, 'GET', `/tests/${id}`, { key: service.key });
      const state = res.body?.data?.attributes?.state;
      if (state === 'error') assert.fail(`the test failed: ${res.body.data.attributes.error}`);
      if (state === 'completed') break;
      if (i > 400) assert.fail('the test did not finish');
      await sleep(250);
    }
    seen = site.requests.slice(from);
    report = (await call(service, 'GET', `/reports/${id}`, { key: service.key })).body.data;
    harText = (await call(service, 'GET', `/reports/${id}/resources/net.har`, { key: service.key })).text;
    analysisOptions = (await call(service, 'GET', `/reports/${id}/resources/analysis-options`, { key: service.key })).body;
    lighthouse = (await call(service, 'GET', `/reports/${id}/resources/lighthouse.json`, { key: service.key })).body;
    reportPage = await (await fetch(report.links.report_url)).text();
    await service.stop();
    logs = service.output();
  });

  after(async () => {
    await service?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const onHost = (h: string) => seen.filter((r) => r.headers.host === h);
  const probe = () => {
    const pixel = onHost(host()).find((r) => r.path.startsWith('/pixel.gif'));
    assert.ok(pixel, 'the probe page reported back');
    return new URLSearchParams(pixel.path.split('?')[1]);
  };
  const credentials = () => 'Basic ' + Buffer.from(`${FIXTURE.auth.username}:${FIXTURE.auth.password}`).toString('base64');

  test('simulate_device: the page gets the device\'s viewport, pixel ratio and user agent, scored as mobile', () => {
    const q = probe();
    assert.deepEqual([q.get('sw'), q.get('sh'), q.get('dpr')], ['375', '812', '3']);
    // A phone lays out a page wider than its screen zoomed out: the probe's 480 px image + margins.
    assert.ok(Number(q.get('w')) >= 375 && Number(q.get('w')) < 1366, `layout width ${q.get('w')}`);
    assert.match(onHost(host())[0].headers['user-agent'] ?? '', /iPhone; CPU iPhone OS 11_0/);
    assert.equal(lighthouse.configSettings.formFactor, 'mobile');
    assert.equal(lighthouse.configSettings.screenEmulation.width, 375);
  });

  test('a simulated device is a mid-tier phone (issue 49): the agent\'s CPU slowed to its benchmark, slow 4G, both in the report', () => {
    const a = report.attributes;
    assert.equal(a.device_class, 'phone-mid');
    assert.equal(a.cpu_benchmark_target, 1000);
    assert.equal(a.cpu_target_reached, true, `this host's benchmark ${a.host_benchmark_index} reaches a mid-tier phone's`);
    assert.ok(a.cpu_throttling_rate > 1.2, `rate ${a.cpu_throttling_rate} for a host of benchmark ${a.host_benchmark_index}`);
    // One load, one reading: this VM's speed moves between the agent's calibration and the load (a clean-clone CI run
    // read 712 once). device-cpu.test holds the benchmark to 10 % of its target with fresh calibrations; here the
    // rate (above) must have slowed this host's load towards a mid-tier phone's, and the report say what it reached.
    assert.ok(Math.abs(a.cpu_benchmark_index - 1000) <= 350, `the benchmark under the rate, ${a.cpu_benchmark_index}, is near a mid-tier phone's 1000`);
    assert.equal(lighthouse.configSettings.throttling.cpuSlowdownMultiplier, a.cpu_throttling_rate, 'the Lighthouse JSON says the rate');
    assert.equal(lighthouse.configSettings.throttlingMethod, 'provided');
    assert.equal('device_class' in analysisOptions, false, 'the default class is not written into the options');
    // Slow 4G's 150 ms round trip: the document's request waits at least one (on loopback, unthrottled, a few ms).
    assert.ok(a.time_to_first_byte >= 150, `time to first byte ${a.time_to_first_byte} ms over slow 4G`);
    assert.match(reportPage, /device <b>Phone \(mid-tier\)<\/b>, CPU slowed [\d.]+× to benchmark \d+/);
    assert.match(reportPage, /1600 Kbit\/s down, 750 Kbit\/s up, 150 ms latency \(the device&#39;s default: slow 4G\)|the device's default: slow 4G/);
  });

  test('adblock: requests the filter list blocks never reach a server, the rest of the page loads', () => {
    assert.equal(seen.filter((r) => r.headers.host?.startsWith(AD_HOST)).length, 0, 'the ad host (||doubleclick.net^)');
    const paths = onHost(host()).map((r) => r.path);
    assert.ok(!paths.includes('/pagead/show_ads.js'), 'a first-party ad script (/pagead/show_ads.js)');
    assert.ok(!paths.includes('/ads/banner/728x90.gif'), 'a first-party banner (/ads/banner/*)');
    assert.ok(paths.includes('/style.css') && paths.includes('/image.jpg'), 'the page itself loaded');
    assert.ok(onHost(thirdParty()).some((r) => r.path === '/third-pixel.gif'), 'a third party that is no ad loaded');
  });

  test('HTTP auth is answered for the tested host only: a third party that asks gets nothing', () => {
    assert.ok(onHost(host()).some((r) => r.path === '/options-probe' && r.headers.authorization === credentials()));
    const asked = onHost(thirdParty()).filter((r) => r.path === '/auth-frame');
    assert.ok(asked.length >= 1, 'the third party\'s frame asked');
    for (const r of onHost(thirdParty())) assert.equal(r.headers.authorization, undefined, r.path);
  });

  test('cookies are sent to the tested site only', () => {
    const main = onHost(host()).filter((r) => r.path === '/options-probe');
    assert.ok(main.length > 0 && main.every((r) => r.headers.cookie?.includes(`wg_session=${cookieValue}`)));
    assert.equal(probe().get('cookie'), `wg_session=${cookieValue}`);
    for (const r of onHost(thirdParty())) assert.ok(!r.headers.cookie?.includes(cookieValue), r.path);
  });

  test('credentials and cookie values are in no HAR, public page or log line; analysis-options keeps them', () => {
    const secrets = [FIXTURE.auth.password, credentials().slice(6), cookieValue];
    for (const secret of secrets) {
      assert.ok(!harText.includes(secret), `HAR holds ${secret}`);
      assert.ok(!reportPage.includes(secret), `public page holds ${secret}`);
      assert.ok(!logs.includes(secret), `logs hold ${secret}`);
    }
    assert.ok(logs.split('\n').filter((l) => l.startsWith('{')).length > 10, 'the service did log (at trace level)');
    assert.match(logs, /test completed/);
    assert.equal(analysisOptions.httpauth_password, FIXTURE.auth.password);
    assert.deepEqual(analysisOptions.cookies, [`wg_session=${cookieValue}`]);
    assert.equal(report.attributes.fully_loaded_time > 0, true);
  });
});

describe('HTTP auth is answered for the tested host and its redirects, not for a page the site navigates to', () => {
  // The request interceptor alone, in a plain Chromium page: no Lighthouse run is needed for this.
  const auth = { username: FIXTURE.auth.username, password: FIXTURE.auth.password };
  const credentials = 'Basic ' + Buffer.from(`${auth.username}:${auth.password}`).toString('base64');

  async function load(url: string, until: (seen: RecordedRequest[]) => boolean): Promise<RecordedRequest[]> {
    const from = site.requests.length;
    const guard = await ConnectionGuard.start({ policy: ALLOW_ALL,
      dns: ['fixture.test:127.0.0.1', 'other.test:127.0.0.1', 'third.test:127.0.0.1'].map(dnsOverride) });
    const browser = await launchBrowser({ chromePath: CHROME, protocolTimeoutMs: 30_000, flags: guard.browserFlags(),
      sameProcessFrames: true });
    try {
      const page = (await browser.pages())[0]!;
      const session = await page.createCDPSession();
      await session.send('Page.enable');
      await session.send('Network.enable');
      const mainFrameId = (await session.send('Page.getFrameTree')).frameTree.frame.id;
      await startInterceptor({ session, mainFrameId, testedUrl: url, allowUrl: [], blockUrl: [], auth });
      await session.send('Page.navigate', { url });
      for (let i = 0; i < 100 && !until(site.requests.slice(from)); i++) await sleep(50);
      await sleep(300);
      return site.requests.slice(from);
    } finally {
      await closeBrowser(browser);
      await guard.close();
    }
  }

  test('an HTTP redirect to another host that asks is answered', async () => {
    const target = `http://other.test:${site.port}/options-probe`;
    const seen = await load(`http://fixture.test:${site.port}/redirect?to=${encodeURIComponent(target)}`,
      (s) => s.some((r) => r.headers.host === `other.test:${site.port}` && r.headers.authorization !== undefined));
    assert.ok(seen.some((r) => r.headers.host === `other.test:${site.port}` && r.path === '/options-probe' &&
      r.headers.authorization === credentials));
  });

  test('a third party the page navigates to gets nothing when it asks', async () => {
    const target = `http://third.test:${site.port}/auth-frame`;
    const seen = await load(`http://fixture.test:${site.port}/leave?to=${encodeURIComponent(target)}`,
      (s) => s.some((r) => r.headers.host === `third.test:${site.port}`));
    const third = seen.filter((r) => r.headers.host === `third.test:${site.port}`);
    assert.ok(third.length >= 1, 'the page navigated to the third party, which asked');
    for (const r of third) assert.equal(r.headers.authorization, undefined);
  });
});

describe('throttle slows the load itself: download, upload and latency, and the filmstrip shows that load', () => {
  const throttle = { down: 1000, up: 192, latency: 150 };
  let result: RunResult;
  let seen: RecordedRequest[];
  let workDir: string;

  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'webgauge-throttle-'));
    const options: AnalysisOptions = {
      url: site.url('/throttle'), location: '1', browser: '3', report: 'lighthouse', retention: 1, adblock: 0, cookies: [],
      video: 0, stop_onload: 0, allow_url: [], block_url: [], dns: [], browser_rotate: 0,
      throttle: `${throttle.down}/${throttle.up}/${throttle.latency}`,
    };
    const from = site.requests.length;
    result = await runTest(runSpec(options, { testId: 'throttle', workDir, timeoutMs: 90_000 }));
    seen = site.requests.slice(from);
  });
  after(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  const entry = (path: string) => {
    const e = (result.har.log as { entries: any[] }).entries.find((x) => new URL(x.request.url).pathname === path);
    assert.ok(e, path);
    return e;
  };
  const elapsed = (e: any) => e.time + (e.timings._queued ?? 0);

  test('latency: every request waits one round trip more than the server takes', () => {
    // The page is served at once: without the throttle TTFB is a few ms.
    assert.ok(result.metrics.time_to_first_byte >= throttle.latency, `ttfb ${result.metrics.time_to_first_byte}`);
    assert.ok(elapsed(entry('/style.css')) >= FIXTURE.cssDelayMs + throttle.latency - 5, `css ${elapsed(entry('/style.css'))}`);
    assert.ok(elapsed(entry('/upload')) >= throttle.latency, 'upload');
  });

  test('download: the 32 KB image takes its size over the download speed', () => {
    const transferMs = (FIXTURE.imageBytes * 8) / throttle.down; // bits over Kbit/s: ms
    assert.ok(elapsed(entry('/image.jpg')) >= throttle.latency + transferMs * 0.9, `image ${elapsed(entry('/image.jpg'))} ms`);
  });

  test('upload: the server receives the 24 KB body at the upload speed', () => {
    const upload = seen.find((r) => r.path === '/upload');
    assert.ok(upload?.bodyMs !== undefined, 'the upload ended');
    assert.equal(upload.bodyBytes, FIXTURE.uploadBytes);
    const expected = (FIXTURE.uploadBytes * 8) / throttle.up;
    assert.ok(upload.bodyMs >= expected * 0.8, `upload took ${upload.bodyMs} ms, expected about ${expected}`);
  });

  test('the filmstrip shows the throttled load: blank until first paint, content from it', async () => {
    const { filmstrip, metrics } = result;
    // HTML and stylesheet each pay the latency before the stylesheet's own 300 ms.
    assert.ok(metrics.first_paint_time >= 2 * throttle.latency + FIXTURE.cssDelayMs, `first paint ${metrics.first_paint_time}`);
    const stamps = filmstrip.map((f) => f.timestamp).join(', ');
    const shown = (t: number) => filmstrip.filter((f) => f.timestamp <= t).pop()!;
    const firstContent = filmstrip.findIndex((f) => f.timestamp > 0);
    assert.ok(firstContent > 0, stamps);
    assert.ok(Math.abs(filmstrip[firstContent].timestamp - metrics.first_paint_time) <= 50,
      `first content frame ${filmstrip[firstContent].timestamp} vs first paint ${metrics.first_paint_time} (${stamps})`);
    assert.ok((await luminance(shown(metrics.first_paint_time - 60).jpeg)) > 240, `blank before first paint (${stamps})`);
    assert.ok((await luminance(shown(metrics.first_paint_time + 60).jpeg)) < 150, `content at first paint (${stamps})`);
  });

  test('Lighthouse is told the throttling is provided, and records its figures', () => {
    const s = (result.lighthouse as { configSettings: { throttlingMethod: string; throttling: Record<string, number> } }).configSettings;
    assert.equal(s.throttlingMethod, 'provided');
    assert.equal(s.throttling.requestLatencyMs, throttle.latency);
    assert.equal(s.throttling.downloadThroughputKbps, throttle.down);
    assert.equal(s.throttling.uploadThroughputKbps, throttle.up);
  });
});

describe('POST /tests: plans and syntax', () => {
  let server: TestServer;
  let basic: string;
  before(async () => {
    server = await startServer({ engine: 'sqlite', agentSlots: 0 });
    basic = await server.account({ plan: 'basic' });
  });
  after(async () => {
    await server.close();
  });
  const post = (key: string, attributes: Record<string, unknown>) =>
    call(server, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: site.url('/'), ...attributes } } } });

  test('a basic plan gets 400 E40004 for each pro option', async () => {
    const pro: Record<string, unknown>[] = [
      { dns: ['example.com:127.0.0.1'] }, { simulate_device: 'iphone-x' }, { user_agent: 'X' },
      { browser_width: 800, browser_height: 600 }, { browser_dppx: 2 }, { browser_rotate: 1 },
    ];
    for (const attrs of pro) {
      const res = await post(basic, attrs);
      assert.equal(res.status, 400, JSON.stringify(attrs));
      assert.equal(errorOf(res).code, 'E40004', JSON.stringify(attrs));
      assert.match(errorOf(res).detail ?? '', /pro analysis option/);
    }
    // The options every plan has are accepted (no agent runs: the tests stay queued).
    const ok = await post(basic, { adblock: 1, throttle: '5000/1000/30', cookies: 'a=b', block_url: 'ads', stop_onload: 1 });
    assert.equal(ok.status, 202, ok.text);
  });

  test('adblock: Webgauge\'s own list plus the operator\'s files (WEBGAUGE_ADBLOCK_LIST, checked at start)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'webgauge-lists-'));
    try {
      const file = join(dir, 'operator.txt');
      await writeFile(file, '! operator list\n||operator-ads.example^\n@@||doubleclick.net/allowed/\n');
      const judge = adblockJudge(adblockEngine(loadConfig({ WEBGAUGE_ADBLOCK_LIST: file }).adblockLists));
      const verdict = (url: string) => judge({ url, resourceType: 'Script', frameUrl: 'https://site.example/', mainFrame: false }).action;
      assert.equal(verdict('https://operator-ads.example/x.js'), 'block', 'the operator\'s rule');
      assert.equal(verdict('https://securepubads.g.doubleclick.net/tag/js/gpt.js'), 'block', 'our own list');
      assert.equal(verdict('https://securepubads.g.doubleclick.net/allowed/x.js'), 'allow', 'the operator\'s exception');
      assert.equal(verdict('https://site.example/app.js'), 'allow');
      assert.throws(() => loadConfig({ WEBGAUGE_ADBLOCK_LIST: join(dir, 'missing.txt') }), /WEBGAUGE_ADBLOCK_LIST: cannot read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('dns entries, wildcards included, decide where the connection guard connects', () => {
    const overrides = ['*.example.com:93.184.215.14', 'api.test:2001:db8::1'].map(dnsOverride);
    assert.equal(overrideFor(overrides, 'cdn.example.com'), '93.184.215.14');
    assert.equal(overrideFor(overrides, 'a.b.example.com'), '93.184.215.14');
    assert.equal(overrideFor(overrides, 'API.test.'), '2001:db8::1');
    assert.equal(overrideFor(overrides, 'example.com'), undefined, 'the wildcard is for subdomains');
  });

  test('browser_width and browser_height go together; bad throttle, cookie and dns syntax is 400 E40004', async () => {
    for (const attrs of [
      { browser_width: 800 }, { browser_height: 600 }, { throttle: 'fast' }, { throttle: '5000/1000' },
      { cookies: ['novalue'] }, { cookies: ['a=1; b=2'] }, { dns: ['example.com'] }, { dns: ['example.com:not-an-ip'] },
    ]) {
      const res = await post(server.key, attrs);
      assert.equal(res.status, 400, JSON.stringify(attrs));
      assert.equal(errorOf(res).code, 'E40004', JSON.stringify(attrs));
    }
  });
});
