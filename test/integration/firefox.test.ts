// lane: alone
/**
 * Firefox (Desktop), the second browser (runner/firefox/), against the fixture site's truths as runner.test.ts holds
 * Chromium to them, and through the service on each engine: what it reports must be what the fixture did, every
 * option its catalog entry claims must act on its load, what it cannot measure is absent, and every connection it
 * opens goes through the connection guard (a hostile page reaches no private address). Firefox loads are few and
 * shared: the runner's five, one through the service (plus the hostile page once). The load through the service is
 * made on the first engine and its result handed to the second engine's agent (test/helpers/replayed-loads.ts), so
 * the Firefox report is stored and read on each engine.
 * Truths that cannot hold for Firefox, and why, are said where they differ from runner.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AD_HOST, FIXTURE, THIRD_PARTY_HOST, startFixtureSite, type FixtureSite, type RecordedRequest } from '../fixtures/site/server.js';
import { startInternalService, type InternalService } from '../fixtures/site/hostile.js';
import { runTest, RunError } from '../../src/runner/run.js';
import type { RunResult, RunSpec } from '../../src/runner/types.js';
import type { AnalysisOptions } from '../../src/core/options/analysis-options.js';
import { analysisOptions, PUBLIC_ONLY, runSpec } from '../helpers/run-spec.js';
import { call, engines, errorOf, startServer, waitForTest, type TestServer } from '../helpers/server.js';
import { replayedLoads } from '../helpers/replayed-loads.js';
import { firefoxVersion } from '../../src/runner/firefox/launch.js';
import { jpegSize, luminance, probeVideo, videoFrameLuminance } from '../helpers/images.js';

const FIREFOX = process.env.WEBGAUGE_FIREFOX_PATH ?? '/usr/bin/firefox-esr';
/**
 * How long after Firefox's paint time stamp the film may first show the paint: one frame of the recording (33 ms at
 * 30 fps) plus Firefox's composite after the stamp (it stamps the paint at the rendering update; the screen shows it
 * at the next composite: 28-41 ms later, measured at 60 fps). 15-55 ms in all over 16 loads at 30 fps; 50 ms, the
 * bound first set here, failed at 55. Never before the stamp (2 ms: rounding).
 */
const FILM_AFTER_PAINT_MS = 33 + 41;

function assertShownAfterPaint(frameMs: number, paintMs: number, stamps: string): void {
  assert.ok(frameMs >= paintMs - 2 && frameMs <= paintMs + FILM_AFTER_PAINT_MS,
    `the film shows it at ${frameMs} ms, Firefox painted it at ${paintMs} ms (frames ${stamps})`);
}

let site: FixtureSite;
const workDirs: string[] = [];

before(async () => {
  assert.ok(await firefoxVersion(FIREFOX), `a working Firefox at ${FIREFOX} (scripts/install.sh installs firefox-esr)`);
  site = await startFixtureSite();
});
after(async () => {
  await site.close();
  await Promise.all(workDirs.map((d) => rm(d, { recursive: true, force: true })));
});

const options = (url: string, extra: Partial<AnalysisOptions> = {}): AnalysisOptions =>
  analysisOptions(url, { browser: '1', report: 'legacy', ...extra });

async function firefox(opts: AnalysisOptions, extra: Partial<RunSpec> = {}): Promise<{ result: RunResult; seen: RecordedRequest[] }> {
  const workDir = await mkdtemp(join(tmpdir(), 'webgauge-firefox-'));
  workDirs.push(workDir);
  const from = site.requests.length;
  const result = await runTest({ ...runSpec(opts, { testId: 'test', workDir, timeoutMs: 60_000 }), browser: 'firefox', firefoxPath: FIREFOX, ...extra });
  return { result, seen: site.requests.slice(from) };
}

