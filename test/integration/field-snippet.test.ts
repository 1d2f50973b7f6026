// lane: alone
/**
 * The field snippet in a real Chromium (issue 50, points 2 and 6), built from its sources (scripts/build-field-snippet.ts)
 * and served, as the service would, from another origin than the pages carrying its tag (test/fixtures/field/site.ts:
 * the site on 127.0.0.1, the service on 127.0.0.2, which records every beacon it receives). Each beacon is held to the
 * page's known truth: the LCP image the server held back (and timed), the click handler that blocks the main thread,
 * the layout shift of a computed score, a back-forward cache restore. Hiding the page sends one beacon, once, as
 * text/plain; a page view sampled out or from a browser sending Global Privacy Control measures and sends nothing;
 * nothing is stored in the browser; queries and fragments are not sent unless the site keeps queries.
 *
 * A page is hidden by bringing another tab to the front (headless Chromium then fires visibilitychange → hidden), or by
 * leaving it (pagehide, then visibilitychange → hidden).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Fastify from 'fastify';
import type { Browser, Page } from 'puppeteer-core';
import { buildFieldSnippet, SNIPPET_LIMIT } from '../../scripts/build-field-snippet.js';
import { heroPainted, hideByAnotherTab, PAGES, startFieldFixture, type FieldFixture } from '../fixtures/field/site.js';
import { launchBrowser } from '../helpers/browser.js';

/** One frame at 60 Hz: what a time read in the page may be off by against the server's own clock. */
const FRAME_MS = 1000 / 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The sites (one per variant of the tag) and their settings. */
const SITES = {
  main: { sampleRate: 100, keepQuery: false, honourGpc: true },
  none: { sampleRate: 0, keepQuery: false, honourGpc: true },
  keep: { sampleRate: 100, keepQuery: true, honourGpc: true },
  nogpc: { sampleRate: 100, keepQuery: false, honourGpc: false },
};
type Variant = keyof typeof SITES;

/** Counts, in the page, each observer and listener whose caller is the snippet's file (from before any script runs). */
const COUNT_SNIPPET_CALLS = `window.__snippetCalls = 0;
for (const [proto, name] of [[PerformanceObserver.prototype, 'observe'], [EventTarget.prototype, 'addEventListener']]) {
  const original = proto[name];
  proto[name] = function (...args) { if (/\\/assets\\/field\\./.test(new Error().stack)) window.__snippetCalls++; return original.apply(this, args); };
}`;
const GPC = 'Object.defineProperty(Navigator.prototype, "globalPrivacyControl", { get: () => true })';

interface Beacon { body: any; contentType: string; cookie: boolean }

