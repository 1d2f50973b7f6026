/**
 * The PageSpeed ruleset (src/analysis/legacy/pagespeed/, tested as one folder through its index.ts): each rule of
 * compression-caching.ts, images.ts, minify-inline.ts, requests.ts and rendering.ts through PAGESPEED_RULES, the
 * weights of ruleset.ts, and the report.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PAGESPEED_RULES, PAGESPEED_RULESET, pagespeedReport } from '../../../../src/analysis/legacy/pagespeed/index.js';
import { bodies, CACHED, doc, entry, har, image, input, PAGE } from '../../../fixtures/analysis.js';

const W = 'https://www.example.com';
const run = (id: keyof typeof PAGESPEED_RULES, ...args: Parameters<typeof input>) => PAGESPEED_RULES[id](input(...args));

describe('PageSpeed ruleset', () => {
  it('weights each rule by impact: high 3, medium 2, low 1', () => {
    for (const id of Object.keys(PAGESPEED_RULESET) as (keyof typeof PAGESPEED_RULES)[]) {
      const r = PAGESPEED_RULES[id](input([doc()]));
      assert.equal(r.weight, { high: 3, medium: 2, low: 1 }[r.impact], id);
      assert.equal(r.id, id);
    }
    assert.equal(Object.keys(PAGESPEED_RULESET).length, 22);
  });
});

describe('PageSpeed compression and caching', () => {
  it('EnableGzipCompression: share of compressible bytes gzip would save, from the bodies when captured', () => {
    const js = entry(`${W}/a.js`, { type: 'script', size: 10000 });
    const css = entry(`${W}/a.css`, { type: 'stylesheet', size: 10000, transfer: 2000, headers: { 'content-encoding': 'gzip' } });
    const withBody = run('EnableGzipCompression', [doc(), js, css], {}, bodies({ url: js.request.url, kind: 'js', bytes: 10000, gzipBytes: 3000 }));
    // saves 7000 of 10000 (a.js) + 2000 (a.css on the wire); the 400-byte page is under the 500-byte threshold
    assert.equal(withBody.score, Math.round(100 * (1 - 7000 / 12000)));
    assert.equal(withBody.savingsBytes, 7000);
    const estimated = run('EnableGzipCompression', [doc(), js, css]);
    assert.equal(estimated.savingsBytes, 6667);
    assert.match(estimated.message, /estimated/);
  });

  it('EnableGzipCompression: small responses and images do not count', () => {
    assert.equal(run('EnableGzipCompression', [doc(), entry(`${W}/tiny.js`, { type: 'script', size: 300 }),
      entry(`${W}/a.png`, { type: 'image', size: 90000 })]).score, 100);
  });

  it('SpecifyAVaryAcceptEncodingHeader: cacheable compressible resources without Vary', () => {
    const r = run('SpecifyAVaryAcceptEncodingHeader', [doc(),
      entry(`${W}/a.js`, { type: 'script', headers: { 'cache-control': 'max-age=600' } }),
      entry(`${W}/b.js`, { type: 'script', headers: CACHED }),
      entry(`${W}/c.js`, { type: 'script', headers: { 'cache-control': 'private, max-age=600' } })]);
    assert.equal(r.score, 50);
    assert.deepEqual(r.offenders, [`${W}/a.js`]);
  });

  it('LeverageBrowserCaching: partial credit up to a week of freshness', () => {
    const r = run('LeverageBrowserCaching', [doc(),
      entry(`${W}/a.png`, { type: 'image', headers: CACHED }),
      entry(`${W}/b.png`, { type: 'image', headers: { 'cache-control': 'max-age=302400' } }), // half a week
      entry(`${W}/c.png`, { type: 'image' })]);
    assert.equal(r.score, 50);
    assert.deepEqual(r.offenders, [`${W}/b.png (4 days)`, `${W}/c.png (expiration not specified)`]);
  });

  it('SpecifyACacheValidator: static resources without Last-Modified or ETag', () => {
    assert.equal(run('SpecifyACacheValidator', [doc(), entry(`${W}/a.js`, { type: 'script', headers: { etag: '"x"' } }),
      entry(`${W}/b.js`, { type: 'script', headers: { 'last-modified': 'Mon, 01 Jan 2024 00:00:00 GMT' } }),
      entry(`${W}/c.js`, { type: 'script' }), entry(`${W}/d.js`, { type: 'script' })]).score, 50);
  });

  it('RemoveQueryStringsFromStaticResources: static URLs with a query string', () => {
    assert.equal(run('RemoveQueryStringsFromStaticResources', [doc(), entry(`${W}/a.js?v=3`, { type: 'script' }),
      entry(`${W}/b.js`, { type: 'script' })]).score, 50);
  });
});

describe('PageSpeed images', () => {
  it('OptimizeImages: bytes re-encoding saves over the bytes of the checked images', () => {
    const a = entry(`${W}/a.jpg`, { type: 'image' });
    const b = entry(`${W}/b.png`, { type: 'image' });
    const r = run('OptimizeImages', [doc(), a, b], {}, bodies(
      { url: a.request.url, kind: 'image', bytes: 40000, optimisedBytes: 30000 },
      { url: b.request.url, kind: 'image', bytes: 10000, optimisedBytes: 9800 })); // 2 %: noise, not counted
    assert.equal(r.score, 80);
    assert.equal(r.savingsBytes, 10000);
    assert.equal(r.offenders.length, 1);
  });

  it('OptimizeImages: n/a without bodies, 100 without images', () => {
    assert.equal(run('OptimizeImages', [doc(), entry(`${W}/a.jpg`, { type: 'image' })]).score, null);
    assert.equal(run('OptimizeImages', [doc()]).score, 100);
  });

  it('ServeScaledImages: bytes lost to images larger than shown, per URL at its largest display', () => {
    const big = entry(`${W}/big.jpg`, { type: 'image', transfer: 40000 });
    const ok = entry(`${W}/ok.jpg`, { type: 'image', transfer: 10000 });
    const r = run('ServeScaledImages', [doc(), big, ok], { images: [
      image(big.request.url, { naturalWidth: 800, naturalHeight: 800, displayWidth: 200, displayHeight: 200 }),
      image(big.request.url, { naturalWidth: 800, naturalHeight: 800, displayWidth: 400, displayHeight: 400 }),
      image(ok.request.url),
    ] });
    assert.equal(r.savingsBytes, 30000); // shown at 400² of 800²: three quarters wasted
    assert.equal(r.score, 40);
    assert.equal(run('ServeScaledImages', [doc()]).score, 100);
  });

  it('SpecifyImageDimensions: displayed images without width and height', () => {
    const r = run('SpecifyImageDimensions', [doc()], { images: [image(`${W}/a.png`, { hasDimensions: false }), image(`${W}/b.png`),
      image(`${W}/hidden.png`, { hasDimensions: false, displayWidth: 0, displayHeight: 0 })] });
    assert.equal(r.score, 50);
  });

  it('CombineImagesIntoCssSprites: 5 points per small background image beyond the first per host', () => {
    const bg = (n: number) => entry(`${W}/icon${n}.png`, { type: 'image', size: 500, initiator: `${W}/site.css` });
    assert.equal(run('CombineImagesIntoCssSprites', [doc(), bg(1), bg(2), bg(3)]).score, 90);
    assert.equal(run('CombineImagesIntoCssSprites', [doc(), bg(1)]).score, 100);
  });
});

describe('PageSpeed minification and inlining', () => {
  it('MinifyJavaScript / MinifyCss / MinifyHTML: bytes the minifier saves', () => {
    const js = entry(`${W}/a.js`, { type: 'script' });
    const min = entry(`${W}/b.js`, { type: 'script' });
    const r = run('MinifyJavaScript', [doc(), js, min], {}, bodies(
      { url: js.request.url, kind: 'js', bytes: 10000, optimisedBytes: 6000 },
      { url: min.request.url, kind: 'js', bytes: 10000, optimisedBytes: 9990 }));
    assert.equal(r.score, 80);
    const css = entry(`${W}/a.css`, { type: 'stylesheet' });
    assert.equal(run('MinifyCss', [doc(), css], {}, bodies({ url: css.request.url, kind: 'css', bytes: 1000, optimisedBytes: 500 })).score, 50);
    assert.equal(run('MinifyHTML', [doc()], {}, bodies({ url: PAGE, kind: 'html', bytes: 1000, optimisedBytes: 900 })).score, 90);
  });

  it('Minify rules: n/a without bodies, and say what was not checked', () => {
    const r = run('MinifyJavaScript', [doc(), entry(`${W}/a.js`, { type: 'script' })]);
    assert.equal(r.score, null);
    assert.match(r.message, /1 script not checked/);
    assert.equal(run('MinifyCss', [doc()]).score, 100);
  });

  it('InlineSmallCss / InlineSmallJavaScript: the site\'s own files under 1 KiB', () => {
    assert.equal(run('InlineSmallJavaScript', [doc(), entry(`${W}/tiny.js`, { type: 'script', size: 200 }),
      entry(`${W}/big.js`, { type: 'script', size: 20000 }), entry('https://cdn.other.net/t.js', { type: 'script', size: 100 })]).score, 50);
    assert.equal(run('InlineSmallCss', [doc(), entry(`${W}/tiny.css`, { type: 'stylesheet', size: 200 })]).score, 0);
  });

  it('Inline rules: nothing to inline on an all-third-party page', () => {
    assert.equal(run('InlineSmallJavaScript', [doc(), entry('https://cdn.other.net/t.js', { type: 'script', size: 100 })]).score, 100);
  });
});

describe('PageSpeed requests and rendering', () => {
  const chain = [
    entry('http://example.com/', { type: 'document', status: 301, redirectTo: 'https://example.com/' }),
    entry('https://example.com/', { type: 'document', status: 301, redirectTo: PAGE }),
    doc(),
  ];

  it('AvoidLandingPageRedirects: 40 points per hop before the page', () => {
    const r = run('AvoidLandingPageRedirects', chain);
    assert.equal(r.score, 20);
    assert.deepEqual(r.offenders, ['http://example.com/ → https://example.com/', `https://example.com/ → ${PAGE}`]);
    assert.equal(run('AvoidLandingPageRedirects', [doc()]).score, 100);
  });

  it('MinimizeRedirects: 10 points per resource redirect, the landing chain excluded', () => {
    const r = run('MinimizeRedirects', [...chain, entry(`${W}/old.js`, { status: 302, redirectTo: `${W}/new.js` }), entry(`${W}/new.js`, { type: 'script' })]);
    assert.equal(r.score, 90);
  });

  it('AvoidBadRequests: 25 points per 4xx or 5xx response', () => {
    const r = run('AvoidBadRequests', [doc(), entry(`${W}/a.png`, { status: 404 })]);
    assert.equal(r.score, 75);
    assert.deepEqual(r.offenders, [`404 ${W}/a.png`]);
  });

  it('EnableKeepAlive: responses closing the connection to a host asked again', () => {
    assert.equal(run('EnableKeepAlive', [doc({ headers: { connection: 'close' } }), entry(`${W}/a.js`)]).score, 50);
  });

  it('MinimizeRequestSize: requests over 1500 bytes of headers', () => {
    assert.equal(run('MinimizeRequestSize', [doc({ requestHeadersSize: 2400 }), entry(`${W}/a.js`)]).score, 50);
  });

  it('ServeStaticContentFromACookielessDomain: static resources requested with cookies', () => {
    assert.equal(run('ServeStaticContentFromACookielessDomain', [doc(),
      entry(`${W}/a.png`, { type: 'image', request: { cookie: '[removed]' } }), entry('https://static.example.net/b.png', { type: 'image' })]).score, 50);
  });

  it('AvoidRenderBlocking: 10 points per blocking head script and per stylesheet in the body', () => {
    const r = run('AvoidRenderBlocking', [doc()], {
      scriptsInHead: [{ src: `${W}/a.js`, async: false, defer: false, module: false }, { src: `${W}/b.js`, async: true, defer: false, module: false }],
      stylesheetsInBody: [`${W}/late.css`],
    });
    assert.equal(r.score, 80);
    assert.equal(r.offenders.length, 2);
  });

  it('AvoidCssImport: 20 points per @import, n/a when no CSS could be read', () => {
    const css = entry(`${W}/a.css`, { type: 'stylesheet' });
    assert.equal(run('AvoidCssImport', [doc(), css], { cssImports: 1, inlineStyles: [{ bytes: 20, minified: true }] },
      bodies({ url: css.request.url, kind: 'css', text: '@import url(b.css);\n/* @import url(c.css); */' })).score, 60);
    assert.equal(run('AvoidCssImport', [doc(), css]).score, null);
    assert.equal(run('AvoidCssImport', [doc()]).score, 100);
  });
});

