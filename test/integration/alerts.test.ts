// lane: alone
/**
 * Alerts and webhooks (issue 12) on both engines. The API (conditions, events, webhooks, their errors and
 * isolation) on seeded pages; then six real runs of the fixture's /switchable page, made slower and faster by
 * the test, drive the whole path: the alert checks after each report, a threshold condition that triggers and
 * resolves, a regression condition that stays quiet on noise and triggers after the slowdown, webhook
 * deliveries to a real receiver that fails each first attempt (retried with the same delivery id and a valid
 * signature), and the alert e-mail received by a real SMTP server. The six pages are loaded for real on the first
 * engine; the second engine's agent is handed those six results in the same order (test/helpers/replayed-loads.ts):
 * the figures are the page's either way, and everything after the load (alerts, webhooks, e-mail) runs on each engine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkConditions } from '../../src/core/alerts/alerts.js';
import { clock } from '../../src/core/clock.js';
import { newId } from '../../src/core/ids.js';
import { failTest } from '../../src/core/tests/tests.js';
import { DeliveryDispatcher } from '../../src/notify/dispatcher.js';
import { insertTest } from '../../src/store/tests.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { assertData, assertError, until } from '../helpers/assertions.js';
import { accountIdOf, addReport, seedPage } from '../helpers/seed.js';
import { call, engines, startServer, waitForTest, type TestServer } from '../helpers/server.js';
import { replayedLoads } from '../helpers/replayed-loads.js';
import { signedWith, startReceiver, type Hit, type Receiver } from '../helpers/webhook-receiver.js';
import { startSmtp } from '../helpers/smtp.js';

const conditionBody = (attributes: Record<string, unknown>) => ({ data: { type: 'performance_alert_condition', attributes } });
const webhookBody = (url: string, events: string[]) => ({ data: { type: 'webhook', attributes: { url, events } } });


/** One fixture site for both engines: the second engine's replayed loads are of its URLs. */
let site: FixtureSite;
const loads = replayedLoads();
before(async () => {
  site = await startFixtureSite();
});
after(async () => {
  await site?.close();
  process.stderr.write(`[alerts] page loads: ${loads.counts.real} real, ${loads.counts.replayed} replayed\n`);
});

