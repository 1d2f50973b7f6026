// lane: shared
/**
 * Alerts on a site through HTTP on both engines, without a page load (docs/scans.md "Alerts on a site"; the pages'
 * tests are completed with stub results and figures written into their reports): a scan posted with alert conditions
 * shows them and, once completed, their verdicts; `scan.completed` and `scan.alert` are delivered signed to a real
 * receiver and the alert e-mail, naming the pages, to a real SMTP server; a second scan where the conditions still hold
 * sends no `scan.alert`, a third where they stop sends them resolved (and a grade that fell, triggered); bad conditions
 * are 400 E40004 and create nothing; two processes following the same scan complete it once; the app shows the
 * verdicts and takes conditions one per line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { assertData, creditsOf, until } from '../helpers/assertions.js';
import { completeScan, scanBody, startListScan, waitForScan } from '../helpers/scans.js';
import { call, engines, errorOf, startServer, type TestServer } from '../helpers/server.js';
import { startSmtp, type SmtpInbox } from '../helpers/smtp.js';
import { signedWith, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { webSession } from '../helpers/web-session.js';

const CONDITIONS = [
  { figure: 'lcp_p75', operator: 'gt', value: 2500 },
  { figure: 'poor_lcp_pages', operator: 'gt', value: 0 },
  { kind: 'grade_drop' },
  { kind: 'pages_worse' },
];
const PATHS = ['/', '/gallery', '/paint', '/faulty'];
/** A mail's raw text with quoted-printable's soft line breaks joined (long lines are wrapped at any character). */
const unwrapped = (raw: string) => raw.replace(/=\r?\n/g, '');

let site: FixtureSite;
before(async () => {
  site = await startFixtureSite();
});
after(async () => {
  await site?.close();
});

