/**
 * Sitemaps read by discovery (discovery/sitemap.ts, sitemap-parser.ts) against hostile ones, through discover() and the
 * sites of test/fixtures/discovery-sites.ts (host hostile.test): each is refused without harm, said in `errors` with
 * the sitemap's URL and line, counted as `sitemap_error` (or `other_host`), and what came before the refusal is kept.
 * The internal service on 127.0.0.2 gets no connection.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { discover } from '../../../src/discovery/discover.js';
import type { DiscoveryResult } from '../../../src/discovery/types.js';
import { startSites, type Sites } from '../../fixtures/discovery-sites.js';

let sites: Sites;
before(async () => {
  sites = await startSites();
});
after(async () => {
  assert.equal(sites.internal.connections, 0, 'the internal service on 127.0.0.2 got no connection');
  await sites.close();
});

const h = (path: string) => sites.url('hostile.test', path);
/** Discovery of hostile.test from the given sitemaps, /ok.xml after them (two good pages). */
async function read(...sitemaps: string[]): Promise<DiscoveryResult & { ms: number }> {
  const started = performance.now();
  const r = await discover(sites.input(h('/'), { sitemaps: [...sitemaps.map(h), h('/ok.xml')] }));
  return { ...r, ms: performance.now() - started };
}
const paths = (r: DiscoveryResult) => r.pages.map((p) => new URL(p.url).pathname).sort();
const message = (path: string, rest: string) => new RegExp(`^sitemap ${h(path).replace(/[.?]/g, '\\$&')}: ${rest}`);

test('a gzip bomb (1 GiB from 1 MB) and the same bomb gzipped twice stop at 50 MB decoded', async () => {
  const r = await read('/bomb.gz', '/bomb2.xml');
  assert.deepEqual(paths(r), ['/ok-a', '/ok-b']);
  assert.equal(r.errors.length, 2);
  // Zeros are no URL: a text sitemap of one endless line (not usable), until 50 MB.
  assert.match(r.errors[0]!, message('/bomb.gz', 'line 1: larger than 50 MB decoded \\(the protocol\'s limit\\): the rest was not read; ' +
    'line 1: a line longer than 2048 characters$'));
  assert.match(r.errors[1]!, message('/bomb2.xml', 'line 1: larger than 50 MB decoded'));
  assert.deepEqual(r.skipped, { sitemap_error: 2 });
  assert.ok(r.ms < 5000, `${r.ms} ms`);
});

test('a .xml.gz served gzip-encoded (two layers) is read; a third layer is refused', async () => {
  const r = await read('/double.xml.gz', '/triple.xml.gz');
  assert.deepEqual(paths(r), ['/double-a', '/ok-a', '/ok-b']);
  assert.deepEqual(r.errors.map((e) => e.replace(/^sitemap \S+: /, '')), ['it is gzipped more than twice']);
  assert.match(r.errors[0]!, message('/triple.xml.gz', ''));
});

test('billion laughs and an external entity pointing at the internal service are refused at their DOCTYPE', async () => {
  const r = await read('/laughs.xml', '/xxe.xml');
  assert.deepEqual(paths(r), ['/ok-a', '/ok-b']);
  assert.match(r.errors[0]!, message('/laughs.xml', 'line 2: a DOCTYPE or entity declaration, which a sitemap never needs: refused'));
  assert.match(r.errors[1]!, message('/xxe.xml', 'line 2: a DOCTYPE or entity declaration'));
  assert.deepEqual(r.skipped, { sitemap_error: 2 });
  assert.equal(sites.internal.connections, 0);
});

test('a sitemap of more than 50,000 URLs: the first 50,000 are kept, the file counts as an error', async () => {
  const progress: number[] = [];
  const r = await discover(sites.input(h('/'), { sitemaps: [h('/many.xml')], maxPages: 10, sample: 0, onProgress: (n) => progress.push(n) }));
  assert.equal(r.found, 50_000);
  assert.equal(progress.at(-1), 50_000, 'the count found so far is told as it grows');
  assert.ok(progress.length > 10 && progress.every((n, i) => i === 0 || n >= progress[i - 1]!));
  assert.equal(r.pages.length, 10);
  assert.deepEqual(r.errors, [`sitemap ${h('/many.xml')}: line 50003: more than 50,000 URLs (the protocol's limit): the first 50,000 ` +
    'were kept, the rest of the file was not read']);
  assert.deepEqual(r.skipped, { sitemap_error: 1, over_max_pages: 49_990 });
});

test('a sitemap over 50 MB decoded: the URLs before the limit are kept, the rest not read', async () => {
  const r = await read('/huge.xml');
  assert.equal(r.found, 1002, 'the 1,000 distinct URLs of the file and the two of ok.xml');
  assert.ok((r.skipped.duplicate ?? 0) > 10_000, 'the file repeats them');
  assert.equal(r.skipped.sitemap_error, 1);
  assert.match(r.errors[0]!, message('/huge.xml', 'line \\d+: larger than 50 MB decoded \\(the protocol\'s limit\\): the rest was not read \\(the \\d+ entries before it were kept\\)$'));
  assert.ok(r.ms < 5000, `${r.ms} ms`);
});

