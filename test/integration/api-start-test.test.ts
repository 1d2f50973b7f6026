// lane: shared
/**
 * Black-box HTTP tests of POST /tests (spec 4.1, 5, 7, 8 and COMPAT.md "Lenient input"): the 202 answer,
 * prices, refusals with their exact codes (and that a refusal changes nothing), plan, role, concurrency and
 * credit limits. No agent runs (agentSlots 0): every accepted test stays queued.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, engines, errorOf, startServer, type Res, type TestServer } from '../helpers/server.js';
import { assertError, assertData, creditsOf, isInt } from '../helpers/assertions.js';

/** An IP literal: no DNS lookup (the test machine may have none); the helper's servers allow private targets. */
const PAGE = 'http://127.0.0.1:9/page.html';

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

    /** POST /tests with a fresh pro account (8 concurrent tests, 100 credits) so that limits never interfere. */
    async function start(attributes: Record<string, unknown>, key?: string): Promise<{ res: Res; key: string }> {
      const k = key ?? (await s.account({ plan: 'pro' }));
      return { res: await call(s, 'POST', '/tests', { key: k, body: startBody(attributes) }), key: k };
    }

    /** Asserts POST /tests with these attributes is refused with `code`, and that the account was not charged. */
    async function refused(attributes: Record<string, unknown>, code: string, opts: { key?: string; status?: number } = {}) {
      const key = opts.key ?? (await s.account({ plan: 'pro' }));
      const before = await creditsOf(s, key);
      const res = await call(s, 'POST', '/tests', { key, body: startBody(attributes) });
      const e = assertError(res, opts.status ?? 400, code);
      assert.equal(res.headers.get('location'), null, 'a refused test has no Location');
      assert.equal(await creditsOf(s, key), before, `credits unchanged after ${JSON.stringify(attributes)}`);
      return e;
    }

    describe('accepted', () => {
      test('a test starts with 202, a Location equal to links.self and the queued test', async () => {
        const before = Date.now() / 1000;
        const { res } = await start({});
        const data = assertData(res, 202);
        assert.equal(data.type, 'test');
        assert.equal(typeof data.id, 'string');
        assert.ok(data.id.length >= 8, 'the test ID is unguessable');
        const location = res.headers.get('location');
        assert.ok(location, 'Location header present');
        assert.equal(location, `${s.api}/tests/${data.id}`, 'Location is the absolute poll URL under /api/2.0');
        assert.equal(typeof res.body.links?.self, 'string');
        assert.equal(res.body.links.self, location, 'links.self equals the Location header');
        const a = data.attributes;
        assert.equal(a.state, 'queued');
        assert.equal(a.source, 'api');
        assert.equal(typeof a.location, 'string');
        assert.equal(a.location, '1');
        assert.equal(typeof a.browser, 'string');
        assert.equal(a.browser, '3');
        assert.ok(isInt(a.created), `created ${a.created} is an integer`);
        assert.ok(a.created >= Math.floor(before) - 1 && a.created <= Date.now() / 1000 + 1, 'created is now, in Unix seconds');
        assert.equal(typeof res.body.meta?.credits_left, 'number');
        assert.equal(typeof res.body.meta?.credits_used, 'number');
        assert.equal(res.body.meta.credits_used, 1);
        assert.equal(res.body.meta.credits_left, 99);
      });

      test('the poll URL of a started test answers it', async () => {
        const { res, key } = await start({});
        const poll = await call(s, 'GET', res.headers.get('location')!, { key });
        assert.equal(assertData(poll).id, res.body.data.id);
      });

      test('credits left goes down by what each test costs', async () => {
        const key = await s.account({ plan: 'pro' });
        const first = await start({}, key);
        assert.equal(assertData(first.res, 202) && first.res.body.meta.credits_left, 99);
        const second = await start({ video: 1 }, key);
        assertData(second.res, 202);
        assert.equal(second.res.body.meta.credits_used, 1.9);
        assert.equal(second.res.body.meta.credits_left, 97.1);
        assert.equal(await creditsOf(s, key), 97.1);
      });

      const prices: [string, Record<string, unknown>, number][] = [
        ['default lighthouse report', {}, 1],
        ['lighthouse with video=1', { video: 1 }, 1.9],
        ['retention 6 months', { retention: 6 }, 1.4],
        ['retention 12 months', { retention: 12 }, 1.9],
        ['retention 24 months', { retention: 24 }, 2.8],
        ['report none', { report: 'none' }, 0.6],
        ['report none with video and 24 months', { report: 'none', video: 1, retention: 24 }, 3.3],
      ];
      for (const [what, attributes, cost] of prices) {
        test(`${what} costs ${cost} credits`, async () => {
          const { res, key } = await start(attributes);
          assertData(res, 202);
          assert.equal(res.body.meta.credits_used, cost);
          assert.equal(res.body.meta.credits_left, Math.round((100 - cost) * 10) / 10);
          assert.equal(await creditsOf(s, key), Math.round((100 - cost) * 10) / 10);
        });
      }

      const lenient: [string, Record<string, unknown>, number][] = [
        ['video "1"', { video: '1' }, 1.9],
        ['video true', { video: true }, 1.9],
        ['video "0"', { video: '0' }, 1],
        ['video false', { video: false }, 1],
        ['retention "6"', { retention: '6' }, 1.4],
        ['retention "1"', { retention: '1' }, 1],
        ['adblock "1" and stop_onload true', { adblock: '1', stop_onload: true }, 1],
        ['cookies as a single string', { cookies: 'session=abc' }, 1],
        ['allow_url and block_url as single strings', { allow_url: 'http://127.0.0.1:9/*', block_url: '*.gif' }, 1],
        ['dns as a single string', { dns: 'example.com:127.0.0.1' }, 1],
        ['an unknown attribute', { no_such_option: 'x', another: { nested: true } }, 1],
        ['empty strings for optional attributes', { location: '', browser: '', report: '', retention: '', video: '', throttle: '', cookies: '' }, 1],
        ['location and browser as numbers', { location: 1, browser: 3 }, 1],
        ['a valid throttle', { throttle: '5000/1000/30' }, 1],
        ['width with height and a fractional dppx', { browser_width: 1024, browser_height: 700, browser_dppx: 1.5 }, 1],
      ];
      for (const [what, attributes, cost] of lenient) {
        test(`accepts ${what}`, async () => {
          const { res } = await start(attributes);
          const data = assertData(res, 202);
          assert.equal(data.attributes.state, 'queued');
          assert.equal(data.attributes.location, '1');
          assert.equal(data.attributes.browser, '3');
          assert.equal(res.body.meta.credits_used, cost);
        });
      }

      test('a simulated device from the list is accepted on a pro account', async () => {
        const key = await s.account({ plan: 'pro' });
        const devices = assertData(await call(s, 'GET', '/simulated-devices', { key }));
        const { res } = await start({ simulate_device: devices[0].id }, key);
        assertData(res, 202);
      });
    });

    describe('refused requests change nothing', () => {
      test('a body sent as application/json gets 415 E41500', async () => {
        const key = await s.account({ plan: 'pro' });
        const before = await creditsOf(s, key);
        for (const contentType of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
          const res = await call(s, 'POST', '/tests', { key, body: startBody(), contentType });
          assertError(res, 415, 'E41500');
        }
        assert.equal(await creditsOf(s, key), before);
      });

      test('a body without Content-Type gets 415 E41500', async () => {
        const key = await s.account({ plan: 'pro' });
        const before = await creditsOf(s, key);
        assertError(await call(s, 'POST', '/tests', { key, body: startBody(), contentType: null }), 415, 'E41500');
        assert.equal(await creditsOf(s, key), before);
      });

      test('Content-Type with a charset parameter is still JSON:API', async () => {
        const key = await s.account({ plan: 'pro' });
        const res = await call(s, 'POST', '/tests', { key, body: startBody(), contentType: 'application/vnd.api+json; charset=utf-8' });
        assertData(res, 202);
      });

      test('malformed JSON gets 400 E40002', async () => {
        const key = await s.account({ plan: 'pro' });
        const before = await creditsOf(s, key);
        for (const body of ['{"data": {', 'not json', '{"data":{"type":"test","attributes":{"url":"x",}}}']) {
          assertError(await call(s, 'POST', '/tests', { key, body }), 400, 'E40002');
        }
        assert.equal(await creditsOf(s, key), before);
      });

      test('an empty body gets 400 E40002', async () => {
        const key = await s.account({ plan: 'pro' });
        assertError(await call(s, 'POST', '/tests', { key, body: '', contentType: 'application/vnd.api+json' }), 400, 'E40002');
        assertError(
          await call(s, 'POST', '/tests', { key, headers: { 'content-type': 'application/vnd.api+json' } }),
          400,
          'E40002',
        );
      });

      test('a body without data, or with the wrong shape, gets 400 E40002', async () => {
        const key = await s.account({ plan: 'pro' });
        const before = await creditsOf(s, key);
        const bodies: unknown[] = [
          {},
          [],
          '"a string"',
          { url: PAGE },
          { data: null },
          { data: [] },
          { data: { type: 'test' } },
          { data: { type: 'test', attributes: 'url' } },
        ];
        for (const body of bodies) {
          const res = await call(s, 'POST', '/tests', { key, body });
          assertError(res, 400, 'E40002');
        }
        assert.equal(await creditsOf(s, key), before);
      });

      const invalid: [string, Record<string, unknown>][] = [
        ['a missing url', { url: undefined }],
        ['an empty url', { url: '' }],
        ['a url that is not one', { url: 'not a url at all' }],
        ['an ftp url', { url: 'ftp://127.0.0.1/file' }],
        ['a javascript: url', { url: 'javascript:alert(1)' }],
        ['a url that is a number', { url: 42 }],
        ['an unknown report type', { report: 'pdf' }],
        ['a report that is a number', { report: 1 }],
        ['retention 3', { retention: 3 }],
        ['retention "forever"', { retention: 'forever' }],
        ['video 2', { video: 2 }],
        ['video "yes"', { video: 'yes' }],
        ['adblock -1', { adblock: -1 }],
        ['a throttle that is not down/up/latency', { throttle: 'fast' }],
        ['a throttle with two numbers', { throttle: '5000/1000' }],
        ['browser_width without browser_height', { browser_width: 800 }],
        ['browser_height without browser_width', { browser_height: 600 }],
        ['browser_dppx 7', { browser_dppx: 7 }],
        ['browser_dppx 0.5', { browser_dppx: 0.5 }],
        ['a cookie without a value', { cookies: ['nocookie'] }],
        ['a dns entry without an address', { dns: ['example.com'] }],
        ['cookies that are a number', { cookies: 5 }],
      ];
      for (const [what, attributes] of invalid) {
        test(`${what} gets 400 E40004`, async () => {
          await refused(attributes, 'E40004');
        });
      }

      const proOptions: [string, Record<string, unknown>][] = [
        ['dns', { dns: ['example.com:127.0.0.1'] }],
        ['simulate_device', { simulate_device: 'iphone-13-pro' }],
        ['user_agent', { user_agent: 'MyBot/1.0' }],
        ['browser_width and browser_height', { browser_width: 800, browser_height: 600 }],
        ['browser_dppx', { browser_dppx: 2 }],
        ['browser_rotate', { browser_rotate: 1 }],
      ];
      for (const [what, attributes] of proOptions) {
        test(`the pro option ${what} on a basic account gets 400 E40004`, async () => {
          const key = await s.account({ plan: 'basic' });
          await refused(attributes, 'E40004', { key });
        });
      }

      const unknownRefs: [string, Record<string, unknown>][] = [
        ['location', { location: '999' }],
        ['browser', { browser: '999' }],
        ['simulate_device', { simulate_device: 'no-such-phone-9000' }],
      ];
      for (const [what, attributes] of unknownRefs) {
        test(`an unknown ${what} gets 400 E40003`, async () => {
          await refused(attributes, 'E40003');
        });
      }

      test('a private target on a server that refuses them gets 400 E40004 naming WEBGAUGE_ALLOW_PRIVATE_TARGETS', async () => {
        const strict = await startServer({ engine, agentSlots: 0, allowPrivateTargets: false });
        try {
          const before = await creditsOf(strict, strict.key);
          for (const url of ['http://127.0.0.1/', 'http://localhost:8080/', 'http://10.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/']) {
            const res = await call(strict, 'POST', '/tests', { key: strict.key, body: startBody({ url }) });
            const e = assertError(res, 400, 'E40004');
            assert.match(e.detail!, /WEBGAUGE_ALLOW_PRIVATE_TARGETS/, `detail for ${url}`);
          }
          assert.equal(await creditsOf(strict, strict.key), before);
        } finally {
          await strict?.close();
        }
      });
    });

    describe('limits, credits and roles', () => {
      test('a basic account gets 429 E42900 on its third queued test, and is not charged for it', async () => {
        const key = await s.account({ plan: 'basic' });
        assertData((await start({}, key)).res, 202);
        assertData((await start({}, key)).res, 202);
        assert.equal(await creditsOf(s, key), 3);
        const third = await start({}, key);
        assertError(third.res, 429, 'E42900');
        assert.equal(await creditsOf(s, key), 3);
        // Still refused: the refusal did not free or take a slot.
        assertError((await start({}, key)).res, 429, 'E42900');
      });

      test('a pro account gets 429 E42900 on its ninth queued test', async () => {
        const key = await s.account({ plan: 'pro' });
        for (let i = 0; i < 8; i++) assertData((await start({}, key)).res, 202);
        const before = await creditsOf(s, key);
        assert.equal(before, 92);
        assertError((await start({}, key)).res, 429, 'E42900');
        assert.equal(await creditsOf(s, key), before);
      });

      test('concurrent starts never exceed the concurrency limit', async () => {
        const key = await s.account({ plan: 'basic' });
        const results = await Promise.all(Array.from({ length: 6 }, () => call(s, 'POST', '/tests', { key, body: startBody() })));
        const accepted = results.filter((r) => r.status === 202).length;
        assert.equal(accepted, 2, `statuses ${results.map((r) => r.status).join(',')}`);
        for (const r of results.filter((r) => r.status !== 202)) assertError(r, 429, 'E42900');
        assert.equal(await creditsOf(s, key), 3);
      });

      test('an account with 0.5 credits gets 402 E40201 and keeps its balance', async () => {
        const key = await s.account({ plan: 'pro', credits: 0.5 });
        assert.equal(await creditsOf(s, key), 0.5);
        await refused({}, 'E40201', { key, status: 402 });
        await refused({ report: 'none' }, 'E40201', { key, status: 402 });
        assert.equal(await creditsOf(s, key), 0.5);
      });

      test('a test costing exactly the balance is accepted and leaves 0', async () => {
        const key = await s.account({ plan: 'pro', credits: 1.9 });
        const { res } = await start({ video: 1 }, key);
        assertData(res, 202);
        assert.equal(res.body.meta.credits_left, 0);
        assert.equal(await creditsOf(s, key), 0);
        await refused({ report: 'none' }, 'E40201', { key, status: 402 });
      });

      test('a viewer gets 403 E40301 on POST /tests but reads the team owner\'s test', async () => {
        const ownerEmail = `owner-${engine}-${Date.now()}@example.test`;
        const owner = await s.account({ plan: 'pro', email: ownerEmail });
        const viewer = await s.account({ plan: 'pro', role: 'viewer', teamOf: ownerEmail });
        const started = await start({}, owner);
        const id = assertData(started.res, 202).id;
        const before = await creditsOf(s, owner);

        const res = await call(s, 'POST', '/tests', { key: viewer, body: startBody() });
        assertError(res, 403, 'E40301');
        assert.equal(await creditsOf(s, owner), before, 'the owner was not charged');

        const seen = await call(s, 'GET', `/tests/${id}`, { key: viewer });
        const data = assertData(seen);
        assert.equal(data.id, id);
        assert.equal(data.attributes.state, 'queued');
        assert.equal(seen.headers.get('retry-after'), '3');
      });

      test('a refused test does not use up a concurrency slot', async () => {
        const key = await s.account({ plan: 'basic' });
        await refused({ report: 'pdf' }, 'E40004', { key });
        await refused({ location: '999' }, 'E40003', { key });
        assertError(await call(s, 'POST', '/tests', { key, body: '{' }), 400, 'E40002');
        assertData((await start({}, key)).res, 202);
        assertData((await start({}, key)).res, 202);
        assert.equal(await creditsOf(s, key), 3);
      });
    });
  });
}
