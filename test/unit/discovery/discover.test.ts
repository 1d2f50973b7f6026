/**
 * Site discovery (discovery/discover.ts) against real local HTTP servers (test/fixtures/discovery-sites.ts): the
 * fixture site's scan pages through robots.txt and every kind of sitemap, the crawl and its traps, robots.txt, the
 * start page's failures, HTTP auth, list sources, include/exclude, sampling and maxPages, determinism. The hostile
 * sitemaps are sitemap.test.ts; templates and URLs as pure functions templates.test.ts and url.test.ts. The internal
 * service on 127.0.0.2 never gets a connection.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync } from 'node:zlib';
import { discover } from '../../../src/discovery/discover.js';
import { stableRank } from '../../../src/discovery/templates.js';
import { makePrivateCa } from '../../helpers/certificates.js';
import { SCAN_SITE } from '../../fixtures/site/scan-site.js';
import { AUTH, SHUFFLED, startSites, type Sites } from '../../fixtures/discovery-sites.js';

let sites: Sites;
before(async () => {
  sites = await startSites();
});
after(async () => {
  assert.equal(sites.internal.connections, 0, 'the internal service on 127.0.0.2 got no connection in any test');
  await sites.close();
});

const paths = (pages: { url: string }[]) => pages.map((p) => new URL(p.url).pathname + new URL(p.url).search);
const fixture = () => `http://127.0.0.1:${sites.port}`;

describe('the fixture site through robots.txt and its sitemaps', () => {
  test('robots.txt Sitemap lines lead to an index, a nested index, a .xml.gz and a text sitemap: nine pages of four templates', async () => {
    const r = await discover(sites.input(`${fixture()}/scan/`));
    assert.equal(r.fatal, undefined);
    assert.equal(r.site, fixture());
    assert.deepEqual(r.errors, []);
    assert.deepEqual(new Set(paths(r.pages)), new Set(SCAN_SITE.pages));
    for (const page of r.pages) {
      const template = Object.entries(SCAN_SITE.templates).find(([, list]) => list.includes(new URL(page.url).pathname))![0];
      assert.equal(page.template, template, page.url);
    }
    // The start page first, then one page of each template before any template's second.
    assert.equal(paths(r.pages)[0], '/scan/');
    assert.equal(new Set(r.pages.slice(0, 4).map((p) => p.template)).size, 4);
    assert.equal(r.found, 10, 'the nine pages and the disallowed one');
    assert.deepEqual(r.skipped, { robots_txt: 1 });
  });

  test('the start page is followed through its redirects: the site is where it ends', async () => {
    const r = await discover(sites.input(`${fixture()}/go-scan`, { sample: 1, maxPages: 2 }));
    assert.equal(r.site, fixture());
    assert.deepEqual(paths(r.pages).slice(0, 1), ['/scan/']);
    assert.equal(r.pages.length, 2);
    assert.deepEqual(r.skipped, { robots_txt: 1, sampled_out: 5, over_max_pages: 2 });
  });

  test('sample keeps the pages with the lowest sha256 of each template; maxPages goes round-robin from the start page', async () => {
    const r = await discover(sites.input(`${fixture()}/scan/`, { sample: 1, maxPages: 3 }));
    const lowest = (template: string) => SCAN_SITE.templates[template]!.map((p) => `${fixture()}${p}`)
      .sort((a, b) => (stableRank(a) < stableRank(b) ? -1 : 1))[0];
    assert.deepEqual(r.pages.map((p) => p.url), [`${fixture()}/scan/`, lowest('/scan/:slug'), lowest('/scan/blog/:slug')]);
    assert.deepEqual(r.skipped, { robots_txt: 1, sampled_out: 5, over_max_pages: 1 });
  });

  test('include and exclude choose pages before sampling; named templates come before the URL shape', async () => {
    const r = await discover(sites.input(`${fixture()}/scan/`, {
      include: ['/scan/blog/*', '/scan/products/:id'], exclude: ['/scan/blog/second-*'], templates: ['/scan/blog/*'],
    }));
    assert.deepEqual(new Set(paths(r.pages)), new Set(['/scan/blog/first-post', '/scan/blog/third-post',
      '/scan/products/101', '/scan/products/102', '/scan/products/103']));
    assert.deepEqual([...new Set(r.pages.map((p) => p.template))].sort(), ['/scan/blog/*', '/scan/products/:id']);
    assert.deepEqual(r.skipped, { robots_txt: 1, excluded: 4 });
  });

  test('the crawl from /scan/ reaches the same nine pages three links deep; the disallowed page is not fetched', async () => {
    const before = sites.requests.length;
    const r = await discover(sites.input(`${fixture()}/scan/`, { source: 'crawl', crawlDepth: 3 }));
    assert.deepEqual(new Set(paths(r.pages)), new Set(SCAN_SITE.pages));
    assert.equal(r.skipped.robots_txt, 1);
    assert.equal(r.skipped.other_host, 1);
    assert.ok(!sites.requests.slice(before).some((q) => q.path === SCAN_SITE.disallowed), 'robots.txt kept the crawler out');
    const shallow = await discover(sites.input(`${fixture()}/scan/`, { source: 'crawl', crawlDepth: 1 }));
    assert.deepEqual(new Set(paths(shallow.pages)),
      new Set(['/scan/', '/scan/about', '/scan/contact', '/scan/blog/first-post', '/scan/products/101']));
    assert.equal(shallow.skipped.crawl_limit, 2, 'the second post and product, one link too deep');
  });
});

describe('the crawl', () => {
  test('breadth-first over same-site links: traps, files, other hosts, robots.txt and refused redirects each counted', async () => {
    const r = await discover(sites.input(sites.url('crawl.test', '/'), { source: 'crawl', crawlDepth: 3 }));
    assert.equal(r.fatal, undefined);
    assert.deepEqual(paths(r.pages).sort(), ['/', '/a', '/b', '/b/x', '/based/', '/c', '/cal/2026/11', '/cal/2026/12',
      '/cal/2027/1', '/calendar', '/d'].sort());
    assert.deepEqual(r.skipped, {
      duplicate: 6, // /b twice, /a?utm_source, ../b, /a from /b, /calendar?month=2, /moved → /a
      not_html: 3, // /doc.pdf, /img.PNG (by extension), /json (by its answer)
      other_host: 2, // other.test, 127.0.0.2
      robots_txt: 2, // /secret (*), /webgauge-only (the Webgauge group)
      fetch_error: 2, // /go-internal (a redirect into 127.0.0.2), /missing (404)
      crawl_limit: 2, // /e and /cal/2027/2, four links deep
    });
    assert.equal(r.found, 23);
    assert.equal(r.errors.length, 2);
    assert.match(r.errors[0]!, /^page http:\/\/crawl\.test:\d+\/go-internal: redirected to http:\/\/127\.0\.0\.2:\d+\/, which failed: refused: .*loopback/);
    assert.match(r.errors[1]!, /^page http:\/\/crawl\.test:\d+\/missing: answered 404$/);
    // The test order: one page of each template first (the start page's first), the calendar pages last.
    assert.equal(paths(r.pages)[0], '/');
    assert.deepEqual(r.pages.filter((p) => p.template === '/cal/:id/:id').length, 3);
  });

  test('the same crawl gives the same pages in the same order every time', async () => {
    const a = await discover(sites.input(sites.url('crawl.test', '/'), { source: 'crawl', crawlDepth: 3, maxPages: 6 }));
    const b = await discover(sites.input(sites.url('crawl.test', '/'), { source: 'crawl', crawlDepth: 3, maxPages: 6 }));
    assert.deepEqual(a, b);
    assert.equal(a.pages.length, 6);
  });

  test('the fetch budget bounds a path calendar; query strings kept make the query calendar a trap bounded by depth', async () => {
    const withQuery = await discover(sites.input(sites.url('crawl.test', '/calendar?month=1'), { source: 'crawl', crawlDepth: 5, keepQuery: true }));
    assert.deepEqual(paths(withQuery.pages).sort(), ['/calendar?month=1', '/calendar?month=2', '/calendar?month=3', '/calendar?month=4',
      '/calendar?month=5', '/calendar?month=6']);
    assert.equal(paths(withQuery.pages)[0], '/calendar?month=1', 'the start page first');
    assert.equal(withQuery.skipped.crawl_limit, 1);
    const budget = await discover(sites.input(sites.url('crawl.test', '/cal/2026/1'), { source: 'crawl', crawlDepth: 100, maxPages: 1 }));
    assert.equal(budget.pages.length, 1, 'one template, maxPages 1');
    assert.equal(budget.skipped.sampled_out, undefined);
    assert.equal(budget.skipped.over_max_pages, 49, 'the budget: max(1 × 5, 50) fetches');
    assert.equal(budget.skipped.crawl_limit, 1);
    assert.match(budget.errors.join('\n'), /the crawl's budget of 50 page fetches was spent/);
  });

  test('respectRobots false crawls what robots.txt disallows; another user agent is held only to the * group', async () => {
    const before = sites.requests.length;
    const r = await discover(sites.input(sites.url('crawl.test', '/'), { source: 'crawl', crawlDepth: 1, respectRobots: false }));
    assert.equal(r.skipped.robots_txt, undefined);
    const asked = sites.requests.slice(before);
    assert.ok(asked.some((q) => q.path === '/secret/page') && asked.some((q) => q.path === '/webgauge-only'));
    assert.ok(!asked.some((q) => q.path === '/robots.txt'), 'robots.txt is not even read');
    const other = await discover(sites.input(sites.url('crawl.test', '/'), { source: 'crawl', crawlDepth: 1, userAgent: 'OtherBot' }));
    assert.equal(other.skipped.robots_txt, 1, 'only /secret');
    const disallowed = await discover(sites.input(sites.url('crawl.test', '/secret/start'), { source: 'crawl' }));
    assert.match(disallowed.fatal ?? '', /^robots\.txt disallows the start page http:\/\/crawl\.test:\d+\/secret\/start for Webgauge, so the crawl cannot begin/);
  });
});

describe('the start page and robots.txt', () => {
  const fatal = async (path: string, o = {}) => (await discover(sites.input(sites.url('status.test', path), { source: 'crawl', ...o }))).fatal ?? '';

  test('a start page that does not answer 200 ends discovery with what to fix', async () => {
    assert.match(await fatal('/401'), /answered 401: it needs HTTP authentication; give the scan's http auth username and password/);
    assert.match(await fatal('/401', { httpAuth: AUTH }), /answered 401 even with the scan's HTTP credentials/);
    assert.match(await fatal('/bearer'), /asks for Bearer authentication/);
    assert.match(await fatal('/404'), /^the start page http:\/\/status\.test:\d+\/404 answered 404 \(not found\): check the URL$/);
    assert.match(await fatal('/500'), /answered 500 \(a server error\)/);
    assert.match(await fatal('/loop'), /redirects too often: more than 5 redirects/);
    assert.match(await fatal('/image'), /is not an HTML page \(image\/png\)/);
    assert.match(await fatal('/to-internal'), /\(redirected to http:\/\/127\.0\.0\.2|was not fetched: redirected to http:\/\/127\.0\.0\.2:\d+\/, which failed: refused/);
    const refused = await discover(sites.input(sites.internal.url('/'), { source: 'crawl' }));
    assert.match(refused.fatal ?? '', /^the start page http:\/\/127\.0\.0\.2:\d+\/ was not fetched: refused: 127\.0\.0\.2 resolves to a loopback address/);
    const down = await discover(sites.input('http://127.0.0.1:1/', { source: 'crawl' }));
    assert.match(down.fatal ?? '', /could not be fetched: the connection was refused \(ECONNREFUSED\)/);
  });

  test('never hangs: the time limit ends a crawl whose pages do not answer, and a start page that does not', async () => {
    const started = performance.now();
    const r = await discover(sites.input(sites.url('slow.test', '/'), { source: 'crawl', timeLimitMs: 400 }));
    assert.deepEqual(paths(r.pages), ['/']);
    assert.deepEqual(r.skipped, { crawl_limit: 4 });
    assert.match(r.errors.at(-1)!, /^discovery reached its time limit \(0\.4 s\): the pages found by then are used$/);
    const hung = await discover(sites.input(sites.url('slow.test', '/hang'), { source: 'crawl', timeLimitMs: 300 }));
    assert.match(hung.fatal ?? '', /^the start page http:\/\/slow\.test:\d+\/hang did not answer before discovery ended$/);
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 200);
    const cancelled = await discover(sites.input(sites.url('slow.test', '/'), { source: 'crawl', signal: cancel.signal }));
    assert.match(cancelled.fatal ?? '', /^discovery was stopped before it ended/);
    assert.deepEqual(cancelled.pages, []);
    assert.ok(performance.now() - started < 3000);
  });

  test('HTTPS with the operator\'s CA on top of Node\'s roots; a brotli-encoded page is decoded', async () => {
    const ca = makePrivateCa();
    const server = createHttpsServer({ ...ca.issue(['secure.test']) }, (req, res) => {
      const body = req.url === '/' ? '<!doctype html><a href="/next">next</a>' : '<!doctype html><p>next</p>';
      if (req.url === '/robots.txt') return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'br' }).end(brotliCompressSync(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://secure.test:${(server.address() as AddressInfo).port}/`;
      const r = await discover(sites.input(url, { source: 'crawl', extraCaCerts: [ca.cert] }));
      assert.deepEqual(paths(r.pages), ['/', '/next']);
      const untrusted = await discover(sites.input(url, { source: 'crawl' }));
      assert.match(untrusted.fatal ?? '', /^the start page https:\/\/secure\.test:\d+\/ could not be fetched: .*certificate/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('robots.txt answering 5xx: with respectRobots nothing is crawled; without, the scan goes on', async () => {
    const r = await discover(sites.input(sites.url('robots500.test', '/'), { source: 'crawl' }));
    assert.match(r.fatal ?? '', /^robots\.txt \(http:\/\/robots500\.test:\d+\/robots\.txt\) answered 503, so RFC 9309 says crawl nothing of the site; .*respect_robots: false if the site is your own$/);
    assert.deepEqual(r.pages, []);
    const crawled = await discover(sites.input(sites.url('robots500.test', '/'), { source: 'crawl', respectRobots: false }));
    assert.deepEqual(paths(crawled.pages), ['/', '/p']);
    const mapped = await discover(sites.input(sites.url('robots500.test', '/'), { respectRobots: false }));
    assert.deepEqual(paths(mapped.pages), ['/p']);
    assert.match(mapped.errors[0]!, /robots\.txt .*answered 503; read as allowing everything/);
  });

  test('HTTP credentials go to the site only, and only after its 401 challenge', async () => {
    const before = sites.requests.length;
    const r = await discover(sites.input(sites.url('auth.test', '/'), { source: 'crawl', httpAuth: AUTH }));
    assert.deepEqual(paths(r.pages), ['/', '/inner']);
    assert.equal(r.skipped.other_host, 1, '/leak redirects to other.test');
    const asked = sites.requests.slice(before);
    assert.equal(asked[0]!.authorization, undefined, 'the first request carries no credentials');
    assert.ok(asked.some((q) => q.host === 'auth.test' && q.authorization), 'after the challenge they are sent');
    const other = asked.filter((q) => q.host === 'other.test');
    assert.ok(other.length > 0 && other.every((q) => q.authorization === undefined), 'never to another origin, even when it asks');
  });
});

describe('other sources and the rules every URL meets', () => {
  test('a list: the given URLs in their order, normalised, same site only, robots.txt respected', async () => {
    const r = await discover(sites.input(sites.url('crawl.test', '/'), {
      source: 'list', urls: ['/c', 'b', sites.url('crawl.test', '/a#top'), sites.url('other.test', '/x'), '/doc.pdf', '/secret/x',
        '/c?x=1', 'ftp://files.example/x'],
    }));
    assert.deepEqual(paths(r.pages), ['/c', '/b', '/a', '/doc.pdf']);
    assert.deepEqual(r.skipped, { other_host: 1, robots_txt: 1, duplicate: 1 });
    assert.deepEqual(r.errors, ['urls[7]: not an http(s) URL']);
    const bad = await discover(sites.input(sites.url('crawl.test', '/'), { source: 'list', urls: [...Array(25).fill('ftp://x/'), '/a'] }));
    assert.equal(bad.errors.length, 20, 'at most 20 messages');
    assert.equal(bad.errors[19], '… and 6 more messages like these');
    const none = await discover(sites.input(sites.url('crawl.test', '/'), { source: 'list', urls: [sites.url('other.test', '/x')] }));
    assert.match(none.fatal ?? '', /^none of the 1 given URL\(s\) is left to test \(1 on other hosts; the site is http:\/\/crawl\.test:\d+\)$/);
  });

  test('the same pages are chosen when the sitemap lists them in another order', async () => {
    sites.shuffle.order = SHUFFLED.map((_, i) => i);
    const a = await discover(sites.input(sites.url('shuffle.test', '/'), { sample: 2 }));
    sites.shuffle.order = SHUFFLED.map((_, i) => (i * 7 + 3) % SHUFFLED.length).reverse();
    const b = await discover(sites.input(sites.url('shuffle.test', '/'), { sample: 2 }));
    assert.equal(a.pages.length, 8, 'four templates, two pages each');
    assert.deepEqual(a.pages.map((p) => `${p.template} ${p.url}`).sort(), b.pages.map((p) => `${p.template} ${p.url}`).sort());
    assert.deepEqual(a.skipped, { sampled_out: 16 });
    assert.deepEqual(new Set(a.pages.map((p) => p.template)), new Set(['/news/:slug', '/shop/item/:id', '/docs/guide/:slug', '/team/:slug']));
  });
});

