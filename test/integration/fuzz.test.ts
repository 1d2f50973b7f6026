// lane: pairs 150
/**
 * Property-based fuzzing of every route, on both engines: generated path IDs, query strings, bodies, content
 * types and credentials (fast-check). Property: nothing answers 5xx, and every 4xx under /api/2.0 carries the
 * spec's `{errors:[{status,code,title,detail}]}` with `status` equal to the HTTP status.
 *
 * The routes come from the OpenAPI document (built from the router's registry, so a new route is fuzzed
 * without touching this file) plus the public report page; then the web app's screens and forms, signed in, with
 * and without the CSRF token. Deterministic: a fixed seed (FUZZ_SEED overrides
 * it, FUZZ_RUNS the number of requests per engine); a failure prints the seed, the path to replay and the
 * shrunk request. No test is ever run (no agent slots) and no PDF rendered (no browser configured), and no
 * generated URL has a host name to look up: nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { call, engines, startServer, type TestServer } from '../helpers/server.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
// Under the pro plan's 960 requests a minute, so the rate limit does not answer for the routes.
const RUNS = Number(process.env.FUZZ_RUNS ?? 700);

const WEB_RUNS = Number(process.env.FUZZ_WEB_RUNS ?? 400);

/** The app's screens and forms (not sign-out, the key's regeneration or the endless progress stream). */
const WEB_GETS = ['/', '/tests/{id}', '/reports/{id}', '/reports/{id}/download/{name}', '/pages', '/pages/{id}', '/compare', '/tags', '/tags/{id}', '/account', '/scans',
  '/scans/{id}', '/scans/{id}/pages.csv', '/scans/{id}/pages.json', '/scans/{id}/compare/{id}', '/scans/{id}/compare'];
const WEB_POSTS = ['/analyze', '/reports/{id}/retest', '/reports/{id}/delete', '/pages/{id}/retest', '/pages/{id}/delete', '/pages/{id}/monitoring',
  '/pages/{id}/tags', '/tags', '/tags/{id}', '/tags/{id}/delete', '/sign-in', '/scans', '/scans/{id}/cancel',
  '/scan_schedules/{id}/pause', '/scan_schedules/{id}/resume', '/scan_schedules/{id}/delete'];
const WEB_FIELDS = ['url', 'location', 'browser', 'report', 'retention', 'runs', 'connection', 'down', 'up', 'latency', 'adblock', 'video', 'cookies',
  'allow_url', 'block_url', 'dns', 'simulate_device', 'device_class', 'user_agent', 'browser_width', 'browser_height', 'browser_dppx', 'browser_rotate',
  'httpauth_username', 'httpauth_password', 'name', 'color', 'description', 'monitoring', 'frequency', 'tags', 'tag', 'confirm', 'reports',
  'next', 'sort', 'page', 'email', 'password', 'source', 'max_pages', 'sample', 'crawl_depth', 'urls', 'include', 'exclude', 'templates',
  'respect_robots', 'keep_query', 'alert_conditions', 'devices'];

/** Percent-encodes every byte of the UTF-8 form but the unreserved characters (lone surrogates included). */
const pct = (s: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

const numberish = fc.oneof(
  fc.integer().map(String),
  fc.double().map(String),
  fc.bigInt().map(String),
  fc.constantFrom('1e400', '99999999999999999999', '-99999999999999999999', '1.5', '-0', 'NaN', 'Infinity', '0x10', '8640000000001', '2147483648'),
);
const manyValues = fc.integer({ min: 1, max: 2000 }).map((n) => Array.from({ length: n }, (_, i) => String(i)).join(','));
const hostile = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '%', '%00', '%zz', '%C0%80', '..', '\uD800', '\uFFFF', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'AND', 'or', '-created', 'queued'),
  numberish,
  fc.nat(3000).map((n) => 'x'.repeat(n)),
  manyValues,
);
/** Raw text for a URL: encoded, or one of the percent sequences a router must survive. */
const inUrl = fc.oneof({ weight: 5, arbitrary: hostile.map(pct) }, fc.constantFrom('%', '%zz', '%C0%80', '%00', '%E0%A4%A', '%2F', '..', '%2e%2e'));