describe('the fixture page in Firefox', () => {
  let run: { result: RunResult; seen: RecordedRequest[] };
  before(async () => {
    run = await firefox(options(site.url('/')));
  });

  test('loads the page exactly once, with Firefox\'s own user agent', () => {
    assert.equal(run.seen.filter((r) => r.path === '/').length, 1);
    assert.match(run.result.userAgent, /Gecko\/\d+ Firefox\/\d+/);
    assert.equal(run.seen.find((r) => r.path === '/')?.headers['user-agent'], run.result.userAgent);
  });

  test('backend duration and TTFB include the server delay (+0..300 ms)', () => {
    const m = run.result.metrics;
    for (const v of [m.backend_duration, m.time_to_first_byte]) {
      assert.ok(v >= FIXTURE.htmlDelayMs && v < FIXTURE.htmlDelayMs + 300, `${v}`);
    }
    assert.equal(m.redirect_duration, 0);
    // Chromium's is under 100 ms. Firefox holds a fresh profile's first request ~50-100 ms before its connect starts
    // (`blocked`: the channel waits for the proxy settings and its connection), which the spec counts in it.
    assert.ok(m.connect_duration >= 0 && m.connect_duration < 300, `${m.connect_duration}`);
  });

  test('DOMContentLoaded and onload durations match the handlers\' busy-waits (+0..60 ms)', () => {
    const m = run.result.metrics;
    assert.ok(m.dom_content_loaded_duration >= FIXTURE.domContentLoadedCostMs - 1 &&
      m.dom_content_loaded_duration <= FIXTURE.domContentLoadedCostMs + 60, `${m.dom_content_loaded_duration}`);
    assert.ok(m.onload_duration >= FIXTURE.onloadCostMs - 1 && m.onload_duration <= FIXTURE.onloadCostMs + 60, `${m.onload_duration}`);
    assert.ok(m.dom_interactive_time <= m.dom_content_loaded_time && m.dom_content_loaded_time <= m.onload_time);
  });

  test('nothing paints before the render-blocking stylesheet arrived; LCP is Firefox\'s own', () => {
    const m = run.result.metrics;
    assert.ok(m.first_paint_time >= FIXTURE.htmlDelayMs + FIXTURE.cssDelayMs, `${m.first_paint_time}`);
    assert.ok(m.first_contentful_paint >= m.first_paint_time);
    assert.ok(m.largest_contentful_paint! >= m.first_contentful_paint, `${m.largest_contentful_paint}`);
    assert.ok(m.rum_speed_index >= m.first_paint_time - 1 && m.rum_speed_index <= m.fully_loaded_time, `${m.rum_speed_index}`);
  });

  test('fully loaded is the late request after onload (+0..300 ms)', () => {
    const m = run.result.metrics;
    const earliest = m.onload_time + FIXTURE.lateRequestDelayMs;
    assert.ok(m.fully_loaded_time >= earliest && m.fully_loaded_time < earliest + 300, `${m.fully_loaded_time}`);
  });

  test('bytes and requests match the fixture (headers at most 400 bytes per response)', () => {
    const m = run.result.metrics;
    assert.equal(m.page_requests, FIXTURE.mainPageRequests);
    assert.ok(m.html_bytes >= FIXTURE.htmlBytes && m.html_bytes <= FIXTURE.htmlBytes + FIXTURE.maxResponseHeaderBytes, `${m.html_bytes}`);
    const body = FIXTURE.mainPageBodyBytes;
    assert.ok(m.page_bytes >= body && m.page_bytes <= body + FIXTURE.mainPageRequests * FIXTURE.maxResponseHeaderBytes, `${m.page_bytes}`);
  });

  test('the HAR is HAR 1.2 from the BiDi events, with the guard\'s addresses', () => {
    const log = run.result.har.log as { version: string; entries: Record<string, any>[] };
    assert.equal(log.version, '1.2');
    assert.equal(log.entries.length, FIXTURE.mainPageRequests);
    for (const e of log.entries) {
      assert.equal(typeof e.time, 'number');
      assert.equal(typeof e.response._transferSize, 'number');
      assert.equal(e.serverIPAddress, '127.0.0.1');
      for (const phase of ['blocked', 'send', 'wait', 'receive']) assert.ok(e.timings[phase] >= 0, `${phase} ${JSON.stringify(e.timings)}`);
    }
    const image = log.entries.find((e) => e.request.url.endsWith('/image.jpg'));
    assert.equal(image?.response.content.size, FIXTURE.imageBytes);
    assert.equal(image?.response.bodySize, FIXTURE.imageBytes);
    assert.equal(image?._resourceType, 'image');
    assert.ok(log.entries.some((e) => e.request.url.endsWith('/late.json')));
  });

  test('what Firefox cannot measure is absent, not 0: no Lighthouse, CLS, TBT, TTI or SpeedIndex', () => {
    const { metrics, lighthouse } = run.result;
    for (const k of ['cumulative_layout_shift', 'total_blocking_time', 'time_to_interactive', 'speed_index', 'performance_score'] as const) {
      assert.equal(metrics[k], undefined, k);
    }
    assert.equal(lighthouse, undefined);
  });

  test('the filmstrip is the recorded screen: blank at navigation start, the page from first paint on', async () => {
    const { filmstrip, metrics, video } = run.result;
    const stamps = filmstrip.map((f) => f.timestamp).join(', ');
    assert.equal(filmstrip[0]?.timestamp, 0, stamps);
    assert.ok((await luminance(filmstrip[0]!.jpeg)) > 240, `blank at navigation start (${stamps})`);
    assert.deepEqual(jpegSize(filmstrip[0]!.jpeg), { width: 1366, height: 768 });
    const firstContent = filmstrip[1]!;
    assertShownAfterPaint(firstContent.timestamp, metrics.first_contentful_paint, stamps);
    assert.ok((await luminance(firstContent.jpeg)) < 150, `the dark page from first paint on (${stamps})`);
    assert.equal(video, undefined, 'no video unless asked for');
  });

  test('the legacy rules get the bodies from the browser, no second request; the screenshot is 1366 px wide', () => {
    const bodies = run.result.bodies!;
    assert.equal(bodies.get(site.url('/'))?.length, FIXTURE.htmlBytes);
    assert.equal(bodies.get(site.url('/image.jpg'))?.length, FIXTURE.imageBytes);
    assert.equal(jpegSize(run.result.screenshot).width, 1366);
  });
});

