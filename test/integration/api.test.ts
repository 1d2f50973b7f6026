// lane: shared
/**
 * Black-box HTTP tests of the API edge: authentication, rate limit, routing, request leniency, test polling,
 * report not-found codes and reference data (spec parts 4.1, 4.2, 4.5, 5, 7, 8 and COMPAT.md).
 * No agent runs (agentSlots 0), so every started test stays queued. POST /tests itself: api-tests.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, engines, errorOf, startServer, type Res, type TestServer } from '../helpers/server.js';
import { assertError, assertData, creditsOf, isInt } from '../helpers/assertions.js';

/** An IP literal: no DNS lookup (the test machine may have none); the helper's servers allow private targets. */
const PAGE = 'http://127.0.0.1:9/page.html';
const CHALLENGE = 'Basic realm="Webgauge API"';
const UNKNOWN_ID = 'AAAAAAAAAAAA';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const intHeader = (res: Res, name: string): number => {
  const v = res.headers.get(name);
  assert.ok(v !== null && /^\d+$/.test(v), `${name} is an integer, got ${String(v)}`);
  return Number(v);
};

/**
 * Rate-limit windows are fixed 60 s windows aligned on the clock: when fewer than `needMs` are left in the
 * current one, wait for the next so that a burst of requests lands in one window.
 */
async function roomInWindow(needMs: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await sleep(left + 100);
}

const startBody = (attributes: Record<string, unknown> = {}) => ({ data: { type: 'test', attributes: { url: PAGE, ...attributes } } });