/** URLs with an IP literal or localhost only: validating a test's URL resolves its host name otherwise. */
const localUrl = fc.oneof(
  fc.constantFrom('http://127.0.0.1:9/', 'https://[::1]/x', 'localhost', '127.0.0.1', 'http://127.0.0.1:9/\u0000', 'ftp://127.0.0.1/', 'http://user:pw@127.0.0.1/', ''),
  hostile.map((p) => `http://127.0.0.1:9/${pct(p)}`),
  fc.jsonValue({ maxDepth: 1 }).filter((v) => typeof v !== 'string'),
);
/** Any `url` member anywhere becomes a local one (see localUrl). */
function withoutLookups(v: unknown, url: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => withoutLookups(x, url));
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'url' ? url : withoutLookups(x, url)]));
}

const ATTRIBUTES = ['url', 'location', 'browser', 'report', 'retention', 'adblock', 'cookies', 'video', 'stop_onload', 'throttle',
  'allow_url', 'block_url', 'dns', 'simulate_device', 'device_class', 'browser_width', 'browser_height', 'browser_dppx', 'browser_rotate',
  'user_agent', 'httpauth_username', 'httpauth_password', 'name', 'description', 'color', 'frequency', 'paused', 'alert_conditions', 'devices'];

interface Ids {
  report: string;
  page: string;
  tag: string;
}

function bodies(ids: Ids) {
  const value = fc.oneof(hostile, fc.jsonValue({ maxDepth: 3 }), fc.array(hostile, { maxLength: 4 }));
  const idLike = fc.oneof(fc.constantFrom(ids.page, ids.tag, ids.report), hostile);
  const jsonApi = fc.record(
    {
      data: fc.record(
        {
          type: fc.oneof(fc.constantFrom('test', 'tag', 'performance_monitor'), hostile),
          id: idLike,
          attributes: fc.oneof(fc.dictionary(fc.constantFrom(...ATTRIBUTES), value, { maxKeys: 6 }), value),
        },
        { requiredKeys: [] },
      ),
      page_tags: fc.oneof(fc.array(idLike, { maxLength: 5 }), value),
      page_ids: fc.oneof(fc.array(idLike, { maxLength: 5 }), value),
    },
    { requiredKeys: [] },
  );
  const json = fc.tuple(fc.oneof(jsonApi, fc.jsonValue()), localUrl).map(([v, url]) => JSON.stringify(withoutLookups(v, url)));
  return fc.oneof(
    { weight: 6, arbitrary: json },
    fc.integer({ min: 1, max: 100_000 }).map((n) => `{"data":${'['.repeat(n)}${']'.repeat(n)}}`),
    hostile,
    fc.constantFrom('{', '{"data":', 'null', '[]', '"x"', '{"data":{"attributes":{"name":"a\\u0000b"}}}', 'x'.repeat(1024 * 1024 + 1)),
  );
}

const contentType = fc.constantFrom(
  'application/vnd.api+json', 'application/vnd.api+json; charset=utf-8', 'APPLICATION/VND.API+JSON', 'application/json', 'text/plain',
  'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', ';;', undefined,
);

interface Route {
  method: string;
  path: string;
}

function request(routes: Route[], ids: Ids, filterKeys: string[], key: string) {
  const id = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(ids.report, ids.page, ids.tag) }, { weight: 3, arbitrary: inUrl });
  const resource = fc.oneof(fc.constantFrom('filmstrip.json', 'net.har', 'lighthouse.json', 'report.pdf', 'optimized-images.tar', 'video.mp4', 'filmstrip-frame.jpg', 'screenshot.jpg', 'resource-summary', 'yslow.json'), inUrl);
  const queryKey = fc.oneof(
    fc.constantFrom('sort', 'page[size]', 'page[number]', 'filter[:bool]', 'base64', 'full', 'format', 'id', ...filterKeys),
    fc.constantFrom(...filterKeys).map((k) => k.replace(']', ':gte]')),
    fc.constantFrom(...filterKeys).map((k) => k.replace(']', ':ne]')),
    hostile,
  );
  const query = fc.array(fc.tuple(queryKey, fc.oneof(hostile, numberish, manyValues)), { maxLength: 4 });
  const auth = fc.oneof(
    { weight: 8, arbitrary: fc.constant(key) },
    fc.constantFrom(null, '', 'a\u0000b', 'nonsense', `${key}\u0000`),
  );
  return fc.record({
    route: fc.constantFrom(...routes),
    id,
    resource,
    query,
    body: bodies(ids),
    contentType,
    auth,
  });
}

type Req = ReturnType<typeof request> extends fc.Arbitrary<infer T> ? T : never;

