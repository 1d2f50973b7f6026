/**
 * The sites discovery's tests run against: one HTTP server on 127.0.0.1 (random port) that answers as several
 * sites, told apart by the Host header (the test's `dns` maps every *.test name to 127.0.0.1): the fixture site's
 * scan pages on 127.0.0.1 itself, a crawl with traps, hostile sitemaps, start pages that fail, HTTP auth. Beside it
 * an "internal service" on 127.0.0.2 that no test may reach: it counts the connections it gets.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { TargetPolicy } from '../../src/net/policy.js';
import type { DnsOverride } from '../../src/net/resolve.js';
import type { DiscoveryInput } from '../../src/discovery/types.js';
import { scanSiteApp } from '../fixtures/site/scan-site.js';

export interface Sites {
  port: number;
  /** The internal service: connections it received (must stay 0). */
  internal: { port: number; connections: number; url(path: string): string };
  requests: { host: string; path: string; authorization?: string }[];
  url(host: string, path: string): string;
  /** What discover() needs besides the test's own settings. */
  input(url: string, o?: Partial<DiscoveryInput>): DiscoveryInput;
  /** The next /sitemap.xml of shuffle.test lists its URLs in this order (indexes into SHUFFLED). */
  shuffle: { order: number[] };
  close(): Promise<void>;
}

export const AUTH = { username: 'scan-user', password: 'scan-pass-99' };
export const SHUFFLED = Array.from({ length: 24 }, (_, i) =>
  ['/news/', '/shop/item/', '/docs/guide/', '/team/'][i % 4] + (i % 4 === 1 ? String(1000 + i) : `page-${i}`));

const html = (body: string): string => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
const links = (hrefs: string[]): string => html(hrefs.map((h) => `<a href="${h}">x</a>`).join('\n'));

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': String(buf.length), ...extra });
  res.end(buf);
}

const urlset = (locs: string[]): string => '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
  locs.map((l) => `<url><loc>${l}</loc></url>`).join('\n') + '\n</urlset>\n';
const sitemapIndex = (locs: string[]): string => '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
  locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('\n') + '\n</sitemapindex>\n';