test('an index nested four deep is refused; an index listing itself or a sitemap twice reads each once', async () => {
  const deep = await read('/deep1.xml');
  assert.deepEqual(paths(deep), ['/ok-a', '/ok-b']);
  assert.deepEqual(deep.errors, [`sitemap ${h('/deep4.xml')}: line 2: a sitemap index nested deeper than 3 indexes: refused`]);
  assert.deepEqual(deep.skipped, { sitemap_error: 1 });
  assert.ok(!sites.requests.some((q) => q.path === '/deep5.xml'));

  const self = await discover(sites.input(h('/'), { sitemaps: [h('/self.xml')] }));
  assert.deepEqual(paths(self), ['/ok-a', '/ok-b']);
  assert.deepEqual(self.errors, [
    `sitemap ${h('/self.xml')}: lists itself (a cycle): not read again`,
    `sitemap ${h('/self.xml')}: lists ${h('/ok.xml')}, which was listed already: not read again`,
  ]);
  assert.deepEqual(self.skipped, { sitemap_error: 2 });
});

test('a sitemap redirecting into the internal service is refused before any connection', async () => {
  const r = await read('/to-internal.xml');
  assert.deepEqual(paths(r), ['/ok-a', '/ok-b']);
  assert.match(r.errors[0]!, message('/to-internal.xml', 'redirected to http://127\\.0\\.0\\.2:\\d+/sitemap\\.xml, which failed: refused: ' +
    '127\\.0\\.0\\.2 resolves to a loopback address'));
  assert.equal(sites.internal.connections, 0);
});

test('sitemaps and URLs on another host are skipped as other_host, never fetched; nothing left is fatal', async () => {
  const before = sites.requests.length;
  const r = await discover(sites.input(h('/'), { sitemaps: [sites.url('elsewhere.test', '/direct.xml'), h('/other-index.xml')] }));
  assert.deepEqual(paths(r), ['/ok-a', '/ok-b']);
  assert.deepEqual(r.skipped, { other_host: 2 });
  assert.match(r.errors[0]!, /^sitemap http:\/\/elsewhere\.test:\d+\/direct\.xml: on another host than the site \(http:\/\/hostile\.test:\d+\): not read$/);
  assert.match(r.errors[1]!, message('/other-index.xml', 'lists http://elsewhere\\.test:\\d+/s\\.xml, on another host than the site: not read'));
  assert.ok(!sites.requests.slice(before).some((q) => q.host === 'elsewhere.test'));

  const none = await discover(sites.input(h('/'), { sitemaps: [h('/other.xml')] }));
  assert.deepEqual(none.pages, []);
  assert.match(none.fatal ?? '', /^the given sitemaps listed 2 URL\(s\) and none is left to test \(2 on other hosts; the site is http:\/\/hostile\.test:\d+\)$/);
  const empty = await discover(sites.input(h('/'), { sitemaps: [h('/missing.xml')] }));
  assert.match(empty.fatal ?? '', /^the given sitemaps listed no URL \(sitemap http:\/\/hostile\.test:\d+\/missing\.xml: answered 404\): give the scan's sitemaps, or use source crawl$/);
  const fallback = await discover(sites.input(sites.url('crawl.test', '/')));
  assert.match(fallback.fatal ?? '', /^http:\/\/crawl\.test:\d+\/sitemap\.xml \(robots\.txt names no sitemap\) listed no URL \(sitemap .*answered 404\)/);
});

test('unusable entries and broken XML: said with their line; the entries before the error kept, none after it', async () => {
  const r = await read('/bad-loc.xml', '/html.xml');
  // /broken's <loc> was whole when its </url> went wrong (saxes closes the loc first); /after is never read.
  assert.deepEqual(paths(r), ['/broken', '/fine', '/ok-a', '/ok-b']);
  assert.match(r.errors[0]!, message('/bad-loc.xml', 'line 6: not well-formed XML: .*; line 3: "ftp://files\\.example/x" is not an absolute ' +
    'http\\(s\\) URL \\(and 1 more entries not usable\\)$'));
  assert.match(r.errors[1]!, message('/html.xml', 'line 1: it is an HTML page, not a sitemap$'));
  assert.deepEqual(r.skipped, { sitemap_error: 2 });
});

test('a text sitemap: BOM, CRLF, blank lines and spaces are nothing; the same URL twice is a duplicate', async () => {
  const r = await discover(sites.input(h('/'), { sitemaps: ['/text.txt', '/ok.xml'] })); // paths of the site
  assert.deepEqual(paths(r), ['/ok-a', '/ok-b', '/t1', '/t2', '/t3']);
  assert.deepEqual(r.skipped, { duplicate: 1 });
  assert.deepEqual(r.errors, []);
});
