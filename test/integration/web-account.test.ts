// lane: shared
/**
 * The web app's Account webhooks, Analyze's recent tests and the report's runs line over HTTP (no browser; the
 * browser suite adds and deletes a webhook as a person would): adding through core with the API's messages, the
 * secret shown once, "Send test event" to a real receiver on 127.0.0.1 (signed, recorded, its status on the
 * screen), the newest deliveries, delete, the Viewer role read-only, other accounts' webhooks as 404; the states of
 * the account's last 10 tests; "median of N runs" only when N > 1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticate } from '../../src/core/accounts/accounts.js';
import { newId } from '../../src/core/ids.js';
import { insertDelivery } from '../../src/store/webhooks.js';
import { insertTest, type TestRow } from '../../src/store/tests.js';
import { failTest, renewLease } from '../../src/core/tests/tests.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';
import { call, engines, startServer, type TestServer } from '../helpers/server.js';
import { webSession } from '../helpers/web-session.js';
import { signedWith, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/** The HTML of a text, as the screens escape it. */
const html = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const MINUTE = 60_000;

for (const engine of engines()) describe(`web app: Account webhooks, recent tests, runs (${engine})`, () => {
  let server: TestServer;
  let receiver: Receiver;
  let ownerCookie: string;
  let viewerCookie: string;
  let otherCookie: string;
  let otherKey: string;
  /** The webhook added in the first test, and its secret. */
  let hookId = '';
  let secret = '';

  const { signIn, get, post } = webSession({ get base() { return server.base; } });
  const apiHooks = async (key = server.key) => (await call(server, 'GET', '/webhooks', { key })).body.data as { id: string; attributes: Record<string, unknown> }[];

  before(async () => {
    receiver = await startReceiver((path) => (path === '/fail' ? 500 : 200));
    // The test server allows private targets (WEBGAUGE_ALLOW_PRIVATE_TARGETS=1), so the receiver on 127.0.0.1 is reachable.
    server = await startServer({ engine, agentSlots: 0 });
    const ownerEmail = (await authenticate(server.app.store.db, server.config.plans, server.key))!.email;
    const viewer = await server.account({ plan: 'pro', role: 'viewer', teamOf: ownerEmail });
    otherKey = await server.account({ plan: 'basic' });
    ownerCookie = await signIn(server.key);
    viewerCookie = await signIn(viewer);
    otherCookie = await signIn(otherKey);
  });

  after(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('Account has a "Webhooks" part: none yet, and the "Add webhook" form with "URL" and the events', async () => {
    const { status, html: page } = await get(ownerCookie, '/account');
    assert.equal(status, 200);
    assert.match(page, /<h2 id="acc-webhooks">Webhooks<\/h2>/);
    assert.match(page, /No webhooks yet/);
    assert.match(page, /<label for="wh-url">URL<\/label><input id="wh-url" name="url" type="text"[^>]* aria-describedby="wh-url-hint"/);
    for (const e of ['test.completed', 'test.error', 'alert.triggered', 'alert.resolved', 'scan.completed', 'scan.alert', 'field.alert']) {
      assert.match(page, new RegExp(`<input type="checkbox" id="[^"]+" name="events" value="${e}" aria-describedby="[^"]+"> ${e}</label>`));
    }
    assert.match(page, />Add webhook<\/button>/);
  });

  it('adds a webhook through core: its secret is shown once, and never again', async () => {
    const added = await post(ownerCookie, '/account/webhooks', [['url', `${receiver.base}/hook`], ['events', 'test.completed'], ['events', 'alert.triggered']]);
    assert.equal(added.status, 200);
    assert.match(added.html, /<h1>Webhook added<\/h1>/);
    secret = /<code class="key-once">(whsec_[\w-]+)<\/code>/.exec(added.html)?.[1] ?? '';
    assert.ok(secret, 'the secret is shown');
    hookId = /href="\/account\/webhooks\/([^"]+)">Open the webhook/.exec(added.html)?.[1] ?? '';
    assert.ok(hookId);
    const api = await apiHooks();
    assert.deepEqual(api.map((w) => [w.id, w.attributes.url, w.attributes.events]), [[hookId, `${receiver.base}/hook`, ['test.completed', 'alert.triggered']]]);

    const account = (await get(ownerCookie, '/account')).html;
    assert.ok(!account.includes(secret), 'Account does not show the secret');
    assert.match(account, new RegExp(`<a class="wh-url" href="/account/webhooks/${hookId}">${receiver.base}/hook</a>`));
    assert.match(account, /Events: <code>test\.completed<\/code>, <code>alert\.triggered<\/code>/);
    assert.match(account, /Last delivery: <span class="muted">No deliveries yet<\/span>/);
    const view = await get(ownerCookie, `/account/webhooks/${hookId}`);
    assert.equal(view.status, 200);
    assert.ok(!view.html.includes(secret), "nor the webhook's screen");
    assert.match(view.html, /No deliveries yet/);
  });

  it("refuses what the API refuses, with the API's message, the form as it was, and nothing made", async () => {
    for (const [fields, needle] of [
      [[['url', 'ftp://example.com/hook'], ['events', 'test.error']], 'url must start with http:// or https://'],
      [[['url', 'not a url'], ['events', 'test.error']], 'is not an absolute URL'],
      [[['url', ''], ['events', 'test.error']], 'url is required'],
      [[['url', 'https://user:pw@example.com/'], ['events', 'test.error']], 'must not contain a user name or password'],
      [[['url', 'https://example.com/no-events']], 'events is required'],
      [[['url', 'https://example.com/bad-event'], ['events', 'test.done']], 'is not an event'],
    ] as [[string, string][], string][]) {
      const res = await post(ownerCookie, '/account/webhooks', fields);
      assert.equal(res.status, 400, needle);
      const url = fields[0]![1];
      const events = fields.slice(1).map(([, e]) => e);
      const api = await call(server, 'POST', '/webhooks', { key: server.key, body: { data: { type: 'webhook', attributes: { url, events } } } });
      assert.equal(api.status, 400);
      const detail = api.body.errors[0].detail as string;
      assert.ok(detail.includes(needle), detail);
      assert.ok(res.html.includes(` role="alert">${html(detail)}</div>`), `the screen says the API's "${detail}"`);
      assert.ok(res.html.includes(`value="${html(url)}"`), 'the URL is kept');
      if (events.includes('test.error')) assert.match(res.html, /value="test\.error" aria-describedby="[^"]+" checked>/);
    }
    assert.equal((await apiHooks()).length, 1, 'no webhook was made');
  });

  it('"Send test event" POSTs a signed webhook.test to the receiver now, records it, and shows the status', async () => {
    const sent = await post(ownerCookie, `/account/webhooks/${hookId}/test`);
    assert.equal(sent.status, 303);
    const tested = new URL(sent.location!, server.base);
    assert.equal(tested.pathname, `/account/webhooks/${hookId}`);
    assert.equal(receiver.hits.length, 1, 'the receiver got one POST, before the answer');
    const hit = receiver.hits[0]!;
    assert.equal(hit.path, '/hook');
    assert.equal(hit.event, 'webhook.test');
    assert.equal(hit.id, tested.searchParams.get('tested'));
    assert.ok(signedWith(secret, hit), `signed with the secret shown at creation: ${hit.signature}`);
    const body = JSON.parse(hit.body);
    assert.equal(body.event, 'webhook.test');
    assert.equal(body.data.webhook, hookId);
    assert.equal(typeof body.created, 'number');

    const screen = (await get(ownerCookie, sent.location!)).html;
    assert.match(screen, /<div class="ok" role="status">Test event delivered: HTTP 200 in \d+ ms\.<\/div>/);
    assert.match(screen, /<tr><td><code>webhook\.test<\/code><span class="wh-when">.*?<\/span><\/td><td class="wh-result"><b>Delivered<\/b>: HTTP 200 in \d+ ms<\/td><td class="wh-attempts">1<span class="wh-when">no retry<\/span>/);
    const deliveries = await call(server, 'GET', `/webhooks/${hookId}/deliveries`, { key: server.key });
    assert.deepEqual(deliveries.body.data.map((d: { id: string; attributes: { event: string; state: string; attempts: { response_code: number }[] } }) =>
      [d.id, d.attributes.event, d.attributes.state, d.attributes.attempts.map((a) => a.response_code)]), [[hit.id, 'webhook.test', 'delivered', [200]]]);
    assert.match((await get(ownerCookie, '/account')).html, /Last delivery: <time[^>]*>[^<]+<\/time> UTC · <code>webhook\.test<\/code> · Delivered: HTTP 200 in \d+ ms/);

    // A receiver that answers 500: the screen says so.
    const failing = await post(ownerCookie, '/account/webhooks', [['url', `${receiver.base}/fail`], ['events', 'test.error']]);
    const failingId = /href="\/account\/webhooks\/([^"]+)">Open the webhook/.exec(failing.html)?.[1] ?? '';
    const refused = await post(ownerCookie, `/account/webhooks/${failingId}/test`);
    assert.equal(refused.status, 303);
    assert.match((await get(ownerCookie, refused.location!)).html, /<div class="error" role="alert">Test event failed: HTTP 500 in \d+ ms\.<\/div>/);
    assert.equal((await post(ownerCookie, `/account/webhooks/${failingId}/delete`)).status, 303);
  });

  it('lists the newest 20 deliveries: event, state, last answer, attempts, next retry', async () => {
    const accountId = await accountIdOf(server.app.store, server.key);
    const now = Date.now();
    for (let i = 0; i < 22; i++) {
      // Pending, next attempt in an hour (the dispatcher leaves them alone): one failed attempt each.
      await insertDelivery(server.app.store.db, {
        id: newId(), account_id: accountId, channel: 'webhook', webhook_id: hookId, event: 'test.completed', state: 'pending',
        created: now - (i + 1) * MINUTE, next_attempt: now + 3_600_000, body: '{}',
        attempts: JSON.stringify([{ at: Math.floor(now / 1000), ok: false, duration_ms: 5, response_code: 502, error: 'HTTP 502' }]),
      });
    }
    const screen = (await get(ownerCookie, `/account/webhooks/${hookId}`)).html;
    const rows = [...screen.matchAll(/<tr><td><code>([\w.]+)<\/code><span class="wh-when"><time[^>]*>[^<]+<\/time> UTC<\/span><\/td><td class="wh-result"><b>(\w+)<\/b>: ([^<]+)<\/td><td class="wh-attempts">(\d+)<span class="wh-when">(.*?)<\/span><\/td><\/tr>/g)];
    assert.equal(rows.length, 20, 'the newest 20');
    assert.deepEqual(rows[0]!.slice(1, 3), ['webhook.test', 'Delivered'], 'the test event is the newest');
    assert.equal(rows[0]![5], 'no retry', 'no retry for a delivered one');
    assert.deepEqual(rows[1]!.slice(1, 5), ['test.completed', 'Retrying', 'HTTP 502 in 5 ms', '1']);
    assert.match(rows[1]![5]!, /^next retry <time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d<\/time> UTC$/, 'with its next retry');
  });

  it('shows the Viewer role the webhooks without forms, and refuses its posts with the Viewer message', async () => {
    const account = (await get(viewerCookie, '/account')).html;
    assert.match(account, new RegExp(`href="/account/webhooks/${hookId}"`));
    assert.doesNotMatch(account, /Add webhook|name="url"/);
    assert.match(account, /The Viewer role can see webhooks but not change them/);
    const view = await get(viewerCookie, `/account/webhooks/${hookId}`);
    assert.equal(view.status, 200);
    assert.doesNotMatch(view.html, />Send test event<\/button>|>Delete webhook<\/button>/);
    const hits = receiver.hits.length;
    for (const [path, what] of [['/account/webhooks', 'create webhooks'], [`/account/webhooks/${hookId}/test`, 'send test events'], [`/account/webhooks/${hookId}/delete`, 'delete webhooks']]) {
      const res = await post(viewerCookie, path!, [['url', `${receiver.base}/viewer`], ['events', 'test.error']]);
      assert.equal(res.status, 403, path);
      assert.ok(res.html.includes(`The Viewer role cannot ${what}; ask the team owner for a key with the Owner role.`), path);
    }
    assert.equal(receiver.hits.length, hits, 'nothing was sent');
    assert.deepEqual((await apiHooks()).map((w) => w.id), [hookId], 'nothing was made or deleted');
  });

  it("answers 404 for another account's webhook and an unknown one, on the screen and its forms", async () => {
    assert.doesNotMatch((await get(otherCookie, '/account')).html, new RegExp(hookId));
    for (const id of [hookId, 'nope', 'bad%00id']) {
      const view = await get(otherCookie, `/account/webhooks/${id}`);
      assert.equal(view.status, 404, id);
      assert.match(view.html, /No webhook with ID/);
      for (const action of ['test', 'delete']) assert.equal((await post(otherCookie, `/account/webhooks/${id}/${action}`)).status, 404, `${action} ${id}`);
    }
    assert.equal((await apiHooks()).length, 1);
  });

  it('deletes a webhook with its deliveries', async () => {
    const page = (await get(ownerCookie, `/account/webhooks/${hookId}`)).html;
    assert.match(page, new RegExp(`<form method="post" action="/account/webhooks/${hookId}/delete" data-confirm="Delete the webhook to [^"]+">`));
    const del = await post(ownerCookie, `/account/webhooks/${hookId}/delete`);
    assert.equal(del.status, 303);
    assert.equal(del.location, '/account?webhook=deleted#acc-webhooks');
    const account = (await get(ownerCookie, del.location)).html;
    assert.match(account, /role="status">Deleted the webhook and its deliveries/);
    assert.match(account, /No webhooks yet/);
    assert.equal((await get(ownerCookie, `/account/webhooks/${hookId}`)).status, 404);
    assert.equal((await call(server, 'GET', `/webhooks/${hookId}`, { key: server.key })).status, 404);
  });

  it("Analyze lists the account's last 10 tests of every source: queued with its place, started, completed with the grade, error with its message", async () => {
    const store = server.app.store;
    const key = await server.account({ plan: 'pro' });
    const accountId = await accountIdOf(store, key);
    const cookie = await signIn(key);
    assert.match((await get(cookie, '/')).html, /<h2 id="recent-tests">Recent tests<\/h2><div class="card"><p class="muted">No tests in the last 24 hours/);

    const now = Date.now();
    const test = async (account: string, url: string, minutesAgo: number, o: Partial<TestRow> = {}) => {
      const created = now - minutesAgo * MINUTE;
      const row: TestRow = {
        id: newId(), account_id: account, url, options: '{}', fingerprint: 'x', source: 'api', state: 'queued', error: null, browser: '3',
        location: '1', created, queued_at: created, started: null, finished: null, lease_owner: null, lease_expires: null, attempts: 0,
        credits_tenths: 0, report_id: null, page_id: null, events_pending: null, scan_id: null, scan_position: null, ...o,
      };
      await insertTest(store.db, row);
      return row;
    };
    // Ten older completed tests would push all but the newest out; two of them stay out of the ten.
    for (let i = 0; i < 7; i++) await test(accountId, `http://127.0.0.1:9/old-${i}`, 30 - i, { state: 'error', error: `old ${i}`, started: now - (30 - i) * MINUTE });
    // Another account's test, queued first: it is ahead of this account's in the shared queue, yet not listed.
    const foreign = await test(await accountIdOf(store, otherKey), 'http://127.0.0.1:9/foreign', 9);
    const graded = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/done' });
    await store.db.updateTable('reports').set({ service_grade: 'B', service_score: 85 }).where('id', '=', graded.reportId).execute();
    const done = await test(accountId, 'http://127.0.0.1:9/done', 8, { state: 'completed', started: now - 8 * MINUTE, finished: now - 7 * MINUTE, report_id: graded.reportId });
    const failed = await test(accountId, 'http://127.0.0.1:9/failed', 6, { state: 'error', error: 'The page could not be loaded: net::ERR_CONNECTION_REFUSED', source: 'monitored' });
    const started = await test(accountId, 'http://127.0.0.1:9/started', 5, { state: 'started', started: now - 4 * MINUTE, lease_owner: 'elsewhere', lease_expires: now + 3_600_000 });
    const first = await test(accountId, 'http://127.0.0.1:9/queued-1', 3, { source: 'on-demand' });
    const second = await test(accountId, 'http://127.0.0.1:9/queued-2', 2);

    const analyze = (await get(cookie, '/')).html;
    const section = analyze.slice(analyze.indexOf('<h2 id="recent-tests">'));
    const rows = [...section.matchAll(/<tr><td class="url">(.*?) <span class="recent-when">(.*?)<\/span><\/td><td class="recent-state">(.*?)<\/td><\/tr>/g)]
      .map((m) => [m[1], m[3], m[2]]);
    assert.equal(rows.length, 10, 'at most 10');
    // A URL link's text may wrap after each / (<wbr>); its name is the URL (kit.ts urlLink).
    const link = (href: string, url: string) => `<a href="${href}" aria-label="${url}">${url.split(/(?<=[/?&=])/).join('<wbr>')}</a>`;
    assert.deepEqual(rows.slice(0, 5).map((r) => r[0]), [
      link(`/tests/${second.id}`, second.url), link(`/tests/${first.id}`, first.url), link(`/tests/${started.id}`, started.url),
      link(`/tests/${failed.id}`, failed.url), link(`/reports/${graded.reportId}`, done.url),
    ], 'newest first, each linking to its progress or its report');
    assert.deepEqual(rows.slice(0, 4).map((r) => r[1]), [
      'Queued: 2 tests ahead', 'Queued: 1 test ahead', 'Started: the agent is setting out', 'Error: The page could not be loaded: net::ERR_CONNECTION_REFUSED',
    ]);
    assert.match(rows[4]![1]!, /^Completed, grade <span class="gradebox"[^>]*>B<\/span><span class="muted"> 85%<\/span>$/);
    assert.deepEqual([rows[0]![2], rows[3]![2]], ['Not started yet', 'Never started']);
    assert.match(rows[2]![2]!, /^Started <time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d<\/time> UTC$/);
    assert.deepEqual(rows.slice(5).map((r) => /old-(\d)/.exec(r[0]!)?.[1]), ['6', '5', '4', '3', '2'], 'the oldest two are not listed');
    assert.ok(!section.includes(foreign.url), "another account's test is not listed");
  });

  it('a test\'s progress: its phase among the steps, the time elapsed, the estimate from the location\'s tests; failed, its error and Retest', async () => {
    const store = server.app.store;
    const key = await server.account({ plan: 'pro' });
    const cookie = await signIn(key);
    const queue = async (path: string) => {
      const res = await call(server, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: `http://127.0.0.1:9/${path}`, runs: 2 } } } });
      assert.equal(res.status, 202, res.text);
      return res.body.data.id as string;
    };
    const running = await queue('running');
    const failing = await queue('failing');
    const stepsOf = (html: string) => [...html.matchAll(/<li data-step="(\w+)"( class="(\w+)")?/g)].map((m) => `${m[1]}${m[3] ? `:${m[3]}` : ''}`);
    // No agent here: tests of this location completed 20, 30 and 40 s after they started; with the one test of an
    // earlier step (60 s), the median is still 30 s.
    const now = Date.now();
    for (const [i, d] of [40_000, 20_000, 30_000, 30_000, 30_000].entries()) {
      const id = await queue(`done-${i}`);
      await store.db.updateTable('tests').set({ state: 'completed', started: now - 90_000 - d, finished: now - 90_000 + i }).where('id', '=', id).execute();
    }
    const queued = (await get(cookie, `/tests/${running}`)).html;
    assert.match(queued, /data-state>Queued: (next in line|\d+ tests? ahead)</);
    assert.deepEqual(stepsOf(queued), ['queued:current', 'launching', 'loading', 'auditing', 'storing']);
    assert.match(queued, /Elapsed <b data-elapsed="\d+">\d+ s<\/b>/);
    assert.match(queued, /A test at Local takes about 30 s once an agent has it \(the median of its last [56] completed tests\)\./);

    await store.db.updateTable('tests').set({ state: 'started', started: now, lease_owner: 'agent-x', lease_expires: now + 3_600_000 }).where('id', '=', running).execute();
    assert.equal(await renewLease(store.db, running, 'agent-x', 3_600_000, { phase: 'loading', run: 2 }), true);
    const loading = (await get(cookie, `/tests/${running}`)).html;
    assert.match(loading, /data-state>Started: load 2 of 2, loading the page</);
    assert.deepEqual(stepsOf(loading), ['queued:done', 'launching:done', 'loading:current', 'auditing', 'storing']);
    assert.match(loading, /the report opens when it completes/);

    assert.equal(await failTest(store, failing, null, 'The page could not be loaded: net::ERR_CONNECTION_REFUSED'), true);
    const failed = await get(cookie, `/tests/${failing}`);
    assert.equal(failed.status, 200);
    assert.match(failed.html, /data-state>The test failed</);
    assert.match(failed.html, /<p class="error" data-detail>The page could not be loaded: net::ERR_CONNECTION_REFUSED<\/p>/);
    assert.doesNotMatch(failed.html, /the report opens when it completes|data-steps|data-events/, 'a failed test is not followed');
    assert.match(failed.html, new RegExp(`<form method="post" action="/tests/${failing}/retest">.*?>Retest</button>`));
    const retest = await post(cookie, `/tests/${failing}/retest`);
    assert.equal(retest.status, 303, retest.html);
    const again = /^\/tests\/([^/]+)$/.exec(retest.location ?? '')?.[1];
    assert.ok(again && again !== failing, `Retest starts a new test and opens its progress: ${retest.location}`);
    const test = (await call(server, 'GET', `/tests/${again}`, { key })).body.data.attributes;
    assert.deepEqual([test.url, test.state, test.source], ['http://127.0.0.1:9/failing', 'queued', 'on-demand']);
    assert.equal((await post(otherCookie, `/tests/${failing}/retest`)).status, 404, 'another account cannot retest it');
  });

  it('a report says "median of N runs" only when N > 1, in the app and on the public page, and loads it did not ask for are not runs', async () => {
    const store = server.app.store;
    const accountId = await accountIdOf(store, server.key);
    const runsMeta = (count: number, discarded: number) => JSON.stringify({
      count, median_run: 2, discarded, spread: { performance_score: { min: 80, median: 85, max: 90, stdev: 4.1 } },
    });
    const one = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/one-run' });
    const guarded = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/one-kept' });
    await store.db.updateTable('reports').set({ runs: runsMeta(1, 1) }).where('id', '=', guarded.reportId).execute();
    const three = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/three-runs', runs: 3 });
    await store.db.updateTable('reports').set({ runs: runsMeta(3, 0) }).where('id', '=', three.reportId).execute();
    // Runs left empty (1 asked) on a busy host: the run guard discarded the load and the 2 extra it allows, and the report is
    // the median of all 3 (agent/run-series.ts). It once said "median of 3 runs", runs nobody asked for.
    const busy = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/busy-host' });
    await store.db.updateTable('reports').set({ runs: runsMeta(3, 3) }).where('id', '=', busy.reportId).execute();
    for (const cookie of [ownerCookie, '']) {
      for (const r of [one, guarded]) {
        const page = await get(cookie, `/reports/${r.reportId}`);
        assert.equal(page.status, 200, page.html.slice(0, 300));
        assert.doesNotMatch(page.html, /median of|<h2>Runs/i, `${r.options.url} ${cookie ? 'in the app' : 'public'}`);
      }
      const page = await get(cookie, `/reports/${three.reportId}`);
      assert.equal(page.status, 200);
      assert.match(page.html, /<b>median of 3 runs<\/b>/);
      assert.match(page.html, /<h2>Runs <small>median of 3 runs: every figure above is run 2's<\/small><\/h2>/);
      const guardedAll = await get(cookie, `/reports/${busy.reportId}`);
      assert.doesNotMatch(guardedAll.html, /median of 3 runs/, 'one run was asked: no "median of 3 runs"');
      assert.match(guardedAll.html, /<b>median of 3 loads, all on a busy host \(1 run asked\)<\/b>/);
      assert.match(guardedAll.html, /Every load was discarded by the run guard/);
    }
  });
});
