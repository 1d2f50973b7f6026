// lane: shared
/**
 * Alerts on real visitors' figures (issue 51, point 3), on both engines, without a browser: page views sent through
 * the real beacon endpoint, counted by the rollup job, then judged at a chosen time. A condition on the poor share of
 * INP with a minimum of 50 page views is not judged on 20 poor views, triggers once past 50, is delivered once to a
 * webhook (signed, through the outbox) and mailed to a real SMTP server, is not told again by a later judgement nor by
 * a new judge on the same store (a restart, another node), and resolves when the share falls. Bad input gets the
 * API's error; another account's site and condition are 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FieldAlertJob } from '../../src/scheduler/field-alerts.js';
import { Links } from '../../src/context/links.js';
import { sendFieldViews, viewsOf } from '../helpers/field-views.js';
import { call, engines, errorOf, startServer, type TestServer } from '../helpers/server.js';
import { startReceiver, signedWith, type Receiver } from '../helpers/webhook-receiver.js';
import { startSmtp, type SmtpInbox } from '../helpers/smtp.js';
import { webSession } from '../helpers/web-session.js';
import { clock } from '../../src/core/clock.js';

const ORIGIN = 'https://shop.example';
const body = (attributes: Record<string, unknown>) => ({ data: { type: 'field_alert_condition', attributes } });

async function until(what: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const engine of engines()) {
  describe(`field alerts on ${engine}`, () => {
    let s: TestServer;
    let receiver: Receiver;
    let smtp: SmtpInbox;
    before(async () => {
      [receiver, smtp] = await Promise.all([startReceiver(), startSmtp()]);
      s = await startServer({ engine, env: { WEBGAUGE_FIELD_CLIENT_RATE: '1000000', WEBGAUGE_WEBHOOK_RETRY_BASE_MS: '300',
        WEBGAUGE_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, WEBGAUGE_SMTP_FROM: 'Webgauge <alerts@webgauge.test>' } });
      await s.app.field.rollup.stop();
      await s.app.field.alerts!.stop();
    });
    after(async () => {
      await s?.close();
      await Promise.all([receiver?.close(), smtp?.close()]);
    });

    test('not judged under its minimum, triggered once past it (one webhook, one e-mail), never again on a restart, resolved when it stops', async () => {
      const email = `field-alerts-${engine}-${Date.now()}@example.test`;
      const key = await s.account({ plan: 'pro', email });
      const site = (await call(s, 'POST', '/field_sites', { key, body: { data: { type: 'field_site', attributes: { name: 'Shop', origins: [ORIGIN] } } } })).body.data;
      const hook = (await call(s, 'POST', '/webhooks', { key, body: { data: { type: 'webhook', attributes: { url: `${receiver.base}/field`, events: ['field.alert'] } } } })).body.data;
      const created = await call(s, 'POST', `/field_sites/${site.id}/alert_conditions`, { key,
        body: body({ figure: 'field_inp_poor_share', operator: 'gt', value: 0.1, device: 'mobile', min_views: 50 }) });
      assert.equal(created.status, 201, created.text);
      const condition = created.body.data;
      assert.equal(condition.attributes.state, 'not_judged');
      assert.equal(condition.attributes.window_days, 7);
      assert.equal(condition.attributes.text, 'INP poor share > 10 %, mobile, the whole site, last 7 days, at least 50 page views');
      const job = s.app.field.alerts!;
      const read = async () => (await call(s, 'GET', `/field_sites/${site.id}/alert_conditions/${condition.id}`, { key })).body.data.attributes;
      const hits = () => receiver.hits.filter((h) => h.path === '/field');

      // 20 poor INPs on phones (a share of 1): fewer than 50 page views, not judged; desktop views do not count for it.
      await sendFieldViews(s.base, site.id, [...viewsOf(20, `${ORIGIN}/p/1`, 'mobile', { inp: 800 }), ...viewsOf(100, `${ORIGIN}/p/1`, 'desktop', { inp: 800 })]);
      await s.app.field.rollup.flush();
      assert.deepEqual(await job.judge(clock.now()), []);
      let a = await read();
      assert.equal(a.state, 'not_judged');
      assert.equal(a.page_views, 20);
      assert.equal(a.measured, 1);

      // 40 more, 10 of them poor: 60 views, 30 poor (0.5 > 0.1): triggered, once.
      await sendFieldViews(s.base, site.id, [...viewsOf(10, `${ORIGIN}/p/2`, 'mobile', { inp: 900 }), ...viewsOf(30, `${ORIGIN}/p/2`, 'mobile', { inp: 80 })]);
      await s.app.field.rollup.flush();
      const changes = await job.judge(clock.now());
      assert.deepEqual(changes.map((c) => c.change), ['triggered']);
      a = await read();
      assert.equal(a.state, 'triggered');
      assert.equal(a.page_views, 60);
      assert.equal(a.measured, 0.5);
      await until(() => hits().length === 1 && smtp.mails.some((m) => m.includes(email)));
      const hit = hits()[0]!;
      assert.ok(signedWith(hook.attributes.secret, hit), 'signed like every delivery');
      const payload = JSON.parse(hit.body);
      assert.equal(payload.event, 'field.alert');
      assert.equal(payload.data.state, 'triggered');
      assert.equal(payload.data.measured, 0.5);
      assert.equal(payload.data.page_views, 60);
      assert.equal(payload.data.condition.figure, 'field_inp_poor_share');
      assert.equal(payload.data.site.id, site.id);
      assert.match(payload.data.links.field, new RegExp(`/field/${site.id}\\?device=mobile&days=7$`));
      const mail = smtp.mails.find((m) => m.includes(email))!;
      assert.match(mail, /Subject: \[Webgauge\] Alert: INP poor share > 10 % on Shop/);
      assert.match(mail, /real visitors measured 50 % over 60 page views/);

      // Still holding: no news. A new judge on the same store (a restart, another node): no news either.
      assert.deepEqual(await job.judge(clock.now()), []);
      const restarted = new FieldAlertJob(s.app.store, { links: () => new Links({ origin: s.base }, s.config), email: true, queued: () => undefined }, {});
      assert.deepEqual(await restarted.judge(clock.now()), []);
      const accountId = (await s.app.store.db.selectFrom('field_sites').select('account_id').where('id', '=', site.id).executeTakeFirstOrThrow()).account_id;
      const deliveries = await s.app.store.db.selectFrom('deliveries').select(['channel']).where('event', '=', 'field.alert').where('account_id', '=', accountId).execute();
      assert.deepEqual(deliveries.map((d) => d.channel).sort(), ['email', 'webhook'], 'one webhook delivery and one e-mail, however often judged');
      assert.equal(payload.data.judged, a.state_since, 'the judgement that changed it');
      const events = async (query = '') => (await call(s, 'GET', `/field_sites/${site.id}/alert_events${query}`, { key })).body;
      const first = await events();
      assert.equal(first.data.length, 1, 'one event, however often judged');
      assert.equal(first.data[0].type, 'field_alert_event');
      assert.deepEqual(
        (({ condition, state, figure, operator, threshold, measured, page_views, device, window_days, min_views }) =>
          ({ condition, state, figure, operator, threshold, measured, page_views, device, window_days, min_views }))(first.data[0].attributes),
        { condition: condition.id, state: 'triggered', figure: 'field_inp_poor_share', operator: 'gt', threshold: 0.1, measured: 0.5, page_views: 60,
          device: 'mobile', window_days: 7, min_views: 50 });
      assert.match(first.data[0].links.field, new RegExp(`/field/${site.id}\\?device=mobile&days=7$`));

      // 300 good INPs: the share falls to 30 / 360: resolved, once.
      await sendFieldViews(s.base, site.id, viewsOf(300, `${ORIGIN}/p/3`, 'mobile', { inp: 60 }));
      await s.app.field.rollup.flush();
      assert.deepEqual((await job.judge(clock.now())).map((c) => c.change), ['resolved']);
      assert.equal((await read()).state, 'fine');
      await until(() => hits().length === 2);
      assert.equal(JSON.parse(hits()[1]!.body).data.state, 'resolved');
      assert.deepEqual(await restarted.judge(clock.now()), []);
      assert.deepEqual((await events()).data.map((e: { attributes: { state: string } }) => e.attributes.state), ['resolved', 'triggered'], 'newest first');
      assert.deepEqual((await events('?filter[state]=triggered')).data.map((e: { attributes: { state: string } }) => e.attributes.state), ['triggered']);
      const site1 = (await call(s, 'GET', `/field_sites/${site.id}`, { key })).body.data;
      assert.match(site1.links.alert_events, new RegExp(`/field_sites/${site.id}/alert_events$`));
      assert.equal((await call(s, 'GET', `/field_sites/${site.id}/alert_events?filter[state]=sideways`, { key })).status, 400);
      // Every change is in the outbox once: two webhook deliveries and two e-mails in all.
      const all = await s.app.store.db.selectFrom('deliveries').select(['channel']).where('event', '=', 'field.alert').where('account_id', '=', accountId).execute();
      assert.deepEqual(all.map((d) => d.channel).sort(), ['email', 'email', 'webhook', 'webhook']);
    });

    test('two nodes judging at once tell a change once', async () => {
      const key = await s.account({ plan: 'pro' });
      const site = (await call(s, 'POST', '/field_sites', { key, body: { data: { type: 'field_site', attributes: { name: 'Twice', origins: [ORIGIN] } } } })).body.data;
      const c = (await call(s, 'POST', `/field_sites/${site.id}/alert_conditions`, { key,
        body: body({ figure: 'field_cls_poor_share', operator: 'gte', value: 0.5, min_views: 5 }) })).body.data;
      await sendFieldViews(s.base, site.id, viewsOf(10, `${ORIGIN}/x`, 'desktop', { cls: 0.4 }));
      await s.app.field.rollup.flush();
      const notices = { links: () => new Links({ origin: s.base }, s.config), email: true, queued: () => undefined };
      const nodes = [0, 1, 2, 3].map(() => new FieldAlertJob(s.app.store, notices, {}));
      const at = clock.now();
      const told = (await Promise.all(nodes.map((n) => n.judge(at)))).flat().filter((x) => x.condition.id === c.id);
      assert.deepEqual(told.map((x) => x.change), ['triggered']);
      const events = (await call(s, 'GET', `/field_sites/${site.id}/alert_events`, { key })).body.data;
      assert.equal(events.length, 1);
      const accountId = (await s.app.store.db.selectFrom('field_sites').select('account_id').where('id', '=', site.id).executeTakeFirstOrThrow()).account_id;
      const deliveries = await s.app.store.db.selectFrom('deliveries').select(['channel']).where('event', '=', 'field.alert').where('account_id', '=', accountId).execute();
      assert.deepEqual(deliveries.map((d) => d.channel), ['email'], 'one e-mail (no webhook subscribed)');
    });

    test('a p75 condition on a template and a device; a window that has passed no longer counts', async () => {
      const key = await s.account({ plan: 'pro' });
      const site = (await call(s, 'POST', '/field_sites', { key, body: { data: { type: 'field_site', attributes: { name: 'Blog', origins: [ORIGIN], templates: ['/blog/:slug'] } } } })).body.data;
      const c = (await call(s, 'POST', `/field_sites/${site.id}/alert_conditions`, { key,
        body: body({ figure: 'field_lcp_p75', operator: 'gt', value: 2500, device: 'desktop', template: '/blog/:slug', window_days: 1, min_views: 10 }) })).body.data;
      await sendFieldViews(s.base, site.id, [...viewsOf(20, `${ORIGIN}/blog/a`, 'desktop', { lcp: 4000 }), ...viewsOf(20, `${ORIGIN}/about`, 'desktop', { lcp: 500 })]);
      await s.app.field.rollup.flush();
      const job = s.app.field.alerts!;
      assert.deepEqual((await job.judge(clock.now())).filter((x) => x.condition.id === c.id).map((x) => x.change), ['triggered']);
      const a = (await call(s, 'GET', `/field_sites/${site.id}/alert_conditions/${c.id}`, { key })).body.data.attributes;
      assert.equal(a.page_views, 20, 'the template\'s views only');
      assert.ok(a.measured >= 3960 && a.measured <= 4040, `p75 ${a.measured} within 1 %`);
      // Two days on, a one-day window holds no views: not judged, and no "resolved" for it.
      const later = await job.judge(clock.now() + 2 * 86_400_000);
      assert.equal(later.filter((x) => x.condition.id === c.id).length, 0);
      assert.equal((await call(s, 'GET', `/field_sites/${site.id}/alert_conditions/${c.id}`, { key })).body.data.attributes.state, 'triggered',
        'too few views keeps the last verdict');
      // The app's Alerts screen says both, and lists the change.
      const web = webSession(s);
      const screen = await web.get(await web.signIn(key), `/field/${site.id}/alerts`);
      assert.equal(screen.status, 200);
      assert.match(screen.html, /Triggered since [^<]+ UTC; not judged since: only 0 of the 10 page views needed/);
      assert.match(screen.html, /<table class="list field-alert-events">.*Triggered<\/span><\/td><td class="wraps">LCP p75 &gt; 2.50 s, desktop, template \/blog\/:slug, last 1 day, at least 10 page views/s);
    });

    test('bad input is the API\'s error and changes nothing; another account sees 404', async () => {
      const key = await s.account({ plan: 'pro' });
      const site = (await call(s, 'POST', '/field_sites', { key, body: { data: { type: 'field_site', attributes: { name: 'A', origins: [ORIGIN] } } } })).body.data;
      const path = `/field_sites/${site.id}/alert_conditions`;
      for (const [attributes, pattern] of [
        [{ operator: 'gt', value: 1 }, /figure is required/],
        [{ figure: 'lcp', operator: 'gt', value: 1 }, /figure "lcp" is not a field figure; use one of field_lcp_p75/],
        [{ figure: 'field_lcp_p75', operator: 'regression', value: 1 }, /operator "regression" is unknown/],
        [{ figure: 'field_inp_poor_share', operator: 'gt', value: 1.5 }, /must be a share from 0 to 1/],
        [{ figure: 'field_lcp_p75', operator: 'gt', value: -1 }, /must be milliseconds, 0 or more/],
        [{ figure: 'field_lcp_p75', operator: 'gt', value: 1, device: 'watch' }, /device must be one of all, mobile, tablet, desktop/],
        [{ figure: 'field_lcp_p75', operator: 'gt', value: 1, path: 'blog' }, /path must start with "\/"/],
        [{ figure: 'field_lcp_p75', operator: 'gt', value: 1, window_days: 29 }, /window_days must be a whole number from 1 to 28/],
        [{ figure: 'field_lcp_p75', operator: 'gt', value: 1, min_views: 0 }, /min_views must be a whole number from 1/],
        [{ figure: 'field_lcp_p75', operator: 'gt', value: 1, colour: 'red' }, /Unknown attribute "colour"/],
      ] as const) {
        const res = await call(s, 'POST', path, { key, body: body(attributes) });
        assert.equal(res.status, 400, JSON.stringify(attributes));
        assert.equal(errorOf(res).code, 'E4001');
        assert.match(errorOf(res).detail!, pattern);
      }
      assert.equal((await call(s, 'GET', path, { key })).body.data.length, 0);
      const c = (await call(s, 'POST', path, { key, body: body({ figure: 'field_cls_p75', operator: 'gte', value: 0.25 }) })).body.data;
      const patched = await call(s, 'PATCH', `${path}/${c.id}`, { key, body: body({ value: 0.1, enabled: false }) });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.data.attributes.value, 0.1);
      assert.equal(patched.body.data.attributes.enabled, false);
      assert.equal(patched.body.data.attributes.state, 'not_judged', 'a changed or disabled condition starts over');

      // The Viewer role reads the conditions and their events; only the Owner role changes them.
      const ownerEmail = (await s.app.store.db.selectFrom('accounts').select('email').where('id', '=',
        (await s.app.store.db.selectFrom('field_sites').select('account_id').where('id', '=', site.id).executeTakeFirstOrThrow()).account_id).executeTakeFirstOrThrow()).email;
      const viewer = await s.account({ plan: 'pro', role: 'viewer', teamOf: ownerEmail });
      assert.equal((await call(s, 'GET', path, { key: viewer })).body.data.length, 1);
      assert.equal((await call(s, 'GET', `/field_sites/${site.id}/alert_events`, { key: viewer })).status, 200);
      for (const [method, p] of [['POST', path], ['PATCH', `${path}/${c.id}`], ['DELETE', `${path}/${c.id}`]] as const) {
        const res = await call(s, method, p, { key: viewer, ...(method === 'DELETE' ? {} : { body: body({ figure: 'field_lcp_p75', operator: 'gt', value: 1 }) }) });
        assert.equal(res.status, 403, `${method} ${p}`);
        assert.equal(errorOf(res).code, 'E40301');
      }

      const other = await s.account({ plan: 'pro' });
      for (const [method, p] of [['GET', path], ['POST', path], ['GET', `${path}/${c.id}`], ['PATCH', `${path}/${c.id}`], ['DELETE', `${path}/${c.id}`],
        ['GET', `/field_sites/${site.id}/alert_events`]] as const) {
        const res = await call(s, method, p, { key: other, ...(method === 'POST' || method === 'PATCH' ? { body: body({ figure: 'field_lcp_p75', operator: 'gt', value: 1 }) } : {}) });
        assert.equal(res.status, 404, `${method} ${p}`);
        assert.equal(errorOf(res).code, 'E40418');
      }
      assert.equal(errorOf(await call(s, 'GET', `${path}/nope`, { key })).code, 'E40419');
      assert.equal((await call(s, 'DELETE', `${path}/${c.id}`, { key })).status, 200);
      assert.equal((await call(s, 'GET', `${path}/${c.id}`, { key })).status, 404);
    });
  });
}