describe('the field snippet in Chromium', () => {
  let fx: FieldFixture;
  let browser: Browser;
  let sizes: { raw: number; gzip: number; brotli: number };

  before(async () => {
    const built = await buildFieldSnippet(null);
    sizes = built;
    [fx, browser] = await Promise.all([startFieldFixture(Buffer.from(built.code)), launchBrowser()]);
    const { fieldSnippetTag } = await import('../../src/web/field-snippet.js');
    for (const [id, site] of Object.entries(SITES)) fx.tags.set(id, fieldSnippetTag(fx.serviceOrigin, { id, ...site }));
  });
  after(async () => {
    await browser?.close();
    await fx?.close();
  });

  /** The beacons received for a site from its page `name` (/<site>/<name>, query and fragment aside). */
  const beaconsOf = (site: Variant, name: string): Beacon[] => fx.beacons.filter((b) => b.site === site)
    .map((b) => ({ body: JSON.parse(b.body), contentType: b.contentType, cookie: b.cookie }))
    .filter((b) => new URL(b.body.url).pathname === `/${site}/${name}`);

  async function waitFor<T>(what: () => T[], n: number, ms = 5000): Promise<T[]> {
    const deadline = Date.now() + ms;
    while (what().length < n && Date.now() < deadline) await sleep(20);
    return what();
  }

  async function open(site: Variant, name: string, o: { query?: string; setup?: string[]; viewport?: { width: number; height: number } } = {}): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport(o.viewport ?? { width: 1200, height: 800 });
    for (const s of o.setup ?? []) await page.evaluateOnNewDocument(s);
    await page.goto(`${fx.siteOrigin}/${site}/${name}${o.query ?? ''}`, { waitUntil: 'load' });
    return page;
  }

  test(`the tag, the served file, and the size: under ${SNIPPET_LIMIT} bytes gzip and brotli`, async (t) => {
    const { fieldSnippetTag, registerFieldSnippet, FIELD_SNIPPET_PATH } = await import('../../src/web/field-snippet.js');
    assert.match(FIELD_SNIPPET_PATH, /^\/assets\/field\.[0-9a-f]{12}\.js$/);
    const base = { id: 'S1', sampleRate: 100, keepQuery: false, honourGpc: true };
    assert.equal(fieldSnippetTag('https://webgauge.example', base), `<script async src="https://webgauge.example${FIELD_SNIPPET_PATH}" data-site="S1"></script>`);
    assert.equal(fieldSnippetTag('https://w.example', { id: 'S1', sampleRate: 25, keepQuery: true, honourGpc: false }),
      `<script async src="https://w.example${FIELD_SNIPPET_PATH}" data-site="S1" data-sample="25" data-query="keep" data-gpc="ignore"></script>`);
    const app = Fastify();
    registerFieldSnippet(app);
    const res = await app.inject({ method: 'GET', url: FIELD_SNIPPET_PATH });
    await app.close();
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.ok(sizes.gzip < SNIPPET_LIMIT && sizes.brotli < SNIPPET_LIMIT, JSON.stringify(sizes));
    t.diagnostic(`snippet ${sizes.raw} bytes, ${sizes.gzip} gzip, ${sizes.brotli} brotli`);
  });

  test('an LCP image held back 800 ms: the LCP, its element, its URL (query dropped) and its load subpart match the server', async (t) => {
    // The server's clock of the image's arrival is late by as long as this process's event loop was held up: measured,
    // and allowed for beside the frame (it stays within a millisecond or two on a quiet machine).
    const lag = monitorEventLoopDelay({ resolution: 1 });
    lag.enable();
    const page = await open('main', 'lcp');
    await page.waitForFunction('document.getElementById("hero").complete');
    lag.disable();
    const lagMs = lag.max / 1e6;
    await heroPainted(page);
    await hideByAnotherTab(page);
    const [beacon] = await waitFor(() => beaconsOf('main', 'lcp'), 1);
    await page.close();
    assert.ok(beacon, 'a beacon came');
    const lcp = beacon.body.lcp;
    const [imagePath, times] = [...fx.imageTimes].at(-1)!;
    const served = times.sent - times.arrived;
    assert.ok(served >= PAGES.lcpDelayMs, `the server held the image ${served} ms`);
    assert.equal(lcp.el, '#hero');
    assert.equal(lcp.src, `${fx.siteOrigin}/hero.jpg`, `${imagePath}: query and fragment dropped`);
    assert.ok(lcp.v >= PAGES.lcpDelayMs, `LCP ${lcp.v}`);
    assert.ok(Math.abs(lcp.load - served) <= FRAME_MS + lagMs, `(event loop held up ${lagMs.toFixed(1)} ms at most) resource load ${lcp.load} ms against the server's ${served.toFixed(1)} ms: ${JSON.stringify(lcp)}`);
    const parts = lcp.ttfb + lcp.delay + lcp.load + lcp.render;
    assert.ok(Math.abs(parts - lcp.v) <= 0.5, `the four subparts (${parts}) add up to the LCP (${lcp.v})`);
    // The image is decoded and rastered in software (headless, no GPU) before the frame that shows it: on this 2-core VM
    // that took up to a frame more than the two a GPU needs (36.8 ms seen once in a quiet run), never more.
    assert.ok(lcp.render <= 3 * FRAME_MS, `painted within three frames of its last byte (render delay ${lcp.render} ms)`);
    assert.equal(beacon.body.dev, 'desktop');
    assert.deepEqual([beacon.body.vw, beacon.body.vh, beacon.body.nav], [1200, 800, 'navigate']);
    t.diagnostic(`LCP ${lcp.v} ms; resource load ${lcp.load} ms, the server's ${served.toFixed(1)} ms; render delay ${lcp.render} ms; event loop held up ${lagMs.toFixed(1)} ms at most`);
  });

  test('a click whose handler blocks 300 ms: INP ≥ 300 ms, on the button, its longest script the handler\'s file', async (t) => {
    const page = await open('main', 'inp');
    await sleep(100);
    await page.click('#buy');
    await page.waitForFunction('document.getElementById("status").textContent === "Added"');
    await sleep(100);
    // Left (pagehide, then hidden) rather than hidden behind a tab: what web-vitals hands over at the hidden must be in.
    await page.goto(`${fx.siteOrigin}/main/plain-exit`, { waitUntil: 'load' });
    const [beacon] = await waitFor(() => beaconsOf('main', 'inp'), 1);
    await page.close();
    const inp = beacon?.body.inp;
    assert.ok(inp, `the beacon carries INP: ${JSON.stringify(beacon?.body)}`);
    assert.ok(inp.v >= PAGES.inpBlockMs, `INP ${inp.v}`);
    assert.ok(inp.proc >= PAGES.inpBlockMs - 1, `processing ${inp.proc}`);
    assert.match(inp.el, /#buy$/);
    assert.equal(inp.type, 'pointer');
    assert.equal(inp.script?.src, `${fx.siteOrigin}/handler.js`, 'the script\'s URL, its query dropped');
    assert.equal(inp.script?.fn, 'onBuy');
    assert.equal(inp.script?.part, 'processing-duration');
    t.diagnostic(`INP ${inp.v} ms (processing ${inp.proc} ms) on ${inp.el}, script ${inp.script?.src} ${inp.script?.fn}`);
  });

  test(`a 200 px banner above 600 px of text in a 1200 × 800 viewport: CLS ${PAGES.clsScore.toFixed(4)}, as computed`, async (t) => {
    const page = await open('main', 'cls', { viewport: PAGES.cls.viewport });
    await page.waitForSelector('.banner');
    await sleep(200);
    await hideByAnotherTab(page);
    const [beacon] = await waitFor(() => beaconsOf('main', 'cls'), 1);
    await page.close();
    const cls = beacon?.body.cls;
    assert.ok(cls, `the beacon carries CLS: ${JSON.stringify(beacon?.body)}`);
    assert.equal(cls.v.toFixed(3), PAGES.clsScore.toFixed(3));
    assert.equal(cls.el, '#text');
    assert.equal(cls.shift.toFixed(3), PAGES.clsScore.toFixed(3));
    t.diagnostic(`CLS ${cls.v} against ${PAGES.clsScore.toFixed(4)}, on ${cls.el}`);
  });

  test('a page restored from the back-forward cache is a new page view, with its own beacon', async () => {
    const page = await open('main', 'a', { setup: ['addEventListener("pageshow", (e) => { window.__restored = e.persisted; })'] });
    await sleep(100);
    await Promise.all([page.waitForNavigation(), page.click('#next')]);
    await waitFor(() => beaconsOf('main', 'a'), 1);
    await page.goBack();
    assert.equal(await page.evaluate('window.__restored'), true, 'the page came back from the back-forward cache');
    await sleep(200);
    await hideByAnotherTab(page);
    const beacons = await waitFor(() => beaconsOf('main', 'a'), 2);
    await page.close();
    assert.deepEqual(beacons.map((b) => b.body.nav), ['navigate', 'back-forward-cache']);
  });

  test('hiding the page twice sends one beacon, text/plain, without a cookie; nothing is stored; no query or fragment', async () => {
    const page = await open('main', 'plain', { query: '?q=secret#frag' });
    await sleep(100);
    assert.deepEqual(await page.evaluate('[document.cookie, localStorage.length, sessionStorage.length]'), ['', 0, 0]);
    await hideByAnotherTab(page);
    await waitFor(() => beaconsOf('main', 'plain'), 1);
    await page.bringToFront();
    await page.waitForFunction('document.visibilityState === "visible"');
    await hideByAnotherTab(page);
    await sleep(300);
    const beacons = beaconsOf('main', 'plain');
    assert.equal(beacons.length, 1, 'one beacon');
    assert.match(beacons[0]!.contentType, /^text\/plain/);
    assert.equal(beacons[0]!.cookie, false);
    assert.equal(beacons[0]!.body.url, `${fx.siteOrigin}/main/plain`);
    assert.deepEqual(await page.evaluate('[document.cookie, localStorage.length, sessionStorage.length]'), ['', 0, 0]);
    assert.equal((await page.cookies(fx.siteOrigin, fx.serviceOrigin)).length, 0);
    await page.close();

    const kept = await open('keep', 'plain', { query: '?q=kept#frag' });
    await sleep(100);
    await hideByAnotherTab(kept);
    const [k] = await waitFor(() => beaconsOf('keep', 'plain'), 1);
    await kept.close();
    assert.equal(k?.body.url, `${fx.siteOrigin}/keep/plain?q=kept`);
  });

  test('data-sample="0": nothing measured, nothing sent; the same count on a page view measured is not zero', async () => {
    const out = await open('none', 'plain-sample', { setup: [COUNT_SNIPPET_CALLS] });
    await sleep(300);
    assert.equal(await out.evaluate('window.__snippetCalls'), 0, 'no observer or listener of the snippet');
    await hideByAnotherTab(out);
    await sleep(500);
    await out.close();
    assert.equal(beaconsOf('none', 'plain-sample').length, 0);

    const before = beaconsOf('main', 'plain-sample').length;
    const inn = await open('main', 'plain-sample', { setup: [COUNT_SNIPPET_CALLS] });
    await sleep(300);
    assert.ok((await inn.evaluate('window.__snippetCalls')) as number > 0, 'the count sees the snippet when it measures');
    await hideByAnotherTab(inn);
    await waitFor(() => beaconsOf('main', 'plain-sample'), before + 1);
    await inn.close();
    assert.equal(beaconsOf('main', 'plain-sample').length, before + 1);
  });

  test('Global Privacy Control: nothing measured or sent, unless the site chose to ignore it', async () => {
    const honoured = await open('main', 'plain-gpc', { setup: [GPC, COUNT_SNIPPET_CALLS] });
    await sleep(300);
    assert.equal(await honoured.evaluate('navigator.globalPrivacyControl'), true);
    assert.equal(await honoured.evaluate('window.__snippetCalls'), 0);
    await hideByAnotherTab(honoured);
    await sleep(500);
    await honoured.close();
    assert.equal(beaconsOf('main', 'plain-gpc').length, 0);

    const ignored = await open('nogpc', 'plain-gpc', { setup: [GPC] });
    await sleep(100);
    await hideByAnotherTab(ignored);
    const beacons = await waitFor(() => beaconsOf('nogpc', 'plain-gpc'), 1);
    await ignored.close();
    assert.equal(beacons.length, 1);
  });
});
