// lane: pairs 45
/**
 * Lab beside field with real parts (issue 51), on both engines: Chromium loads a page of the field fixture site that
 * carries the service's own snippet (its beacons go to the real beacon endpoint), more views of it come through the
 * endpoint with known figures, then a real scan (Lighthouse in the service's agent) tests the same URL. Its report
 * shows the lab LCP beside visitors' p75, flagged in the right direction; the scan's site report sorts the page into
 * good lab / poor field; a URL without views is said to have none.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { rate } from '../../src/analysis/figures.js';
import { heroPainted, hideByAnotherTab, startFieldFixture, type FieldFixture } from '../fixtures/field/site.js';
import { launchBrowser } from '../helpers/browser.js';
import { call, engines, startServer, type TestServer } from '../helpers/server.js';
import { sendFieldViews, viewsOf } from '../helpers/field-views.js';
import { scanBody, waitForScan } from '../helpers/scans.js';
import { webSession } from '../helpers/web-session.js';

/** The real visits' LCP image is held back this long by the server; the lab's is not held at all. */
const FIELD_HOLD_MS = 1000;
const REAL_VISITS = 4;
/** Views sent through the endpoint: visitors slower than the lab, and shifting (CLS poor). */
const SENT = { views: 60, lcp: 3000, cls: 0.3, fcp: 1200, ttfb: 150 };

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ');

