// lane: shared
/**
 * The web app's sessions, forms and live progress over HTTP, on both engines (the browser suite drives the screens
 * in Chromium on SQLite): password and key sign-in, the cookie's flags behind HTTPS, CSRF and Origin refusals,
 * a test started from Analyze (source on-demand), its queue position pushed over server-sent events the moment
 * the test ahead ends, the error of a failed test, the Account screen's usage, other accounts, sign-out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticate, setPassword } from '../../src/core/accounts/accounts.js';
import sharp from 'sharp';
import { failTest } from '../../src/core/tests/tests.js';
import { storeFailure } from '../../src/core/tests/journey-failure.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';
import { esc } from '../../src/report/format.js';
import { shopRecordings, SHOP } from '../fixtures/site/shop.js';
import { call, engines, startServer, type TestServer } from '../helpers/server.js';

interface Page {
  status: number;
  html: string;
  location: string | null;
  setCookie: string | null;
}

for (const engine of engines()) {
  describe(`web app over HTTP: sessions, forms, live progress (${engine})`, () => {
    let server: TestServer;
    let email: string;
    let cookie = '';
    const password = 'a long and good password';

    const form = async (path: string, fields: Record<string, string>, o: { cookie?: string; origin?: string | null } = {}): Promise<Page> => {
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (o.origin !== null) headers.origin = o.origin ?? server.base;
      if (o.cookie) headers.cookie = o.cookie;
      const res = await fetch(server.base + path, { method: 'POST', redirect: 'manual', headers, body: new URLSearchParams(fields).toString() });
      return { status: res.status, html: await res.text(), location: res.headers.get('location'), setCookie: res.headers.get('set-cookie') };
    };
    const get = async (path: string, c = cookie): Promise<Page> => {
      const res = await fetch(server.base + path, { redirect: 'manual', headers: c ? { cookie: c } : {} });
      return { status: res.status, html: await res.text(), location: res.headers.get('location'), setCookie: res.headers.get('set-cookie') };
    };
    const csrfOf = async (c = cookie) => /name="csrf" value="([^"]+)"/.exec((await get('/account', c)).html)?.[1] ?? '';

    before(async () => {
      // Behind HTTPS (as the operator declares with WEBGAUGE_PUBLIC_URL): the cookie must be Secure.
      server = await startServer({ engine, agentSlots: 0, env: { WEBGAUGE_PUBLIC_URL: 'https://webgauge.example' } });
      email = (await authenticate(server.app.store.db, server.config.plans, server.key))!.email;
      await setPassword(server.app.store.db, email, password);
    });

    after(async () => {
      await server?.close();
    });

    it('a wrong password signs no one in (401, no cookie); the right one gives an HttpOnly, SameSite=Lax, Secure session', async () => {
      const wrong = await form('/sign-in', { email, password: 'not the password' });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.setCookie, null);
      assert.match(wrong.html, /Wrong e-mail or password\./);
      const ok = await form('/sign-in', { email: email.toUpperCase(), password, next: '/account' });
      assert.equal(ok.status, 303, ok.html);
      assert.equal(ok.location, '/account', 'back where the visitor was going');
      assert.match(ok.setCookie ?? '', /^webgauge_session=[A-Za-z0-9_-]{43};/);
      for (const flag of ['HttpOnly', 'SameSite=Lax', 'Secure', 'Path=/']) assert.ok(ok.setCookie!.includes(flag), `${flag} in ${ok.setCookie}`);
      cookie = ok.setCookie!.split(';')[0];
      const account = await get('/account');
      assert.equal(account.status, 200);
      assert.match(account.html, new RegExp(email.replace(/[.]/g, '\\.')));
      // Only paths of this app are followed after sign-in: never another site.
      const offsite = await form('/sign-in', { api_key: server.key, next: '//evil.example/' });
      assert.equal(offsite.location, '/');
    });

    it('a form without the session\'s CSRF token, with a wrong one, or from another origin changes nothing (403)', async () => {
      const csrf = await csrfOf();
      assert.ok(csrf.length > 20);
      for (const [what, fields, origin] of [
        ['no token', { url: 'https://example.com/' }, undefined],
        ['a wrong token', { url: 'https://example.com/', csrf: csrf.slice(0, -2) + 'xx' }, undefined],
        ['another origin', { url: 'https://example.com/', csrf }, 'https://evil.example'],
      ] as const) {
        const res = await form('/analyze', fields, { cookie, origin });
        assert.equal(res.status, 403, what);
      }
      const tests = await call(server, 'GET', '/tests', { key: server.key });
      assert.equal(tests.body.data.length, 0, 'no test was started');
    });

    it('Analyze refuses what the API refuses with its message, and starts an on-demand test that is followed live', async () => {
      const csrf = await csrfOf();
      const refused = await form('/analyze', { csrf, url: 'ftp://example.com/' }, { cookie });
      const api = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: { url: 'ftp://example.com/' } } } });
      assert.equal(refused.status, api.status);
      assert.ok(refused.html.includes(api.body.errors[0].detail), `the API's own detail: ${api.body.errors[0].detail}`);

      // One test ahead (through the API), then one from the app: it waits behind the first.
      const ahead = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: { url: 'http://127.0.0.1:9/a' } } } });
      assert.equal(ahead.status, 202, ahead.text);
      const started = await form('/analyze', { csrf, url: 'http://127.0.0.1:9/b', runs: '2', connection: '5000/1000/30' }, { cookie });
      assert.equal(started.status, 303, started.html);
      const id = /^\/tests\/([^/]+)$/.exec(started.location ?? '')?.[1];
      assert.ok(id, `redirected to the progress screen: ${started.location}`);
      const test = await call(server, 'GET', `/tests/${id}`, { key: server.key });
      assert.equal(test.body.data.attributes.source, 'on-demand');

      const screen = await get(`/tests/${id}`);
      assert.match(screen.html, /Queued: 1 test ahead/);
      assert.match(screen.html, /<noscript><meta http-equiv="refresh" content="5"><\/noscript>/, 'without script the screen reloads');

      const events = await fetch(`${server.base}/tests/${id}/events`, { headers: { cookie } });
      assert.equal(events.status, 200);
      assert.match(events.headers.get('content-type') ?? '', /^text\/event-stream/);
      const reader = events.body!.getReader();
      let buffer = '';
      // An event's elapsed time is the clock's; it is checked to be one, and the rest compared whole.
      const nextEvent = async (): Promise<{ state: string; label: string; error?: string }> => {
        for (;;) {
          const m = /event: state\ndata: (.*)\n\n/.exec(buffer);
          if (m) {
            buffer = buffer.slice(m.index + m[0].length);
            const { elapsed_ms: elapsed, ...event } = JSON.parse(m[1]) as { elapsed_ms?: number; state: string; label: string };
            if (event.state === 'queued' || event.state === 'started') assert.ok(typeof elapsed === 'number' && elapsed >= 0, m[1]);
            return event;
          }
          const { value, done } = await reader.read();
          if (done) throw new Error(`the stream ended; left: ${buffer}`);
          buffer += Buffer.from(value).toString('utf8');
        }
      };
      assert.deepEqual(await nextEvent(), { state: 'queued', step: 'queued', position: 1, label: 'Queued: 1 test ahead' });
      // The test ahead ends: pushed at once, not at the next 5 s re-read.
      const t0 = Date.now();
      assert.ok(await failTest(server.app.store, ahead.body.data.id, null, 'made to fail by the test'));
      assert.deepEqual(await nextEvent(), { state: 'queued', step: 'queued', position: 0, label: 'Queued: next in line' });
      assert.ok(Date.now() - t0 < 2000, `pushed within ${Date.now() - t0} ms`);
      assert.ok(await failTest(server.app.store, id!, null, 'The page could not be loaded: made to fail by the test.'));
      assert.deepEqual(await nextEvent(), {
        state: 'error', label: 'The test failed', error: 'The page could not be loaded: made to fail by the test.',
      });
      assert.equal((await reader.read()).done, true, 'the stream ends with the test');
      assert.match((await get(`/tests/${id}`)).html, /made to fail by the test/);
    });

    it('Account shows the usage of those tests; another account sees none of it (404)', async () => {
      const account = await get('/account');
      assert.match(account.html, /Tests, last 24 hours<\/dt><dd>2 /);
      const otherKey = await server.account({ plan: 'basic' });
      const other = await form('/sign-in', { api_key: otherKey });
      const otherCookie = other.setCookie!.split(';')[0];
      const tests = await call(server, 'GET', '/tests', { key: server.key });
      for (const t of tests.body.data as { id: string }[]) {
        assert.equal((await get(`/tests/${t.id}`, otherCookie)).status, 404);
        const stream = await fetch(`${server.base}/tests/${t.id}/events`, { headers: { cookie: otherCookie } });
        assert.equal(stream.status, 404);
        await stream.arrayBuffer();
      }
      assert.match((await get('/account', otherCookie)).html, /Tests, last 24 hours<\/dt><dd>0/);
    });

    it('without script, Analyze takes a "Recording file" (multipart): its text is the recording; refused, it comes back in "Recording"', async () => {
      const csrf = await csrfOf();
      const post = (file: string, fields: Record<string, string> = {}) => {
        const body = new FormData();
        for (const [k, v] of Object.entries({ csrf, url: '', journey: '', ...fields })) body.set(k, v);
        body.set('journey_file', new Blob([file], { type: 'application/json' }), 'recording.json');
        return fetch(`${server.base}/analyze`, { method: 'POST', redirect: 'manual', body, headers: { cookie, origin: server.base } });
      };
      const recording = shopRecordings('http://127.0.0.1:9').checkout;
      const bad = JSON.stringify({ ...recording, steps: [...recording.steps.slice(0, 2), { type: 'close' }] });
      const api = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: { journey: bad } } } });
      const refused = await post(bad, { journey: 'older pasted text', journey_secrets: `SHOP_PASSWORD=${SHOP.password}` });
      const html = await refused.text();
      assert.equal(refused.status, api.status, html);
      assert.ok(html.includes(esc(api.body.errors[0].detail)), `the API's own detail: ${api.body.errors[0].detail}`);
      assert.ok(html.includes(`spellcheck="false" aria-describedby="f-journey-hint">${bad.replace(/"/g, '&quot;')}</textarea>`), 'the file\'s text is in "Recording"');
      assert.ok(!html.includes(SHOP.password) && !html.includes('SHOP_PASSWORD'), 'the secrets are not sent back');

      const before = (await call(server, 'GET', '/tests?filter[source]=on-demand', { key: server.key })).body.data.length;
      const started = await post(JSON.stringify(recording), { journey_secrets: `SHOP_PASSWORD=${SHOP.password}` });
      assert.equal(started.status, 303, await started.text());
      const id = /^\/tests\/([^/]+)$/.exec(started.headers.get('location') ?? '')?.[1];
      const test = await call(server, 'GET', `/tests/${id}`, { key: server.key });
      assert.equal(test.body?.data?.attributes?.url, 'http://127.0.0.1:9/app/login', 'a journey test of the recording\'s first navigation');
      assert.equal((await call(server, 'GET', '/tests?filter[source]=on-demand', { key: server.key })).body.data.length, before + 1);
      assert.ok(await failTest(server.app.store, id!, null, 'made to fail by the test'), 'out of the queue');
    });

    it("a failed journey's progress lists the steps that completed and shows its last screen, to its own account only", async () => {
      const recording = shopRecordings('http://127.0.0.1:9').checkout;
      const requested = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: {
        journey: recording, journey_secrets: { SHOP_PASSWORD: SHOP.password } } } } });
      assert.equal(requested.status, 202, requested.text);
      const id = requested.body.data.id as string;
      const jpeg = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#c0ffee' } }).jpeg().toBuffer();
      await storeFailure(server.app.store, server.app.artifacts, id, { screenshot: jpeg, completed: [
        { index: 1, steps: [1], name: 'Shop checkout: navigate http://127.0.0.1:9/app/login', mode: 'navigation', url: 'http://127.0.0.1:9/app/login', duration: 368 },
        { index: 2, steps: [2, 3, 4], name: 'Shop checkout: click "aria/Email"', mode: 'timespan', duration: 1232 },
      ] });
      assert.ok(await failTest(server.app.store, id, null, 'journey step 5 (click "aria/Sign in"): no element matched in 5 s'));
      const screen = await get(`/tests/${id}`);
      assert.equal(screen.status, 200);
      assert.match(screen.html, /Journey <b>“Shop checkout”<\/b>/);
      assert.match(screen.html, /journey step 5 \(click &quot;aria\/Sign in&quot;\): no element matched in 5 s/);
      const steps = [...screen.html.matchAll(/<li><b>([^<]+)<\/b><span class="failed-step-facts">([^<]+)<\/span>/g)].map((m) => [m[1], m[2]]);
      assert.deepEqual(steps, [['navigate http://127.0.0.1:9/app/login', 'Navigation, recording step 1, 368 ms'],
        ['click &quot;aria/Email&quot;', 'Timespan, recording steps 2–4, 1.23 s']]);
      assert.ok(screen.html.includes(`<img src="/tests/${id}/failure.jpg" alt="the page on screen when the journey failed">`));
      const own = await fetch(`${server.base}/tests/${id}/failure.jpg`, { headers: { cookie } });
      assert.equal(own.status, 200);
      assert.equal(own.headers.get('content-type'), 'image/jpeg');
      assert.deepEqual(Buffer.from(await own.arrayBuffer()), jpeg);
      const otherCookie = (await form('/sign-in', { api_key: await server.account({ plan: 'basic' }) })).setCookie!.split(';')[0];
      assert.equal((await get(`/tests/${id}/failure.jpg`, otherCookie)).status, 404, 'another account: 404');
      assert.equal((await get(`/tests/${id}/failure.jpg`, '')).status, 303, 'signed out: sign in first');
    });

    it("a page's failed tests of the last 24 hours are listed on its screen with their errors (a failure makes no report)", async () => {
      const { pageId } = await seedPage(server.app.store, await accountIdOf(server.app.store, server.key));
      const retest = await call(server, 'POST', `/pages/${pageId}/retest`, { key: server.key });
      assert.equal(retest.status, 202, retest.text);
      const id = retest.body.data.id as string;
      const message = 'journey step 8 (click "aria/Checkout"): no element matched in 5 s';
      assert.ok(await failTest(server.app.store, id, null, message));
      const screen = await get(`/pages/${pageId}`);
      assert.equal(screen.status, 200);
      assert.match(screen.html, /<h2 id="pv-failed">Failed tests<\/h2>/);
      assert.ok(screen.html.includes(`<a href="/tests/${id}">`), 'links the test\'s progress screen');
      assert.ok(screen.html.includes('journey step 8 (click &quot;aria/Checkout&quot;): no element matched in 5 s'));
    });

    it('sign-out ends the session: the same cookie no longer opens a screen', async () => {
      const out = await form('/sign-out', {}, { cookie });
      assert.equal(out.status, 303);
      assert.match(out.setCookie ?? '', /webgauge_session=;.*Max-Age=0/);
      const after = await get('/account');
      assert.equal(after.status, 303);
      assert.equal(after.location, '/?next=%2Faccount');
    });
  });
}