for (const engine of engines()) {
  describe(`alerts on a site's scans, no page load (${engine})`, () => {
    let s: TestServer;
    let receiver: Receiver;
    let smtp: SmtpInbox;
    const env = () => ({
      WEBGAUGE_WEBHOOK_RETRY_BASE_MS: '300', WEBGAUGE_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, WEBGAUGE_SMTP_FROM: 'Webgauge <alerts@webgauge.test>',
    });

    before(async () => {
      receiver = await startReceiver();
      smtp = await startSmtp();
      s = await startServer({ engine, agentSlots: 0, env: env() });
    });
    after(async () => {
      await s?.close();
      await Promise.all([receiver?.close(), smtp?.close()]);
    });

    /** A list scan of the fixture's pages with `conditions`, run to completion with each path's report figures. */
    const scanWith = async (key: string, figures: Record<string, Record<string, number | string>>, conditions: unknown[] = CONDITIONS) => {
      const running = await startListScan(s, key, site.url('/'), PATHS, { alert_conditions: conditions });
      assert.deepEqual(running.attributes.alert_conditions[2], { kind: 'grade_drop', figure: null, operator: null, value: 2 });
      assert.equal(running.attributes.alerts, null, 'no verdicts until the scan completes');
      await completeScan(s, running.id, figures);
      return (await waitForScan(s, key, running.id, (state) => state === 'completed')).id as string;
    };
    const deliveries = async (event: string, scanId: string) => (await s.app.store.db.selectFrom('deliveries').selectAll()
      .where('event', '=', event).where('channel', '=', 'webhook').execute()).filter((d) => JSON.parse(d.body).data.scan.id === scanId);
    const verdicts = async (key: string, id: string) => {
      const scan = assertData(await call(s, 'GET', `/scans/${id}`, { key }));
      return Object.fromEntries((scan.attributes.alerts as { kind: string; figure: string | null }[]).map((v) => [v.figure ?? v.kind, v])) as Record<string, any>;
    };

    test('verdicts stored; scan.completed and scan.alert delivered signed, the alert mailed naming the pages; still holding: no scan.alert; stopped: resolved', async () => {
      const email = `site-alerts-${engine}-${Date.now()}@example.test`;
      const key = await s.account({ plan: 'pro', email });
      const hook = assertData(await call(s, 'POST', '/webhooks', { key, body: { data: { type: 'webhook', attributes: {
        url: `${receiver.base}/site`, events: ['scan.completed', 'scan.alert'] } } } }), 201);
      const secret = hook.attributes.secret as string;
      const slow = { '/': { largest_contentful_paint: 1000 }, '/gallery': { largest_contentful_paint: 3100 }, '/paint': { largest_contentful_paint: 900 },
        '/faulty': { largest_contentful_paint: 4600 } };

      // First scan: LCP p75 3.10 s and one poor page hold; there is no scan to compare with yet.
      const first = await scanWith(key, slow);
      const v1 = await verdicts(key, first);
      assert.deepEqual([v1.lcp_p75.holds, v1.lcp_p75.measured, v1.lcp_p75.change, v1.lcp_p75.previous_scan], [true, 3100, 'triggered', null]);
      assert.deepEqual(v1.lcp_p75.pages.map((p: any) => new URL(p.url).pathname).sort(), ['/faulty', '/gallery']);
      // Words for people: the figure by its label, not lcp_p75 (the verdict's `figure` keeps the name for clients).
      assert.match(v1.lcp_p75.message, /^LCP, 75th percentile > 2\.50 s holds: LCP, 75th percentile is 3\.10 s\. Pages: \/gallery: LCP 3\.10 s is over the 2\.50 s limit on LCP p75; \/faulty: LCP 4\.60 s/);
      assert.ok(v1.lcp_p75.pages.every((p: any) => p.report), 'each page named links its report');
      assert.deepEqual([v1.poor_lcp_pages.holds, v1.poor_lcp_pages.change], [true, 'triggered']);
      assert.deepEqual(v1.poor_lcp_pages.pages.map((p: any) => p.why), ['poor LCP: 4.60 s is over 4.00 s']);
      for (const kind of ['grade_drop', 'pages_worse']) {
        assert.equal(v1[kind].holds, null);
        assert.match(v1[kind].message, /was not evaluated: there is no earlier completed scan of http:\/\/127\.0\.0\.1:\d+ as desktop \(source list\)/);
      }
      const hits = await until('the first scan\'s deliveries', () => (receiver.hits.filter((h) => h.path === '/site').length >= 3 ? receiver.hits : undefined));
      const mine = hits.filter((h) => h.path === '/site');
      assert.deepEqual(mine.map((h) => h.event).sort(), ['scan.alert', 'scan.alert', 'scan.completed']);
      for (const h of mine) assert.ok(signedWith(secret, h), `${h.event} is signed with the webhook's secret`);
      const completed = JSON.parse(mine.find((h) => h.event === 'scan.completed')!.body);
      assert.equal(completed.event, 'scan.completed');
      assert.equal(completed.data.scan.id, first);
      assert.equal(completed.data.scan.site, site.origin);
      assert.deepEqual([completed.data.scan.device_class, completed.data.scan.scan_set], ['desktop', null], 'a site\'s alerts are per device');
      assert.deepEqual(completed.data.scan.pages, { total: 4, completed: 4, failed: 0 });
      assert.equal(completed.data.scan.figures.lcp_p75, 3100);
      assert.equal(completed.data.scan.figures.poor_lcp_pages, 1);
      assert.equal(completed.data.links.scan, `${s.api}/scans/${first}`);
      assert.equal(completed.data.scan.alerts.length, 4);
      const alert = mine.map((h) => JSON.parse(h.body)).find((b) => b.event === 'scan.alert' && b.data.alert.figure === 'lcp_p75');
      assert.equal(alert.data.state, 'triggered');
      assert.equal(alert.data.scan.id, first);
      assert.equal(alert.data.previous_scan, null);
      assert.match(alert.data.alert.message, /\/faulty/);
      assert.match(alert.data.alert.pages[0].report_page, /^http:\/\/127\.0\.0\.1:\d+\/reports\//);
      const mails = await until('two alert e-mails', () => (smtp.mails.filter((m) => m.includes(email)).length >= 2 ? smtp.mails.filter((m) => m.includes(email)) : undefined));
      const mail = unwrapped(mails.find((m) => /Subject: \[Webgauge\] Alert: LCP, 75th percentile > 2\.50 s on/.test(m)) ?? '');
      assert.ok(mail, mails.join('\n----\n'));
      assert.match(mail, /Subject: \[Webgauge\] Alert: LCP, 75th percentile > 2\.50 s on\s+http:\/\/127\.0\.0\.1:\d+ \(desktop\)/, 'the e-mail says the device (its subject folded)');
      assert.equal(alert.data.scan.device_class, 'desktop');
      assert.match(mail, /\/faulty/);
      assert.match(mail, /\/reports\//);
      assert.match(mail, /text\/html/);
      assert.doesNotMatch(mail, /lcp_p75/, 'the e-mail names the figure by its label');

      // Second scan, the same pages: the conditions still hold (no scan.alert); the comparison finds nothing worse.
      const second = await scanWith(key, slow);
      const v2 = await verdicts(key, second);
      assert.deepEqual([v2.lcp_p75.holds, v2.lcp_p75.change, v2.lcp_p75.previous_scan], [true, null, first]);
      assert.deepEqual([v2.pages_worse.holds, v2.pages_worse.change, v2.pages_worse.compared_with], [false, null, first]);
      assert.deepEqual([v2.grade_drop.holds, v2.grade_drop.change], [false, null]);
      await until('the second scan.completed', async () => (await deliveries('scan.completed', second)).length === 1 || undefined);
      assert.equal((await deliveries('scan.alert', second)).length, 0);

      // Third scan: the slow pages are fast again (resolved), /paint's grade fell three letters (triggered).
      const third = await scanWith(key, { '/': { largest_contentful_paint: 1000 }, '/gallery': { largest_contentful_paint: 1200 },
        '/paint': { largest_contentful_paint: 900, service_grade: 'D' }, '/faulty': { largest_contentful_paint: 1500 } });
      const v3 = await verdicts(key, third);
      assert.deepEqual([v3.lcp_p75.holds, v3.lcp_p75.change, v3.lcp_p75.previous_scan], [false, 'resolved', second]);
      assert.deepEqual([v3.poor_lcp_pages.change, v3.grade_drop.change, v3.pages_worse.change], ['resolved', 'triggered', 'triggered']);
      assert.deepEqual(v3.grade_drop.pages.map((p: any) => [new URL(p.url).pathname, p.why]), [['/paint', 'grade A → D, 3 letters down']]);
      assert.match(v3.pages_worse.message, /\/paint: grade A → D \[threshold: 3 letters down, threshold 2 letters\]/);
      // The scan compared with is named by when it ran, not by its ID (which `compared_with` carries).
      assert.match(v3.pages_worse.message, /got significantly worse since the scan of \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC\./);
      assert.ok(!v3.pages_worse.message.includes(second), v3.pages_worse.message);
      assert.equal(v3.pages_worse.compared_with, second);
      const alerts = await until('the third scan\'s alerts', async () => {
        const ds = await deliveries('scan.alert', third);
        return ds.length === 4 ? ds.map((d) => JSON.parse(d.body).data) : undefined;
      });
      const lcp = alerts.find((a) => a.alert.figure === 'lcp_p75');
      assert.deepEqual([lcp.state, lcp.previous_scan.id, lcp.scan.id], ['resolved', second, third]);
      const resolvedMail = unwrapped(await until('the resolved e-mail', () => smtp.mails.find((m) => m.includes(email) && /Subject: \[Webgauge\] Resolved: LCP, 75th percentile/.test(m))));
      assert.match(resolvedMail, new RegExp(`/scans/${third}`));
      const gradeMail = unwrapped(await until('the grade e-mail', () => smtp.mails.find((m) => m.includes(email) && /Subject: \[Webgauge\] Alert: a page's grade falls 2 letters/.test(m))));
      assert.match(gradeMail, /\/paint/);
      assert.match(gradeMail, new RegExp(`/scans/${second}/compare/${third}`));

      // The scan with its verdicts is the document's ScanDocument.
      const doc = await (await fetch(`${s.api}/openapi.json`)).json();
      const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
      ajv.addSchema(doc, 'openapi.json');
      const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/ScanDocument' });
      const read = await call(s, 'GET', `/scans/${third}`, { key });
      assert.ok(validate(read.body), ajv.errorsText(validate.errors));

      // The app: the verdicts, a triggered one with its page linked to its report.
      const web = webSession(s);
      const cookie = await web.signIn(key);
      const screen = await web.get(cookie, `/scans/${third}`);
      assert.equal(screen.status, 200);
      const section = /<section class="scan-section" id="alerts"[\s\S]*?<\/section>/.exec(screen.html)?.[0] ?? '';
      assert.match(section, /2 alerts triggered with this scan/);
      assert.match(section, /scan-alert-triggered[\s\S]*?Triggered[\s\S]*?a page&#39;s grade falls 2 letters or more/);
      assert.match(section, new RegExp(`<a href="/reports/${v3.grade_drop.pages[0].report}">/paint</a>: grade A → D`));
      assert.match(section, /scan-alert-resolved[\s\S]*?Resolved[\s\S]*?LCP, 75th percentile &gt; 2\.50 s/);
      assert.match(section, /since the scan of \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC/, 'the screen names the previous scan by its date');
      assert.doesNotMatch(section, /lcp_p75|since scan /, 'and no figure by its name, no scan by its ID');
    });

    test('bad alert conditions are 400 E40004 naming the condition and what to fix, and create nothing', async () => {
      const key = await s.account({ plan: 'pro' });
      const credits = await creditsOf(s, key);
      const cases: [unknown, RegExp][] = [
        ['lcp_p75 > 2500', /alert_conditions must be an array/],
        [[{ figure: 'lcp_p75', operator: 'gt', value: 2500 }, { figure: 'lcp_p99', operator: 'gt', value: 1 }],
          /alert_conditions\[1\]\.figure "lcp_p99" is no site figure; use one of lcp_p75, /],
        [[{ figure: 'lcp_p75', operator: 'over', value: 1 }], /alert_conditions\[0\]\.operator must be gt, gte, lt or lte/],
        [[{ kind: 'grade_drop', value: 9 }], /alert_conditions\[0\]\.value of kind grade_drop is a whole number of letters from 1 to 5/],
        [[{ kind: 'pages_worse' }, { kind: 'pages_worse', value: 0 }], /alert_conditions\[1\] is the same condition as alert_conditions\[0\]/],
        [Array.from({ length: 21 }, (_, i) => ({ figure: 'lcp_p75', operator: 'gt', value: i })), /alert_conditions has 21 conditions; at most 20 are allowed/],
        [[3], /alert_conditions\[0\] must be an object/],
        // Every bad condition is named, not only the first (issue 48).
        [[{ figure: 'lcp_p99', operator: 'gt', value: 1 }, { figure: 'lcp_p75', operator: 'gt', value: 1 }, { kind: 'grade_drop', value: 9 }],
          /^2 entries of alert_conditions are refused: alert_conditions\[0\]\.figure "lcp_p99" is no site figure.*; alert_conditions\[2\]\.value of kind grade_drop/],
      ];
      for (const [conditions, detail] of cases) {
        const r = await call(s, 'POST', '/scans', { key, body: scanBody({ url: site.url('/'), source: 'list', urls: ['/'], report: 'none', alert_conditions: conditions }) });
        assert.equal(r.status, 400, `${JSON.stringify(conditions).slice(0, 60)}: ${r.text}`);
        assert.equal(errorOf(r).code, 'E40004');
        assert.match(errorOf(r).detail ?? '', detail);
      }
      assert.equal((await call(s, 'GET', '/scans', { key })).body.data.length, 0);
      assert.equal(await creditsOf(s, key), credits);

      // The app's form takes them one per line, and says what to fix the API's way, naming the line.
      const web = webSession(s);
      const cookie = await web.signIn(key);
      const form = (conditions: string) => web.post(cookie, '/scans', [['url', site.url('/')], ['source', 'list'], ['urls', '/'], ['report', 'none'],
        ['respect_robots', '1'], ['alert_conditions', conditions]]);
      const refused = await form('lcp_p75 > 2500\nlcp_p99 > 1');
      assert.equal(refused.status, 400);
      assert.match(refused.html, /<a href="#f-alert_conditions">Alert conditions<\/a>: line 2 \(figure\) &quot;lcp_p99&quot; is no site figure/);
      assert.match(refused.html, /lcp_p75 &gt; 2500\nlcp_p99 &gt; 1<\/textarea>/, 'the field keeps what was typed');
      const started = await form('lcp_p75 >= 2500\npoor_cls_pages > 0\ngrade_drop 1\ntemplate_worse');
      assert.equal(started.status, 303, started.html.slice(0, 300));
      const scan = assertData(await call(s, 'GET', started.location!, { key }));
      assert.deepEqual(scan.attributes.alert_conditions, [
        { kind: 'figure', figure: 'lcp_p75', operator: 'gte', value: 2500 }, { kind: 'figure', figure: 'poor_cls_pages', operator: 'gt', value: 0 },
        { kind: 'grade_drop', figure: null, operator: null, value: 1 }, { kind: 'template_worse', figure: null, operator: null, value: 0 }]);
      await call(s, 'DELETE', `/scans/${scan.id}`, { key });
    });

    test('two processes following the same scan complete it once: one scan.completed, one scan.alert per change', async () => {
      const other = await startServer({ engine, agentSlots: 0, sharing: s, env: env() });
      try {
        const key = await s.account({ plan: 'pro' });
        assertData(await call(s, 'POST', '/webhooks', { key, body: { data: { type: 'webhook', attributes: {
          url: `${receiver.base}/twice`, events: ['scan.completed', 'scan.alert'] } } } }), 201);
        const scan = await startListScan(s, key, site.url('/'), PATHS, { alert_conditions: [{ figure: 'failed_pages', operator: 'gte', value: 0 }] });
        await completeScan(s, scan.id, {}, {}, false);
        const done = await Promise.all([s.app.scanFollow.drain(), other.app.scanFollow.drain()]);
        const completed = await waitForScan(s, key, scan.id, (state) => state === 'completed');
        assert.deepEqual(completed.attributes.alerts.map((v: any) => [v.holds, v.change]), [[true, 'triggered']]);
        assert.ok(done.reduce((a, b) => a + b, 0) <= 1, `completed ${done.join(', ')} times`);
        const rows = await s.app.store.db.selectFrom('deliveries').select(['event', 'channel', 'body']).where('account_id', '=',
          (await s.app.store.db.selectFrom('scans').select('account_id').where('id', '=', scan.id).executeTakeFirstOrThrow()).account_id).execute();
        assert.deepEqual(rows.map((r) => `${r.channel} ${r.event}`).sort(), ['email scan.alert', 'webhook scan.alert', 'webhook scan.completed']);
        assert.match(JSON.parse(rows.find((r) => r.channel === 'email')!.body).subject, /Alert: Pages that failed ≥ 0 on/);
      } finally {
        await other.close();
      }
    });
  });
}
