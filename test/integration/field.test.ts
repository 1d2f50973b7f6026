// lane: shared
/**
 * Field data without a browser, on both engines (issue 50, points 1, 3, 4 and 5): field sites through the API, every
 * refusal of the beacon endpoint answered with its spec error and counted by reason, no input answering 500 (fuzzed),
 * the figures read from the rollups matching the exact percentiles of the views sent, paths bounded, downloads.
 * The snippet's own truths (a real browser's beacons) are test/integration/field-snippet.test.ts's; a kill -9 after
 * a 204 is field-crash.test.ts's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { nearestRank } from '../../src/core/field/figures.js';
import { TRACKED_PATHS } from '../../src/core/field/rollup.js';
import { RELATIVE_ACCURACY } from '../../src/core/field/sketch.js';
import { call, engines, errorOf, startServer, type TestServer } from '../helpers/server.js';

const ORIGIN = 'https://shop.example';
const CHROME_MOBILE = 'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36';
const FIREFOX_DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

interface Sent {
  status: number;
  body: any;
}

async function beacon(server: TestServer, siteId: string, body: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  const res = await fetch(`${server.base}/field/beacon/${encodeURIComponent(siteId)}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin: ORIGIN, 'user-agent': CHROME_MOBILE, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const siteBody = (attributes: Record<string, unknown>) => ({ data: { type: 'field_site', attributes } });

async function createSite(server: TestServer, key: string, attributes: Record<string, unknown> = {}): Promise<any> {
  const res = await call(server, 'POST', '/field_sites', { key, body: siteBody({ name: 'Shop', origins: [ORIGIN], ...attributes }) });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

for (const engine of engines()) {
  describe(`field data on ${engine}`, () => {
    let server: TestServer;
    before(async () => {
      // Every beacon comes from this process's one address: no per-address limit here (the flood test below has its own).
      server = await startServer({ engine, env: { WEBGAUGE_FIELD_CLIENT_RATE: '10000000' } });
      // The rollups are counted when the test says (flush), not every 2 s behind its back.
      await server.app.field.rollup.stop();
    });
    after(() => server?.close());

    test('a field site is created, read, changed and deleted; its snippet is the one tag to paste; another account sees 404', async () => {
      const site = await createSite(server, server.key, { origins: ['https://shop.example/', 'http://localhost:8080'], sample_rate: 25, templates: ['/p/:sku'] });
      assert.deepEqual(site.attributes.origins, ['https://shop.example', 'http://localhost:8080']);
      assert.equal(site.attributes.sample_rate, 25);
      assert.equal(site.attributes.keep_query, false);
      assert.equal(site.attributes.honour_gpc, true);
      assert.equal(site.attributes.raw_retention_days, 7);
      assert.match(site.attributes.snippet, new RegExp(`^<script async src="${server.base}/assets/field\\.[0-9a-f]{12}\\.js" data-site="${site.id}" data-sample="25"></script>$`));
      assert.equal(site.attributes.beacon_url, `${server.base}/field/beacon/${site.id}`);

      const changed = await call(server, 'PATCH', `/field_sites/${site.id}`, { key: server.key, body: siteBody({ keep_query: true, name: ' Shop EU ' }) });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.data.attributes.name, 'Shop EU');
      assert.match(changed.body.data.attributes.snippet, /data-query="keep"/);

      const other = await server.account({ plan: 'pro' });
      for (const [method, path] of [['GET', ''], ['GET', '/summary'], ['PATCH', ''], ['DELETE', '']] as const) {
        const res = await call(server, method, `/field_sites/${site.id}${path}`, { key: other, ...(method === 'PATCH' ? { body: siteBody({ name: 'x' }) } : {}) });
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(errorOf(res).code, 'E40418');
      }
      assert.equal((await call(server, 'GET', '/field_sites', { key: other })).body.data.length, 0);

      const deleted = await call(server, 'DELETE', `/field_sites/${site.id}`, { key: server.key });
      assert.equal(deleted.status, 200);
      assert.equal((await call(server, 'GET', `/field_sites/${site.id}`, { key: server.key })).status, 404);
    });

    test('bad site input answers 400 naming what to fix, and creates nothing', async () => {
      const before = (await call(server, 'GET', '/field_sites', { key: server.key })).body.data.length;
      for (const [attributes, pattern] of [
        [{ origins: [ORIGIN] }, /name must be/],
        [{ name: 'A' }, /origins must be a list/],
        [{ name: 'A', origins: ['https://shop.example/blog'] }, /origins\[0\] .*has a path/],
        [{ name: 'A', origins: ['ftp://shop.example'] }, /origins\[0\] .*not http or https/],
        [{ name: 'A', origins: [ORIGIN], sample_rate: 0 }, /sample_rate must be/],
        [{ name: 'A', origins: [ORIGIN], sample_rate: 101 }, /sample_rate must be/],
        [{ name: 'A', origins: [ORIGIN], templates: ['blog/*'] }, /templates\[0\] must start with/],
        [{ name: 'A', origins: [ORIGIN], raw_retention_days: 31 }, /raw_retention_days must be/],
        [{ name: 'A', origins: [ORIGIN], keep_query: 'yes' }, /keep_query must be true or false/],
        [{ name: 'A', origins: [ORIGIN], color: 'red' }, /Unknown attribute "color"/],
      ] as const) {
        const res = await call(server, 'POST', '/field_sites', { key: server.key, body: siteBody(attributes) });
        assert.equal(res.status, 400, JSON.stringify(attributes));
        assert.equal(errorOf(res).code, 'E4001');
        assert.match(errorOf(res).detail!, pattern);
      }
      assert.equal((await call(server, 'GET', '/field_sites', { key: server.key })).body.data.length, before);
    });

    test('every refusal of the beacon endpoint has its status, code and detail, stores nothing and is counted by reason', async () => {
      const site = await createSite(server, server.key);
      const good = { v: 1, url: `${ORIGIN}/p/1`, lcp: { v: 1500 } };
      const cases: [string, unknown, Record<string, string>, number, string][] = [
        ['foreign Origin header', good, { origin: 'https://evil.example' }, 403, 'E40304'],
        ['no Origin header', good, { origin: '' }, 403, 'E40304'],
        ['a page of a foreign origin', { ...good, url: 'https://evil.example/p' }, {}, 403, 'E40304'],
        ['not JSON', '{"v":1', {}, 400, 'E40010'],
        ['no metric', { v: 1, url: `${ORIGIN}/p` }, {}, 400, 'E40010'],
        ['a negative LCP', { ...good, lcp: { v: -5 } }, {}, 400, 'E40010'],
        ['a CLS of 10^6', { ...good, cls: { v: 1e6 } }, {}, 400, 'E40010'],
        ['a selector of 1,000 characters', { ...good, lcp: { v: 1, el: 'x'.repeat(1000) } }, {}, 400, 'E40010'],
        ['a body over 16 KB (a 2 MB selector)', { ...good, lcp: { v: 1, el: 'x'.repeat(2_000_000) } }, {}, 413, 'E41300'],
        ['Global Privacy Control', good, { 'sec-gpc': '1' }, 403, 'E40305'],
      ];
      for (const [name, body, headers, status, code] of cases) {
        const h = { ...headers };
        if (h.origin === '') delete h.origin;
        const res = await fetch(`${server.base}/field/beacon/${site.id}`, {
          method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body),
          headers: { 'content-type': 'text/plain', 'user-agent': CHROME_MOBILE, ...(headers.origin === '' ? {} : { origin: ORIGIN }), ...h },
        });
        const answer = await res.json() as any;
        assert.equal(res.status, status, name);
        assert.equal(answer.errors[0].code, code, name);
        assert.match(answer.errors[0].detail, /\w{4}/, name);
      }
      assert.equal((await beacon(server, 'no-such-site', good)).status, 404);
      await server.app.field.ingest.settle();
      const intake = await call(server, 'GET', `/field_sites/${site.id}/intake`, { key: server.key });
      assert.equal(intake.status, 200, intake.text);
      assert.deepEqual(intake.body.data.attributes, {
        last_five_minutes: 0, accepted: 0,
        refused: { foreign_origin: 3, malformed: 2, too_large: 1, out_of_bounds: 3, rate_limited: 0, gpc: 1 },
      });
      const ok = await beacon(server, site.id, good);
      assert.equal(ok.status, 204);
    });

    test('the figures are read from the rollups: p75 within 1 % of the exact p75 of the views sent, per device, template and path', async () => {
      const site = await createSite(server, server.key);
      const lcp: Record<string, number[]> = { mobile: [], desktop: [] };
      const sends: Promise<Sent>[] = [];
      for (let i = 0; i < 240; i++) {
        const device = i % 3 === 0 ? 'desktop' : 'mobile';
        const value = 600 + ((i * 7919) % 4000) + (device === 'mobile' ? 700 : 0);
        lcp[device]!.push(value);
        sends.push(beacon(server, site.id, {
          v: 1, url: `${ORIGIN}/blog/post-${i % 12}?utm=x#top`, nav: 'navigate', dev: device, ect: '4g', rtt: 50, vw: 400, vh: 800,
          lcp: { v: value, el: i % 2 ? 'img.hero' : 'h1', src: `${ORIGIN}/img/hero.jpg?sig=secret` },
          inp: i % 4 === 0 ? { v: 80 + i, el: 'button#buy', type: 'pointer', script: { src: `${ORIGIN}/app.js?v=3`, dur: 40 } } : undefined,
          cls: { v: (i % 10) / 100, el: 'div.banner' }, fcp: { v: value / 2 }, ttfb: { v: 100 + i },
          extra: 'dropped',
        }, { 'user-agent': device === 'mobile' ? CHROME_MOBILE : FIREFOX_DESKTOP }));
      }
      const answers = await Promise.all(sends);
      assert.deepEqual([...new Set(answers.map((a) => a.status))], [204]);
      await server.app.field.rollup.flush();

      const summary = async (query: string) => {
        const res = await call(server, 'GET', `/field_sites/${site.id}/summary?${query}`, { key: server.key });
        assert.equal(res.status, 200, res.text);
        return res.body.data.attributes;
      };
      const all = await summary('days=1');
      assert.equal(all.page_views, 240);
      const everyLcp = [...lcp.mobile!, ...lcp.desktop!];
      for (const [q, name] of [[0.5, 'p50'], [0.75, 'p75'], [0.9, 'p90']] as const) {
        const exact = nearestRank(everyLcp, q);
        assert.ok(Math.abs(all.metrics.lcp[name] - exact) <= exact * RELATIVE_ACCURACY + 1, `${name} ${all.metrics.lcp[name]} against ${exact}`);
      }
      const good = everyLcp.filter((v) => v <= 2500).length / everyLcp.length;
      assert.equal(all.metrics.lcp.good, Math.round(good * 10_000) / 10_000);
      assert.equal(all.metrics.inp.page_views, 60);
      for (const device of ['mobile', 'desktop'] as const) {
        const s = await summary(`device=${device}`);
        assert.equal(s.page_views, lcp[device]!.length);
        const exact = nearestRank(lcp[device]!, 0.75);
        assert.ok(Math.abs(s.metrics.lcp.p75 - exact) <= exact * RELATIVE_ACCURACY + 1, `${device}: ${s.metrics.lcp.p75} against ${exact}`);
      }
      // Queries are dropped from the path; /blog/a, /blog/b → /blog/:slug.
      const byTemplate = await call(server, 'GET', `/field_sites/${site.id}/breakdown?by=template`, { key: server.key });
      assert.deepEqual(byTemplate.body.data.map((r: any) => [r.attributes.value, r.attributes.page_views]), [['/blog/:slug', 240]]);
      const byPath = await call(server, 'GET', `/field_sites/${site.id}/breakdown?by=path&device=mobile`, { key: server.key });
      // Paths post-0, -3, -6 and -9 were seen on desktops only (every third view is a desktop's).
      assert.equal(byPath.body.data.length, 8);
      assert.ok(byPath.body.data.every((r: any) => r.attributes.value.startsWith('/blog/post-')));
      const byBrowser = await call(server, 'GET', `/field_sites/${site.id}/breakdown?by=browser`, { key: server.key });
      assert.deepEqual(byBrowser.body.data.map((r: any) => [r.attributes.value, r.attributes.page_views]), [['Chrome', 160], ['Firefox', 80]]);
      const inTemplate = await call(server, 'GET', `/field_sites/${site.id}/breakdown?by=path&template=${encodeURIComponent('/blog/:slug')}&device=desktop`, { key: server.key });
      assert.equal(inTemplate.body.data.reduce((n: number, r: any) => n + r.attributes.page_views, 0), 80, 'the paths of a template, for one device');
      const crossed = await call(server, 'GET', `/field_sites/${site.id}/breakdown?by=path&browser=Firefox`, { key: server.key });
      assert.equal(crossed.status, 400);
      assert.match(errorOf(crossed).detail!, /A path combines with its template and the device only, not with browser/);
      const noneThere = await call(server, 'GET', `/field_sites/${site.id}/breakdown?by=path&template=${encodeURIComponent('/shop/:item')}`, { key: server.key });
      assert.deepEqual(noneThere.body.data, [], 'no path of another template');
      const onePath = await summary('path=/blog/post-3&template=/blog/:slug');
      assert.equal(onePath.page_views, 20);
      const combined = await summary('template=/blog/:slug&browser=Firefox&connection=4g');
      assert.equal(combined.page_views, 80);

      const series = await call(server, 'GET', `/field_sites/${site.id}/series?days=7`, { key: server.key });
      assert.equal(series.body.data.length, 1);
      assert.equal(series.body.data[0].attributes.page_views, 240);
      assert.equal(series.body.data[0].attributes.p75.lcp, all.metrics.lcp.p75);

      const attribution = await call(server, 'GET', `/field_sites/${site.id}/attribution`, { key: server.key });
      const a = attribution.body.data.attributes;
      assert.equal(a.page_views_read, 240);
      assert.deepEqual(a.lcp_resources.map((e: any) => [e.value, e.count]), [[`${ORIGIN}/img/hero.jpg`, 240]], 'the query of a resource URL is dropped');
      assert.deepEqual(a.lcp_elements.map((e: any) => e.count).sort(), [120, 120]);
      assert.deepEqual(a.inp_targets.map((e: any) => [e.value, e.count]), [['button#buy', 60]]);
      assert.deepEqual(a.inp_scripts.map((e: any) => e.value), [`${ORIGIN}/app.js`]);
      assert.equal(a.cls_targets[0].value, 'div.banner');
      const stored = await server.app.store.db.selectFrom('field_views').selectAll().where('site_id', '=', site.id).executeTakeFirstOrThrow();
      assert.equal(JSON.stringify(stored).includes('dropped'), false, 'unknown fields are not stored');
      assert.equal(JSON.stringify(stored).includes('Mozilla'), false, 'no user-agent string is stored');
      assert.equal(JSON.stringify(stored).includes('127.0.0.1'), false, 'no address is stored');

      const csv = await fetch(`${server.api}/field_sites/${site.id}/breakdown.csv?by=device`, { headers: { authorization: `Basic ${Buffer.from(`${server.key}:`).toString('base64')}` } });
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type')!, /text\/csv/);
      const lines = (await csv.text()).trim().split('\r\n');
      assert.match(lines[0]!, /^device,page_views,lcp_page_views,lcp_p50,lcp_p75/);
      assert.equal(lines.length, 3);
      const intake = await call(server, 'GET', `/field_sites/${site.id}/intake`, { key: server.key });
      assert.equal(intake.body.data.attributes.last_five_minutes, 240);
    });

    test('bad figure queries answer 400 E40005 naming the parameter', async () => {
      const site = await createSite(server, server.key);
      for (const [query, pattern] of [
        ['days=0', /days must be/], ['days=91', /days must be/], ['device=phone', /device must be one of/], ['browser=Netscape', /browser must be one of/],
        ['path=blog', /path must start with/], ['days=7&days=8', /more than once/],
      ] as const) {
        const res = await call(server, 'GET', `/field_sites/${site.id}/summary?${query}`, { key: server.key });
        assert.equal(res.status, 400, query);
        assert.equal(errorOf(res).code, 'E40005', query);
        assert.match(errorOf(res).detail!, pattern, query);
      }
      const by = await call(server, 'GET', `/field_sites/${site.id}/breakdown?by=country`, { key: server.key });
      assert.equal(by.status, 400);
      assert.match(errorOf(by).detail!, /by must be one of template, path, device, connection, browser/);
    });

    test(`a site's paths are kept as themselves up to ${TRACKED_PATHS}; beyond, as their template`, async () => {
      const site = await createSite(server, server.key);
      const n = TRACKED_PATHS + 50;
      const answers = await Promise.all(Array.from({ length: n }, (_, i) => beacon(server, site.id, { v: 1, url: `${ORIGIN}/item/${i}x`, ttfb: { v: 100 } },
        { 'x-forwarded-for': `10.0.${i % 200}.1` })));
      assert.equal(answers.filter((a) => a.status === 204).length, n);
      await server.app.field.rollup.flush();
      const paths = await server.app.store.db.selectFrom('field_paths').select((eb) => eb.fn.countAll<number>().as('n')).where('site_id', '=', site.id).executeTakeFirstOrThrow();
      assert.equal(Number(paths.n), TRACKED_PATHS);
      const byTemplate = await call(server, 'GET', `/field_sites/${site.id}/breakdown?by=template`, { key: server.key });
      assert.deepEqual(byTemplate.body.data.map((r: any) => [r.attributes.value, r.attributes.page_views]), [['/item/:slug', n]]);
      const pathRows = await server.app.store.db.selectFrom('field_rollups').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('site_id', '=', site.id).where('cut', '=', 'path').where('grain', '=', 'day').executeTakeFirstOrThrow();
      assert.equal(Number(pathRows.n), TRACKED_PATHS);
    });

    test('no input answers 500: fuzzed beacon bodies, headers and site IDs', async () => {
      const site = await createSite(server, server.key);
      const json = fc.jsonValue({ maxDepth: 4 });
      const beaconish = fc.record({
        v: fc.oneof(fc.constant(1), json), url: fc.oneof(fc.constant(`${ORIGIN}/x`), fc.string(), json),
        lcp: fc.oneof(fc.record({ v: fc.oneof(fc.double(), json), el: fc.oneof(fc.string(), json) }), json),
        cls: fc.oneof(fc.record({ v: fc.double() }), json), nav: fc.oneof(fc.string(), json),
      }, { requiredKeys: [] });
      await fc.assert(fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 300 }), json.map((j) => JSON.stringify(j)), beaconish.map((b) => JSON.stringify(b))),
        fc.oneof(fc.constant(site.id), fc.string({ minLength: 1, maxLength: 40 })),
        fc.oneof(fc.constant(ORIGIN), fc.string({ maxLength: 40 }).filter((s) => /^[\x21-\x7e]*$/.test(s))),
        async (body, id, origin) => {
          const res = await fetch(`${server.base}/field/beacon/${encodeURIComponent(id)}`, { method: 'POST', body, headers: { 'content-type': 'text/plain', origin, 'x-forwarded-for': '10.9.9.9' } });
          await res.arrayBuffer();
          assert.ok(res.status < 500, `${res.status} for ${body.slice(0, 80)}`);
        }), { numRuns: 150 });
    });
  });
}

describe('the beacon endpoint under a flood', () => {
  test('past the per-address limit beacons are answered 429 with Retry-After and counted; other addresses are still taken', async () => {
    const server = await startServer({ engine: 'sqlite', env: { WEBGAUGE_FIELD_CLIENT_RATE: '5', WEBGAUGE_TRUST_PROXY: '1' } });
    try {
      const site = await createSite(server, server.key);
      const body = { v: 1, url: `${ORIGIN}/`, ttfb: { v: 10 } };
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await beacon(server, site.id, body, { 'x-forwarded-for': '203.0.113.7' })).status);
      assert.deepEqual(statuses, [204, 204, 204, 204, 204, 429, 429, 429]);
      const limited = await fetch(`${server.base}/field/beacon/${site.id}`, { method: 'POST', body: JSON.stringify(body),
        headers: { origin: ORIGIN, 'x-forwarded-for': '203.0.113.7' } });
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      assert.equal((await limited.json() as any).errors[0].code, 'E42904');
      assert.equal((await beacon(server, site.id, body, { 'x-forwarded-for': '203.0.113.8' })).status, 204);
      await server.app.field.ingest.settle();
      const intake = await call(server, 'GET', `/field_sites/${site.id}/intake`, { key: server.key });
      assert.equal(intake.body.data.attributes.accepted, 6);
      assert.equal(intake.body.data.attributes.refused.rate_limited, 4);
    } finally {
      await server.close();
    }
  });
});
