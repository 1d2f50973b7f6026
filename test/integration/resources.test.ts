// lane: alone
/**
 * Every resource of spec 4.2 that a test produces beyond the HAR and Lighthouse JSON, through the HTTP API: video.mp4
 * (H.264 at a steady 30 fps from navigation start, Range requests), filmstrip frames lined up with the report's
 * timings, report.pdf (credits, plans, the parallel limit, 302 while it is generated, E40407/E50001),
 * optimized-images.tar (smaller images, 24 h), resource-summary, and the public report page as Chromium shows it.
 * One test run (the fixture's gallery page, with video); the other reports are seeded rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FIXTURE, startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { call, errorOf, startServer, waitForTest, type Res, type TestServer } from '../helpers/server.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';
import { clock } from '../../src/core/clock.js';
import { closeBrowser, launchBrowser } from '../../src/runner/browser.js';
import { luminance, probeVideo, videoFrameLuminance } from '../helpers/images.js';

const CHROME = process.env.WEBGAUGE_CHROME_PATH ?? '/usr/bin/chromium';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let site: FixtureSite;
let server: TestServer;
let report: Res;
let id: string;

/** A GET with the key, the body as bytes. */
async function raw(url: string, key: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(url.startsWith('http') ? url : server.api + url, {
    headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, ...headers }, redirect: 'manual',
  });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

const credits = async (key: string): Promise<number> =>
  (await call(server, 'GET', '/status', { key })).body.data.attributes.api_credits;

/** Files of a ustar archive, in order. */
function untar(tar: Buffer): { name: string; data: Buffer }[] {
  const files: { name: string; data: Buffer }[] = [];
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(header.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim(), 8);
    files.push({ name, data: tar.subarray(at + 512, at + 512 + size) });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** The PDF's document title from its Info dictionary (Chromium writes the page's <title>, UTF-16 when needed). */
