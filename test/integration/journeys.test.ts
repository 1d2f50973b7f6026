// lane: alone
/**
 * Journeys through the API with a real Chromium, on both engines, on a server whose target policy allows the
 * fixture site (127.0.0.1) and nothing else of the machine. The fixture's shop app (test/fixtures/site/shop.ts) is
 * signed in to with a secret password, a button that blocks the main thread is clicked, the checkout opened: each
 * measured step's figures against the app's truths, the secret in none of its forms anywhere the service stores or
 * serves, every refusal of a recording, a broken selector (through `webgauge test --journey`, exit 2), a click that
 * leads to an internal address (which receives no connection), and the page a journey makes.
 * The journeys are run for real on the first engine; the second engine's agent is handed the same results (the
 * completed journey, then the monitored run that broke) in the same order (test/helpers/replayed-loads.ts): what the
 * store keeps of them, and that the secret reaches none of it, is checked on each engine against the same real runs.
 */
import assert from 'node:assert/strict';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { SHOP, shopRecordings } from '../fixtures/site/shop.js';
import { call, engines, errorOf, startServer, waitForTest, type Res, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { webgauge } from '../helpers/gate-process.js';
import { stubResult } from '../helpers/stub-result.js';
import { replayedLoads } from '../helpers/replayed-loads.js';
import type { RunSpec } from '../../src/runner/types.js';
import { base64Forms } from '../../src/core/options/secrets.js';
import { readFailure } from '../../src/core/tests/journey-failure.js';
import { failedTestsOfPage } from '../../src/core/tests/tests.js';
import { clock } from '../../src/core/clock.js';
import { accountIdOf } from '../helpers/seed.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const SECRETS = { SHOP_PASSWORD: SHOP.password };

/** The password in every form a page or a careless app may give it: plain, URL- and form-encoded, base64 anywhere. */
const SECRET_FORMS = [
  SHOP.password, encodeURIComponent(SHOP.password), new URLSearchParams({ p: SHOP.password }).toString().slice(2),
  Buffer.from(SHOP.password).toString('base64'), ...base64Forms(SHOP.password),
];

/** The forms of the secret found in `text` (none, it is hoped), with where. */
function secretIn(where: string, text: string): string[] {
  return SECRET_FORMS.filter((f) => text.includes(f)).map((f) => `${where}: ${f}`);
}

/** Every file under a folder, its path and bytes as latin1 text (the SQLite file and artifacts alike). */
async function filesUnder(dir: string): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push([path, (await readFile(path)).toString('latin1')]);
  }
  return out;
}

