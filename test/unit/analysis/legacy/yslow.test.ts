/**
 * The YSlow ruleset (src/analysis/legacy/yslow/, tested as one folder through its index.ts): each rule of content.ts,
 * server.ts, css-javascript.ts and cookie-images.ts through YSLOW_RULES, the weights of ruleset.ts with overallScore
 * (legacy/rule.ts), and the report.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { overallScore } from '../../../../src/analysis/legacy/rule.js';
import { YSLOW_RULES, YSLOW_RULESET, yslowReport } from '../../../../src/analysis/legacy/yslow/index.js';
import { isEtagGood } from '../../../../src/analysis/legacy/yslow/server.js';
import { bodies, CACHED, doc, entry, har, image, input, PAGE } from '../../../fixtures/analysis.js';

const W = 'https://www.example.com';
const run = (id: keyof typeof YSLOW_RULES, ...args: Parameters<typeof input>) => YSLOW_RULES[id](input(...args));

describe('YSlow ruleset', () => {
  it('has the 23 ydefault rules with their published weights', () => {
    const weights = Object.fromEntries(Object.entries(YSLOW_RULESET).map(([id, r]) => [id, r.weight]));
    assert.deepEqual(weights, {
      ynumreq: 8, ycdn: 6, yemptysrc: 30, yexpires: 10, ycompress: 8, ycsstop: 4, yjsbottom: 4, yexpressions: 3,
      yexternal: 4, ydns: 3, yminify: 4, yredirects: 4, ydupes: 4, yetags: 2, yxhr: 4, yxhrmethod: 3, ymindom: 3,
      yno404: 4, ymincookie: 3, ycookiefree: 3, ynofilter: 4, yimgnoscale: 3, yfavicon: 2,
    });
  });

  it('scores overall as the weighted mean of the scored rules, negatives as 0 and n/a left out', () => {
    const r = (score: number | null, weight: number) => ({ id: 'x', name: 'x', score, weight, offenders: [], message: '' });
    assert.equal(overallScore([r(100, 8), r(50, 2), r(null, 4)]), 90);
    assert.equal(overallScore([r(-40, 1), r(100, 1)]), 50);
    assert.equal(overallScore([]), 100);
  });
});

describe('YSlow content rules', () => {
  it('ynumreq: 4 points per script over 3, 4 per stylesheet over 2, 3 per background image over 6', () => {
    const js = Array.from({ length: 5 }, (_, i) => entry(`${W}/${i}.js`, { type: 'script' }));
    const css = Array.from({ length: 3 }, (_, i) => entry(`${W}/${i}.css`, { type: 'stylesheet' }));
    const bg = Array.from({ length: 8 }, (_, i) => entry(`${W}/bg${i}.png`, { type: 'image', initiator: `${W}/0.css` }));
    assert.equal(run('ynumreq', [doc(), ...js, ...css, ...bg]).score, 100 - 8 - 4 - 6);
    assert.equal(run('ynumreq', [doc()]).score, 100);
  });

  it('ydns: 5 points per host over 4', () => {
    const hosts = ['a', 'b', 'c', 'd', 'e'].map((h) => entry(`https://${h}.example.org/x.js`, { type: 'script' }));
    const result = run('ydns', [doc(), ...hosts]);
    assert.equal(result.score, 90);
    assert.equal(result.offenders.length, 6);
  });

  it('yredirects: 10 points per redirect, a redirect chain counting each hop', () => {
    const chain = [
      entry('http://example.com/', { type: 'document', status: 301, redirectTo: 'https://example.com/' }),
      entry('https://example.com/', { type: 'document', status: 301, redirectTo: PAGE }),
      doc(),
    ];
    const result = run('yredirects', chain);
    assert.equal(result.score, 80);
    assert.deepEqual(result.offenders, ['http://example.com/ redirects to https://example.com/', `https://example.com/ redirects to ${PAGE}`]);
  });

  it('yxhr: 5 points per cacheable AJAX response living less than an hour; no-cache is deliberate', () => {
    const result = run('yxhr', [doc(),
      entry(`${W}/api/a`, { type: 'xhr' }),
      entry(`${W}/api/b`, { type: 'fetch', headers: { 'cache-control': 'max-age=7200' } }),
      entry(`${W}/api/c`, { type: 'xhr', headers: { 'cache-control': 'no-cache' } })]);
    assert.equal(result.score, 95);
    assert.deepEqual(result.offenders, [`${W}/api/a`]);
  });

  it('ymindom: 99 − 10 per started 250 elements over 900', () => {
    assert.equal(run('ymindom', [doc()], { elementCount: 900 }).score, 100);
    assert.equal(run('ymindom', [doc()], { elementCount: 901 }).score, 89);
    assert.equal(run('ymindom', [doc()], { elementCount: 1400 }).score, 79);
  });

  it('yno404: 5 points per 404 among static components and AJAX', () => {
    const result = run('yno404', [doc(), entry(`${W}/missing.png`, { type: 'image', status: 404 }),
      entry(`${W}/gone.js`, { type: 'script', status: 410 })]);
    assert.equal(result.score, 95);
    assert.deepEqual(result.offenders, [`${W}/missing.png`]);
  });
});

describe('YSlow server rules', () => {
  it('ycdn: 10 points per static component off a CDN, summarised by host', () => {
    const result = run('ycdn', [doc(), entry(`${W}/a.js`, { type: 'script' }), entry(`${W}/b.js`, { type: 'script' }),
      entry('https://cdnjs.cloudflare.com/x.js', { type: 'script' }), entry(`${W}/favicon.ico`, { type: 'image' })]);
    assert.equal(result.score, 80);
    assert.equal(result.offenders.length, 1);
    assert.match(result.offenders[0], /^www\.example\.com: 2 components/);
  });

  it('ycdn: an all-third-party page on CDNs passes', () => {
    assert.equal(run('ycdn', [doc(), entry('https://fonts.gstatic.com/a.woff2', { type: 'image' }),
      entry('https://ajax.googleapis.com/jquery.js', { type: 'script' })]).score, 100);
  });

  it('yexpires: 11 points per static component expiring within two days', () => {
    const result = run('yexpires', [doc(), entry(`${W}/a.js`, { type: 'script', headers: { 'cache-control': 'max-age=3600' } }),
      entry(`${W}/b.css`, { type: 'stylesheet', headers: CACHED }), entry(`${W}/c.png`, { type: 'image' })]);
    assert.equal(result.score, 78);
    assert.deepEqual(result.offenders, [`${W}/a.js`, `${W}/c.png`]);
  });

  it('ycompress: 11 points per uncompressed text component of 500 bytes or more', () => {
    const result = run('ycompress', [doc({ headers: {}, size: 5000 }), entry(`${W}/a.js`, { type: 'script', size: 499 }),
      entry(`${W}/b.css`, { type: 'stylesheet', size: 800, headers: { 'content-encoding': 'br' } }),
      entry(`${W}/c.png`, { type: 'image', size: 90000 })]);
    assert.equal(result.score, 89);
    assert.equal(result.offenders.length, 1);
  });

  it('yetags: Apache inode and IIS change-number ETags are bad, others fine', () => {
    assert.equal(isEtagGood('"2a-5f3b-4c2e1a"'), false);
    assert.equal(isEtagGood('"8a3c2d1e4f:342"'), false);
    assert.equal(isEtagGood('W/"5f2b-1a2b"'), true);
    assert.equal(isEtagGood('"33a64df551425fcc55e4d42a148795d9f25f89d4"'), true);
    assert.equal(isEtagGood(undefined), true);
    const result = run('yetags', [doc(), entry(`${W}/a.png`, { type: 'image', headers: { etag: '"2a-5f3b-4c2e1a"' } })]);
    assert.equal(result.score, 89);
  });

  it('yxhrmethod: 5 points per AJAX request not using GET', () => {
    assert.equal(run('yxhrmethod', [doc(), entry(`${W}/api`, { type: 'xhr', method: 'POST' }), entry(`${W}/api2`, { type: 'xhr' })]).score, 95);
  });

  it('yemptysrc: a single empty src costs everything', () => {
    const result = run('yemptysrc', [doc()], { emptySrc: ['img', 'img', 'script'] });
    assert.equal(result.score, 0);
    assert.deepEqual(result.offenders, ['2 img', '1 script']);
    assert.equal(run('yemptysrc', [doc()]).score, 100);
  });
});

describe('YSlow CSS and JavaScript rules', () => {
  it('ycsstop: 99 − 10 per stylesheet in the body', () => {
    assert.equal(run('ycsstop', [doc()], { stylesheetsInBody: [`${W}/late.css`] }).score, 89);
    assert.equal(run('ycsstop', [doc()]).score, 100);
  });

  it('yjsbottom: 5 points per parser-blocking script in <head>', () => {
    const result = run('yjsbottom', [doc()], { scriptsInHead: [
      { src: `${W}/a.js`, async: false, defer: false, module: false },
      { src: `${W}/b.js`, async: true, defer: false, module: false },
      { src: `${W}/c.js`, async: false, defer: true, module: false },
      { src: `${W}/d.js`, async: false, defer: false, module: true },
      { async: false, defer: false, module: false },
    ] });
    assert.equal(result.score, 95);
    assert.deepEqual(result.offenders, [`${W}/a.js`]);
  });

  it('yexpressions: 90 − 2 per expression, inline and external', () => {
    const css = entry(`${W}/a.css`, { type: 'stylesheet' });
    const result = run('yexpressions', [doc(), css], { cssExpressions: 1, inlineStyleAttrs: 1 },
      bodies({ url: css.request.url, kind: 'css', text: 'a{width:expression(1)} b{height: expression (2)}' }));
    assert.equal(result.score, 84);
    assert.equal(result.offenders.length, 2);
  });

  it('yexpressions: without bodies, scores the inline CSS and says what it could not check', () => {
    const result = run('yexpressions', [doc(), entry(`${W}/a.css`, { type: 'stylesheet' })], { inlineStyles: [{ bytes: 10, minified: true }] });
    assert.equal(result.score, 100);
    assert.match(result.message, /1 stylesheet\(s\) not checked/);
    assert.equal(run('yexpressions', [doc(), entry(`${W}/a.css`, { type: 'stylesheet' })]).score, null);
  });

  it('ynofilter: 5 points per AlphaImageLoader filter, 2 behind the _filter hack', () => {
    const css = entry(`${W}/a.css`, { type: 'stylesheet' });
    const text = '.a{filter:progid:DXImageTransform.Microsoft.AlphaImageLoader(src=a.png)} .b{_filter:progid:DXImageTransform.Microsoft.AlphaImageLoader(src=b.png)}';
    assert.equal(run('ynofilter', [doc(), css], {}, bodies({ url: css.request.url, kind: 'css', text })).score, 93);
    assert.equal(run('ynofilter', [doc()], { alphaImageFilters: { filter: 2, hackFilter: 0 }, inlineStyleAttrs: 2 }).score, 90);
  });

  it('yexternal: reports inline code without a score', () => {
    const result = run('yexternal', [doc()], { inlineScripts: [{ bytes: 10, minified: true }], inlineStyles: [] });
    assert.equal(result.score, null);
    assert.deepEqual(result.offenders, ['1 inline <script> block']);
  });

  it('yminify: 10 points per unminified script or stylesheet, external or inline', () => {
    const js = entry(`${W}/a.js`, { type: 'script' });
    const min = entry(`${W}/b.js`, { type: 'script' });
    const result = run('yminify', [doc(), js, min], { inlineScripts: [{ bytes: 100, minified: false }] }, bodies(
      { url: js.request.url, kind: 'js', text: 'function  f()  {\n    return  1;\n}\n' },
      { url: min.request.url, kind: 'js', text: 'function f(){return 1}' }));
    assert.equal(result.score, 80);
    assert.deepEqual(result.offenders, [js.request.url, 'inline <script> #1']);
  });

  it('yminify: n/a when no code could be read', () => {
    assert.equal(run('yminify', [doc(), entry(`${W}/a.js`, { type: 'script' })]).score, null);
    assert.equal(run('yminify', [doc()]).score, 100);
  });

  it('ydupes: 5 points per script or stylesheet included twice', () => {
    const a = entry(`${W}/a.js`, { type: 'script' });
    assert.equal(run('ydupes', [doc(), a, a], { duplicateIncludes: [`${W}/b.css`] }).score, 90);
  });
});

describe('YSlow cookie and image rules', () => {
  it('ymincookie: 100 − (1 + 10 per started kilobyte) over 1000 bytes', () => {
    assert.equal(run('ymincookie', [doc()], { cookieBytes: 1000 }).score, 100);
    assert.equal(run('ymincookie', [doc()], { cookieBytes: 2500 }).score, 79);
  });

  it('ycookiefree: 5 points per static component requested with cookies', () => {
    const result = run('ycookiefree', [doc(), entry(`${W}/a.png`, { type: 'image', request: { Cookie: '[removed]' } }),
      entry('https://static.example.net/b.png', { type: 'image' })]);
    assert.equal(result.score, 95);
  });

  it('yimgnoscale: 5 points per image shown smaller than its pixels, high-density screens allowed for', () => {
    const dom = { images: [
      image(`${W}/big.png`, { naturalWidth: 800, naturalHeight: 600, displayWidth: 400, displayHeight: 300 }),
      image(`${W}/exact.png`),
      image(`${W}/lazy.png`, { naturalWidth: 0, naturalHeight: 0 }),
    ] };
    assert.equal(run('yimgnoscale', [doc()], dom).score, 95);
    assert.equal(run('yimgnoscale', [doc()], { ...dom, devicePixelRatio: 2 }).score, 100);
    assert.equal(run('yimgnoscale', [doc()]).score, 100);
  });

  it('yfavicon: 5 points each for missing, over 2000 bytes, not cacheable', () => {
    // Chromium requests the favicon with resource type "Other".
    assert.equal(run('yfavicon', [doc(), entry(`${W}/favicon.ico`, { type: 'other', status: 404, size: 100 })]).score, 90);
    assert.equal(run('yfavicon', [doc(), entry(`${W}/icon.png`, { type: 'image', size: 5000, headers: CACHED })], { favicon: `${W}/icon.png` }).score, 95);
    assert.equal(run('yfavicon', [doc()]).score, 100);
  });
});

describe('YSlow report', () => {
  it('grades a clean page 100 and writes YSlow\'s JSON keys', () => {
    const { score, json } = yslowReport(input([doc({ headers: { ...CACHED, 'content-encoding': 'gzip' } })]));
    assert.equal(score, 100);
    assert.equal(json.o, 100);
    assert.equal(json.u, PAGE);
    assert.equal(json.r, 1);
    assert.equal(json.i, 'ydefault');
    assert.equal(json.g.yexternal.score, 'n/a');
    assert.equal(Object.keys(json.g).length, 23);
  });

  it('copes with a HAR without entries', () => {
    const { score, json } = yslowReport({ har: har(), facts: input([]).facts });
    assert.equal(score, 100);
    assert.equal(json.r, 0);
  });

  it('counts a 404 and a redirect chain against the page', () => {
    const entries = [
      entry('http://example.com/', { type: 'document', status: 301, redirectTo: PAGE }),
      doc({ headers: { 'content-encoding': 'gzip' } }),
      entry(`${W}/missing.png`, { type: 'image', status: 404 }),
    ];
    const { json } = yslowReport(input(entries));
    assert.equal(json.g.yredirects.score, 90);
    assert.equal(json.g.yno404.score, 95);
    assert.ok(json.o < 100);
  });
});