describe('a page whose only render-blocking stylesheet arrives at 600 ms', () => {
  let result: RunResult;
  before(async () => {
    ({ result } = await firefox(options(site.url(FIXTURE.paint.path), { video: 1 })));
  });

  test('first paint and FCP come after the stylesheet arrived, within the browser\'s own work', () => {
    const entries = result.har.log.entries;
    const doc = entries.find((e) => new URL(e.request.url).pathname === FIXTURE.paint.path)!;
    const css = entries.find((e) => new URL(e.request.url).pathname.endsWith('.css'))!;
    const cssArrived = Date.parse(css.startedDateTime) + css.time - Date.parse(doc.startedDateTime);
    assert.ok(cssArrived >= FIXTURE.paint.cssDelayMs, `stylesheet arrived at ${cssArrived} ms`);
    // Firefox's paint times are whole ms (timer precision 1 ms) and its first paint (timeToNonBlankPaint) is the
    // first paint of anything: here the styled page, at once. The HAR's end of the stylesheet is the parent process's
    // stamp, taken after it handed the bytes to the page's process: seen up to 4.5 ms after the paint while ffmpeg
    // recorded the screen beside the load (a quarter of a core).
    for (const v of [result.metrics.first_paint_time, result.metrics.first_contentful_paint]) {
      assert.ok(v >= cssArrived - 10 && v <= cssArrived + 150, `painted at ${v} ms, stylesheet arrived at ${cssArrived} ms`);
    }
  });

  test('the film shows the paint after the load (no request): the filmstrip and the video end at that change', async () => {
    const { filmstrip, metrics, video } = result;
    const stamps = filmstrip.map((f) => f.timestamp).join(', ');
    assertShownAfterPaint(filmstrip[1]!.timestamp, metrics.first_contentful_paint, stamps);
    const late = filmstrip.at(-1)!;
    const latePaint = metrics.onload_time + FIXTURE.paint.latePaintMs;
    assertShownAfterPaint(late.timestamp, latePaint, stamps);
    const facts = await probeVideo(video!);
    assert.deepEqual([facts.codec_name, facts.width, facts.height, facts.r_frame_rate], ['h264', '1366', '768', '30/1']);
    // The video lasts until the last visual change (after fully loaded here): one frame past the first that shows it.
    assert.ok(metrics.fully_loaded_time < late.timestamp, `fully loaded ${metrics.fully_loaded_time}, late paint ${late.timestamp}`);
    const lastFrameMs = ((Math.ceil((late.timestamp * 30) / 1000) + 1) * 1000) / 30;
    assert.ok(Math.abs(Number(facts.duration) * 1000 - lastFrameMs) <= 1, `video ${facts.duration} s, late paint ${late.timestamp}`);
    const frames = await videoFrameLuminance(video!);
    const lastLuminance = await luminance(late.jpeg);
    assert.ok(Math.abs(frames.at(-1)! - lastLuminance) < 8, `the video ends on the orange page (${lastLuminance}): ${frames.slice(-5).join(', ')}`);
    assert.ok(frames[0]! > 240, 'the video starts blank');
  });

  test('the document\'s request opened its own connection: nothing was preconnected before navigation', () => {
    const doc = result.har.log.entries.find((e) => new URL(e.request.url).pathname === FIXTURE.paint.path)!;
    assert.ok(doc.timings.connect !== undefined && doc.timings.connect >= 0, JSON.stringify(doc.timings));
  });
});