for (const engine of engines()) {
  describe(engine, () => {
    let s: TestServer;
    let receiver: Receiver;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let key: string;
    const email = `alerts-${engine}-${Date.now()}@example.test`;

    before(async () => {
      // 500 to the first attempt of every delivery, 200 after: each delivery is retried once.
      receiver = await startReceiver((_path, id, earlier) => (earlier.some((h) => h.id === id) ? 200 : 500));
      smtp = await startSmtp();
      s = await startServer({
        engine,
        agentSlots: 1,
        overrides: { run: loads.runFor(engine), launchAhead: loads.loadsOn(engine) },
        allowPrivateTargets: false,
        env: {
          WEBGAUGE_ALLOW_TARGETS: '127.0.0.1',
          WEBGAUGE_WEBHOOK_RETRY_BASE_MS: '300',
          WEBGAUGE_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
          WEBGAUGE_SMTP_FROM: 'Webgauge <alerts@webgauge.test>',
        },
      });
      key = await s.account({ plan: 'pro', email });
    });
    after(async () => {
      clock.reset();
      await s?.close();
      await Promise.all([receiver?.close(), smtp?.close()]);
    });

    test('alert conditions: create, read, partial update, delete; bad input is 400 E4001; other accounts get 404', async () => {
      const { pageId } = await seedPage(s.app.store, await accountIdOf(s.app.store, key));
      const path = `/pages/${pageId}/performance_alert_conditions`;
      const created = await call(s, 'POST', path, { key, body: conditionBody({ metric: 'fully_loaded_time', operator: 'gt', value: 3000 }) });
      const c = assertData(created, 201);
      assert.equal(c.type, 'performance_alert_condition');
      assert.deepEqual({ ...c.attributes, created: 0 }, { metric: 'fully_loaded_time', operator: 'gt', value: 3000, consecutive: 1, enabled: true, state: 'ok', created: 0 });
      assert.equal(created.headers.get('location'), c.links.self);
      assert.equal(assertData(await call(s, 'GET', `${path}/${c.id}`, { key })).id, c.id);
      const updated = assertData(await call(s, 'POST', `${path}/${c.id}`, { key, body: conditionBody({ consecutive: 3, enabled: false }) }));
      assert.equal(updated.attributes.consecutive, 3);
      assert.equal(updated.attributes.enabled, false);
      assert.equal(updated.attributes.metric, 'fully_loaded_time');
      const listed = await call(s, 'GET', path, { key });
      assert.deepEqual(listed.body.data.map((x: { id: string }) => x.id), [c.id]);

      for (const [attrs, needle] of [
        [{ metric: 'nope', operator: 'gt', value: 1 }, 'metric'],
        [{ metric: 'page_bytes', operator: 'above', value: 1 }, 'operator'],
        [{ metric: 'page_bytes', operator: 'gt' }, 'value'],
        [{ metric: 'page_bytes', operator: 'gt', value: '12' }, 'value'],
        [{ metric: 'page_bytes', operator: 'gt', value: 1, consecutive: 0 }, 'consecutive'],
        [{ metric: 'service_score', operator: 'regression', value: 1.5 }, 'regression'],
      ] as const) {
        const res = await call(s, 'POST', path, { key, body: conditionBody(attrs) });
        assertError(res, 400, 'E4001');
        assert.match(res.body.errors[0].detail, new RegExp(needle));
      }
      assertError(await call(s, 'POST', `${path}/${c.id}`, { key, body: conditionBody({ operator: 'between' }) }), 400, 'E4001');
      assertError(await call(s, 'GET', `${path}/nosuchcondition`, { key }), 404, 'E40407');

      const other = await s.account({ plan: 'pro' });
      assertError(await call(s, 'GET', path, { key: other }), 404, 'E40402');
      assertError(await call(s, 'POST', path, { key: other, body: conditionBody({ metric: 'page_bytes', operator: 'gt', value: 1 }) }), 404, 'E40402');
      assertError(await call(s, 'GET', `${path}/${c.id}`, { key: other }), 404, 'E40402');
      assertError(await call(s, 'DELETE', `${path}/${c.id}`, { key: other }), 404, 'E40402');
      assertError(await call(s, 'GET', `/pages/${pageId}/performance_alert_events`, { key: other }), 404, 'E40402');

      assert.deepEqual((await call(s, 'DELETE', `${path}/${c.id}`, { key })).body, { data: { type: 'performance_alert_condition', id: c.id } });
      assertError(await call(s, 'GET', `${path}/${c.id}`, { key }), 404, 'E40407');
      const events = await call(s, 'GET', `/pages/${pageId}/performance_alert_events`, { key });
      assert.equal(events.status, 200);
      assert.deepEqual(events.body.data, []);
      assert.equal(events.body.meta.curr_page, '1');
      assertError(await call(s, 'GET', `/pages/${pageId}/performance_alert_events?sort=url`, { key }), 400, 'E40007');
    });

    test('webhooks: the secret is shown once; private URLs are refused with 400; other accounts get 404', async () => {
      const created = await call(s, 'POST', '/webhooks', { key, body: webhookBody('http://127.0.0.1:9/x', ['test.error']) });
      const w = assertData(created, 201);
      assert.match(w.attributes.secret, /^whsec_/);
      assert.deepEqual(w.attributes.events, ['test.error']);
      const read = assertData(await call(s, 'GET', `/webhooks/${w.id}`, { key }));
      assert.equal(read.attributes.secret, undefined);
      assert.equal((await call(s, 'GET', '/webhooks', { key })).body.data.some((x: { attributes: object }) => 'secret' in x.attributes), false);
      for (const url of ['http://10.1.2.3/hook', 'http://127.0.0.2/hook', 'http://169.254.169.254/latest']) {
        const res = await call(s, 'POST', '/webhooks', { key, body: webhookBody(url, ['test.completed']) });
        assertError(res, 400, 'E4001');
        assert.match(res.body.errors[0].detail, /address/);
      }
      assertError(await call(s, 'POST', '/webhooks', { key, body: webhookBody('ftp://127.0.0.1/', ['test.completed']) }), 400, 'E4001');
      assertError(await call(s, 'POST', '/webhooks', { key, body: webhookBody('http://127.0.0.1/', ['test.done']) }), 400, 'E4001');
      assertError(await call(s, 'POST', '/webhooks', { key, body: webhookBody('http://127.0.0.1/', []) }), 400, 'E4001');
      const other = await s.account({ plan: 'pro' });
      assertError(await call(s, 'GET', `/webhooks/${w.id}`, { key: other }), 404, 'E40407');
      assertError(await call(s, 'GET', `/webhooks/${w.id}/deliveries`, { key: other }), 404, 'E40407');
      assertError(await call(s, 'DELETE', `/webhooks/${w.id}`, { key: other }), 404, 'E40407');
      assert.equal((await call(s, 'DELETE', `/webhooks/${w.id}`, { key })).status, 200);
      assertError(await call(s, 'GET', `/webhooks/${w.id}`, { key }), 404, 'E40407');
    });

    test('consecutive: a threshold triggers only after N crossing reports in a row (seeded reports)', async () => {
      const accountId = await accountIdOf(s.app.store, key);
      const { pageId, options } = await seedPage(s.app.store, accountId);
      const c = assertData(await call(s, 'POST', `/pages/${pageId}/performance_alert_conditions`, {
        key, body: conditionBody({ metric: 'page_bytes', operator: 'gte', value: 1000, consecutive: 2 }),
      }), 201);
      const states: string[] = [];
      let t = Date.now() - 3_600_000;
      for (const bytes of [1200, 800, 1500, 1600, 1700, 900]) {
        const id = await addReport(s.app.store, accountId, pageId, options, { created: (t += 60_000) });
        await s.app.store.db.updateTable('reports').set({ page_bytes: bytes }).where('id', '=', id).execute();
        const events = await checkConditions(s.app.store.db, { id, page_id: pageId, created: t });
        states.push(events.map((e) => e.event.state).join() || '-');
      }
      // 1200 alone is not two in a row; 1500 after 800 neither; 1600 is; 900 resolves.
      assert.deepEqual(states, ['-', '-', '-', 'triggered', '-', 'resolved']);
      const listed = await call(s, 'GET', `/pages/${pageId}/performance_alert_events`, { key });
      assert.deepEqual(listed.body.data.map((e: { attributes: { state: string } }) => e.attributes.state), ['resolved', 'triggered']);
      assert.equal(listed.body.data[1].attributes.condition, c.id);
      assert.equal(listed.body.data[1].attributes.value, 1600);
      assert.equal(listed.body.data[1].attributes.threshold, 1000);
    });

    test('deliveries wait in the database: a process that stops before sending leaves them to the next; ' +
      'test.error is delivered; a delivery that keeps failing gives up after its retry period', async () => {
      const env = { WEBGAUGE_ALLOW_TARGETS: '127.0.0.1', WEBGAUGE_WEBHOOK_RETRY_BASE_MS: '300' };
      const hook = assertData(await call(s, 'POST', '/webhooks', { key, body: webhookBody(`${receiver.base}/hook`, ['test.error']) }), 201);
      // This process stops following up and sending (as if it died); a test then fails.
      await s.app.testEvents.stop();
      await s.app.dispatcher.stop();
      const accountId = await accountIdOf(s.app.store, key);
      /** A test of a location no agent serves, failed as the reaper or an agent fails one. */
      const failedTest = async () => {
        const id = newId();
        await insertTest(s.app.store.db, {
          id, account_id: accountId, url: 'http://127.0.0.1:9/never', options: '{}', fingerprint: 'x', source: 'api', state: 'queued', error: null,
          browser: '3', location: 'nowhere', created: clock.now(), queued_at: clock.now(), started: null, finished: null, lease_owner: null, lease_expires: null,
          attempts: 0, credits_tenths: 0, report_id: null, page_id: null, events_pending: null, scan_id: null, scan_position: null,
        });
        assert.equal(await failTest(s.app.store, id, null, 'the page could not be loaded'), true);
        return id;
      };
      const id = await failedTest();
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(receiver.hits.some((h) => h.event === 'test.error'), false);

      // Another process of the service, on the same database, follows the test up and delivers.
      const next = await startServer({ engine, sharing: s, allowPrivateTargets: false, env });
      try {
        const hits = await until('the test.error delivery and its retry', () => {
          const h = receiver.hits.filter((x) => x.event === 'test.error');
          return h.length >= 2 ? h : undefined;
        });
        assert.deepEqual(hits.map((h) => h.status), [500, 200]);
        assert.equal(hits[0].id, hits[1].id);
        assert.ok(hits.every((h) => signedWith(hook.attributes.secret, h)));
        const payload = JSON.parse(hits[1].body);
        assert.equal(payload.event, 'test.error');
        assert.equal(payload.data.type, 'test');
        assert.equal(payload.data.id, id);
        assert.equal(payload.data.attributes.error, 'the page could not be loaded');
      } finally {
        await next.close();
      }

      // A webhook whose receiver refuses connections: retried after 1 s, then given up (a retry period of 2.5 s
      // here, 24 h in service). This process's own jobs are driven by hand.
      await call(s, 'DELETE', `/webhooks/${hook.id}`, { key });
      const dead = assertData(await call(s, 'POST', '/webhooks', { key, body: webhookBody('http://127.0.0.1:9/refused', ['test.error']) }), 201);
      await failedTest();
      assert.equal(await s.app.testEvents.drain(), 1);
      const dispatcher = new DeliveryDispatcher({ store: s.app.store, policy: s.config.targetPolicy, retryBaseMs: 1000, retryForMs: 2500 });
      const deliveries = () => call(s, 'GET', `/webhooks/${dead.id}/deliveries`, { key });
      await until('the first failed attempt', async () => {
        await dispatcher.dispatch();
        const d = (await deliveries()).body.data[0];
        return d?.attributes.attempts.length === 1 ? d : undefined;
      });
      let d = (await deliveries()).body.data[0];
      assert.equal(d.attributes.state, 'pending');
      assert.equal(d.attributes.attempts[0].status, 'failed');
      assert.equal(d.attributes.attempts[0].response_code, null);
      assert.match(d.attributes.attempts[0].error, /ECONNREFUSED/);
      clock.advance(1000);
      await dispatcher.dispatch();
      d = (await deliveries()).body.data[0];
      assert.equal(d.attributes.state, 'failed');
      assert.equal(d.attributes.attempts.length, 2);
      assert.equal(d.attributes.next_attempt, null);
      clock.reset();
      s.app.testEvents.start();
      s.app.dispatcher.start();
      await call(s, 'DELETE', `/webhooks/${dead.id}`, { key });
    });

    test('six real runs: threshold triggers and resolves, regression stays quiet on noise and triggers after the slowdown; ' +
      'webhooks are retried with the same delivery id and a valid signature; the alert e-mail arrives', { timeout: 240_000 }, async () => {
      const hook = assertData(await call(s, 'POST', '/webhooks', {
        key, body: webhookBody(`${receiver.base}/hook`, ['test.completed', 'test.error', 'alert.triggered', 'alert.resolved']),
      }), 201);
      const secret: string = hook.attributes.secret;
      receiver.hits.length = 0; // only this webhook's deliveries from here on
      const url = site.url('/switchable');
      const run = async (delayMs: number) => {
        site.switchable.delayMs = delayMs;
        const started = await call(s, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url, report: 'none' } } } });
        assert.equal(started.status, 202, started.text);
        const done = await waitForTest(s, key, started.body.data.id);
        assert.equal(done.status, 303, done.text);
        await s.app.testEvents.drain();
        return done.body.data as { id: string; attributes: { page: string } };
      };
      // The site answers from this process, whose loop also runs the service's follow-ups (webhook retries, e-mail):
      // a base load's TTFB was once 264 ms (1 in 3 clean-clone runs, 5b48e27), 144 ms of the loop's debt, so the
      // threshold sits 250 ms from both delays.
      const BASE = 100;
      const SLOW = 600;
      const LIMIT = 350;
      const first = await run(BASE);
      const pageId = first.attributes.page;
      const accountId = await accountIdOf(s.app.store, key);
      const conditions = `/pages/${pageId}/performance_alert_conditions`;
      const threshold = assertData(await call(s, 'POST', conditions, { key, body: conditionBody({ metric: 'time_to_first_byte', operator: 'gt', value: LIMIT }) }), 201);
      const regression = assertData(await call(s, 'POST', conditions, { key, body: conditionBody({ metric: 'time_to_first_byte', operator: 'regression', value: 0.1 }) }), 201);
      // The page's history before these runs: twelve earlier reports with the first run's TTFB and ±5 % of noise.
      const firstRow = await s.app.store.db.selectFrom('reports').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
      const page = await s.app.store.db.selectFrom('pages').select('options').where('id', '=', pageId).executeTakeFirstOrThrow();
      for (const [i, f] of [0.98, 1.01, 0.99, 1.02, 1.0, 0.97, 1.03, 0.99, 0.95, 1.05, 0.96, 1.04].entries()) {
        const id = await addReport(s.app.store, accountId, pageId, JSON.parse(page.options), { created: firstRow.created - (i + 1) * 600_000 });
        await s.app.store.db.updateTable('reports').set({ time_to_first_byte: Math.round(firstRow.time_to_first_byte * f) }).where('id', '=', id).execute();
      }
      const eventsSoFar = async () => (await call(s, 'GET', `/pages/${pageId}/performance_alert_events?page[size]=100`, { key })).body.data
        .map((e: { attributes: { condition: string; state: string } }) => `${e.attributes.condition === threshold.id ? 'threshold' : 'regression'}:${e.attributes.state}`)
        .reverse();

      const ttfb: number[] = [firstRow.time_to_first_byte];
      const log: string[][] = [];
      for (const delay of [SLOW, BASE, SLOW, SLOW, SLOW]) {
        const t = await run(delay);
        ttfb.push((await s.app.store.db.selectFrom('reports').select('time_to_first_byte').where('id', '=', t.id).executeTakeFirstOrThrow()).time_to_first_byte);
        log.push(await eventsSoFar());
      }
      const msg = `TTFB of the runs: ${ttfb.join(', ')}; events after each: ${JSON.stringify(log)}`;
      assert.ok(ttfb[1] > LIMIT && ttfb[0] < LIMIT && ttfb[2] < LIMIT, msg);
      // The threshold follows each report; the regression ignores one or two slow reports among normal ones
      // (windows of mostly noise) and triggers once most of the last five are slow: on the 3rd or 4th slow report
      // (3 of 5 slow may or may not be significant against this history; 4 of 5 always is, p ≈ 0.03 at worst).
      assert.deepEqual(log[0], ['threshold:triggered'], msg);
      assert.deepEqual(log[1], ['threshold:triggered', 'threshold:resolved'], msg);
      assert.deepEqual(log[2], ['threshold:triggered', 'threshold:resolved', 'threshold:triggered'], msg);
      assert.ok(log[3].length === 3 || (log[3].length === 4 && log[3][3] === 'regression:triggered'), msg);
      assert.deepEqual(log[4], ['threshold:triggered', 'threshold:resolved', 'threshold:triggered', 'regression:triggered'], msg);
      const regressionEvent = (await call(s, 'GET', `/pages/${pageId}/performance_alert_events?filter[state]=triggered&sort=-created`, { key })).body.data[0];
      assert.equal(regressionEvent.attributes.condition, regression.id);
      assert.ok(regressionEvent.attributes.value > regressionEvent.attributes.threshold);

      // Webhooks: 6 test.completed + 4 alert events, each answered 500 first, then delivered on the retry.
      const expected = 10;
      await until('every delivery to succeed', () => receiver.hits.filter((h) => h.status === 200).length >= expected || undefined, 30_000);
      const byId = new Map<string, Hit[]>();
      for (const h of receiver.hits) byId.set(h.id, [...(byId.get(h.id) ?? []), h]);
      assert.equal(byId.size, expected);
      for (const [id, hits] of byId) {
        assert.deepEqual(hits.map((h) => h.status), [500, 200], id);
        assert.equal(hits[0].body, hits[1].body);
        for (const h of hits) assert.ok(signedWith(secret, h), `signature of ${id}`);
        assert.equal(JSON.parse(hits[0].body).event, hits[0].event);
      }
      const alertHit = receiver.hits.find((h) => h.event === 'alert.triggered')!;
      const payload = JSON.parse(alertHit.body);
      assert.equal(payload.data.type, 'performance_alert_event');
      assert.ok(Number.isInteger(payload.created));
      const completed = JSON.parse(receiver.hits.find((h) => h.event === 'test.completed')!.body);
      assert.equal(completed.data.type, 'report');
      assert.equal(completed.data.attributes.url, url);
      const deliveries = await call(s, 'GET', `/webhooks/${hook.id}/deliveries?page[size]=100`, { key });
      assert.equal(deliveries.body.data.length, expected);
      for (const d of deliveries.body.data) {
        assert.equal(d.attributes.state, 'delivered');
        assert.deepEqual(d.attributes.attempts.map((a: { status: string; response_code: number }) => [a.status, a.response_code]), [['failed', 500], ['succeeded', 200]]);
        assert.ok(d.attributes.attempts.every((a: { duration: number }) => Number.isInteger(a.duration) && a.duration >= 0));
      }

      // E-mail: one per alert event, to the account's address.
      await until('four alert e-mails', () => smtp.mails.length >= 4 || undefined);
      const mail = smtp.mails.find((m) => /Subject: \[Webgauge\] Alert/.test(m) && /regress/.test(m))!;
      assert.ok(mail, smtp.mails.join('\n----\n'));
      assert.match(mail, new RegExp(`To: ${email.replace(/[.]/g, '\\.')}`));
      // The metric by its label, not its API name (a long line of the body may be folded: read it unfolded).
      const unfolded = mail.replace(/=\r?\n/g, '').replace(/\r?\n[ \t]+/g, ' ');
      assert.match(unfolded, /Time to first byte/);
      assert.doesNotMatch(unfolded, /time_to_first_byte/);
      assert.match(mail, /\/reports\//);
      assert.match(mail, /text\/html/);
    });
  });
}