describe('PageSpeed report', () => {
  it('scores overall as the weighted mean of the scored rules', () => {
    const { score, json, results } = pagespeedReport(input([doc({ headers: { ...CACHED, 'content-encoding': 'gzip' } })]));
    const scored = results.filter((r) => r.score !== null);
    const expected = Math.round(scored.reduce((s, r) => s + r.weight * (r.score ?? 0), 0) / scored.reduce((s, r) => s + r.weight, 0));
    assert.equal(score, expected);
    assert.equal(json.score, score);
    assert.equal(json.rule_results.length, 22);
    assert.match(json.notes[0], /bodies were not captured/);
  });

  it('copes with a HAR without entries and with a 404 and a redirect chain', () => {
    assert.equal(pagespeedReport({ har: har(), facts: input([]).facts }).score, 100);
    const { json } = pagespeedReport(input([
      entry('http://example.com/', { type: 'document', status: 301, redirectTo: PAGE }), doc(),
      entry(`${W}/missing.png`, { type: 'image', status: 404 })]));
    const rule = (id: string) => json.rule_results.find((r) => r.rule_name === id)!;
    assert.equal(rule('AvoidLandingPageRedirects').rule_score, 60);
    assert.equal(rule('AvoidBadRequests').rule_score, 75);
    assert.ok(json.score < 100);
  });
});