describe('options act on the Firefox load', () => {
  const host = (): string => `fixture.test:${site.port}`;
  const thirdParty = (): string => `${THIRD_PARTY_HOST}:${site.port}`;
  const cookieValue = 'cookie-value-4711';
  const ua = 'WebgaugeProbe/1.0 (Firefox test)';
  let probe: { result: RunResult; seen: RecordedRequest[] };
  let filtered: { result: RunResult; seen: RecordedRequest[] };
  before(async () => {
    // dns, adblock, HTTP auth (tested host only), cookies, user agent, resolution and throttle in one load.
    probe = await firefox(options(`http://${host()}/options-probe`, {
      dns: ['fixture.test:127.0.0.1', `${THIRD_PARTY_HOST}:127.0.0.1`, `${AD_HOST}:127.0.0.1`],
      adblock: 1,
      httpauth_username: FIXTURE.auth.username,
      httpauth_password: FIXTURE.auth.password,
      cookies: [`wg_test=${cookieValue}; Path=/`],
      user_agent: ua,
      browser_width: 800, browser_height: 600, browser_rotate: 1, browser_dppx: 2,
      throttle: '20000/10000/150',
    }));
    // allow_url, then block_url, and stop_onload.
    filtered = await firefox(options(site.url('/'), {
      allow_url: [site.url('/style.css'), site.url('/app.js'), site.url('/image.jpg')],
      block_url: [site.url('/image.jpg')],
      stop_onload: 1,
    }));
  });
  const onHost = (h: string): RecordedRequest[] => probe.seen.filter((r) => r.headers.host === h);
  const pixel = (): URLSearchParams => {
    const p = onHost(host()).find((r) => r.path.startsWith('/pixel.gif'));
    assert.ok(p, 'the probe page reported back');
    return new URLSearchParams(p.path.split('?')[1]);
  };

  test('dns maps the host names for the browser (the guard resolves them)', () => {
    assert.ok(onHost(host()).some((r) => r.path === '/options-probe'));
    assert.match(probe.result.finalUrl, /^http:\/\/fixture\.test:\d+\/options-probe$/);
  });

  test('HTTP auth is answered for the tested host only: a third party that asks gets nothing', () => {
    const expected = 'Basic ' + Buffer.from(`${FIXTURE.auth.username}:${FIXTURE.auth.password}`).toString('base64');
    assert.ok(onHost(host()).some((r) => r.path === '/options-probe' && r.headers.authorization === expected));
    assert.ok(onHost(thirdParty()).some((r) => r.path === '/auth-frame'), 'the third party\'s frame asked');
    for (const r of onHost(thirdParty())) assert.equal(r.headers.authorization, undefined, r.path);
  });

  test('adblock: requests the filter list blocks never reach a server, the rest of the page loads', () => {
    assert.equal(probe.seen.filter((r) => r.headers.host?.startsWith(AD_HOST)).length, 0);
    const paths = onHost(host()).map((r) => r.path);
    assert.ok(!paths.includes('/pagead/show_ads.js') && !paths.includes('/ads/banner/728x90.gif'), paths.join(' '));
    assert.ok(paths.includes('/style.css'), 'the page itself loaded');
    assert.ok(onHost(thirdParty()).some((r) => r.path === '/third-pixel.gif'), 'a third party that is no ad loaded');
  });

  test('cookies are set for the tested host before the load', () => {
    assert.ok(onHost(host()).filter((r) => r.path === '/options-probe').every((r) => r.headers.cookie?.includes(`wg_test=${cookieValue}`)));
  });

  test('user agent, viewport, pixel ratio and rotation reach the page', () => {
    assert.ok(onHost(host()).every((r) => r.headers['user-agent'] === ua));
    assert.equal(probe.result.userAgent, ua);
    const q = pixel();
    assert.deepEqual([q.get('w'), q.get('h'), q.get('dpr')], ['600', '800', '2']);
    assert.equal(jpegSize(probe.result.screenshot).width, 1200);
  });

  test('throttle: the guard\'s link adds its latency to the first byte', () => {
    assert.ok(probe.result.metrics.time_to_first_byte >= 150, `${probe.result.metrics.time_to_first_byte}`);
  });

  test('allow_url and block_url keep requests from the server; stop_onload reports fully_loaded_time -1', () => {
    const paths = filtered.seen.map((r) => r.path);
    assert.ok(paths.includes('/style.css') && paths.includes('/app.js'), paths.join(' '));
    assert.ok(!paths.includes('/image.jpg'), 'allowed but blocked by block_url');
    assert.equal(filtered.result.metrics.fully_loaded_time, -1);
    assert.ok(!filtered.result.har.log.entries.some((e) => e.request.url.endsWith('/image.jpg')));
  });
});

