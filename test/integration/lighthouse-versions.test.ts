// lane: pairs 110
/**
 * The line between Lighthouse 12 and 13, on both engines and without a page load: migration 012 on a database made
 * before it; a report made by Lighthouse 12.8.2 (its real files, test/fixtures/lighthouse-12: made by Webgauge before
 * the upgrade) keeps its figures, scores and audits and still renders (its Lighthouse report and flow report in a real
 * Chromium, once: the renderer is not the store's); the page view marks the change; an alert on the structure score
 * compares only within one audit set and says so, while the performance metrics compare across it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration } from 'kysely';
import pg from 'pg';
import { checkConditions, createCondition, regressionVerdict } from '../../src/core/alerts/alerts.js';
import { ARTIFACT, artifactKey } from '../../src/core/reports/reports.js';
import { migrations } from '../../src/store/migrations/index.js';
import { launchBrowser, newTab } from '../helpers/browser.js';
import { pdfText } from '../helpers/pdf-text.js';
import { accountIdOf, addReport, seedPage } from '../helpers/seed.js';
import { call, engines, freshPgDatabase, startServer, type TestServer } from '../helpers/server.js';
import { webSession } from '../helpers/web-session.js';

const FIXTURES = new URL('../fixtures/lighthouse-12/', import.meta.url);
const fixture = (name: string): Buffer => gunzipSync(readFileSync(new URL(`${name}.json.gz`, FIXTURES)));
const LHR_12 = fixture('lighthouse');
const FLOW_12 = fixture('flow');
const STRUCTURE_12 = fixture('structure');

/** A database of `engine` migrated up to and including `last`; the migrator runs it on to the latest. */
async function databaseAt(engine: 'sqlite' | 'postgres', last: string): Promise<{ db: Kysely<any>; latest(): Promise<void>; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-migrate-'));
  const pgdb = engine === 'postgres' ? await freshPgDatabase() : undefined;
  const db = new Kysely<any>({
    dialect: pgdb ? new PostgresDialect({ pool: new pg.Pool({ connectionString: pgdb.url }) })
      : new SqliteDialect({ database: new SQLite(join(dir, 'webgauge.sqlite')) }),
  });
  const migrator = (upTo?: string) => new Migrator({
    db, provider: { getMigrations: async () => upTo === undefined ? migrations : Object.fromEntries(
      Object.entries(migrations).filter(([name]) => name <= upTo)) as Record<string, Migration> },
  });
  const { error } = await migrator(last).migrateToLatest();
  assert.equal(error, undefined);
  return {
    db,
    async latest() {
      const { error: e } = await migrator().migrateToLatest();
      assert.equal(e, undefined);
    },
    async close() {
      await db.destroy();
      await pgdb?.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

for (const engine of engines()) {
  describe(`the Lighthouse 12 → 13 line (${engine})`, () => {
    test('migration 012 says which Lighthouse made the reports already stored: 12.8.2 where it made figures', async () => {
      const at = await databaseAt(engine, '011_report_journeys');
      try {
        const row = (id: string, extra: Record<string, unknown>) => ({
          id, account_id: 'a', test_id: id, page_id: 'p', url: 'http://x.test/', source: 'api', report_type: 'lighthouse',
          options: '{}', created: 1, expires: 2, browser: '3', location: '1', user_agent: 'ua', resources: '["net.har"]',
          filmstrip_frames: 0, html_bytes: 1, page_bytes: 1, page_requests: 1, redirect_duration: 0, connect_duration: 0,
          backend_duration: 0, time_to_first_byte: 0, first_paint_time: 0, first_contentful_paint: 0, dom_interactive_time: 0,
          dom_content_loaded_time: 0, dom_content_loaded_duration: 0, onload_time: 0, onload_duration: 0, fully_loaded_time: 0,
          rum_speed_index: 0, ...extra,
        });
        await at.db.insertInto('reports').values([
          row('scored', { performance_score: 91, structure_score: 80, resources: '["net.har","lighthouse.json","structure.json"]' }),
          row('no-fcp', { resources: '["net.har","lighthouse.json","structure.json"]' }),
          row('journey', { report_type: 'none', journey: '{"title":"j","measured_step":0,"steps":[]}' }),
          row('plain', { report_type: 'none' }),
        ]).execute();
        await at.latest();
        const versions = Object.fromEntries((await at.db.selectFrom('reports').select(['id', 'lighthouse_version']).execute())
          .map((r: { id: string; lighthouse_version: string | null }) => [r.id, r.lighthouse_version]));
        assert.deepEqual(versions, { scored: '12.8.2', 'no-fcp': '12.8.2', journey: '12.8.2', plain: null });
        await at.db.insertInto('alert_events').values({ id: 'e', account_id: 'a', page_id: 'p', condition_id: 'c', report_id: 'scored',
          metric: 'structure_score', value: 1, threshold: 2, state: 'triggered', created: 1, note: 'why' }).execute();
      } finally {
        await at.close();
      }
    });

    describe('a report made by Lighthouse 12.8.2, after the upgrade', () => {
      let server: TestServer;
      let reportId: string;
      let journeyId: string;
      let pageId: string;
      before(async () => {
        server = await startServer({ engine, env: { WEBGAUGE_PDF_WAIT_MS: '60000' } });
        const accountId = await accountIdOf(server.app.store, server.key);
        const seeded = await seedPage(server.app.store, accountId, { url: 'http://127.0.0.1:9/old' });
        ({ reportId, pageId } = seeded);
        journeyId = await addReport(server.app.store, accountId, pageId, seeded.options, { created: Date.now() - 1000 });
        const resources = [ARTIFACT.har, ARTIFACT.lighthouse, ARTIFACT.structure];
        await server.app.artifacts.put(artifactKey(reportId, ARTIFACT.lighthouse), LHR_12);
        await server.app.artifacts.put(artifactKey(reportId, ARTIFACT.structure), STRUCTURE_12);
        await server.app.artifacts.put(artifactKey(reportId, ARTIFACT.har), '{"log":{"entries":[]}}');
        await server.app.artifacts.put(artifactKey(journeyId, ARTIFACT.flow), FLOW_12);
        await server.app.store.db.updateTable('reports').set({ lighthouse_version: '12.8.2', performance_score: 86, structure_score: 82,
          service_grade: 'B', service_score: 84, resources: JSON.stringify(resources) }).where('id', '=', reportId).execute();
        await server.app.store.db.updateTable('reports').set({ lighthouse_version: '12.8.2', resources: JSON.stringify([ARTIFACT.flow]) })
          .where('id', '=', journeyId).execute();
      });
      after(async () => server?.close());

      test('keeps its figures and says which Lighthouse made them', async () => {
        const res = await call(server, 'GET', `/reports/${reportId}`, { key: server.key });
        assert.equal(res.status, 200, res.text);
        const a = res.body.data.attributes;
        assert.deepEqual([a.lighthouse_version, a.performance_score, a.structure_score, a.service_grade], ['12.8.2', 86, 82, 'B']);
        assert.match(res.body.data.links.structure, new RegExp(`/reports/${reportId}/resources/structure\\.json$`));
      });

      test('structure.json gives the audits it was scored with, in today\'s shape', async () => {
        for (const name of ['structure.json', 'structure']) {
          const res = await call(server, 'GET', `/reports/${reportId}/resources/${name}`, { key: server.key });
          assert.equal(res.status, 200, res.text);
          assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
          const s = res.body;
          assert.deepEqual([s.score, s.audit_set, s.lighthouse_version], [82, '12', '12.8.2']);
          const blocking = s.audits.find((x: { id: string }) => x.id === 'render-blocking-resources');
          assert.deepEqual([blocking.title, blocking.score], ['Eliminate render-blocking resources', 0]);
          assert.match(blocking.display_value, /^Est savings of 590\sms$/);
          assert.ok(s.audits.every((x: { items: unknown }) => Array.isArray(x.items)));
          assert.ok(!s.audits.some((x: { id: string }) => x.id.endsWith('-insight')), 'nothing was re-scored with Lighthouse 13\'s audits');
        }
        const none = await call(server, 'GET', `/reports/${journeyId}/resources/structure.json`, { key: server.key });
        assert.equal(none.status, 404);
        assert.equal(none.body.errors[0].code, 'E40410');
      });

      test('its report page and the page view say which Lighthouse made it, and its 12 audits', async () => {
        const page = await fetch(`${server.base}/reports/${reportId}`);
        const html = await page.text();
        assert.equal(page.status, 200);
        assert.match(html, /Lighthouse <b>12\.8\.2<\/b>/);
        assert.match(html, /Eliminate render-blocking resources/);
        assert.match(html, /Lighthouse 12\.8\.2's audits/);
      });

      // The renderer runs in the browser: once, on the first engine (what is stored is the same on both).
      test('its Lighthouse report and its journey\'s flow report still render (Lighthouse 13\'s renderer, a real Chromium)', {
        skip: engine !== engines()[0] ? 'the renderer is the same on both engines' : false,
      }, async () => {
        const browser = await launchBrowser();
        try {
          // lighthouse.html: every audit, and its footer names Lighthouse 12.8.2; flow.html: its five steps' summary.
          for (const [id, name, part, count] of [[reportId, 'lighthouse.html', '.lh-audit', 30], [journeyId, 'flow.html', '.SummaryFlowStep', 5]] as const) {
            const res = await fetch(`${server.base}/reports/${id}/${name}`);
            assert.equal(res.status, 200, name);
            const tab = await newTab(browser);
            const errors: string[] = [];
            tab.on('pageerror', (e) => errors.push(String(e)));
            await tab.setContent(await res.text(), { waitUntil: 'load' });
            await tab.waitForSelector(part, { timeout: 15_000 });
            const shown = await tab.$$eval(part, (els) => els.length);
            assert.ok(name === 'flow.html' ? shown === count : shown >= count, `${name}: ${shown} of ${part}`);
            const text = await tab.evaluate(() => document.body.innerText);
            if (name === 'lighthouse.html') assert.match(text, /Lighthouse 12\.8\.2/, 'its footer names the Lighthouse that made it');
            assert.doesNotMatch(text, /Lighthouse Report Error|failed to render/i, name);
            assert.deepEqual(errors, [], `${name} renders without a script error`);
            await tab.close();
          }
        } finally {
          await browser.close();
        }
        // The PDF prints the report page (its own Chromium): the figures and audits it was made with.
        const pdf = await fetch(`${server.api}/reports/${reportId}/resources/report.pdf`,
          { headers: { authorization: `Basic ${Buffer.from(`${server.key}:`).toString('base64')}` } });
        assert.equal(pdf.status, 200);
        const bytes = Buffer.from(await pdf.arrayBuffer());
        assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
        const text = await pdfText(bytes);
        if (text !== undefined) {
          assert.match(text, /Lighthouse 12\.8\.2/);
          assert.match(text, /Eliminate render-blocking resources/);
        }
      });
    });

    test('an alert on the structure score compares only within one audit set and says so; performance compares across', async () => {
      const server = await startServer({ engine });
      try {
        const store = server.app.store;
        const accountId = await accountIdOf(store, server.key);
        const { pageId, reportId: first, options } = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/line' });
        const principal = { accountId, role: 'owner' } as never;
        const structureDrop = await createCondition(store.db, principal, pageId, { metric: 'structure_score', operator: 'regression', value: 0.05 });
        const gradeBelow = await createCondition(store.db, principal, pageId, { metric: 'service_score', operator: 'lt', value: 85 });
        const slower = await createCondition(store.db, principal, pageId, { metric: 'performance_score', operator: 'regression', value: 0.05 });
        const t0 = Date.now() - 3_600_000;
        const made: { id: string; created: number }[] = [];
        // Ten reports of Lighthouse 12.8.2 (structure 90), then five of 13.5.0 (structure 70: its other audits), whose
        // performance is lower too (the same metrics: a real change).
        for (let i = 0; i < 15; i++) {
          const v13 = i >= 10;
          const created = t0 + i * 60_000;
          const id = i === 0 ? first : await addReport(store, accountId, pageId, options, { created });
          await store.db.updateTable('reports').set({
            created, lighthouse_version: v13 ? '13.5.0' : '12.8.2', structure_score: v13 ? 70 + (i % 3) : 90 + (i % 3),
            performance_score: v13 ? 60 + (i % 3) : 95 - (i % 3), service_score: v13 ? 64 : 93, service_grade: v13 ? 'D' : 'A',
          }).where('id', '=', id).execute();
          made.push({ id, created });
        }
        const events: Awaited<ReturnType<typeof checkConditions>> = [];
        for (const r of made) events.push(...await checkConditions(store.db, { id: r.id, page_id: pageId, created: r.created }));
        const on = (c: { id: string }) => events.filter((e) => e.condition.id === c.id).map((e) => e.event);
        // Across the line the structure scores would read as a regression; within it there is none to see yet.
        assert.equal(regressionVerdict([72, 71, 70, 72, 71, 92, 91, 90, 92, 91, 90, 92], 'structure_score', 0.05)?.holds, true);
        assert.deepEqual(on(structureDrop), [], 'no structure regression from the re-mapping alone');
        const [graded] = on(gradeBelow);
        assert.equal(graded?.state, 'triggered');
        assert.equal(graded?.report_id, made[10]!.id);
        assert.match(graded!.note ?? '', /Lighthouse 13\.5\.0.*Lighthouse 12\.8\.2/);
        const [perf] = on(slower);
        assert.equal(perf?.state, 'triggered', 'the performance score compares across the line');
        assert.equal(perf?.note, null);
        // The note reaches the API.
        const res = await call(server, 'GET', `/pages/${pageId}/performance_alert_events`, { key: server.key });
        const noted = res.body.data.find((e: { attributes: { metric: string } }) => e.attributes.metric === 'service_score');
        assert.match(noted.attributes.note, /structure audits of Lighthouse 13\.5\.0/);
        // The page view marks where the Lighthouse changed, and does not join the structure line across it.
        const session = webSession(server);
        const view = await session.get(await session.signIn(server.key), `/pages/${pageId}`);
        assert.equal(view.status, 200);
        assert.match(view.html, /class="lh-change" role="img" aria-label="Lighthouse 12\.8\.2 → 13\.5\.0 from [^"]*: structure before and after read other audits and do not compare"/);
        assert.match(view.html, /aria-label="Lighthouse 12\.8\.2 → 13\.5\.0 from [^"]*"><title>[^<]*<\/title><line[^>]*\/><text[^>]*>LH 13\.5<\/text>/);
      } finally {
        await server.close();
      }
    });
  });
}