export async function startSites(): Promise<Sites> {
  const internalCount = { n: 0 };
  const internal = createNetServer((socket) => {
    internalCount.n++;
    socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsecret');
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.2', resolve));
  const internalPort = (internal.address() as AddressInfo).port;
  const internalUrl = (path: string) => `http://127.0.0.2:${internalPort}${path}`;

  // A gzip bomb: 64 gzip members of 16 MiB of zeros each (1 GiB inflated) in about 1 MB; gzipped again, 2 KB.
  const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  const bomb = Buffer.concat(Array<Buffer>(64).fill(member));
  const bomb2 = gzipSync(bomb, { level: 9 });
  let many: Buffer | undefined;
  let huge: Buffer | undefined;
  const scanSite = scanSiteApp();
  const requests: Sites['requests'] = [];
  const shuffle = { order: SHUFFLED.map((_, i) => i) };
  let port = 0;

  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    requests.push({ host, path: req.url ?? '/', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    const at = (p: string, h = host) => `http://${h}:${port}${p}`;
    const xml = (body: string | Buffer, extra: Record<string, string> = {}) => send(res, 200, 'application/xml', body, extra);
    const notFound = () => send(res, 404, 'text/html', html('not found'));

    if (host === '127.0.0.1') {
      if (path === '/go-scan') {
        res.writeHead(302, { Location: '/scan/', 'Content-Length': '0' });
        return void res.end();
      }
      return void (scanSite(req, res, url) || notFound());
    }

    if (host === 'crawl.test') {
      const cal = /^\/cal\/(\d+)\/(\d+)$/.exec(path);
      if (cal) {
        const [y, m] = [Number(cal[1]), Number(cal[2])];
        return send(res, 200, 'text/html', links([m === 12 ? `/cal/${y + 1}/1` : `/cal/${y}/${m + 1}`]));
      }
      switch (path) {
        case '/robots.txt':
          return send(res, 200, 'text/plain', 'User-agent: *\nDisallow: /secret\n\nUser-agent: Webgauge\nDisallow: /secret\nDisallow: /webgauge-only\n');
        case '/':
          return send(res, 200, 'text/html; charset=utf-8', links([
            'a', '/b#section', '/b', at('/a?utm_source=x'), '/doc.pdf', '/img.PNG', at('/x', 'other.test'),
            internalUrl('/admin'), '/go-internal', '/calendar?month=1', '/cal/2026/11', '/secret/page', '/webgauge-only',
            'mailto:someone@example.com', 'javascript:void(0)', '/json', '/missing', '/moved', '/based/',
          ]));
        case '/a':
          return send(res, 200, 'text/html', links(['../b', 'c']));
        case '/b':
          return send(res, 200, 'application/xhtml+xml', links(['/a']));
        case '/c':
          return send(res, 200, 'text/html', links(['/d']));
        case '/d':
          return send(res, 200, 'text/html', links(['/e']));
        case '/based/':
          return send(res, 200, 'text/html', `<!doctype html><html><head><base href="/b/"></head><body><a href="x">x</a></body></html>`);
        case '/b/x':
        case '/secret/start':
          return send(res, 200, 'text/html', links([]));
        case '/calendar':
          return send(res, 200, 'text/html', links([`/calendar?month=${Number(url.searchParams.get('month') ?? 0) + 1}`]));
        case '/go-internal':
          res.writeHead(302, { Location: internalUrl('/'), 'Content-Length': '0' });
          return void res.end();
        case '/moved':
          res.writeHead(301, { Location: '/a', 'Content-Length': '0' });
          return void res.end();
        case '/json':
          return send(res, 200, 'application/json', '{"a": 1}');
        default:
          return notFound();
      }
    }

    if (host === 'status.test') {
      const status = Number(path.slice(1));
      if (status === 401) return send(res, 401, 'text/html', html('who?'), { 'WWW-Authenticate': 'Basic realm="x"' });
      if (path === '/bearer') return send(res, 401, 'text/html', html('who?'), { 'WWW-Authenticate': 'Bearer realm="x"' });
      if (path === '/to-internal') {
        res.writeHead(302, { Location: internalUrl('/'), 'Content-Length': '0' });
        return void res.end();
      }
      if (path === '/loop') {
        res.writeHead(302, { Location: '/loop', 'Content-Length': '0' });
        return void res.end();
      }
      if (path === '/image') return send(res, 200, 'image/png', Buffer.alloc(10));
      return send(res, status >= 200 && status < 600 ? status : 404, 'text/html', html(`status ${status}`));
    }

    if (host === 'robots500.test') {
      if (path === '/robots.txt') return send(res, 503, 'text/plain', 'down');
      if (path === '/') return send(res, 200, 'text/html', links(['/p']));
      if (path === '/p') return send(res, 200, 'text/html', links([]));
      if (path === '/sitemap.xml') return xml(urlset([at('/p')]));
      return notFound();
    }

    if (host === 'auth.test' || host === 'other.test') {
      // auth.test asks for credentials everywhere; /leak sends the crawler to other.test, which asks for them too.
      const expected = `Basic ${Buffer.from(`${AUTH.username}:${AUTH.password}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return send(res, 401, 'text/html', html('who?'), { 'WWW-Authenticate': 'Basic realm="r"' });
      if (path === '/') return send(res, 200, 'text/html', links(['/inner', '/leak']));
      if (path === '/inner') return send(res, 200, 'text/html', links([]));
      if (path === '/leak') {
        res.writeHead(302, { Location: at('/challenge', 'other.test'), 'Content-Length': '0' });
        return void res.end();
      }
      return notFound();
    }

    if (host === 'slow.test') {
      // /hang and /s1 … /s4 never answer: only discovery's time limit (or its signal) ends the wait.
      if (path === '/') return send(res, 200, 'text/html', links(['/s1', '/s2', '/s3', '/s4']));
      if (path === '/robots.txt') return notFound();
      return;
    }

    if (host === 'shuffle.test') {
      if (path === '/') return send(res, 200, 'text/html', html('shuffle'));
      if (path === '/sitemap.xml') return xml(urlset(shuffle.order.map((i) => at(SHUFFLED[i]!))));
      return notFound();
    }

    if (host === 'hostile.test') {
      switch (path) {
        case '/':
          return send(res, 200, 'text/html', html('hostile'));
        case '/ok.xml':
          return xml(urlset([at('/ok-a'), at('/ok-b')]));
        case '/bomb.gz':
          return send(res, 200, 'application/gzip', bomb);
        case '/bomb2.xml':
          return xml(bomb2, { 'Content-Encoding': 'gzip' });
        case '/double.xml.gz':
          return send(res, 200, 'application/gzip', gzipSync(gzipSync(urlset([at('/double-a')]))), { 'Content-Encoding': 'gzip' });
        case '/triple.xml.gz':
          return send(res, 200, 'application/gzip', gzipSync(gzipSync(gzipSync(urlset([at('/triple-a')])))), { 'Content-Encoding': 'gzip' });
        case '/laughs.xml':
          return xml('<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n' +
            Array.from({ length: 9 }, (_, i) => ` <!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('\n') +
            `\n]>\n<urlset><url><loc>${at('/')}&lol9;</loc></url></urlset>\n`);
        case '/xxe.xml':
          return xml(`<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "${internalUrl('/secret')}">]>\n` +
            '<urlset><url><loc>&xxe;</loc></url></urlset>\n');
        case '/many.xml':
          many ??= Buffer.from(urlset(Array.from({ length: 50_010 }, (_, i) => at(`/many/${i}`))));
          return xml(many);
        case '/huge.xml': {
          // 52 MB of XML (one block of 1,000 entries with 4 KB comments, 13 times), sent gzipped.
          if (!huge) {
            const block = Array.from({ length: 1000 }, (_, i) => `<url><loc>${at(`/huge/${i}`)}</loc></url><!-- ${'x'.repeat(4000)} -->\n`).join('');
            const blockGz = gzipSync(block);
            huge = Buffer.concat([gzipSync('<?xml version="1.0"?>\n<urlset>\n'), ...Array<Buffer>(13).fill(blockGz)]);
          }
          return xml(huge, { 'Content-Encoding': 'gzip' });
        }
        case '/deep1.xml':
        case '/deep2.xml':
        case '/deep3.xml':
        case '/deep4.xml':
          return xml(sitemapIndex([at(`/deep${Number(path[5]) + 1}.xml`)]));
        case '/deep5.xml':
          return xml(urlset([at('/deep-page')]));
        case '/self.xml':
          return xml(sitemapIndex([at('/self.xml'), at('/ok.xml'), at('/ok.xml')]));
        case '/to-internal.xml':
          res.writeHead(302, { Location: internalUrl('/sitemap.xml'), 'Content-Length': '0' });
          return void res.end();
        case '/other-index.xml':
          return xml(sitemapIndex([at('/s.xml', 'elsewhere.test'), at('/ok.xml')]));
        case '/bad-loc.xml':
          return xml('<?xml version="1.0"?>\n<urlset>\n<url><loc>ftp://files.example/x</loc></url>\n' +
            `<url><loc>${at(`/${'a'.repeat(2100)}`)}</loc></url>\n<url><loc>${at('/fine')}</loc></url>\n<url><loc>${at('/broken')}</lox></url>\n<url><loc>${at('/after')}</loc></url>\n</urlset>\n`);
        case '/html.xml':
          return xml('<!DOCTYPE html>\n<html><body>Not found</body></html>');
        case '/text.txt':
          return send(res, 200, 'text/plain', `\uFEFF\r\n${at('/t1')}\r\n\r\n  ${at('/t2')}  \r\n${at('/t1#again')}\n${at('/t3')}`);
        case '/other.xml':
          return xml(urlset([at('/x', 'elsewhere.test'), at('/y', 'elsewhere.test')]));
        default:
          return notFound();
      }
    }
    notFound();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const policy = new TargetPolicy({ allowAll: false, allowTargets: '127.0.0.1' });
  const dns: DnsOverride[] = [{ host: '*.test', ip: '127.0.0.1' }];
  return {
    port,
    internal: { port: internalPort, get connections() { return internalCount.n; }, url: internalUrl },
    requests,
    shuffle,
    url: (host, path) => `http://${host}:${port}${path}`,
    input: (url, o = {}) => ({
      url, source: 'sitemap', include: [], exclude: [], maxPages: 50, sample: 0, templates: [], crawlDepth: 3,
      respectRobots: true, keepQuery: false, timeLimitMs: 30_000, policy, dns, ...o,
    }),
    close: async () => {
      server.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => server.close(() => resolve())),
        new Promise<void>((resolve) => internal.close(() => resolve())),
      ]);
    },
  };
}