function urlOf(r: Req): string {
  const path = r.route.path.replace(/\{name\}/g, r.resource).replace(/\{frame\}/g, r.resource).replace(/\{[a-z_]+\}/g, r.id);
  const qs = r.query.map(([k, v]) => `${k.replace(/[^\w[\]:-]/g, (c) => pct(c))}=${pct(v)}`).join('&');
  return qs ? `${path}?${qs}` : path;
}

for (const engine of engines()) {
  describe(engine, () => {
    let s: TestServer;
    let routes: Route[];
    let ids: Ids;
    let filterKeys: string[];
    before(async () => {
      // No agent: queued tests stay queued. No browser: PDFs are 404 E40407 instead of a Chromium launch.
      s = await startServer({ engine, agentSlots: 0, env: { WEBGAUGE_CHROME_PATH: '/nonexistent/chromium' } });
      const seeded = await seedPage(s.app.store, await accountIdOf(s.app.store, s.key));
      const tag = await call(s, 'POST', '/page_tags', { key: s.key, body: { data: { type: 'tag', attributes: { name: 'fuzz' } } } });
      ids = { report: seeded.reportId, page: seeded.pageId, tag: tag.body.data.id };
      const doc = (await call(s, 'GET', '/openapi.json')).body;
      routes = Object.entries(doc.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>).flatMap(([path, ops]) =>
        Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path: `/api/2.0${path}` })),
      );
      // The deepObject `filter` parameter of each list names its attributes (`created`, `created:gt`...).
      type Param = { name: string; schema?: { properties?: Record<string, unknown> } };
      filterKeys = [...new Set(Object.values(doc.paths as Record<string, Record<string, { parameters?: Param[] }>>)
        .flatMap((ops) => Object.values(ops).flatMap((op) => op.parameters ?? []))
        .filter((p) => p.name === 'filter')
        .flatMap((p) => Object.keys(p.schema?.properties ?? {}).map((a) => `filter[${a}]`)))];
      routes.push(
        { method: 'GET', path: '/api/2.0/openapi.json' },
        ...['/reports/{id}', '/reports/{id}/screenshot.jpg', '/reports/{id}/filmstrip/{frame}', '/reports/{id}/video.mp4'].map((path) => ({ method: 'GET', path })),
        { method: 'PUT', path: '/api/2.0/tests/{id}' },
        { method: 'GET', path: '/api/2.0/{id}' },
      );
    });
    after(async () => {
      await s?.close();
    });

    test(`${RUNS} generated requests over every route: no 5xx, every API 4xx a spec error body (seed ${SEED})`, async (t) => {
      const statuses = new Map<number, number>();
      assert.ok(routes.length >= 25, `the OpenAPI document lists the routes (${routes.length})`);
      assert.ok(filterKeys.length > 20, 'and the list filters');
      const run = await fc.check(
        fc.asyncProperty(request(routes, ids, filterKeys, s.key), async (r) => {
          const headers: Record<string, string> = {};
          const withBody = r.route.method === 'POST' || r.route.method === 'PATCH';
          if (r.contentType !== undefined && withBody) headers['content-type'] = r.contentType;
          const res = await call(s, r.route.method, `${s.base}${urlOf(r)}`, {
            key: r.auth,
            headers,
            body: withBody ? r.body : undefined,
            contentType: null,
          });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const at = `${r.route.method} ${urlOf(r).slice(0, 200)} (${r.auth === s.key ? 'key' : JSON.stringify(r.auth)}, ` +
            `${JSON.stringify(r.contentType)}, body ${JSON.stringify(r.body.slice(0, 100))}) -> ${res.status} ${res.text.slice(0, 300)}`;
          assert.ok(res.status < 500, `5xx: ${at}`);
          // The client resolves `..` segments: what counts is the path the server saw.
          const api = new URL(`${s.base}${urlOf(r)}`).pathname.startsWith('/api/2.0/');
          if (api && res.status >= 400) {
            const e = res.body?.errors?.[0];
            assert.ok(Array.isArray(res.body?.errors) && res.body.errors.length > 0, `no errors array: ${at}`);
            for (const k of ['status', 'code', 'title', 'detail']) assert.equal(typeof e[k], 'string', `errors[0].${k}: ${at}`);
            assert.equal(e.status, String(res.status), `errors[0].status: ${at}`);
            assert.match(e.code, /^E\d{4,5}$/, at);
            assert.ok(e.detail.trim().length > 0, `empty detail: ${at}`);
          }
        }),
        // No shrinking: each step is a request; the failing request itself is reported.
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      if (run.failed) {
        assert.fail(`${String((run.errorInstance as Error)?.message ?? run.errorInstance)}\n` +
          `replay: FUZZ_SEED=${SEED} (fc path ${run.counterexamplePath}), run ${run.numRuns} of ${RUNS}`);
      }
      t.diagnostic(`statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([k, n]) => `${k}×${n}`).join(' ')}`);
      // The inputs reach the handlers, not only the gates in front of them.
      for (const status of [200, 400, 404]) assert.ok((statuses.get(status) ?? 0) > RUNS / 50, `few ${status} answers: ${[...statuses]}`);
    });

    test(`${WEB_RUNS} generated requests over the web app's screens and forms, signed in: no 5xx (seed ${SEED})`, async (t) => {
      const signIn = await fetch(`${s.base}/sign-in`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.base },
        body: `api_key=${s.key}`,
      });
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
      assert.ok(cookie, 'signed in');
      const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(`${s.base}/account`, { headers: { cookie } })).text())?.[1];
      assert.ok(csrf, 'a form carries the CSRF token');
      const statuses = new Map<number, number>();
      const run = await fc.check(
        fc.asyncProperty(webRequest(ids, csrf), async (r) => {
          const url = `${s.base}${r.path}${r.query.length ? `?${r.query.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&')}` : ''}`;
          const body = r.method === 'POST' ? r.fields.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&') : undefined;
          const res = await fetch(url, {
            method: r.method, redirect: 'manual', body,
            headers: { cookie, origin: s.base, ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
          });
          const text = await res.text();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          assert.ok(res.status < 500, `5xx: ${r.method} ${url.slice(0, 300)} ${JSON.stringify(body?.slice(0, 300))} -> ${res.status} ${text.slice(0, 300)}`);
        }),
        { seed: SEED, numRuns: WEB_RUNS, endOnFailure: true },
      );
      if (run.failed) {
        assert.fail(`${String((run.errorInstance as Error)?.message ?? run.errorInstance)}\n` +
          `replay: FUZZ_SEED=${SEED} (fc path ${run.counterexamplePath}), run ${run.numRuns} of ${WEB_RUNS}`);
      }
      t.diagnostic(`statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([k, n]) => `${k}×${n}`).join(' ')}`);
      for (const status of [200, 400, 403, 404]) assert.ok((statuses.get(status) ?? 0) > WEB_RUNS / 50, `few ${status} answers: ${[...statuses]}`);
    });
  });
}