describe('failing Firefox loads', () => {
  test('a 404 page (after a redirect) throws a RunError naming the status', async () => {
    await assert.rejects(firefox(options(site.url('/redirect?to=/status/404'))),
      (err: unknown) => err instanceof RunError && /HTTP 404 Not Found/.test(err.message));
  });

  test('an unresolvable host throws "Could not resolve host"', async () => {
    await assert.rejects(firefox(options('http://example.invalid/')),
      (err: unknown) => err instanceof RunError && /Could not resolve host example\.invalid/.test(err.message));
  });

  test('a public test refuses private addresses: no request reaches the site', async () => {
    const from = site.requests.length;
    await assert.rejects(firefox(options(site.url('/')), { policy: PUBLIC_ONLY }),
      (err: unknown) => err instanceof RunError && /resolves to a loopback address \(127\.0\.0\.1\)/.test(err.message));
    assert.equal(site.requests.length, from);
  });
});

const serviceLoads = replayedLoads();
for (const engine of engines()) {
  describe(`Firefox through the service (${engine})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ engine, agentSlots: 1,
        overrides: { run: serviceLoads.runFor(engine), launchAhead: serviceLoads.loadsOn(engine) } });
    });
    after(async () => {
      await server?.close();
      process.stderr.write(`[firefox] through the service (${engine}): page loads ${serviceLoads.counts.real} real, ${serviceLoads.counts.replayed} replayed\n`);
    });

    const post = (attributes: Record<string, unknown>) =>
      call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes } } });

    test('the location offers Firefox (Desktop) with video; a Lighthouse report with it is refused, naming the browser', async () => {
      for (let i = 0; ; i++) {
        const loc = await call(server, 'GET', '/locations/1', { key: server.key });
        if (loc.body.data.attributes.browsers.includes('1')) break;
        assert.ok(i < 40, `the agent offers Firefox: ${JSON.stringify(loc.body.data.attributes.browsers)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const browser = (await call(server, 'GET', '/browsers/1', { key: server.key })).body.data.attributes;
      assert.deepEqual([browser.name, browser.browser, browser.platform, browser.lighthouse, browser.video],
        ['Firefox (Desktop)', 'firefox', 'desktop', false, true]);
      for (const attributes of [{ report: 'lighthouse' }, { report: 'lighthouse,legacy' }, { report: 'lighthouse', video: 1 }]) {
        const res = await post({ url: site.url('/'), browser: '1', ...attributes });
        assert.equal(res.status, 400, JSON.stringify(attributes));
        assert.equal(errorOf(res).code, 'E40004');
        assert.match(errorOf(res).detail!, /browser "1" \(Firefox \(Desktop\)\) does not support the report type/);
      }
    });

    test('a test with report left out runs the legacy kind and stores a report that says Firefox', async () => {
      const started = await post({ url: site.url('/'), browser: '1', video: 1 });
      assert.equal(started.status, 202, started.text);
      const done = await waitForTest(server, server.key, started.body.data.id);
      assert.equal(done.status, 303, done.text);
      const report = (await call(server, 'GET', `/reports/${started.body.data.id}`, { key: server.key })).body.data;
      const a = report.attributes;
      assert.equal(a.browser, '1');
      assert.equal(typeof a.pagespeed_score, 'number');
      assert.equal(typeof a.yslow_score, 'number');
      assert.equal(a.page_requests, FIXTURE.mainPageRequests);
      for (const k of ['performance_score', 'cumulative_layout_shift', 'total_blocking_time', 'largest_contentful_paint']) {
        assert.ok(a[k] === undefined || a[k] === null, `${k} absent: ${a[k]}`);
      }
      const options = (await call(server, 'GET', `/reports/${started.body.data.id}/resources/analysis-options`, { key: server.key })).body;
      assert.equal(options.report, 'legacy');
      // Its film: the filmstrip (which a Chrome report keeps with Lighthouse only) and the video asked for.
      assert.ok(report.links.filmstrip && report.links.video, JSON.stringify(report.links));
      const film = await call(server, 'GET', `/reports/${started.body.data.id}/resources/filmstrip.json`, { key: server.key });
      assert.equal(film.status, 200, film.text);
      assert.ok(film.body.frames.length >= 2 && film.body.frames[0].timestamp === 0, film.text);
      const video = await call(server, 'GET', `/reports/${started.body.data.id}/resources/video.mp4`, { key: server.key });
      assert.equal(video.status, 200);
    });
  });
}