describe('lab beside field with a real browser', () => {
  let fx: FieldFixture;
  let browser: Browser;
  before(async () => {
    [fx, browser] = await Promise.all([startFieldFixture(Buffer.from('')), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await fx?.close();
  });

  for (const engine of engines()) {
    describe(engine, () => {
      let server: TestServer;
      before(async () => {
        server = await startServer({ engine, agentSlots: 1, env: { WEBGAUGE_FIELD_CLIENT_RATE: '1000000' } });
        await server.app.field.rollup.stop();
      });
      after(() => server?.close());

      test('a page\'s visitors, then its lab test: the report and the scan show both, flagged and grouped', async (t) => {
        const variant = `lab${engine}`;
        const created = await call(server, 'POST', '/field_sites', { key: server.key,
          body: { data: { type: 'field_site', attributes: { name: 'Fixture', origins: [fx.siteOrigin] } } } });
        assert.equal(created.status, 201, created.text);
        const site = created.body.data;
        fx.tags.set(variant, site.attributes.snippet);
        const path = `/${variant}/lcp`;
        const url = `${fx.siteOrigin}${path}`;

        // Real visits: the snippet measures each and sends its beacon at the hidden (another tab to the front).
        const countViews = async () => Number((await server.app.store.db.selectFrom('field_views').select((eb) => eb.fn.countAll<number>().as('n'))
          .where('site_id', '=', site.id).executeTakeFirstOrThrow()).n);
        for (let i = 0; i < REAL_VISITS; i++) {
          const page = await browser.newPage();
          await page.setViewport({ width: 1200, height: 800 });
          await page.goto(`${url}?hold=${FIELD_HOLD_MS}`, { waitUntil: 'load' });
          await heroPainted(page);
          await hideByAnotherTab(page);
          // The beacon is taken within milliseconds on a quiet machine; CI's busy neighbours may hold it for seconds.
          const deadline = Date.now() + 15_000;
          while ((await countViews()) < i + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
          await page.close();
        }
        assert.equal(await countViews(), REAL_VISITS, 'each real visit sent one beacon, taken by the service');
        const real = await server.app.store.db.selectFrom('field_views').select(['lcp', 'path', 'device']).where('site_id', '=', site.id).execute();
        t.diagnostic(`${engine}: the real visits' LCPs ${real.map((v) => v.lcp).join(', ')} ms (image held ${FIELD_HOLD_MS} ms)`);
        for (const v of real) {
          assert.equal(v.path, path, 'the query dropped');
          assert.equal(v.device, 'desktop');
          // Not before the held image came; its paint may wait on a busy CPU (field-snippet.test holds the snippet to its truths, alone).
          assert.ok(v.lcp! >= FIELD_HOLD_MS && v.lcp! < FIELD_HOLD_MS + 2500, `a real visit's LCP ${v.lcp} ms against the image held ${FIELD_HOLD_MS} ms`);
        }
        await sendFieldViews(server.base, site.id, viewsOf(SENT.views, url, 'desktop', { lcp: SENT.lcp, cls: SENT.cls, fcp: SENT.fcp, ttfb: SENT.ttfb }));
        await server.app.field.rollup.flush();

        // The lab: a scan of the URL (image not held) and of a page no visitor saw, Lighthouse in the service's agent.
        const started = await call(server, 'POST', '/scans', { key: server.key, body: scanBody({ url: `${fx.siteOrigin}/${variant}/plain-lab`, source: 'list',
          urls: [`${path}?hold=0`, `/${variant}/plain-lab`], report: 'lighthouse', location: '1', keep_query: true }) });
        assert.equal(started.status, 202, started.text);
        const running = started.body.data;
        const done = await waitForScan(server, server.key, running.id, (s) => s !== 'running' && s !== 'discovering', 240_000, 500);
        assert.equal(done.attributes.state, 'completed', JSON.stringify(done.attributes));
        const pages = await call(server, 'GET', `/scans/${running.id}/pages`, { key: server.key });
        assert.equal(pages.status, 200, pages.text);
        const tested = pages.body.data.find((p: any) => p.attributes.url.startsWith(url));
        assert.ok(tested?.attributes.report, JSON.stringify(pages.body.data.map((p: any) => p.attributes)));
        const labLcp = tested.attributes.largest_contentful_paint as number;
        const labTbt = tested.attributes.total_blocking_time as number;
        const labCls = tested.attributes.cumulative_layout_shift as number;
        t.diagnostic(`${engine}: the lab's LCP ${labLcp} ms, TBT ${labTbt} ms, CLS ${labCls}`);
        assert.ok(labLcp < 1000, `the lab's LCP ${labLcp} ms, the image not held`);

        const web = webSession(server);
        const cookie = await web.signIn(server.key);
        const report = await web.get(cookie, `/reports/${tested.attributes.report}`);
        assert.equal(report.status, 200);
        const card = text(report.html.slice(report.html.indexOf('id="lab-field"')));
        assert.match(card, new RegExp(`${REAL_VISITS + SENT.views} page views of this URL`));
        // Visitors' p75 is 3.00 s within the rollups' 1 %; the flag says the lab is the optimistic one, by how much.
        const flag = /Lab more optimistic: The lab's LCP \(([\d.]+) (ms|s)\) is ([\d.]+) s better than visitors' p75 \(([\d.]+) s\)/.exec(card);
        assert.ok(flag, card.slice(0, 1500));
        const p75 = Number(flag[4]) * 1000;
        assert.ok(Math.abs(p75 - SENT.lcp) <= SENT.lcp * 0.01 + 5, `visitors' p75 ${p75} ms`);
        assert.match(report.html, new RegExp(`href="/field/${site.id}\\?device=desktop&amp;days=28&amp;path=${encodeURIComponent(path).replace(/%2F/g, '%2F')}`));
        assert.doesNotMatch(card, /Lab more pessimistic/);

        const scan = await web.get(cookie, `/scans/${running.id}`);
        assert.equal(scan.status, 200);
        const part = scan.html.slice(scan.html.indexOf('id="sr-field"'), scan.html.indexOf('id="pages"'));
        const groups = text(part);
        // The lab passes on good LCP, CLS and TBT. The page does no script work, so its TBT is 0 on a quiet machine; a
        // CPU shared with other tests can make a long task of the snippet's parse, and then the page is rightly 'Aligned'
        // (poor lab, poor field): the group must follow the lab's own figures either way.
        const labGood = ([['largest_contentful_paint', labLcp], ['cumulative_layout_shift', labCls], ['total_blocking_time', labTbt]] as const)
          .every(([name, value]) => rate(name, value) === 'good');
        const [title, id] = labGood ? ['Good lab, poor field', 'good-lab-poor-field'] : ['Aligned', 'aligned'];
        const expected = groups.indexOf(`${title} (1 page)`);
        const none = groups.indexOf('No field figures (1 page)');
        assert.ok(expected >= 0 && none > expected, `the page in '${title}' (lab LCP ${labLcp} ms, TBT ${labTbt} ms, CLS ${labCls}): ${groups}`);
        const group = part.slice(part.indexOf(`id="lf-group-${id}"`), part.indexOf('id="lf-group-no-field"'));
        assert.ok(group.includes(`href="/reports/${tested.attributes.report}"`), `the visited page is the '${title}' one`);
        assert.equal((groups.match(/\((\d+) pages?\)/g) ?? []).length, 2, `two groups only: ${groups}`);
      });
    });
  }
});