function webRequest(ids: Ids, csrf: string) {
  const id = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(ids.report, ids.page, ids.tag) }, { weight: 3, arbitrary: hostile });
  const value = fc.oneof({ weight: 2, arbitrary: hostile }, fc.constantFrom(ids.report, ids.page, ids.tag, 'custom', 'daily', 'hourly', 'yes', '1', 'http://127.0.0.1:9/'));
  // The url field never names a host to look up (nothing leaves 127.0.0.1).
  const field = fc.tuple(fc.constantFrom(...WEB_FIELDS), value).map(([k, v]) => [k, k === 'url' ? `http://127.0.0.1:9/${pct(v)}` : v] as [string, string]);
  const fields = fc.tuple(fc.boolean(), fc.array(field, { maxLength: 8 })).map(([withToken, f]) => (withToken ? [['csrf', csrf] as [string, string], ...f] : f));
  const path = (p: string, i: string, name: string) => p.replace('{id}', pct(i)).replace('{name}', pct(name));
  return fc.oneof(
    fc.record({ method: fc.constant('GET'), route: fc.constantFrom(...WEB_GETS), id, name: fc.oneof(fc.constantFrom('net.har', 'lighthouse.json'), hostile),
      query: fc.array(fc.tuple(fc.constantFrom('url', 'tag', 'sort', 'page', 'reports', 'next'), value), { maxLength: 4 }) })
      .map((r) => ({ method: r.method, path: path(r.route, r.id, r.name), query: r.query, fields: [] as [string, string][] })),
    fc.record({ method: fc.constant('POST'), route: fc.constantFrom(...WEB_POSTS), id, fields })
      .map((r) => ({ method: r.method, path: path(r.route, r.id, ''), query: [] as [string, string][], fields: r.fields })),
  );
}
