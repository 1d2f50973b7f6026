// lane: shared
/**
 * Pages and the lists (spec 1.2, 2.3, 4.1, 4.3, 7, 8) through HTTP on both engines.
 *
 * Data seeding, not a flow test: reports are made by the real `completeTest` with a synthetic RunResult (the test
 * is queued over HTTP and claimed as an agent claims it), so reports and pages have exactly the shape the service
 * makes; the pagination and tiebreak cases insert rows of that same shape directly. The browser run itself is
 * covered by flow.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FileArtifactStore } from '../../src/artifacts/store.js';
import { authenticate } from '../../src/core/accounts/accounts.js';
import { clock } from '../../src/core/clock.js';
import { completeTest, refreshPage, type ReportRow } from '../../src/core/reports/reports.js';
import { claimTest } from '../../src/core/tests/tests.js';
import type { RunResult } from '../../src/runner/types.js';
import { IMPACT_WEIGHT, STRUCTURE_AUDITS, structureReport } from '../../src/analysis/grade.js';
import { LIGHTHOUSE_13_AUDITS } from '../../src/analysis/structure/lighthouse-audits.js';
import { call, engines, errorOf, startServer, type Res, type TestServer } from '../helpers/server.js';

const HOST = 'http://127.0.0.1:9';
const DAY = 86_400_000;

function ok(res: Res, status = 200) {
  assert.equal(res.status, status, res.text.slice(0, 400));
  assert.equal(res.body.errors, undefined);
  return res.body;
}
function fails(res: Res, status: number, code: string) {
  assert.equal(res.status, status, res.text.slice(0, 400));
  const e = errorOf(res);
  assert.equal(e.code, code, e.detail);
  assert.equal(e.status, String(status));
  assert.ok(e.detail && e.detail.length > 0);
}

/**
 * Lighthouse audits that make the structure score come out as `structure`: every Lighthouse structure audit
 * scores the same x, chosen so that with our own audits (which count over the HAR: with no entries, the ones
 * that apply score 1) the weighted mean is exactly structure / 100.
 */
function structureAudits(structure: number): Record<string, { score: number; scoreDisplayMode: string }> {
  const ours = structureReport({}, { log: { entries: [] } }).audits.filter((a) => a.score !== null);
  const oursWeight = ours.reduce((sum, a) => sum + a.weight, 0);
  const oursPoints = ours.reduce((sum, a) => sum + a.weight * a.score!, 0);
  // The audits scored by Lighthouse's own score (long-tasks counts its items, dom-size-insight its elements,
  // third-parties-insight its parties' main-thread time).
  const ids = LIGHTHOUSE_13_AUDITS.filter((a) => (a.scoring ?? 'lighthouse') === 'lighthouse').map((a) => a.id);
  const lhWeight = ids.reduce((sum, id) => sum + IMPACT_WEIGHT[STRUCTURE_AUDITS[id]!], 0);
  const x = (((lhWeight + oursWeight) * structure) / 100 - oursPoints) / lhWeight;
  assert.ok(x >= 0 && x <= 1, `structure ${structure} cannot be made`);
  const audits = Object.fromEntries(ids.map((id) => [id, { score: x, scoreDisplayMode: 'numeric' }]));
  assert.equal(structureReport(audits, { log: { entries: [] } }).score, structure);
  return audits;
}

/** A run's result with chosen scores: performance as given, structure via the structure audits (above). */
function runResult(perf: number, structure: number, fullyLoaded = 1500): RunResult {
  return {
    finalUrl: 'x',
    userAgent: 'Mozilla/5.0 test',
    metrics: {
      html_bytes: 1000, page_bytes: 50_000, page_requests: 12, redirect_duration: 0, connect_duration: 3, backend_duration: 20,
      time_to_first_byte: 25, first_paint_time: 300, first_contentful_paint: 300, dom_interactive_time: 400,
      dom_content_loaded_time: 420, dom_content_loaded_duration: 2, onload_time: 800, onload_duration: 1,
      fully_loaded_time: fullyLoaded, rum_speed_index: 350, speed_index: 360, largest_contentful_paint: 500,
      time_to_interactive: 800, total_blocking_time: 0, cumulative_layout_shift: 0.01, performance_score: perf,
    },
    lighthouse: { audits: structureAudits(structure) },
    har: { log: { version: '1.2', pages: [], entries: [] } },
    screenshot: Buffer.from('jpeg'),
    filmstrip: [],
    phases: {},
  };
}