describe('a hostile page in Firefox on a server that allows only 127.0.0.2', () => {
  let internal: InternalService;
  let hostile: FixtureSite;
  let server: TestServer;
  before(async () => {
    internal = await startInternalService();
    hostile = await startFixtureSite({ host: '127.0.0.2', internalPort: internal.port });
    server = await startServer({ engine: 'sqlite', agentSlots: 1, allowPrivateTargets: false, env: { WEBGAUGE_ALLOW_TARGETS: '127.0.0.2' } });
  });
  after(async () => {
    await server?.close();
    await hostile?.close();
    await internal?.close();
  });

  test('the internal service sees no connection through any channel or spelling, and the test completes', async () => {
    for (let i = 0; i < 40 && !(await call(server, 'GET', '/locations/1', { key: server.key })).body.data.attributes.browsers.includes('1'); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const started = await call(server, 'POST', '/tests', {
      key: server.key, body: { data: { type: 'test', attributes: { url: hostile.url('/hostile'), browser: '1' } } },
    });
    assert.equal(started.status, 202, started.text);
    const done = await waitForTest(server, server.key, started.body.data.id);
    assert.equal(done.status, 303, done.text);
    assert.deepEqual(internal.connections, []);
    const report = (await call(server, 'GET', `/reports/${started.body.data.id}`, { key: server.key })).body.data.attributes;
    assert.ok(report.fully_loaded_time < 5000, `fully loaded at ${report.fully_loaded_time} ms: refused requests are not activity`);
  });
});