function pdfTitle(pdf: Buffer): string {
  const text = pdf.toString('latin1');
  const hex = /\/Title\s*<([0-9A-Fa-f]+)>/.exec(text);
  if (hex) {
    const bytes = Buffer.from(hex[1], 'hex');
    return bytes[0] === 0xfe && bytes[1] === 0xff ? bytes.subarray(2).swap16().toString('utf16le') : bytes.toString('latin1');
  }
  return /\/Title\s*\(([^)]*)\)/.exec(text)?.[1] ?? '';
}
const pdfPages = (pdf: Buffer): number => (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;

/** GET report.pdf as a client does: follow 302s (to the same URL) until the file or an error. */
async function getPdf(key: string, reportId: string, full = false): Promise<{ res: Awaited<ReturnType<typeof raw>>; redirects: string[] }> {
  const url = `${server.api}/reports/${reportId}/resources/report.pdf${full ? '?full=1' : ''}`;
  const redirects: string[] = [];
  for (let target = url; ;) {
    const res = await raw(target, key);
    if (res.status !== 302) return { res, redirects };
    redirects.push(res.headers.get('location') ?? '');
    target = res.headers.get('location')!;
    if (redirects.length > 200) assert.fail('redirected forever');
  }
}

before(async () => {
  site = await startFixtureSite();
  // A PDF request waits 300 ms for the file, then is redirected to ask again: every first request sees a 302.
  server = await startServer({ engine: 'sqlite', agentSlots: 1, env: { WEBGAUGE_PDF_WAIT_MS: '300' } });
  const started = await call(server, 'POST', '/tests', {
    key: server.key, body: { data: { type: 'test', attributes: { url: site.url('/gallery'), video: 1 } } },
  });
  assert.equal(started.status, 202, started.text);
  assert.equal(started.body.meta.credits_used, 1.9, 'lighthouse 1 + video 0.9');
  id = started.body.data.id;
  const done = await waitForTest(server, server.key, id);
  assert.equal(done.status, 303, done.text);
  report = await call(server, 'GET', `/reports/${id}`, { key: server.key });
});

after(async () => {
  clock.reset();
  await server?.close();
  await site?.close();
});

describe('links', () => {
  test('the report links every resource it has, all absolute under /api/2.0', () => {
    const l = report.body.data.links;
    const base = `${server.api}/reports/${id}/resources/`;
    assert.equal(l.video, `${base}video.mp4`);
    assert.equal(l.report_pdf, `${base}report.pdf`);
    assert.equal(l.report_pdf_full, `${base}report.pdf?full=1`);
    assert.equal(l.optimized_images, `${base}optimized-images.tar`);
    assert.equal(l.resource_summary, `${base}resource-summary`);
  });

  test('a basic plan gets no full-PDF link; a report without video, images or summary links none of them', async () => {
    const basic = await server.account({ plan: 'basic' });
    const seeded = await seedPage(server.app.store, await accountIdOf(server.app.store, basic));
    const l = (await call(server, 'GET', `/reports/${seeded.reportId}`, { key: basic })).body.data.links;
    assert.equal(typeof l.report_pdf, 'string');
    for (const k of ['report_pdf_full', 'video', 'optimized_images', 'resource_summary']) assert.equal(l[k], undefined, k);
  });
});

describe('conditional requests', () => {
  test('every stored resource answers an ETag and 304 to If-None-Match, before reading the file; Range comes after', async () => {
    for (const name of ['screenshot.jpg', 'net.har', 'filmstrip.json', 'lighthouse.json', 'resource-summary', 'video.mp4', 'filmstrip-frame.jpg?id=0']) {
      const first = await raw(`/reports/${id}/resources/${name}`, server.key);
      assert.equal(first.status, 200, name);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^"[A-Za-z0-9_-]{27}"$/, name);
      const again = await raw(`/reports/${id}/resources/${name}`, server.key, { 'if-none-match': etag! });
      assert.equal(again.status, 304, name);
      assert.equal(again.body.length, 0, name);
      assert.equal(again.headers.get('cache-control'), 'max-age=31536000', name);
    }
    const etag = (await raw(`/reports/${id}/resources/video.mp4`, server.key)).headers.get('etag')!;
    assert.equal((await raw(`/reports/${id}/resources/video.mp4`, server.key, { 'if-none-match': etag, range: 'bytes=0-9' })).status, 304);
    const part = await raw(`/reports/${id}/resources/video.mp4`, server.key, { 'if-none-match': '"old"', range: 'bytes=0-9' });
    assert.equal(part.status, 206);
    assert.equal(part.body.length, 10);
    const frame1 = (await raw(`/reports/${id}/resources/filmstrip-frame.jpg?id=1`, server.key)).headers.get('etag');
    assert.notEqual(frame1, (await raw(`/reports/${id}/resources/filmstrip-frame.jpg?id=0`, server.key)).headers.get('etag'), 'each frame its own tag');
  });
});