/** The first truthy value of `probe`, polled until `ms` passed. */
async function until<T>(probe: () => T | undefined, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A listener on 127.0.0.3 (an internal service the policy refuses): counts the connections it receives. */
async function internalService(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections++;
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\ninternal');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.3', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

/** One fixture site (and internal service) for both engines: the second engine's replayed runs are of its URLs. */
let site: FixtureSite;
let internal: Awaited<ReturnType<typeof internalService>>;
let rec: ReturnType<typeof shopRecordings>;
/** A run is known by its URL and its recording's title (several journeys start at the sign-in page). */
const loads = replayedLoads((spec) => `${spec.options.url} ${spec.conditions.journey?.recording.title ?? ''}`);
before(async () => {
  internal = await internalService();
  site = await startFixtureSite({ internalPort: internal.port });
  rec = shopRecordings(site.origin);
});
after(async () => {
  await site?.close();
  internal?.server.close();
  process.stderr.write(`[journeys] runs: ${loads.counts.real} real, ${loads.counts.replayed} replayed\n`);
});

for (const engine of engines()) describe(`journeys through the API (${engine})`, () => {
  let server: TestServer;
  let receiver: Receiver;
  let dir: string;
  const stubbed = new Set<string>();
  const load = loads.runFor(engine);
  const run = (spec: RunSpec) => (stubbed.has(spec.testId) ? Promise.resolve(stubResult(spec.options.url)) : load(spec));
  const start = (attributes: Record<string, unknown>, key = server.key) =>
    call(server, 'POST', '/tests', { key, body: { data: { type: 'test', attributes } } });

  before(async () => {
    receiver = await startReceiver();
    server = await startServer({ engine, agentSlots: 1, allowPrivateTargets: false, env: { WEBGAUGE_ALLOW_TARGETS: '127.0.0.1' },
      overrides: { run, launchAhead: loads.loadsOn(engine) } });
    const hook = await call(server, 'POST', '/webhooks', { key: server.key,
      body: { data: { type: 'webhook', attributes: { url: `${receiver.base}/hook`, events: ['test.completed', 'test.error'] } } } });
    assert.equal(hook.status, 201, hook.text);
    dir = await mkdtemp(join(tmpdir(), 'webgauge-journeys-'));
  });
  after(async () => {
    await server?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('a journey that signs in, adds to the cart and opens the checkout', () => {
    let started: Res;
    let report: Res;
    let id: string;
    const resource = (name: string) => call(server, 'GET', `/reports/${id}/resources/${name}`, { key: server.key });

    before(async () => {
      started = await start({ journey: JSON.stringify(rec.checkout), journey_secrets: SECRETS, video: 1 });
      assert.equal(started.status, 202, started.text);
      id = started.body.data.id;
      const done = await waitForTest(server, server.key, id, 240_000);
      assert.equal(done.status, 303, done.text);
      report = await call(server, 'GET', `/reports/${id}`, { key: server.key });
      assert.equal(report.status, 200, report.text);
    });

    test('is charged a test\'s credits for each of its 5 measured steps (and the video once); url is its first navigation', () => {
      assert.equal(started.body.meta.credits_used, 5.9);
      assert.equal(started.body.data.attributes.url, site.url('/app/login'));
    });

    test('lists every step with Lighthouse\'s mode, its URL and figures; the report\'s figures are the measured step\'s', () => {
      const a = report.body.data.attributes;
      const j = a.journey;
      assert.equal(j.title, 'Shop checkout');
      assert.equal(j.measured_step, 8, 'the last navigation by default');
      assert.deepEqual(j.steps.map((s: { index: number; mode: string }) => `${s.index} ${s.mode}`),
        ['1 navigation', '2 timespan', '5 navigation', '6 timespan', '8 navigation']);
      assert.deepEqual(j.steps.map((s: { measured: boolean }) => s.measured), [false, false, false, false, true]);
      assert.equal(j.steps[2].url.split('?')[0], site.url('/app/dashboard'), 'the sign-in led to the dashboard: the session carried');
      assert.equal(j.steps[4].url, site.url('/app/checkout'));
      const measured = j.steps[4].figures;
      for (const k of ['time_to_first_byte', 'first_contentful_paint', 'largest_contentful_paint', 'page_bytes', 'performance_score']) {
        assert.equal(a[k], measured[k], k);
      }
      assert.match(a.service_grade, /^[A-F]$/);
      // Each step began after the one before ended, on the film's time axis.
      for (let i = 1; i < j.steps.length; i++) assert.ok(j.steps[i].start >= j.steps[i - 1].start + j.steps[i - 1].duration, JSON.stringify(j.steps));
    });

    test('the measured step\'s TTFB is within its server time + 15 %', () => {
      const a = report.body.data.attributes;
      assert.ok(a.time_to_first_byte >= SHOP.checkoutDelayMs && a.time_to_first_byte <= SHOP.checkoutDelayMs * 1.15,
        `TTFB ${a.time_to_first_byte} ms against the server's ${SHOP.checkoutDelayMs} ms`);
      // The server's clock and the browser's differ by a millisecond or two.
      assert.ok(a.backend_duration >= SHOP.checkoutDelayMs - 5, `backend ${a.backend_duration}`);
    });

    test('the timespan of the click whose handler blocks the main thread has an INP of at least that, and its request', () => {
      const add = report.body.data.attributes.journey.steps[3].figures;
      assert.ok(add.interaction_to_next_paint >= SHOP.addToCartBlockMs, `INP ${add.interaction_to_next_paint} ms`);
      assert.ok(add.total_blocking_time >= SHOP.addToCartBlockMs - 50 - 10, `TBT ${add.total_blocking_time} ms`);
      assert.equal(add.page_requests, 1, 'POST /app/cart');
      assert.ok(add.page_bytes > 0 && add.duration >= SHOP.addToCartBlockMs);
    });

    test('flow.json is Lighthouse\'s FlowResult of the steps; flow.html its flow report under lighthouse.html\'s CSP', async () => {
      const flow = await resource('flow.json');
      assert.equal(flow.status, 200);
      assert.equal(flow.body.name, 'Shop checkout');
      assert.deepEqual(flow.body.steps.map((s: { lhr: { gatherMode: string } }) => s.lhr.gatherMode),
        ['navigation', 'timespan', 'navigation', 'timespan', 'navigation']);
      assert.equal(flow.body.steps[3].name, 'Shop checkout: click "aria/Add to cart", waitForElement "#added"');
      const html = await fetch(`${server.api}/reports/${id}/resources/flow.html`,
        { headers: { authorization: `Basic ${Buffer.from(`${server.key}:`).toString('base64')}` } });
      assert.equal(html.status, 200);
      assert.match(html.headers.get('content-security-policy') ?? '', /^default-src 'none'; script-src 'unsafe-inline';.*sandbox allow-scripts/);
      assert.match(await html.text(), /__LIGHTHOUSE_FLOW_JSON__/);
      const lhr = await resource('lighthouse.json');
      assert.equal(lhr.body.gatherMode, 'navigation');
      assert.equal(lhr.body.finalDisplayedUrl, site.url('/app/checkout'), 'lighthouse.json is the measured step\'s');
      assert.ok(report.body.data.links.flow && report.body.data.links.flow_html);
    });

    test('net.har has a page per step; the film and the video span the journey with the steps marked', async () => {
      const har = (await resource('net.har')).body;
      assert.deepEqual(har.log.pages.map((p: { id: string }) => p.id), ['page_1', 'page_2', 'page_3', 'page_4', 'page_5']);
      const byPage = (p: string) => har.log.entries.filter((e: { pageref: string }) => e.pageref === p).map((e: { request: { method: string; url: string } }) =>
        `${e.request.method} ${new URL(e.request.url).pathname}`);
      assert.deepEqual(byPage('page_1'), ['GET /app/login']);
      assert.deepEqual(byPage('page_3'), ['POST /app/login', 'GET /app/dashboard']);
      assert.deepEqual(byPage('page_4'), ['POST /app/cart']);
      assert.deepEqual(byPage('page_5'), ['GET /app/checkout']);
      // The session of the journey: its cookies and Set-Cookie never leave analysis-options.
      for (const e of har.log.entries) {
        for (const h of [...e.request.headers, ...e.response.headers]) {
          if (/^(cookie|set-cookie|authorization)$/i.test(h.name)) assert.equal(h.value, '[removed]', `${h.name} of ${e.request.url}`);
        }
      }
      const summary = (await resource('resource-summary')).body;
      assert.equal(summary.total.requests, report.body.data.attributes.page_requests, 'the measured step\'s requests');
      const film = (await resource('filmstrip.json')).body;
      assert.deepEqual(film.steps.map((s: { index: number }) => s.index), [1, 2, 5, 6, 8]);
      assert.ok(film.frames.at(-1).timestamp >= film.steps[3].start, 'the film runs through the last steps');
      const video = await resource('video.mp4');
      assert.equal(video.status, 200);
    });

    test('the secret is in none of its forms anywhere the service stores or serves', async () => {
      const found: string[] = [];
      found.push(...secretIn('report', report.text));
      for (const name of ['net.har', 'lighthouse.json', 'lighthouse.html', 'flow.json', 'flow.html', 'filmstrip.json',
        'resource-summary', 'analysis-options']) {
        found.push(...secretIn(name, (await resource(name)).text));
      }
      const page = await fetch(report.body.data.links.report_url);
      found.push(...secretIn('report page', await page.text()));
      const test = await call(server, 'GET', `/tests/${id}`, { key: server.key });
      found.push(...secretIn('test', test.text));
      await until(() => receiver.hits.find((h) => h.event === 'test.completed' && h.body.includes(id)), 20_000);
      for (const hit of receiver.hits) found.push(...secretIn(`webhook ${hit.event}`, hit.body));
      for (const [path, text] of await filesUnder(server.config.dataDir)) found.push(...secretIn(path, text));
      const tables = engine === 'sqlite'
        ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(server.app.store.db)).rows
        : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(server.app.store.db)).rows;
      for (const { name } of tables) {
        const rows = (await sql`select * from ${sql.table(name)}`.execute(server.app.store.db)).rows;
        found.push(...secretIn(`table ${name}`, JSON.stringify(rows)));
      }
      assert.deepEqual(found, []);
      // What the owner gave stays in analysis-options, but never the secrets: write-only.
      const options = (await resource('analysis-options')).body;
      assert.equal(options.journey.steps[4].value, '{{secrets.SHOP_PASSWORD}}');
      assert.equal('journey_secrets' in options, false);
    });

    test('the journey is a page: its retest queues on that page, and it can be monitored like any page', async () => {
      const pageId = report.body.data.attributes.page;
      const retest = await call(server, 'POST', `/reports/${id}/retest`, { key: server.key });
      assert.equal(retest.status, 202, retest.text);
      stubbed.add(retest.body.data.id);
      const done = await waitForTest(server, server.key, retest.body.data.id);
      assert.equal(done.body.data.attributes.page, pageId);
      const monitored = await call(server, 'POST', `/pages/${pageId}/performance_monitor`, { key: server.key,
        body: { data: { type: 'performance_monitor', attributes: { frequency: 'daily' } } } });
      assert.equal(monitored.status, 200, monitored.text);
      assert.equal(monitored.body.data.attributes.monitored, 'daily');
    });

    test('a monitored run that breaks is a failed test of the page, and its test.error says which step broke', { timeout: 120_000 }, async () => {
      const pageId = report.body.data.attributes.page;
      await server.app.monitor.stop(); // ticked by hand, a day on
      SHOP.down = true;
      clock.advance(DAY + HOUR);
      try {
        assert.equal((await server.app.monitor.tick()).queued, 1);
      } finally {
        clock.reset();
      }
      const monitoredTest = await server.app.store.db.selectFrom('tests').select('id').where('page_id', '=', pageId)
        .where('source', '=', 'monitored').executeTakeFirstOrThrow();
      const done = await waitForTest(server, server.key, monitoredTest.id, 90_000);
      SHOP.down = false;
      const message = `journey step 1 (navigate ${site.url('/app/login')}): The page returned HTTP 500 Internal Server Error`;
      assert.equal(done.body.data.attributes.error, message);
      const failed = await failedTestsOfPage(server.app.store.db, (await accountIdOf(server.app.store, server.key)), pageId);
      assert.deepEqual(failed.map((t) => [t.id, t.error]), [[monitoredTest.id, message]]);
      const hook = await until(() => receiver.hits.find((h) => h.event === 'test.error' && h.body.includes(monitoredTest.id)), 20_000);
      assert.equal(JSON.parse(hook.body).data.attributes.error, message);
    });
  });

  test('each refusal of a recording is 400 E40004 naming the step; nothing is created, no credit is taken', async () => {
    const before = await call(server, 'GET', '/status', { key: server.key });
    const tests = await call(server, 'GET', '/tests?filter[source]=api,on-demand,monitored', { key: server.key });
    const step = (i: number, s: unknown) => {
      const steps = [...rec.checkout.steps] as unknown[];
      steps[i] = s;
      return { journey: { ...rec.checkout, steps }, journey_secrets: SECRETS };
    };
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ journey: 'not a recording' }, /^journey is not a Chrome DevTools Recorder recording: its text is not JSON/],
      [step(6, { type: 'customStep', name: 'x', parameters: {} }), /^journey\.steps\[6\]: customStep/],
      [step(2, { type: 'emulateNetworkConditions', download: 1, upload: 1, latency: 1 }), /^journey\.steps\[2\]: emulateNetworkConditions/],
      [step(6, { ...rec.checkout.steps[6], target: `${site.origin}/popup` }), /^journey\.steps\[6\]: the step acts on another tab/],
      [step(7, { type: 'close' }), /^journey\.steps\[7\]: close/],
      [step(7, rec.checkout.steps[0]), /^journey\.steps\[7\]: setViewport may only be the first step/],
      [step(1, { type: 'navigate', url: 'file:///etc/passwd' }), /^journey\.steps\[1\]: url must use http or https, not file/],
      [step(1, { type: 'navigate', url: `http://127.0.0.3:${internal.port}/` }), /^journey\.steps\[1\]: url host 127\.0\.0\.3 resolves to a loopback address/],
      [{ journey: { title: 't', steps: Array.from({ length: 51 }, () => rec.checkout.steps[1]) } }, /^journey has 51 steps/],
      [{ journey: { title: 'x'.repeat(300 * 1024), steps: [rec.checkout.steps[1]] } }, /^journey is 30\d KB/],
      [step(6, { ...rec.checkout.steps[6], timeout: 45_000 }), /^journey\.steps\[6\]: Timeout is not between 1 and 30000/],
      [{ journey: rec.checkout }, /^journey\.steps\[4\]\.value: \{\{secrets\.SHOP_PASSWORD\}\} names no secret/],
    ];
    for (const [attributes, detail] of refusals) {
      const res = await start(attributes);
      assert.equal(res.status, 400, res.text);
      const e = errorOf(res);
      assert.equal(e.code, 'E40004');
      assert.equal(e.title, 'Invalid test parameter');
      assert.match(e.detail ?? '', detail);
    }
    // 402 when the account has fewer credits than the journey's measured steps.
    const poor = await server.account({ plan: 'basic', credits: 3 });
    const short = await start({ journey: rec.checkout, journey_secrets: SECRETS }, poor);
    assert.equal(short.status, 402, short.text);
    assert.equal(errorOf(short).code, 'E40201');
    const afterStatus = await call(server, 'GET', '/status', { key: server.key });
    assert.equal(afterStatus.body.data.attributes.api_credits, before.body.data.attributes.api_credits);
    const testsAfter = await call(server, 'GET', '/tests?filter[source]=api,on-demand,monitored', { key: server.key });
    assert.equal(testsAfter.body.data.length, tests.body.data.length);
  });

  // The gate's journeys and the refused click, once (on SQLite): what they prove is the runner's and the gate's, and the
  // store's part of a failed journey (refund, progress, failed test) is the monitored run's above, on both engines.
  if (engine !== engines()[0]) return;

  test('a broken selector: `webgauge test --journey` exits 2 naming the step; the test is refunded and keeps its progress', { timeout: 180_000 }, async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, JSON.stringify(rec.broken));
    const credits = (await call(server, 'GET', '/status', { key: server.key })).body.data.attributes.api_credits;
    const ran = await webgauge(['--journey', file, '--secret', 'SHOP_PASSWORD=THE_PASSWORD', '--json'],
      { WEBGAUGE_SERVER: server.base, WEBGAUGE_KEY: server.key, THE_PASSWORD: SHOP.password });
    assert.equal(ran.code, 2, `${ran.err}\n${ran.out}`);
    const message = 'journey step 6 (click "aria/Remove from cart"): no element matched in 5 s';
    assert.ok(ran.err.includes(message), ran.err);
    assert.equal(JSON.parse(ran.out).exitCode, 2);
    const failed = (await call(server, 'GET', '/tests?filter[state]=error', { key: server.key })).body.data
      .find((t: { attributes: { error: string } }) => t.attributes.error === message);
    assert.ok(failed, 'the test ended in error with the step\'s message');
    assert.equal((await call(server, 'GET', '/status', { key: server.key })).body.data.attributes.api_credits, credits, 'refunded');
    const progress = await readFailure(server.app.artifacts, failed.id);
    assert.deepEqual(progress?.completed.map((s) => `${s.index} ${s.mode}`), ['1 navigation', '2 timespan', '5 navigation']);
    assert.equal(progress?.screenshot, true);
    // The test.error webhook (delivered by the follow-up job, soon after) says which step broke.
    const hook = await until(() => receiver.hits.find((h) => h.event === 'test.error' && h.body.includes(failed.id)), 20_000);
    assert.equal(JSON.parse(hook.body).data.attributes.error, message);
    assert.deepEqual(secretIn('the gate\'s output', ran.out + ran.err), []);
  });

  test('a click that leads to an internal address: the step fails naming it, and the address receives no connection', { timeout: 180_000 }, async () => {
    const res = await start({ journey: rec.internal, journey_secrets: SECRETS });
    assert.equal(res.status, 202, res.text);
    const done = await waitForTest(server, server.key, res.body.data.id, 120_000);
    assert.equal(done.body.data.attributes.state, 'error');
    assert.match(done.body.data.attributes.error,
      /^journey step 6 \(click "aria\/Internal tools"\): url host 127\.0\.0\.3 resolves to a loopback address \(127\.0\.0\.3\)/);
    assert.equal(internal.connections(), 0);
  });

  test('`webgauge test --journey` of a one-step journey against a budget it misses exits 1', { timeout: 120_000 }, async () => {
    const file = join(dir, 'single.json');
    await writeFile(file, JSON.stringify(rec.single('/app/login')));
    const budget = join(dir, 'budget.json');
    await writeFile(budget, JSON.stringify({ time_to_first_byte: { max: 1 } }));
    const ran = await webgauge(['--journey', file, '--budget', budget], { WEBGAUGE_SERVER: server.base, WEBGAUGE_KEY: server.key });
    assert.equal(ran.code, 1, `${ran.err}\n${ran.out}`);
    assert.match(ran.out, /Journey steps \(\* the measured step, whose figures are above\):\n\*  0 navigation One page: navigate /);
    assert.match(ran.out, /FAILED: 1 of 1 checks/);
  });
});
