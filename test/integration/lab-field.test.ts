// lane: shared
/**
 * Field figures of a report's URL and of a scan's site, and the gate's field budgets (issue 51, point 3's gate half), on
 * both engines without a browser: page views with known figures sent to the real beacon endpoint (a desktop and a
 * mobile User-Agent) and counted into the rollups, reports and a scan written into the store (test/helpers/seed.ts),
 * then GET /reports/{id}/field and GET /scans/{id}/field (basis path with 50 views or more, the template's with fewer,
 * too few, no field site, another account's 404; each answer held to the OpenAPI document), and `webgauge test` in this
 * process with stub loads (the agent is handed a result, no page is loaded): a field budget over the p75 exits 1, under
 * it 0, on too few views "skipped" (exit 0); per device; the scan's site judged by its field budgets.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { ApiClient } from '../../src/gate/api-client.js';
import { gateMain } from '../../src/gate/cli.js';
import { checkFieldBudgets, fetchField } from '../../src/gate/field-budgets.js';
import { parseSiteBudgets } from '../../src/gate/scan-budgets.js';
import type { RunSpec } from '../../src/runner/types.js';
import { sendFieldViews, viewsOf } from '../helpers/field-views.js';
import { capturedIo } from '../helpers/gate-process.js';
import { accountIdOf, addReport, seedPage, seedScan } from '../helpers/seed.js';
import { call, engines, errorOf, startServer, type Res, type TestServer } from '../helpers/server.js';
import { stubResult } from '../helpers/stub-result.js';

/** The field site's origin: nothing listens there; the stub loads never fetch it. */
const ORIGIN = 'http://127.0.0.1:9';
const url = (path: string) => `${ORIGIN}${path}`;

interface JsonCheck { attribute: string; outcome: string; message: string }
interface JsonResult { exitCode: number; checks: JsonCheck[] }