describe('video.mp4', () => {
  let mp4: Buffer;
  before(async () => {
    const res = await raw(`/reports/${id}/resources/video.mp4`, server.key);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'video/mp4');
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    assert.equal(res.headers.get('cache-control'), 'max-age=31536000');
    mp4 = res.body;
  });

  test('is H.264 mp4 at a steady 30 fps, as long as the load', async () => {
    assert.equal(mp4.subarray(4, 8).toString('latin1'), 'ftyp');
    const p = await probeVideo(mp4);
    assert.equal(p.codec_name, 'h264');
    assert.equal(p.pix_fmt, 'yuv420p');
    assert.equal(p.r_frame_rate, '30/1');
    assert.equal(p.avg_frame_rate, '30/1');
    assert.equal(p.width, '1366');
    const fully = report.body.data.attributes.fully_loaded_time;
    assert.ok(Math.abs(Number(p.duration) * 1000 - fully) <= 100, `duration ${p.duration} s vs fully loaded ${fully} ms`);
  });

  test('starts at navigation start: blank until first paint, the page from then on', async () => {
    const frames = await videoFrameLuminance(mp4);
    const a = report.body.data.attributes;
    const frameAt = (ms: number) => frames[Math.floor((ms * 30) / 1000)];
    assert.ok(frames[0] > 240, 'the first frame is the blank page');
    assert.ok(frameAt(a.first_paint_time - 70) > 240, `blank just before first paint (${a.first_paint_time} ms)`);
    assert.ok(frameAt(a.first_contentful_paint + 70) < 150, `content just after first contentful paint (${a.first_contentful_paint} ms)`);
    assert.ok(frames[frames.length - 1] < 150, 'the last frame shows the page');
  });

  test('answers Range requests with 206 and the right bytes', async () => {
    const cases: [string, number, number][] = [['bytes=0-99', 0, 99], ['bytes=100-', 100, mp4.length - 1],
      ['bytes=-50', mp4.length - 50, mp4.length - 1], [`bytes=10-${mp4.length + 1000}`, 10, mp4.length - 1]];
    for (const [range, start, end] of cases) {
      const res = await raw(`/reports/${id}/resources/video.mp4`, server.key, { range });
      assert.equal(res.status, 206, range);
      assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${mp4.length}`, range);
      assert.equal(res.headers.get('content-length'), String(end - start + 1), range);
      assert.deepEqual(res.body, mp4.subarray(start, end + 1), range);
    }
    // Several ranges: the whole file (RFC 9110 lets a server ignore Range).
    const multi = await raw(`/reports/${id}/resources/video.mp4`, server.key, { range: 'bytes=0-1,5-6' });
    assert.equal(multi.status, 200);
    assert.equal(multi.body.length, mp4.length);
  });

  test('a malformed or unsatisfiable Range is 416 E41600 with Content-Range: bytes */size', async () => {
    for (const range of ['bytes=abc', 'pages=1-2', 'bytes=50-10', `bytes=${mp4.length}-`, 'bytes=-0']) {
      const res = await call(server, 'GET', `/reports/${id}/resources/video.mp4`, { key: server.key, headers: { range } });
      assert.equal(res.status, 416, range);
      assert.equal(errorOf(res).code, 'E41600', range);
      assert.equal(res.headers.get('content-range'), `bytes */${mp4.length}`, range);
      assert.equal(res.headers.get('cache-control'), null, `${range}: an error is not cached for a year`);
    }
  });

  test('is served on the public report page too, with Range', async () => {
    const url = `${report.body.data.links.report_url}/video.mp4`;
    const res = await fetch(url, { headers: { range: 'bytes=0-9' } });
    assert.equal(res.status, 206);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), mp4.subarray(0, 10));
  });

  test('a report without video answers 404 E40407', async () => {
    const seeded = await seedPage(server.app.store, await accountIdOf(server.app.store, server.key));
    const res = await call(server, 'GET', `/reports/${seeded.reportId}/resources/video.mp4`, { key: server.key });
    assert.equal(res.status, 404);
    assert.equal(errorOf(res).code, 'E40407');
  });
});

describe('filmstrip', () => {
  test('its frames line up with the report\'s timings: the frame at first paint shows the page, the one before is blank', async () => {
    const film = await call(server, 'GET', `/reports/${id}/resources/filmstrip.json`, { key: server.key });
    const frames: { id: string; timestamp: number; url: string }[] = film.body.frames;
    const fp = report.body.data.attributes.first_paint_time;
    const atFp = frames.filter((f) => f.timestamp <= fp + 20).pop()!;
    const beforeFp = frames[frames.indexOf(atFp) - 1];
    assert.ok(beforeFp, `a frame before first paint (${frames.map((f) => f.timestamp).join(', ')}; FP ${fp})`);
    assert.ok(fp - atFp.timestamp <= 50, `the content frame (${atFp.timestamp} ms) is at first paint (${fp} ms)`);
    const frame = (f: { id: string }) => raw(`/reports/${id}/resources/filmstrip-frame.jpg?id=${f.id}`, server.key);
    assert.ok((await luminance((await frame(atFp)).body)) < 150, 'the frame at first paint shows the page');
    assert.ok((await luminance((await frame(beforeFp)).body)) > 240, 'the frame before it is blank');
  });
});

describe('report.pdf', () => {
  test('is our report printed by Chromium, charged 0.2 once; redirected to itself while it is made', async () => {
    const before = await credits(server.key);
    const { res, redirects } = await getPdf(server.key, id);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(res.headers.get('cache-control'), 'max-age=31536000');
    assert.equal(res.body.subarray(0, 5).toString(), '%PDF-');
    assert.match(res.body.toString('latin1'), /\/Producer \(Skia\/PDF/);
    const a = report.body.data.attributes;
    assert.equal(pdfTitle(res.body), `${a.service_grade} · ${site.url('/gallery')} · Webgauge report`);
    assert.ok(redirects.length >= 1, 'generation takes longer than the 300 ms a request waits');
    for (const location of redirects) assert.equal(location, `${server.api}/reports/${id}/resources/report.pdf`);
    const kept = await raw(`/reports/${id}/resources/report.pdf`, server.key, { 'if-none-match': res.headers.get('etag')! });
    assert.equal(kept.status, 304, 'a client that has the PDF gets 304');
    assert.equal(await credits(server.key), Math.round((before - 0.2) * 10) / 10);

    // Kept: asking again serves the same file at once and charges nothing.
    const again = await raw(`/reports/${id}/resources/report.pdf`, server.key);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, res.body);
    assert.equal(await credits(server.key), Math.round((before - 0.2) * 10) / 10);
  });

  test('full=1 is the full report, charged 0.3, with more pages', async () => {
    const summary = (await raw(`/reports/${id}/resources/report.pdf`, server.key)).body;
    const before = await credits(server.key);
    const { res, redirects } = await getPdf(server.key, id, true);
    assert.equal(res.status, 200);
    for (const location of redirects) assert.equal(location, `${server.api}/reports/${id}/resources/report.pdf?full=1`);
    assert.ok(pdfPages(res.body) >= pdfPages(summary), `${pdfPages(res.body)} pages vs ${pdfPages(summary)}`);
    assert.notDeepEqual(res.body, summary);
    assert.equal(await credits(server.key), Math.round((before - 0.3) * 10) / 10);
  });

  test('plans and roles: 403 E40302 for full on basic, 403 E40301 for a viewer, 402 E40201 without credits', async () => {
    const basic = await server.account({ plan: 'basic', email: 'pdf-viewer-owner@example.test' });
    const owner = await accountIdOf(server.app.store, basic);
    const seeded = await seedPage(server.app.store, owner);
    const full = await call(server, 'GET', `/reports/${seeded.reportId}/resources/report.pdf?full=1`, { key: basic });
    assert.equal(full.status, 403);
    assert.equal(errorOf(full).code, 'E40302');

    const viewer = await server.account({ plan: 'basic', role: 'viewer', teamOf: 'pdf-viewer-owner@example.test' });
    const denied = await call(server, 'GET', `/reports/${seeded.reportId}/resources/report.pdf`, { key: viewer });
    assert.equal(denied.status, 403);
    assert.equal(errorOf(denied).code, 'E40301');

    await server.app.store.db.updateTable('accounts').set({ credits_tenths: 1 }).where('id', '=', owner).execute();
    const poor = await call(server, 'GET', `/reports/${seeded.reportId}/resources/report.pdf`, { key: basic });
    assert.equal(poor.status, 402);
    assert.equal(errorOf(poor).code, 'E40201');
    assert.equal(await credits(basic), 0.1);
  });

  test('a basic plan makes one PDF at a time: a second one meanwhile is 429 E42903, joining the first is not', async () => {
    const basic = await server.account({ plan: 'basic' });
    const owner = await accountIdOf(server.app.store, basic);
    const [a, b] = [await seedPage(server.app.store, owner), await seedPage(server.app.store, owner)];
    const first = getPdf(basic, a.reportId);
    await sleep(80); // the first generation is running (a browser takes longer than this to start)
    const second = await call(server, 'GET', `/reports/${b.reportId}/resources/report.pdf`, { key: basic });
    assert.equal(second.status, 429, second.text);
    assert.equal(errorOf(second).code, 'E42903');
    const joined = await raw(`/reports/${a.reportId}/resources/report.pdf`, basic);
    assert.ok(joined.status === 302 || joined.status === 200, `joining the running generation: ${joined.status}`);
    assert.equal((await first).res.status, 200);
    assert.equal(await credits(basic), 4.8, 'one charge of 0.2 for the first PDF');
    assert.equal((await getPdf(basic, b.reportId)).res.status, 200, 'the next one, once the first is done');
  });

  test('404 E40407 without a browser to render with; 500 E50001 when rendering fails, refunded', async () => {
    for (const [chrome, code, status] of [['/nonexistent/chromium', 'E40407', 404], ['/bin/false', 'E50001', 500]] as const) {
      const other = await startServer({ engine: 'sqlite', agentSlots: 0, env: { WEBGAUGE_CHROME_PATH: chrome, WEBGAUGE_PDF_WAIT_MS: '300' } });
      try {
        const seeded = await seedPage(other.app.store, await accountIdOf(other.app.store, other.key));
        const before = (await call(other, 'GET', '/status', { key: other.key })).body.data.attributes.api_credits;
        let res = await call(other, 'GET', `/reports/${seeded.reportId}/resources/report.pdf`, { key: other.key });
        while (res.status === 302) res = await call(other, 'GET', res.headers.get('location')!, { key: other.key });
        assert.equal(res.status, status, res.text);
        assert.equal(errorOf(res).code, code);
        await sleep(100); // the refund follows the failure
        assert.equal((await call(other, 'GET', '/status', { key: other.key })).body.data.attributes.api_credits, before);
      } finally {
        await other.close();
      }
    }
  });
});

describe('optimized-images.tar', () => {
  let files: { name: string; data: Buffer }[];
  let manifest: { files: { path: string; url: string; format: string; original_bytes: number; optimised_bytes: number }[];
    omitted: { url: string; reason: string }[] };
  before(async () => {
    const res = await raw(`/reports/${id}/resources/optimized-images.tar`, server.key);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-tar');
    files = untar(res.body);
    manifest = JSON.parse(files[0].data.toString('utf8'));
  });

  test('holds every raster image of the page, re-encoded smaller in its own format', () => {
    assert.equal(files[0].name, 'manifest.json');
    const byPath = new Map(files.map((f) => [f.name, f.data]));
    const magic: Record<string, (b: Buffer) => boolean> = {
      jpeg: (b) => b[0] === 0xff && b[1] === 0xd8, png: (b) => b.subarray(1, 4).toString() === 'PNG',
      webp: (b) => b.subarray(8, 12).toString() === 'WEBP', gif: (b) => b.subarray(0, 3).toString() === 'GIF',
    };
    const expected = { '/image.jpg': 'jpeg', '/photo.png': 'png', '/photo.webp': 'webp' } as Record<string, string>;
    for (const [path, format] of Object.entries(expected)) {
      const f = manifest.files.find((x) => x.url === site.url(path));
      assert.ok(f, `${path} is in the archive: ${JSON.stringify(manifest)}`);
      assert.equal(f.format, format);
      assert.equal(f.original_bytes, site.files[path].length);
      const data = byPath.get(f.path)!;
      assert.equal(data.length, f.optimised_bytes);
      assert.ok(data.length < site.files[path].length, `${path}: ${data.length} < ${site.files[path].length}`);
      assert.ok(magic[format](data), `${path} is still ${format}`);
    }
    const svg = manifest.omitted.find((x) => x.url === site.url('/icon.svg'));
    assert.match(svg?.reason ?? '', /not re-encoded/);
    const gif = manifest.files.find((x) => x.url === site.url('/anim.gif')) ?? manifest.omitted.find((x) => x.url === site.url('/anim.gif'));
    assert.ok(gif, 'the GIF is accounted for');
  });

  test('format=webp turns them into WebP; a bad format is 400 E40001; the archive is kept', async () => {
    const res = await raw(`/reports/${id}/resources/optimized-images.tar?format=webp`, server.key);
    assert.equal(res.status, 200);
    const webp = untar(res.body);
    const m = JSON.parse(webp[0].data.toString('utf8'));
    assert.ok(m.files.length >= 3);
    for (const f of m.files) {
      assert.equal(f.format, 'webp');
      assert.match(f.path, /\.webp$/);
      assert.ok(f.optimised_bytes < f.original_bytes);
    }
    const bad = await call(server, 'GET', `/reports/${id}/resources/optimized-images.tar?format=bmp`, { key: server.key });
    assert.equal(errorOf(bad).code, 'E40001');
    const again = await raw(`/reports/${id}/resources/optimized-images.tar`, server.key);
    assert.equal(again.body.length, files.reduce((n, f) => n + 512 + Math.ceil(f.data.length / 512) * 512, 1024));
  });

  test('a report without images answers 404 E40411', async () => {
    const seeded = await seedPage(server.app.store, await accountIdOf(server.app.store, server.key));
    const res = await call(server, 'GET', `/reports/${seeded.reportId}/resources/optimized-images.tar`, { key: server.key });
    assert.equal(errorOf(res).code, 'E40411');
  });
});

describe('resource-summary', () => {
  test('counts requests, transfer and decoded bytes per content type, as the fixture serves them', async () => {
    const res = await call(server, 'GET', `/reports/${id}/resources/resource-summary`, { key: server.key });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const s = res.body;
    const type = (t: string) => s.content_types.find((x: { type: string }) => x.type === t);
    const f = site.files;
    const expected: Record<string, [number, number]> = {
      html: [1, f['/gallery'].length], css: [1, f['/style.css'].length], javascript: [1, f['/app.js'].length],
      image: [5, FIXTURE.gallery.images.reduce((n, p) => n + f[p].length, 0)], font: [0, 0],
      json: [1, f['/late.json'].length], media: [0, 0], other: [0, 0],
    };
    assert.deepEqual(s.content_types.map((x: { type: string }) => x.type), Object.keys(expected));
    for (const [t, [requests, decoded]] of Object.entries(expected)) {
      assert.equal(type(t).requests, requests, t);
      assert.equal(type(t).decoded_bytes, decoded, t);
      assert.ok(type(t).transfer_bytes >= decoded && type(t).transfer_bytes <= decoded + requests * FIXTURE.maxResponseHeaderBytes, t);
    }
    const a = report.body.data.attributes;
    assert.equal(s.total.requests, a.page_requests);
    assert.equal(s.total.transfer_bytes, a.page_bytes);
  });
});

describe('the public report page', () => {
  test('shows grade, scores, Web Vitals, timings, waterfall, filmstrip, video and screenshot, and nothing secret', async () => {
    const res = await fetch(report.body.data.links.report_url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await res.text();
    const a = report.body.data.attributes;
    assert.ok(html.includes(`<span class="letter">${a.service_grade}</span>`));
    assert.ok(html.includes(`--v:${a.performance_score}`) && html.includes(`--v:${a.structure_score}`));
    for (const text of ['Largest Contentful Paint', 'Total Blocking Time', 'Cumulative Layout Shift', 'Browser timings',
      'Waterfall', 'Structure', 'Filmstrip', 'Screenshot', 'Page details']) assert.ok(html.includes(text), text);
    assert.equal((html.match(/<td class="bar"/g) ?? []).length, a.page_requests, 'one waterfall row per request');
    assert.ok(html.includes('<video controls'));
  });

  test('Chromium shows it with every picture and the video loaded', async () => {
    // The way every browser of the service is launched (sandboxed, its own user when root).
    const browser = await launchBrowser({ chromePath: CHROME, protocolTimeoutMs: 30_000 });
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1366, height: 900 });
      await page.goto(report.body.data.links.report_url, { waitUntil: 'networkidle0' });
      const state = await page.evaluate(`(async () => {
        for (const img of document.images) img.loading = 'eager';
        await Promise.all([...document.images].map((i) => i.decode().catch(() => undefined)));
        const v = document.querySelector('video');
        if (v.readyState < 1) await new Promise((r) => { v.onloadedmetadata = r; v.onerror = r; setTimeout(r, 5000); });
        return { images: document.images.length, broken: [...document.images].filter((i) => !i.naturalWidth).map((i) => i.src),
          video: v.duration, height: document.documentElement.scrollHeight };
      })()`) as { images: number; broken: string[]; video: number; height: number };
      assert.deepEqual(state.broken, []);
      assert.ok(state.images >= 2, `${state.images} images`);
      assert.ok(Math.abs(state.video * 1000 - report.body.data.attributes.fully_loaded_time) <= 100, `video ${state.video} s`);
      if (process.env.WEBGAUGE_REPORT_SCREENSHOT) {
        await page.screenshot({ path: process.env.WEBGAUGE_REPORT_SCREENSHOT as `${string}.png`, fullPage: true });
      }
    } finally {
      await closeBrowser(browser);
    }
  });
});

describe('optimized images expire', () => {
  test('24 hours after the report: 404 E40412 and no link', async () => {
    clock.advance(24 * 3600 * 1000 + 1000);
    try {
      const res = await call(server, 'GET', `/reports/${id}/resources/optimized-images.tar`, { key: server.key });
      assert.equal(res.status, 404);
      assert.equal(errorOf(res).code, 'E40412');
      const again = await call(server, 'GET', `/reports/${id}`, { key: server.key });
      assert.equal(again.body.data.links.optimized_images, undefined);
      assert.equal(typeof again.body.data.links.video, 'string', 'the other resources stay');
    } finally {
      clock.reset();
    }
  });
});