for (const engine of engines()) {
  describe(engine, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer({ engine, agentSlots: 0 });
    });
    after(async () => {
      await s?.close();
    });

    describe('authentication', () => {
      test('a request without Authorization gets 401 E40100 with the Basic challenge', async () => {
        const res = await call(s, 'GET', '/status');
        assertError(res, 401, 'E40100');
        assert.equal(res.headers.get('www-authenticate'), CHALLENGE);
      });

      test('a wrong API key gets 401 E40100 with the Basic challenge', async () => {
        const res = await call(s, 'GET', '/status', { key: '0123456789abcdef0123456789abcdef' });
        assertError(res, 401, 'E40100');
        assert.equal(res.headers.get('www-authenticate'), CHALLENGE);
      });

      test('a malformed Authorization header gets 401 E40100 with the challenge', async () => {
        for (const authorization of ['Bearer abc', 'Basic', 'Basic !!!notbase64', `Basic ${Buffer.from(':').toString('base64')}`]) {
          const res = await call(s, 'GET', '/status', { headers: { authorization } });
          assertError(res, 401, 'E40100');
          assert.equal(res.headers.get('www-authenticate'), CHALLENGE, `challenge for "${authorization}"`);
        }
      });

      test('a 401 on a POST leaves the credits alone', async () => {
        const before = await creditsOf(s, s.key);
        const res = await call(s, 'POST', '/tests', { body: startBody() });
        assertError(res, 401, 'E40100');
        assert.equal(await creditsOf(s, s.key), before);
      });

      test('an account whose e-mail is not validated gets 403 E40300', async () => {
        const key = await s.account({ plan: 'basic', emailValidated: false });
        assertError(await call(s, 'GET', '/status', { key }), 403, 'E40300');
        assertError(await call(s, 'POST', '/tests', { key, body: startBody() }), 403, 'E40300');
        assertError(await call(s, 'GET', '/locations', { key }), 403, 'E40300');
      });
    });

    describe('rate limit', () => {
      test('authenticated responses of a pro account carry the 960 per 60 s headers', async () => {
        const res = await call(s, 'GET', '/status', { key: s.key });
        assertData(res);
        assert.equal(res.headers.get('x-ratelimit-limit'), '960, 960;window=60');
        const remaining = intHeader(res, 'x-ratelimit-remaining');
        assert.ok(remaining >= 0 && remaining < 960, `remaining ${remaining}`);
        const reset = intHeader(res, 'x-ratelimit-reset');
        assert.ok(reset >= 1 && reset <= 60, `reset ${reset}`);
      });

      test('authenticated responses of a basic account carry the 240 per 60 s headers', async () => {
        await roomInWindow(1_000);
        const key = await s.account({ plan: 'basic' });
        const res = await call(s, 'GET', '/locations', { key });
        assertData(res);
        assert.equal(res.headers.get('x-ratelimit-limit'), '240, 240;window=60');
        assert.equal(intHeader(res, 'x-ratelimit-remaining'), 239);
        const reset = intHeader(res, 'x-ratelimit-reset');
        assert.ok(reset >= 1 && reset <= 60, `reset ${reset}`);
      });

      test('each authenticated request uses one request of the quota', async () => {
        await roomInWindow(2_000);
        const key = await s.account({ plan: 'pro' });
        const a = intHeader(await call(s, 'GET', '/status', { key }), 'x-ratelimit-remaining');
        const b = intHeader(await call(s, 'GET', '/browsers', { key }), 'x-ratelimit-remaining');
        assert.equal(a, 959);
        assert.equal(b, 958);
      });

      test('401 challenges do not use up the rate-limit quota', async () => {
        await roomInWindow(2_000);
        const key = await s.account({ plan: 'basic' });
        const first = await call(s, 'GET', '/status', { key });
        const before = intHeader(first, 'x-ratelimit-remaining');
        // A client that answers challenges: every call is first sent without credentials.
        const challenges = await Promise.all([
          ...Array.from({ length: 5 }, () => call(s, 'GET', '/status')),
          ...Array.from({ length: 5 }, () => call(s, 'GET', '/status', { key: key.replace(/.$/, (c) => (c === '0' ? '1' : '0')) })),
        ]);
        for (const res of challenges) assertError(res, 401, 'E40100');
        const second = await call(s, 'GET', '/status', { key });
        assert.equal(intHeader(second, 'x-ratelimit-remaining'), before - 1, 'only the authenticated request counted');
      });

      test('the 241st request of a basic account in one window gets 429 E42901 with an integer reset', async () => {
        await roomInWindow(5_000);
        const key = await s.account({ plan: 'basic' });
        const results: Res[] = [];
        for (let sent = 0; sent < 241; sent += 61) {
          const n = Math.min(61, 241 - sent);
          results.push(...(await Promise.all(Array.from({ length: n }, () => call(s, 'GET', '/status', { key })))));
        }
        const ok = results.filter((r) => r.status === 200);
        const limited = results.filter((r) => r.status === 429);
        assert.equal(ok.length, 240, `statuses: ${[...new Set(results.map((r) => r.status))].join(',')}`);
        assert.equal(limited.length, 1);
        const e = assertError(limited[0], 429, 'E42901');
        assert.ok(e);
        const reset = intHeader(limited[0], 'x-ratelimit-reset');
        assert.ok(reset >= 1 && reset <= 60, `reset ${reset}`);
        assert.equal(limited[0].headers.get('x-ratelimit-limit'), '240, 240;window=60');
        assert.equal(intHeader(limited[0], 'x-ratelimit-remaining'), 0);
        // Until the window ends, every request is refused, whatever the endpoint.
        const again = await call(s, 'GET', '/locations', { key });
        assertError(again, 429, 'E42901');
        intHeader(again, 'x-ratelimit-reset');
        // The quota is per account: another account is not affected.
        assertData(await call(s, 'GET', '/status', { key: s.key }));
      });
    });

    describe('routing and request forms', () => {
      test('an unknown path gets 400 E40000', async () => {
        for (const path of ['/nope', '/tests/x/y/z', '/reports', '/status/extra']) {
          assertError(await call(s, 'GET', path, { key: s.key }), 400, 'E40000');
        }
      });

      test('a known path with a method it does not take gets 405 E40500 with Allow', async () => {
        const cases: [string, string, string][] = [
          ['PUT', '/tests', 'POST'],
          ['DELETE', `/tests/${UNKNOWN_ID}`, 'GET'],
          ['PATCH', `/tests/${UNKNOWN_ID}`, 'GET'],
          ['POST', '/status', 'GET'],
          ['DELETE', '/locations', 'GET'],
          ['GET', `/reports/${UNKNOWN_ID}/retest`, 'POST'],
          ['PUT', `/reports/${UNKNOWN_ID}`, 'GET'],
        ];
        for (const [method, path, allowed] of cases) {
          const res = await call(s, method, path, { key: s.key });
          assertError(res, 405, 'E40500');
          assert.match(res.headers.get('allow') ?? '', new RegExp(`\\b${allowed}\\b`), `Allow of ${method} ${path}`);
        }
      });

      test('repeated slashes in the path are collapsed', async () => {
        const res = await call(s, 'GET', '//status', { key: s.key });
        const data = assertData(res);
        assert.equal(data.type, 'user');
        const loc = await call(s, 'GET', '//locations//1', { key: s.key });
        assert.equal(assertData(loc).id, '1');
      });

      test('a trailing slash is accepted', async () => {
        assert.equal(assertData(await call(s, 'GET', '/status/', { key: s.key })).type, 'user');
      });

      test('Content-Type and Accept application/vnd.api+json on a GET without body are accepted', async () => {
        const headers = { 'content-type': 'application/vnd.api+json', accept: 'application/vnd.api+json' };
        assert.equal(assertData(await call(s, 'GET', '/status', { key: s.key, headers })).type, 'user');
        assertError(await call(s, 'GET', `/tests/${UNKNOWN_ID}`, { key: s.key, headers }), 404, 'E40400');
      });

      test('Content-Type application/vnd.api+json on a DELETE without body is accepted', async () => {
        const headers = { 'content-type': 'application/vnd.api+json', accept: 'application/vnd.api+json' };
        assertError(await call(s, 'DELETE', `/reports/${UNKNOWN_ID}`, { key: s.key, headers }), 404, 'E40401');
      });

      test('responses are JSON:API documents', async () => {
        const res = await call(s, 'GET', '/status', { key: s.key });
        assert.match(res.headers.get('content-type') ?? '', /^application\/vnd\.api\+json/);
        const err = await call(s, 'GET', `/tests/${UNKNOWN_ID}`, { key: s.key });
        assert.match(err.headers.get('content-type') ?? '', /json/);
      });
    });

    describe('polling and listing tests', () => {
      let key: string;
      let id: string;
      before(async () => {
        key = await s.account({ plan: 'pro' });
        const res = await call(s, 'POST', '/tests', { key, body: startBody() });
        id = assertData(res, 202).id;
      });

      test('a queued test answers 200 with Retry-After 3 and the test object', async () => {
        const res = await call(s, 'GET', `/tests/${id}`, { key });
        const data = assertData(res, 200);
        assert.equal(res.headers.get('retry-after'), '3');
        assert.equal(data.type, 'test');
        assert.equal(data.id, id);
        const a = data.attributes;
        assert.equal(a.state, 'queued');
        assert.equal(a.url, PAGE);
        assert.equal(a.source, 'api');
        assert.equal(typeof a.browser, 'string');
        assert.equal(typeof a.location, 'string');
        assert.ok(isInt(a.created), `created ${a.created} is an integer`);
        assert.ok(Math.abs(a.created - Date.now() / 1000) < 120, 'created is Unix seconds');
        for (const absent of ['report', 'error', 'finished']) assert.equal(a[absent], undefined, `${absent} absent while queued`);
        assert.equal(data.links.report, undefined);
        assert.equal(data.links.location, `${s.api}/locations/${a.location}`);
        assert.equal(data.links.browser, `${s.api}/browsers/${a.browser}`);
      });

      test('an empty query string is accepted', async () => {
        const res = await call(s, 'GET', `/tests/${id}?`, { key });
        assert.equal(assertData(res).id, id);
        assert.equal(res.headers.get('retry-after'), '3');
      });

      test('repeated slashes reach the test', async () => {
        assert.equal(assertData(await call(s, 'GET', `//tests//${id}`, { key })).id, id);
      });

      test('an unknown test ID gets 404 E40400', async () => {
        const res = await call(s, 'GET', `/tests/${UNKNOWN_ID}`, { key });
        assertError(res, 404, 'E40400');
        assert.equal(res.headers.get('retry-after'), null);
      });

      test('GET /tests lists the account\'s tests (spec 4.1)', async () => {
        const res = await call(s, 'GET', '/tests', { key });
        const data = assertData(res, 200);
        assert.ok(Array.isArray(data), 'data is an array');
        assert.deepEqual(data.map((t: any) => t.id), [id]);
        assert.equal(data[0].type, 'test');
        assert.equal(data[0].attributes.state, 'queued');
        assert.equal(typeof res.body.meta?.curr_page, 'string', 'meta.curr_page is a string');
      });

      test("another account's test gets 404 E40400, never 403", async () => {
        const other = await s.account({ plan: 'pro' });
        assertError(await call(s, 'GET', `/tests/${id}`, { key: other }), 404, 'E40400');
        assertError(await call(s, 'GET', `/tests/${id}`, { key: s.key }), 404, 'E40400');
      });
    });

    describe('reports that do not exist', () => {
      test('GET /reports/{unknown} gets 404 E40401', async () => {
        assertError(await call(s, 'GET', `/reports/${UNKNOWN_ID}`, { key: s.key }), 404, 'E40401');
      });

      test('DELETE /reports/{unknown} gets 404 E40401', async () => {
        assertError(await call(s, 'DELETE', `/reports/${UNKNOWN_ID}`, { key: s.key }), 404, 'E40401');
      });

      test('POST /reports/{unknown}/retest without body or Content-Type gets 404 E40402 and charges nothing', async () => {
        const before = await creditsOf(s, s.key);
        assertError(await call(s, 'POST', `/reports/${UNKNOWN_ID}/retest`, { key: s.key }), 404, 'E40402');
        // Some clients send the JSON:API Content-Type on every request, even without a body.
        const headers = { 'content-type': 'application/vnd.api+json' };
        assertError(await call(s, 'POST', `/reports/${UNKNOWN_ID}/retest`, { key: s.key, headers }), 404, 'E40402');
        assert.equal(await creditsOf(s, s.key), before);
      });

      test('GET /reports/{unknown}/resources/net.har gets 404 E40401', async () => {
        assertError(await call(s, 'GET', `/reports/${UNKNOWN_ID}/resources/net.har`, { key: s.key }), 404, 'E40401');
        assertError(await call(s, 'GET', `/reports/${UNKNOWN_ID}/resources/har`, { key: s.key }), 404, 'E40401');
      });

      test('a queued test has no report yet: its ID is not a report ID', async () => {
        const key = await s.account({ plan: 'pro' });
        const id = assertData(await call(s, 'POST', '/tests', { key, body: startBody() }), 202).id;
        assertError(await call(s, 'GET', `/reports/${id}`, { key }), 404, 'E40401');
        assertError(await call(s, 'POST', `/reports/${id}/retest`, { key }), 404, 'E40402');
      });
    });

    describe('GET /status', () => {
      test('has exactly the shape existing clients read', async () => {
        const key = await s.account({ plan: 'pro' });
        const res = await call(s, 'GET', '/status', { key });
        const data = assertData(res);
        assert.deepEqual(Object.keys(res.body).filter((k) => k !== 'links' && k !== 'meta' && k !== 'jsonapi'), ['data']);
        assert.equal(data.type, 'user');
        assert.equal(data.id, key);
        const a = data.attributes;
        assert.deepEqual(Object.keys(a).sort(), [
          'account_pro_analysis_options_access',
          'account_pro_locations_access',
          'account_type',
          'account_whitelabel_pdf_access',
          'api_credits',
          'api_refill',
          'api_refill_amount',
        ]);
        assert.equal(typeof a.api_credits, 'number');
        assert.equal(a.api_credits, 100);
        assert.ok(isInt(a.api_refill), `api_refill ${a.api_refill} is an integer`);
        const now = Math.floor(Date.now() / 1000);
        assert.ok(a.api_refill > now && a.api_refill <= now + 86_400 + 5, 'api_refill is the Unix time of the next refill');
        assert.equal(typeof a.api_refill_amount, 'number');
        assert.ok(a.api_refill_amount > 0, 'api_refill_amount is never 0');
        assert.equal(typeof a.account_type, 'string');
        assert.ok(a.account_type.length > 0);
        assert.equal(a.account_pro_analysis_options_access, true);
        assert.equal(a.account_pro_locations_access, true);
        assert.equal(typeof a.account_whitelabel_pdf_access, 'boolean');
      });

      test('a basic account has no pro access and a positive refill amount', async () => {
        const key = await s.account({ plan: 'basic' });
        const a = assertData(await call(s, 'GET', '/status', { key })).attributes;
        assert.equal(a.api_credits, 5);
        assert.equal(a.account_pro_analysis_options_access, false);
        assert.equal(a.account_pro_locations_access, false);
        assert.equal(typeof a.account_whitelabel_pdf_access, 'boolean');
        assert.ok(a.api_refill_amount > 0);
        assert.notEqual(a.account_type, assertData(await call(s, 'GET', '/status', { key: s.key })).attributes.account_type);
      });
    });

    describe('locations', () => {
      const checkLocation = (l: any) => {
        assert.equal(l.type, 'location');
        assert.equal(typeof l.id, 'string');
        assert.equal(typeof l.attributes.name, 'string');
        assert.equal(typeof l.attributes.region, 'string');
        assert.equal(typeof l.attributes.default, 'boolean');
        assert.equal(typeof l.attributes.account_has_access, 'boolean');
        // What its online agents offer: this server runs none, so nothing (tests there still queue).
        assert.ok(Array.isArray(l.attributes.browsers));
        for (const b of l.attributes.browsers) assert.equal(typeof b, 'string');
        assert.equal(typeof l.attributes.agents_online, 'number');
      };

      test('GET /locations lists locations with region, access and browser IDs as strings', async () => {
        const data = assertData(await call(s, 'GET', '/locations', { key: s.key }));
        assert.ok(Array.isArray(data) && data.length > 0);
        data.forEach(checkLocation);
        assert.equal(data.filter((l: any) => l.attributes.default === true).length, 1, 'exactly one default location');
      });

      test('GET /locations/1 answers the location', async () => {
        const data = assertData(await call(s, 'GET', '/locations/1', { key: s.key }));
        checkLocation(data);
        assert.equal(data.id, '1');
        assert.deepEqual([data.attributes.browsers, data.attributes.agents_online], [[], 0], 'no agent runs on this server');
      });

      test('an unknown location gets 404 E40404', async () => {
        assertError(await call(s, 'GET', '/locations/999', { key: s.key }), 404, 'E40404');
      });
    });

    describe('browsers', () => {
      const FLAGS = ['adblock', 'lighthouse', 'cookies', 'filtering', 'http_auth', 'throttle', 'video', 'dns', 'user_agent', 'resolution'];
      const checkBrowser = (b: any) => {
        assert.equal(b.type, 'browser');
        assert.equal(typeof b.id, 'string');
        const a = b.attributes;
        for (const k of ['name', 'browser', 'platform', 'device']) assert.equal(typeof a[k], 'string', k);
        assert.ok(['desktop', 'android'].includes(a.platform));
        assert.equal(typeof a.default, 'boolean');
        for (const f of FLAGS) assert.equal(typeof a[f], 'boolean', `capability flag ${f} is a boolean`);
      };

      test('GET /browsers lists browsers with boolean capability flags', async () => {
        const data = assertData(await call(s, 'GET', '/browsers', { key: s.key }));
        assert.ok(Array.isArray(data) && data.length > 0);
        data.forEach(checkBrowser);
      });

      test('GET /browsers/3 answers the default browser', async () => {
        const data = assertData(await call(s, 'GET', '/browsers/3', { key: s.key }));
        checkBrowser(data);
        assert.equal(data.id, '3');
      });

      test('every browser of a location is listed', async () => {
        const locations = assertData(await call(s, 'GET', '/locations', { key: s.key }));
        const browsers = assertData(await call(s, 'GET', '/browsers', { key: s.key })).map((b: any) => b.id);
        for (const l of locations) for (const b of l.attributes.browsers) assert.ok(browsers.includes(b), `browser ${b} of location ${l.id}`);
      });

      test('an unknown browser gets 404 E40403', async () => {
        assertError(await call(s, 'GET', '/browsers/999', { key: s.key }), 404, 'E40403');
      });
    });

    describe('simulated devices', () => {
      const checkDevice = (d: any) => {
        assert.equal(d.type, 'simulated_device');
        assert.equal(typeof d.id, 'string');
        const a = d.attributes;
        assert.ok(['phone', 'tablet'].includes(a.category), `category ${a.category}`);
        for (const k of ['name', 'manufacturer', 'user_agent']) assert.equal(typeof a[k], 'string', `${d.id} ${k}`);
        assert.ok(a.user_agent.length > 0);
        assert.ok(isInt(a.width) && a.width > 0, `${d.id} width ${a.width}`);
        assert.ok(isInt(a.height) && a.height > 0, `${d.id} height ${a.height}`);
        assert.equal(typeof a.dppx, 'number');
        assert.ok(a.dppx >= 1 && a.dppx <= 5, `${d.id} dppx ${a.dppx}`);
      };

      test('GET /simulated-devices lists many phones and tablets', async () => {
        const data = assertData(await call(s, 'GET', '/simulated-devices', { key: s.key }));
        assert.ok(Array.isArray(data));
        data.forEach(checkDevice);
        const phones = data.filter((d: any) => d.attributes.category === 'phone').length;
        const tablets = data.filter((d: any) => d.attributes.category === 'tablet').length;
        assert.ok(phones >= 10, `${phones} phones`);
        assert.ok(tablets >= 3, `${tablets} tablets`);
        assert.equal(new Set(data.map((d: any) => d.id)).size, data.length, 'device IDs are unique');
      });

      test('GET /simulated-devices/{id} answers the device', async () => {
        const list = assertData(await call(s, 'GET', '/simulated-devices', { key: s.key }));
        const one = assertData(await call(s, 'GET', `/simulated-devices/${encodeURIComponent(list[0].id)}`, { key: s.key }));
        checkDevice(one);
        assert.deepEqual(one.attributes, list[0].attributes);
      });

      test('an unknown simulated device gets 404 E40408', async () => {
        assertError(await call(s, 'GET', '/simulated-devices/no-such-phone', { key: s.key }), 404, 'E40408');
      });
    });
  });
}
