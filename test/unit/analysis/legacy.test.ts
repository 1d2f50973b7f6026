/**
 * The legacy analysis' own files (src/analysis/legacy/, tested as one folder: bodies.ts, files.ts with the tar.ts it
 * writes, and index.ts over them; its two rulesets are legacy/pagespeed.test.ts and legacy/yslow.test.ts): the bodies
 * minified and re-encoded, pagespeed-files.tar, and legacyAnalysis scoring both rulesets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { bodyStoreFromMap } from '../../../src/analysis/facts.js';
import { analyseBodies, analyseImage, analyseText, minifyHtml } from '../../../src/analysis/legacy/bodies.js';
import { archiveName, buildPagespeedFiles, type PagespeedFilesManifest } from '../../../src/analysis/legacy/files.js';
import { legacyAnalysis } from '../../../src/analysis/legacy/index.js';
import { tar } from '../../../src/analysis/legacy/tar.js';
import { doc, entry, facts, har, PAGE } from '../../fixtures/analysis.js';

const W = 'https://www.example.com';

/** Reads a ustar archive back, checking every header's checksum. */
function untar(archive: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let offset = 0;
  while (offset + 512 <= archive.length) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(header.subarray(124, 136).toString('ascii'), 8);
    const stored = parseInt(header.subarray(148, 156).toString('ascii'), 8);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
    assert.equal(stored, sum, `checksum of ${name}`);
    assert.equal(header.subarray(257, 262).toString('ascii'), 'ustar');
    files.set(name, archive.subarray(offset + 512, offset + 512 + size));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** A photo-like JPEG saved at quality 100: re-encoding at 85 makes it clearly smaller. */
async function heavyJpeg(): Promise<Buffer> {
  const raw = Buffer.alloc(160 * 120 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 37 + ((i / 480) | 0) * 11) % 256;
  return sharp(raw, { raw: { width: 160, height: 120, channels: 3 } }).jpeg({ quality: 100 }).toBuffer();
}

async function uncompressedPng(): Promise<Buffer> {
  const raw = Buffer.alloc(100 * 100 * 3, 200);
  return sharp(raw, { raw: { width: 100, height: 100, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}

const JS = `// a comment that goes away
function add(first, second) {
        if (first) {
                var total = first + second;
                return total;
        }
        return second;
}

console.log(add(1, 2));
`;
const CSS = `/* header */
.a {
  color : red ;
  margin : 0px ;
}
`;

describe('bodies', () => {
  it('minifies JavaScript with terser and CSS with lightningcss, keeping the smaller output', async () => {
    const js = await analyseText(`${W}/a.js`, 'js', 'application/javascript', Buffer.from(JS));
    assert.ok(js.optimisedBytes! < js.bytes);
    assert.doesNotMatch(js.output!.toString(), /comment/);
    const css = await analyseText(`${W}/a.css`, 'css', 'text/css', Buffer.from(CSS));
    assert.equal(css.output?.toString(), '.a{color:red;margin:0}');
  });

  it('notes a script the minifier cannot parse instead of failing', async () => {
    const bad = await analyseText(`${W}/bad.js`, 'js', 'application/javascript', Buffer.from('function ( {'));
    assert.equal(bad.optimisedBytes, undefined);
    assert.match(bad.note ?? '', /could not be minified/);
  });

  it('minifies HTML conservatively: comments and whitespace, never inside pre, script or style', () => {
    const html = '<p>a   b</p>\n\n<!-- note -->\n<pre>  keep   this  </pre><script>var  x =  1;</script><!--[if IE]>x<![endif]-->';
    assert.equal(minifyHtml(html), '<p>a b</p>\n<pre>  keep   this  </pre><script>var  x =  1;</script><!--[if IE]>x<![endif]-->');
  });

  it('re-encodes JPEG and PNG in their own format when that is smaller', async () => {
    const jpeg = await analyseImage(`${W}/a.jpg`, 'image/jpeg', await heavyJpeg());
    assert.ok(jpeg.output && jpeg.output.length < jpeg.bytes);
    assert.equal((await sharp(jpeg.output).metadata()).format, 'jpeg');
    const png = await analyseImage(`${W}/a.png`, 'image/png', await uncompressedPng());
    assert.ok(png.output && png.output.length < png.bytes);
    assert.equal((await sharp(png.output).metadata()).format, 'png');
  });

  it('leaves alone what it cannot improve or decode', async () => {
    const svg = await analyseImage(`${W}/a.svg`, 'image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'));
    assert.equal(svg.output, undefined);
    assert.match(svg.note ?? '', /svg images are not re-encoded/);
    const broken = await analyseImage(`${W}/b.jpg`, 'image/jpeg', Buffer.from('not an image'));
    assert.equal(broken.output, undefined);
    assert.match(broken.note ?? '', /could not be decoded/);
  });

  it('records missing bodies and respects the limits', async () => {
    const png = await uncompressedPng();
    const entries = [doc(), entry(`${W}/a.png`, { type: 'image' }), entry(`${W}/b.png`, { type: 'image' }), entry(`${W}/c.js`, { type: 'script' })];
    const store = bodyStoreFromMap(new Map([[`${W}/a.png`, png], [`${W}/b.png`, png]]));
    const analysed = await analyseBodies(har(...entries), store, { maxImages: 1 });
    assert.deepEqual([...analysed.byUrl.keys()], [`${W}/a.png`]);
    assert.deepEqual(analysed.skipped, [`${W}/b.png`]);
    assert.deepEqual(analysed.missing, [PAGE, `${W}/c.js`]);
  });
});

describe('pagespeed-files.tar', () => {
  it('writes a ustar archive any tar can read', () => {
    const archive = tar([{ name: 'a.txt', data: Buffer.from('hello') }, { name: 'b/c.bin', data: Buffer.alloc(600, 1) }], 0);
    assert.equal(archive.length % 512, 0);
    const files = untar(archive);
    assert.equal(files.get('a.txt')?.toString(), 'hello');
    assert.equal(files.get('b/c.bin')?.length, 600);
    assert.throws(() => tar([{ name: 'x'.repeat(101), data: Buffer.alloc(0) }]));
  });

  it('names files shortly and safely, keeping the extension', () => {
    assert.equal(archiveName('images', 3, `${W}/img/My%20Logo.png?v=2`), 'images/003-My_Logo.png');
    assert.equal(archiveName('js', 12, `${W}/`), 'js/012-file');
    assert.ok(archiveName('css', 1, `${W}/${'x'.repeat(300)}.css`).length <= 100);
  });

  it('holds the optimised images and minified code with a manifest', async () => {
    const jpeg = await heavyJpeg();
    const entries = [doc(), entry(`${W}/photo.jpg`, { type: 'image' }), entry(`${W}/app.js`, { type: 'script' }),
      entry(`${W}/site.css`, { type: 'stylesheet' }), entry(`${W}/gone.js`, { type: 'script' })];
    const store = bodyStoreFromMap(new Map([
      [PAGE, Buffer.from('<html>  <body>hi</body></html>')], [`${W}/photo.jpg`, jpeg],
      [`${W}/app.js`, Buffer.from(JS)], [`${W}/site.css`, Buffer.from('.a{color:red}')],
    ]));
    const files = untar(await buildPagespeedFiles(har(...entries), store));
    const manifest = JSON.parse(files.get('manifest.json')!.toString()) as PagespeedFilesManifest;
    assert.deepEqual(manifest.files.map((f) => f.path).sort(), ['images/001-photo.jpg', 'js/002-app.js']);
    for (const f of manifest.files) {
      assert.ok(f.optimised_bytes < f.original_bytes);
      assert.equal(files.get(f.path)?.length, f.optimised_bytes);
    }
    assert.deepEqual(manifest.omitted.map((o) => o.url).sort(), [`${W}/gone.js`, `${W}/site.css`]);
  });

  it('is a valid archive with only a manifest when there are no bodies', async () => {
    const files = untar(await buildPagespeedFiles(har(), bodyStoreFromMap(new Map())));
    assert.deepEqual([...files.keys()], ['manifest.json']);
  });
});

describe('legacyAnalysis', () => {
  it('scores PageSpeed and YSlow from the HAR, the facts and the bodies, and hands the bodies on', async () => {
    const jpeg = await heavyJpeg();
    const js = JS.repeat(3); // big enough for a saving over the 100-byte threshold
    const entries = [doc(), entry(`${W}/photo.jpg`, { type: 'image', size: jpeg.length }), entry(`${W}/app.js`, { type: 'script', size: js.length })];
    const store = bodyStoreFromMap(new Map([[`${W}/photo.jpg`, jpeg], [`${W}/app.js`, Buffer.from(js)]]));
    const result = await legacyAnalysis(har(...entries), facts(), store);
    const rule = (id: string) => result.pagespeed.json.rule_results.find((r) => r.rule_name === id)!;
    assert.ok(rule('OptimizeImages').rule_score! < 100);
    assert.ok(rule('MinifyJavaScript').rule_score! < 100);
    assert.equal(result.yslow.json.g.yminify.score, 90);
    assert.ok(result.pagespeed.score >= 0 && result.pagespeed.score <= 100);
    assert.equal(result.yslow.score, result.yslow.json.o);
    assert.ok(result.bodies?.byUrl.get(`${W}/photo.jpg`)?.output);
  });

  it('works without a body store', async () => {
    const result = await legacyAnalysis(har(doc()), facts());
    assert.equal(result.bodies, undefined);
    assert.equal(result.yslow.json.g.yminify.score, 100);
  });
});