for (const engine of engines()) {
  describe(`field figures of a report and a scan, and field budgets (${engine})`, () => {
    let server: TestServer;
    let accountId: string;
    let siteId: string;
    let dir: string;
    // A stub load runs as the test's device class, as a real load says it from its conditions.
    const run = (spec: RunSpec) => Promise.resolve({ ...stubResult(spec.options.url), deviceClass: spec.conditions.device.deviceClass });

    before(async () => {
      server = await startServer({ engine, agentSlots: 1, env: { WEBGAUGE_FIELD_CLIENT_RATE: '10000000' }, overrides: { run } });
      // The rollups are counted when the test says (flush).
      await server.app.field.rollup.stop();
      accountId = await accountIdOf(server.app.store, server.key);
      dir = await mkdtemp(join(tmpdir(), 'webgauge-lab-field-'));
      const res = await call(server, 'POST', '/field_sites', { key: server.key,
        body: { data: { type: 'field_site', attributes: { name: 'Shop', origins: [ORIGIN], templates: ['/p/:id'] } } } });
      assert.equal(res.status, 201, res.text);
      siteId = res.body.data.id;
      await sendFieldViews(server.base, siteId, [
        // /p/1: 60 desktop views at LCP 3 s (its own basis), 60 mobile at 1.5 s.
        ...viewsOf(60, url('/p/1'), 'desktop', { lcp: 3000, cls: 0.3, ttfb: 400 }),
        ...viewsOf(60, url('/p/1'), 'mobile', { lcp: 1500, cls: 0.02, ttfb: 300 }),
        // /p/2: 10 desktop views, so its template /p/:id's 70 are read.
        ...viewsOf(10, url('/p/2'), 'desktop', { lcp: 2000 }),
        // /q/1: 5 views, and its template no more: too few.
        ...viewsOf(5, url('/q/1'), 'desktop', { lcp: 9000 }),
      ]);
      await server.app.field.rollup.flush();
    });
    after(async () => {
      await server?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /** The answer conforms to the OpenAPI document's schema of the route's 200. */
    const conforms = async (route: string, res: Res) => {
      const doc = (await (await fetch(`${server.api}/openapi.json`)).json()) as object;
      const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
      ajv.addSchema(doc, 'openapi.json');
      const validate = ajv.compile({ $ref: `openapi.json#/paths/${route.replace(/\//g, '~1')}/get/responses/200/content/application~1vnd.api+json/schema` });
      assert.ok(validate(res.body), `${route}: ${ajv.errorsText(validate.errors)}`);
    };
    const reportField = async (id: string, key = server.key) => {
      const res = await call(server, 'GET', `/reports/${encodeURIComponent(id)}/field`, { key });
      if (res.status === 200) await conforms('/reports/{id}/field', res);
      return res;
    };

    test('GET /reports/{id}/field: the URL\'s own views from 50, its template\'s under, too few, no field site; the test\'s device', async () => {
      const own = await seedPage(server.app.store, accountId, { url: url('/p/1') });
      const res = await reportField(own.reportId);
      assert.equal(res.status, 200, res.text);
      const a = res.body.data.attributes;
      assert.equal(res.body.data.type, 'report_field');
      assert.deepEqual(a.site, { id: siteId, name: 'Shop' });
      assert.equal(a.device, 'desktop');
      assert.equal(a.device_class, 'desktop');
      assert.equal(a.basis, 'path');
      assert.equal(a.path, '/p/1');
      assert.equal(a.template, '/p/:id');
      assert.equal(a.path_views, 60);
      assert.equal(a.template_views, 70);
      assert.equal(a.min_views, 50);
      assert.equal(a.window.days, 28);
      assert.equal(a.metrics.lcp.page_views, 60);
      assert.ok(Math.abs(a.metrics.lcp.p75 - 3000) <= 30, `LCP p75 ${a.metrics.lcp.p75}`);
      assert.equal(a.metrics.lcp.rating, 'needs_improvement');
      assert.equal(a.metrics.lcp.poor, 0);
      assert.equal(a.metrics.cls.poor, 1);
      assert.equal(a.metrics.inp.page_views, 0);
      assert.equal(a.metrics.inp.p75, null);
      assert.match(res.body.data.links.field, new RegExp(`/field/${siteId}\\?device=desktop&days=28&path=%2Fp%2F1`));

      // A phone's report: the mobile visitors of the same URL.
      const phone = await addReport(server.app.store, accountId, own.pageId, own.options);
      await server.app.store.db.updateTable('reports').set({ device_cpu: JSON.stringify({ device_class: 'phone-mid' }) }).where('id', '=', phone).execute();
      const p = (await reportField(phone)).body.data.attributes;
      assert.equal(p.device, 'mobile');
      assert.equal(p.device_class, 'phone-mid');
      assert.ok(Math.abs(p.metrics.lcp.p75 - 1500) <= 15, `mobile LCP p75 ${p.metrics.lcp.p75}`);

      // A report before device classes (no device stored) whose options simulate a device: a mid-tier phone, as its page is.
      const simulated = await seedPage(server.app.store, accountId, { url: url('/p/1'), location: '2' });
      await server.app.store.db.updateTable('reports').set({ options: JSON.stringify({ ...simulated.options, simulate_device: 'iphone_15' }) })
        .where('id', '=', simulated.reportId).execute();
      const s = (await reportField(simulated.reportId)).body.data.attributes;
      assert.equal(s.device_class, 'phone-mid');
      assert.equal(s.device, 'mobile');

      const few = (await reportField((await seedPage(server.app.store, accountId, { url: url('/p/2') })).reportId)).body.data.attributes;
      assert.equal(few.basis, 'template');
      assert.equal(few.path_views, 10);
      assert.equal(few.template_views, 70);
      assert.equal(few.metrics.lcp.page_views, 70);
      assert.match(few.detail, /10 page views of \/p\/2 .*fewer than 50: the figures are its template \/p\/:id's \(70 page views\)/);

      const none = (await reportField((await seedPage(server.app.store, accountId, { url: url('/q/1') })).reportId)).body.data.attributes;
      assert.equal(none.basis, 'too-few');
      assert.match(none.detail, /^Too few to judge: 5 page views of \/q\/1/);

      const elsewhere = await reportField((await seedPage(server.app.store, accountId, { url: 'http://127.0.0.2:9/p/1' })).reportId);
      assert.equal(elsewhere.status, 200);
      assert.equal(elsewhere.body.data.attributes.site, null);
      assert.equal(elsewhere.body.data.attributes.metrics, null);
      assert.match(elsewhere.body.data.attributes.detail, /No field site of this account collects page views from http:\/\/127\.0\.0\.2:9/);

      const other = await reportField(own.reportId, await server.account({ plan: 'pro' }));
      assert.equal(other.status, 404);
      assert.equal(errorOf(other).code, 'E40401');
    });

    test('GET /scans/{id}/field: the whole field site for the scan\'s device; another account\'s is 404', async () => {
      const { scanId } = await seedScan(server.app.store, accountId, { url: url('/'), state: 'completed',
        pages: [{ url: url('/p/1'), template: '/p/:id', largest_contentful_paint: 1200 }] });
      const res = await call(server, 'GET', `/scans/${scanId}/field`, { key: server.key });
      assert.equal(res.status, 200, res.text);
      await conforms('/scans/{id}/field', res);
      const a = res.body.data.attributes;
      assert.equal(res.body.data.type, 'scan_field');
      assert.equal(a.origin, ORIGIN);
      assert.equal(a.device, 'desktop');
      assert.equal(a.basis, 'site');
      assert.equal(a.page_views, 75);
      assert.ok(Math.abs(a.metrics.lcp.p75 - 3000) <= 30, `site LCP p75 ${a.metrics.lcp.p75}`);

      // The scan's site judged by field budgets from those figures, as `webgauge scan` judges it once the scan completed.
      const api = new ApiClient(server.base, server.key);
      const checks = checkFieldBudgets(parseSiteBudgets(['field_lcp_p75=2500', 'field_ttfb_p75=1000', 'field_inp_p75=200']),
        await fetchField(api, `/scans/${scanId}/field`));
      assert.deepEqual(checks.map((c) => c.outcome), ['fail', 'pass', 'skipped']);
      assert.match(checks[0]!.message, /^field_lcp_p75 3\.0\d s is over its budget of max 2\.50 s \(real visitors on desktop, last 28 days: 75 page views of the site\)/);
      assert.match(checks[2]!.message, /field_inp_p75: not judged: too few page views to judge: 0 page views measured INP/);

      const other = await call(server, 'GET', `/scans/${scanId}/field`, { key: await server.account({ plan: 'pro' }) });
      assert.equal(other.status, 404);
      assert.equal(errorOf(other).code, 'E40400');
    });

    const gate = async (args: string[]) => {
      const io = capturedIo({ WEBGAUGE_SERVER: server.base, WEBGAUGE_KEY: server.key, WEBGAUGE_POLL_MS: '100' });
      const code = await gateMain([...args, '--report', 'none', '--json'], io);
      return { code, doc: JSON.parse(io.out()) as JsonResult & { devices?: Record<string, JsonResult> }, err: io.err() };
    };

    test('webgauge test: a field budget over the URL\'s p75 exits 1, under it 0; too few views are skipped, said', { timeout: 60_000 }, async () => {
      const over = await gate([url('/p/1'), '--budget', 'field_lcp_p75=2500']);
      assert.equal(over.code, 1, over.err);
      assert.equal(over.doc.checks[0]!.outcome, 'fail');
      assert.match(over.doc.checks[0]!.message, /^field_lcp_p75 3\.0\d s is over its budget of max 2\.50 s \(real visitors on desktop, last 28 days: 60 page views of \/p\/1\)/);

      const file = join(dir, 'field.json');
      await writeFile(file, JSON.stringify({ fully_loaded_time: { max: 1000 }, field_lcp_p75: { max: 3500 } }));
      const under = await gate([url('/p/1'), '--budget', file, '--budget', 'field_cls_poor_share=1']);
      assert.equal(under.code, 0, under.err);
      assert.deepEqual(under.doc.checks.map((c) => [c.attribute, c.outcome]),
        [['fully_loaded_time', 'pass'], ['field_lcp_p75', 'pass'], ['field_cls_poor_share', 'pass']]);

      const template = await gate([url('/p/2'), '--budget', 'field_lcp_p75=2500']);
      assert.equal(template.code, 1, template.err);
      assert.match(template.doc.checks[0]!.message, /70 page views of the template \/p\/:id, read as the URL \/p\/2 had 10 page views, fewer than 50/);

      const few = await gate([url('/q/1'), '--budget', 'field_lcp_p75=2500']);
      assert.equal(few.code, 0, few.err);
      assert.equal(few.doc.checks[0]!.outcome, 'skipped');
      assert.match(few.doc.checks[0]!.message, /field_lcp_p75: not judged: too few page views to judge: 5 page views of \/q\/1.*fewer than 50 on desktop/);

      const none = await gate(['http://127.0.0.2:9/p/1', '--budget', 'field_lcp_p75=2500']);
      assert.equal(none.code, 0, none.err);
      assert.equal(none.doc.checks[0]!.outcome, 'skipped');
      assert.match(none.doc.checks[0]!.message, /not judged: No field site of this account collects page views from http:\/\/127\.0\.0\.2:9/);
    });

    test('webgauge test --device desktop,phone: each device\'s test judged by its own visitors and its own field budget', { timeout: 60_000 }, async () => {
      const ran = await gate([url('/p/1'), '--device', 'desktop,phone', '--budget', 'field_lcp_p75=3500', '--budget', 'phone:field_lcp_p75=1000']);
      assert.equal(ran.code, 1, ran.err);
      const d = ran.doc.devices!;
      assert.equal(d.desktop!.exitCode, 0);
      assert.match(d.desktop!.checks[0]!.message, /within its budget \(max 3\.50 s\) \(real visitors on desktop/);
      assert.equal(d['phone-mid']!.exitCode, 1);
      assert.match(d['phone-mid']!.checks[0]!.message, /^field_lcp_p75 1\.5\d s is over its budget of max 1\.00 s \(real visitors on mobile/);
    });
  });
}