for (const engine of engines()) {
  describe(`pages and lists (${engine})`, () => {
    let s: TestServer;
    let artifacts: FileArtifactStore;
    // The clock only moves forward during one server's run (seeding spaces reports by advancing it), so a
    // report made later is always newer; it is reset when the server closes.
    before(async () => {
      s = await startServer({ engine, agentSlots: 0, leaseMs: 3_600_000 });
      artifacts = new FileArtifactStore(join(s.config.dataDir, 'artifacts'));
    });
    after(async () => {
      clock.reset();
      await s?.close();
    });

    const db = () => s.app.store.db;
    const accountOf = async (key: string) => (await authenticate(db(), s.config.plans, key))!.accountId;

    /** Queue over HTTP, claim as the agent does, complete with a synthetic result; returns the report ID. */
    async function report(key: string, path: string, opts: { perf?: number; structure?: number; noScores?: boolean; attrs?: Record<string, unknown> } = {}) {
      const res = await call(s, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: HOST + path, ...opts.attrs } } } });
      const id = ok(res, 202).data.id;
      const claimed = await claimTest(s.app.store, '1', 'seed-agent', 60_000);
      assert.equal(claimed?.id, id);
      const result = runResult(opts.perf ?? 80, opts.structure ?? 90);
      if (opts.noScores) {
        delete result.metrics.performance_score;
        result.lighthouse = { audits: {} };
      }
      assert.equal(await completeTest(s.app.store, artifacts, id, 'seed-agent', result), true);
      clock.advance(1500); // distinct `created` seconds between reports
      return id as string;
    }
    const pageOf = async (key: string, reportId: string) => ok(await call(s, 'GET', `/reports/${reportId}`, { key })).data.attributes.page as string;

    describe('pages', () => {
      let key: string;
      let r1: string;
      let r2: string;
      let r3: string;
      let page: string;
      before(async () => {
        key = await s.account({ plan: 'pro' });
        r1 = await report(key, '/p.html', { perf: 60 });
        r2 = await report(key, '/p.html', { perf: 95, structure: 95 });
        r3 = await report(key, '/p.html', { attrs: { adblock: 1 } });
        page = await pageOf(key, r1);
      });

      test('the same URL and options reuse the page; other options make another page', async () => {
        assert.equal(await pageOf(key, r2), page);
        assert.notEqual(await pageOf(key, r3), page);
      });

      test('GET /pages/{id} answers the page with count, latest report and absolute links', async () => {
        const body = ok(await call(s, 'GET', `/pages/${page}`, { key }));
        const d = body.data;
        assert.equal(d.type, 'page');
        assert.equal(d.id, page);
        const a = d.attributes;
        assert.equal(a.url, `${HOST}/p.html`);
        assert.equal(a.report_count, 2);
        assert.equal(a.latest_report, r2);
        const latest = ok(await call(s, 'GET', `/reports/${r2}`, { key })).data.attributes.created;
        assert.equal(a.latest_report_time, latest);
        assert.ok(Number.isInteger(a.created) && a.created <= latest);
        assert.equal(a.monitored, 'no');
        assert.deepEqual(a.page_tags, []);
        assert.equal(typeof a.browser, 'string');
        assert.equal(typeof a.location, 'string');
        const self = `${s.api}/pages/${page}`;
        assert.deepEqual(d.links, {
          self,
          retest: `${self}/retest`,
          latest_report: `${self}/latest-report`,
          reports: `${self}/reports`,
          location: `${s.api}/locations/${a.location}`,
          browser: `${s.api}/browsers/${a.browser}`,
          performance_monitor: `${self}/performance_monitor`,
          performance_alert_conditions: `${self}/performance_alert_conditions`,
          performance_alert_events: `${self}/performance_alert_events`,
        });
      });

      test('GET /pages/{id}/latest-report is GET /reports/{id} of the latest, with Cache-Control', async () => {
        const res = await call(s, 'GET', `/pages/${page}/latest-report`, { key });
        assert.equal(res.headers.get('cache-control'), 'max-age=31536000');
        const direct = await call(s, 'GET', `/reports/${r2}`, { key });
        assert.deepEqual(ok(res), ok(direct));
      });

      test('unknown and foreign pages are 404 E40402 on every page endpoint', async () => {
        const other = await s.account({ plan: 'pro' });
        for (const k of [key, other]) {
          const id = k === key ? 'AAAAAAAAAAAA' : page;
          fails(await call(s, 'GET', `/pages/${id}`, { key: k }), 404, 'E40402');
          fails(await call(s, 'GET', `/pages/${id}/latest-report`, { key: k }), 404, 'E40402');
          fails(await call(s, 'GET', `/pages/${id}/reports`, { key: k }), 404, 'E40402');
          fails(await call(s, 'POST', `/pages/${id}/retest`, { key: k }), 404, 'E40402');
          fails(await call(s, 'DELETE', `/pages/${id}`, { key: k }), 404, 'E40402');
        }
      });

      test('reports and pages carry the page tags', async () => {
        const acc = await accountOf(key);
        await db().insertInto('tags').values({ id: 'tagA', account_id: acc, name: 'a', description: null, color: 'FFFFFF', created: 1 }).execute();
        await db().insertInto('page_tag_links').values({ page_id: page, tag_id: 'tagA', account_id: acc }).execute();
        try {
          assert.deepEqual(ok(await call(s, 'GET', `/pages/${page}`, { key })).data.attributes.page_tags, ['tagA']);
          assert.deepEqual(ok(await call(s, 'GET', `/reports/${r1}`, { key })).data.attributes.page_tags, ['tagA']);
          const list = ok(await call(s, 'GET', `/pages/${page}/reports`, { key })).data;
          for (const r of list) assert.deepEqual(r.attributes.page_tags, ['tagA']);
          const pages = ok(await call(s, 'GET', '/pages', { key })).data;
          assert.deepEqual(pages.find((p: any) => p.data.id === page).data.attributes.page_tags, ['tagA']);
        } finally {
          await db().deleteFrom('page_tag_links').where('tag_id', '=', 'tagA').execute();
          await db().deleteFrom('tags').where('id', '=', 'tagA').execute();
        }
      });

      test('POST /pages/{id}/retest queues a test with the settings of the last report', async () => {
        const res = await call(s, 'POST', `/pages/${page}/retest`, { key });
        const body = ok(res, 202);
        assert.equal(res.headers.get('location'), `${s.api}/tests/${body.data.id}`);
        assert.equal(body.data.attributes.state, 'queued');
        assert.equal(body.data.attributes.url, `${HOST}/p.html`);
        assert.equal(typeof body.meta.credits_used, 'number');
        const claimed = await claimTest(s.app.store, '1', 'seed-agent', 60_000);
        assert.equal(claimed?.id, body.data.id);
        assert.equal(claimed?.page_id, page, 'the same options find the same page');
        assert.equal(await completeTest(s.app.store, artifacts, claimed!.id, 'seed-agent', runResult(70, 70)), true);
        const a = ok(await call(s, 'GET', `/pages/${page}`, { key })).data.attributes;
        assert.equal(a.report_count, 3);
        assert.equal(a.latest_report, body.data.id);
      });

      test('deleting a report keeps count and latest report true; deleting the last one removes the page', async () => {
        const k = await s.account({ plan: 'pro' });
        const a = await report(k, '/d.html');
        const b = await report(k, '/d.html');
        const p = await pageOf(k, a);
        ok(await call(s, 'DELETE', `/reports/${b}`, { key: k }));
        let attrs = ok(await call(s, 'GET', `/pages/${p}`, { key: k })).data.attributes;
        assert.equal(attrs.report_count, 1);
        assert.equal(attrs.latest_report, a);
        ok(await call(s, 'DELETE', `/reports/${a}`, { key: k }));
        fails(await call(s, 'GET', `/pages/${p}`, { key: k }), 404, 'E40402');
        assert.deepEqual(ok(await call(s, 'GET', '/pages', { key: k })).data, []);
        // A new report of the same URL and options makes a new page.
        const c = await report(k, '/d.html');
        attrs = ok(await call(s, 'GET', `/reports/${c}`, { key: k })).data.attributes;
        assert.notEqual(attrs.page, p);
      });

      test('expired reports are never served or counted; a page whose reports all expired is gone', async () => {
        const k = await s.account({ plan: 'pro' });
        const long = await report(k, '/e.html', { attrs: { retention: 6 } });
        const short = await report(k, '/e.html');
        const gone = await report(k, '/f.html');
        const p = await pageOf(k, long);
        const q = await pageOf(k, gone);
        assert.equal(ok(await call(s, 'GET', `/pages/${p}`, { key: k })).data.attributes.latest_report, short);
        clock.advance(40 * DAY);
        fails(await call(s, 'GET', `/reports/${short}`, { key: k }), 404, 'E40401');
        const attrs = ok(await call(s, 'GET', `/pages/${p}`, { key: k })).data.attributes;
        assert.equal(attrs.report_count, 1, 'the expired report is not counted');
        assert.equal(attrs.latest_report, long, 'the latest valid report, though older');
        assert.deepEqual(ok(await call(s, 'GET', `/pages/${p}/reports`, { key: k })).data.map((r: any) => r.id), [long]);
        fails(await call(s, 'GET', `/pages/${q}`, { key: k }), 404, 'E40402');
        assert.deepEqual(ok(await call(s, 'GET', '/pages', { key: k })).data.map((x: any) => x.data.id), [p]);
        assert.equal(existsSync(join(s.config.dataDir, 'artifacts', gone)), false, 'expired report files removed');
      });

      test('DELETE /pages/{id} removes the page, its reports and their files; a viewer may not', async () => {
        const owner = `owner-${Date.now()}@example.test`;
        const k = await s.account({ plan: 'pro', email: owner });
        const viewer = await s.account({ plan: 'pro', role: 'viewer', teamOf: owner });
        const a = await report(k, '/x.html');
        const b = await report(k, '/x.html');
        const p = await pageOf(k, a);
        assert.ok(existsSync(join(s.config.dataDir, 'artifacts', a)));
        fails(await call(s, 'DELETE', `/pages/${p}`, { key: viewer }), 403, 'E40301');
        const body = ok(await call(s, 'DELETE', `/pages/${p}`, { key: k }));
        assert.deepEqual(body, { data: { type: 'page', id: p } });
        fails(await call(s, 'GET', `/pages/${p}`, { key: k }), 404, 'E40402');
        for (const r of [a, b]) {
          fails(await call(s, 'GET', `/reports/${r}`, { key: k }), 404, 'E40401');
          assert.equal(existsSync(join(s.config.dataDir, 'artifacts', r)), false);
        }
      });
    });

    describe('GET /pages', () => {
      let key: string;
      const ids: Record<string, string> = {};
      before(async () => {
        key = await s.account({ plan: 'pro' });
        for (const path of ['/Shop/a_b.html', '/shop/axb.html', '/blog/100%25.html', '/about.html']) {
          ids[path] = await pageOf(key, await report(key, path));
        }
        await report(key, '/about.html'); // about: 2 reports, latest report last
        const acc = await accountOf(key);
        await db().insertInto('tags').values([
          { id: `t1-${engine}`, account_id: acc, name: 't1', description: null, color: 'FFFFFF', created: 1 },
          { id: `t2-${engine}`, account_id: acc, name: 't2', description: null, color: 'FFFFFF', created: 2 },
        ]).execute();
        await db().insertInto('page_tag_links').values([
          { page_id: ids['/Shop/a_b.html'], tag_id: `t1-${engine}`, account_id: acc },
          { page_id: ids['/Shop/a_b.html'], tag_id: `t2-${engine}`, account_id: acc },
          { page_id: ids['/shop/axb.html'], tag_id: `t1-${engine}`, account_id: acc },
        ]).execute();
        await db().updateTable('pages').set({ monitored: 'daily' }).where('id', '=', ids['/blog/100%25.html']).execute();
      });
      const list = async (qs: string) => {
        const body = ok(await call(s, 'GET', `/pages${qs}`, { key }));
        for (const item of body.data) assert.equal(item.data.type, 'page', 'each item is wrapped as {data: {...}}');
        return body.data.map((item: any) => item.data.id);
      };
      const of = (...paths: string[]) => paths.map((p) => ids[p]);

      test('default: newest first, 10 a page, meta.curr_page "1", self link', async () => {
        const res = await call(s, 'GET', '/pages', { key });
        const body = ok(res);
        assert.deepEqual(body.data.map((x: any) => x.data.id), of('/about.html', '/blog/100%25.html', '/shop/axb.html', '/Shop/a_b.html'));
        assert.equal(body.meta.curr_page, '1');
        assert.equal(body.links.self, `${s.api}/pages`);
        assert.equal(body.links.next, undefined);
        assert.equal(body.links.prev, undefined);
      });

      test('url is a case-insensitive substring; LIKE wildcards match themselves', async () => {
        assert.deepEqual(await list('?filter[url]=SHOP'), of('/shop/axb.html', '/Shop/a_b.html'));
        assert.deepEqual(await list('?filter[url]=a_b'), of('/Shop/a_b.html'));
        assert.deepEqual(await list('?filter[url]=100%25'), of('/blog/100%25.html'));
        assert.deepEqual(await list('?filter[url]=%25'), of('/blog/100%25.html'));
        assert.deepEqual(await list('?filter[url]=about+,+blog'), of('/about.html', '/blog/100%25.html'));
      });

      test('numeric filters, monitored, sort by latest_report_time', async () => {
        assert.deepEqual(await list('?filter[report_count:gte]=2'), of('/about.html'));
        assert.deepEqual(await list('?filter[monitored]=daily'), of('/blog/100%25.html'));
        assert.deepEqual((await list('?filter[monitored]=no')).length, 3);
        assert.deepEqual(await list('?sort=-latest_report_time&page[size]=2'), of('/about.html', '/blog/100%25.html'));
        assert.deepEqual(await list('?sort=created'), of('/Shop/a_b.html', '/shop/axb.html', '/blog/100%25.html', '/about.html'));
        fails(await call(s, 'GET', '/pages?sort=report_count', { key }), 400, 'E40007');
      });

      test('page_tag: all listed tags by default, any with OR; an unknown tag matches nothing', async () => {
        const [t1, t2] = [`t1-${engine}`, `t2-${engine}`];
        assert.deepEqual(await list(`?filter[page_tag]=${t1},${t2}`), of('/Shop/a_b.html'));
        assert.deepEqual(await list(`?filter[page_tag]=${t1}`), of('/shop/axb.html', '/Shop/a_b.html'));
        assert.deepEqual(await list(`?filter[page_tag]=${t2}&filter[page_tag]=nope`), []);
        assert.deepEqual(await list(`?filter[page_tag]=${t2},nope&filter[:bool]=OR`), of('/Shop/a_b.html'));
        assert.deepEqual(await list(`?filter[page_tag]=${t2}&filter[url]=about&filter[:bool]=OR`), of('/about.html', '/Shop/a_b.html'));
      });

      test('filters combine with AND by default and OR on request', async () => {
        assert.deepEqual(await list('?filter[url]=shop&filter[report_count:gte]=2'), []);
        assert.deepEqual(await list('?filter[url]=axb&filter[report_count:gte]=2&filter[:bool]=OR'), of('/about.html', '/shop/axb.html'));
      });

      test('paging: next and prev keep the query; beyond the end is empty', async () => {
        const first = ok(await call(s, 'GET', '/pages?filter[url]=.html&page[size]=3', { key }));
        assert.equal(first.data.length, 3);
        assert.equal(first.links.next, `${s.api}/pages?filter[url]=.html&page[size]=3&page[number]=2`);
        const second = ok(await call(s, 'GET', first.links.next, { key }));
        assert.equal(second.meta.curr_page, '2');
        assert.equal(second.data.length, 1);
        assert.equal(second.links.next, undefined);
        assert.equal(second.links.prev, `${s.api}/pages?filter[url]=.html&page[size]=3&page[number]=1`);
        const beyond = ok(await call(s, 'GET', '/pages?page[number]=9', { key }));
        assert.deepEqual(beyond.data, []);
        assert.equal(beyond.meta.curr_page, '9');
      });

      test('bad queries get their spec codes', async () => {
        fails(await call(s, 'GET', '/pages?filter[state]=queued', { key }), 400, 'E40005');
        fails(await call(s, 'GET', '/pages?filter[:bool]=OR', { key }), 400, 'E40005');
        fails(await call(s, 'GET', '/pages?filter[monitored]=yearly', { key }), 400, 'E40006');
        fails(await call(s, 'GET', '/pages?filter[created:gt]=soon', { key }), 400, 'E40006');
        fails(await call(s, 'GET', '/pages?sort=url', { key }), 400, 'E40007');
        fails(await call(s, 'GET', '/pages?page[size]=501', { key }), 400, 'E40008');
        fails(await call(s, 'GET', '/pages?page[number]=0', { key }), 400, 'E40008');
      });
    });

    describe('GET /pages/{id}/reports', () => {
      let key: string;
      let acc: string;
      let page: string;
      const made: string[] = [];
      before(async () => {
        key = await s.account({ plan: 'pro' });
        acc = await accountOf(key);
        made.push(await report(key, '/r.html', { perf: 40, structure: 40 })); // F
        made.push(await report(key, '/r.html', { perf: 95, structure: 95 })); // A
        made.push(await report(key, '/r.html', { perf: 85, structure: 80 })); // B
        made.push(await report(key, '/r.html', { noScores: true })); // Lighthouse gave no scores
        page = await pageOf(key, made[0]);
      });
      const ids = async (qs: string) => ok(await call(s, 'GET', `/pages/${page}/reports${qs}`, { key })).data.map((r: any) => r.id);

      test('default: newest first, report objects with links', async () => {
        const body = ok(await call(s, 'GET', `/pages/${page}/reports`, { key }));
        assert.deepEqual(body.data.map((r: any) => r.id), [...made].reverse());
        assert.equal(body.data[0].type, 'report');
        assert.equal(body.data[0].links.self, `${s.api}/reports/${made[3]}`);
        assert.equal(body.meta.curr_page, '1');
      });

      test('filters on scores, grade, source and time; OR across names', async () => {
        assert.deepEqual(await ids('?filter[performance_score:gte]=50&sort=-created'), [made[2], made[1]]);
        assert.deepEqual(await ids('?filter[service_grade]=a,b&sort=created'), [made[1], made[2]]);
        assert.deepEqual(await ids('?filter[service_grade]=F&filter[performance_score:gt]=90&filter[:bool]=OR&sort=created'), [made[0], made[1]]);
        assert.deepEqual(await ids('?filter[source]=monitored'), []);
        const created = ok(await call(s, 'GET', `/reports/${made[1]}`, { key })).data.attributes.created;
        assert.deepEqual(await ids(`?filter[created:eq]=${created}`), [made[1]]);
        assert.deepEqual(await ids(`?filter[created:lte]=${created}&sort=created`), [made[0], made[1]]);
        assert.deepEqual(await ids(`?filter[created:gt]=${created}&sort=created`), [made[2], made[3]]);
      });

      test('sort by a score puts reports without one last, both directions', async () => {
        assert.deepEqual(await ids('?sort=performance_score'), [made[0], made[2], made[1], made[3]]);
        assert.deepEqual(await ids('?sort=-structure_score'), [made[1], made[2], made[0], made[3]]);
      });

      test('one filtered or sorted query at a time per account: 429 E42902 while another holds the lock', async () => {
        const locks = db().withTables<{ report_list_locks: { account_id: string; token: string; expires: number } }>();
        await locks.insertInto('report_list_locks').values({ account_id: acc, token: 'other-process', expires: clock.now() + 30_000 }).execute();
        try {
          const res = await call(s, 'GET', `/pages/${page}/reports?sort=-created`, { key });
          fails(res, 429, 'E42902');
          fails(await call(s, 'GET', `/pages/${page}/reports?filter[source]=api`, { key }), 429, 'E42902');
          ok(await call(s, 'GET', `/pages/${page}/reports?page[size]=2`, { key }));
          const other = await s.account({ plan: 'pro' });
          fails(await call(s, 'GET', `/pages/${page}/reports?sort=-created`, { key: other }), 404, 'E40402');
          // A lock older than 30 s belongs to a process that died: it is taken over.
          clock.advance(31_000);
          assert.equal(ok(await call(s, 'GET', `/pages/${page}/reports?sort=-created`, { key })).data.length, 4);
          const left = await locks.selectFrom('report_list_locks').selectAll().where('account_id', '=', acc).execute();
          assert.deepEqual(left, [], 'released after the query');
        } finally {
          await locks.deleteFrom('report_list_locks').where('account_id', '=', acc).execute();
        }
      });

      test('bad queries get their spec codes', async () => {
        fails(await call(s, 'GET', `/pages/${page}/reports?filter[started:gt]=1`, { key }), 400, 'E40005');
        fails(await call(s, 'GET', `/pages/${page}/reports?foo=1`, { key }), 400, 'E40005');
        fails(await call(s, 'GET', `/pages/${page}/reports?filter[service_grade]=Z`, { key }), 400, 'E40006');
        fails(await call(s, 'GET', `/pages/${page}/reports?sort=url`, { key }), 400, 'E40007');
        fails(await call(s, 'GET', `/pages/${page}/reports?page[size]=abc`, { key }), 400, 'E40008');
      });

      test('paging through 120 reports with one created time never repeats or skips one (id tiebreaker)', async () => {
        const k = await s.account({ plan: 'pro' });
        const seed = await report(k, '/many.html');
        const base = await db().selectFrom('reports').selectAll().where('id', '=', seed).executeTakeFirstOrThrow();
        const rows: ReportRow[] = Array.from({ length: 119 }, (_, i) => ({ ...base, id: `bulk${engine}${String(i).padStart(4, '0')}`, test_id: `bulk${i}` }));
        await db().insertInto('reports').values(rows).execute();
        await refreshPage(db(), base.page_id);
        const seen: string[] = [];
        let next: string | undefined = `${s.api}/pages/${base.page_id}/reports?sort=-created&page[size]=50`;
        let pagesRead = 0;
        while (next) {
          const body = ok(await call(s, 'GET', next, { key: k }));
          seen.push(...body.data.map((r: any) => r.id));
          next = body.links.next;
          pagesRead++;
        }
        assert.equal(pagesRead, 3);
        assert.equal(seen.length, 120);
        assert.equal(new Set(seen).size, 120);
        assert.equal(ok(await call(s, 'GET', `/pages/${base.page_id}`, { key: k })).data.attributes.report_count, 120);
      });
    });

    describe('GET /tests', () => {
      let key: string;
      const t: string[] = [];
      before(async () => {
        key = await s.account({ plan: 'pro' });
        t.push(await report(key, '/t.html'));
        const q = ok(await call(s, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url: `${HOST}/t2.html` } } } }), 202);
        t.push(q.data.id);
        const base = await db().selectFrom('tests').selectAll().where('id', '=', t[0]).executeTakeFirstOrThrow();
        // A monitored test, and one past the 24 h retention.
        await db().insertInto('tests').values([
          { ...base, id: `mon-${engine}`, source: 'monitored', created: base.created + 1 },
          { ...base, id: `old-${engine}`, created: clock.now() - DAY - 60_000 },
        ]).execute();
      });
      const ids = async (qs: string) => ok(await call(s, 'GET', `/tests${qs}`, { key })).data.map((x: any) => x.id);

      test('lists the account\'s API tests of the last 24 h, oldest first', async () => {
        const body = ok(await call(s, 'GET', '/tests', { key }));
        assert.deepEqual(body.data.map((x: any) => x.id), t);
        assert.equal(body.data[0].type, 'test');
        assert.equal(body.data[0].attributes.state, 'completed');
        assert.equal(body.data[1].attributes.state, 'queued');
        assert.equal(body.meta.curr_page, '1');
      });

      test('a source filter overrides the api default', async () => {
        assert.deepEqual(await ids('?filter[source]=monitored'), [`mon-${engine}`]);
        assert.deepEqual(await ids('?filter[source]=api,monitored'), [t[0], `mon-${engine}`, t[1]]);
      });

      test('state, time and sort', async () => {
        assert.deepEqual(await ids('?filter[state]=queued'), [t[1]]);
        assert.deepEqual(await ids('?sort=-created'), [t[1], t[0]]);
        assert.deepEqual(await ids('?filter[finished:gt]=0'), [t[0]]);
        assert.deepEqual(await ids('?sort=-finished'), [t[0], t[1]], 'no finished time sorts last');
        const created = ok(await call(s, 'GET', '/tests', { key })).data[0].attributes.created;
        assert.deepEqual(await ids(`?filter[created:eq]=${created}`), [t[0]]);
        assert.deepEqual(await ids(`?filter[created:lt]=${created}`), []);
        assert.deepEqual(await ids(`?filter[state]=queued&filter[created:lte]=${created}&filter[:bool]=OR`), t);
      });

      test('bad queries get their spec codes', async () => {
        fails(await call(s, 'GET', '/tests?filter[state]=foo', { key }), 400, 'E40006');
        fails(await call(s, 'GET', '/tests?filter[source]=bar', { key }), 400, 'E40006');
        fails(await call(s, 'GET', '/tests?filter[url]=x', { key }), 400, 'E40005');
        fails(await call(s, 'GET', '/tests?sort=state', { key }), 400, 'E40007');
        fails(await call(s, 'GET', '/tests?page[size]=0', { key }), 400, 'E40008');
      });
    });
  });
}
