// lane: shared
/**
 * The Pages screens over HTTP (no browser; the browser suite drives them as a person would): the list's filters,
 * sorts and bad values, the page view's charts and reports, its forms (monitoring, tags, retest, delete) through
 * core with the API's messages, other accounts' pages as 404, and the Viewer role. A URL's pages on other devices
 * (issue 49): the page view links its siblings and shows each device's latest figures side by side (never another
 * account's page, nor a page of other options), monitors a sibling with the page ("Also monitor as"), and starts a
 * first test as a device the page has no sibling of.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticate } from '../../src/core/accounts/accounts.js';
import { refreshPage } from '../../src/core/reports/reports.js';
import { optionsFingerprint } from '../../src/core/options/options.js';
import type { AnalysisOptions } from '../../src/core/options/analysis-options.js';
import type { Store } from '../../src/store/db.js';
import { addReport, accountIdOf, seedPage, type Seeded } from '../helpers/seed.js';
import { engines, startServer, type TestServer } from '../helpers/server.js';
import { webSession } from '../helpers/web-session.js';

const HOUR = 3_600_000;

/** A seeded page given other options (a device, an option): its stored options and fingerprint rewritten. */
async function reshape(store: Store, page: Seeded, change: Partial<AnalysisOptions>): Promise<Seeded> {
  const options = { ...page.options, ...change } as AnalysisOptions;
  await store.db.updateTable('pages').set({ options: JSON.stringify(options), fingerprint: optionsFingerprint(options) })
    .where('id', '=', page.pageId).execute();
  await store.db.updateTable('reports').set({ largest_contentful_paint: change.device_class ? 3100 : 1200, performance_score: 77 })
    .where('id', '=', page.reportId).execute();
  return { ...page, options };
}

for (const engine of engines()) describe(`web app: Pages and the page view (${engine})`, () => {
  let server: TestServer;
  let owner: string;
  let viewer: string;
  let basic: string;
  let a: Seeded;
  let b: Seeded;
  let foreign: Seeded;
  let basicPages: Seeded[];
  let tagId: string;
  let desktop: Seeded;
  let phone: Seeded;
  let otherOptions: Seeded;
  let foreignPhone: Seeded;

  const { signIn, get, post } = webSession({ get base() { return server.base; } });
  let ownerCookie: string;
  let viewerCookie: string;
  let basicCookie: string;

  before(async () => {
    server = await startServer({ engine, agentSlots: 0 });
    const store = server.app.store;
    const accountId = await accountIdOf(store, server.key);
    const now = Date.now();
    a = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/alpha.html', created: now - 3 * HOUR });
    await addReport(store, accountId, a.pageId, a.options, { created: now - 2 * HOUR });
    await addReport(store, accountId, a.pageId, a.options, { created: now - HOUR });
    await refreshPage(store.db, a.pageId);
    b = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/beta.html', created: now - 5 * HOUR });
    const basicKey = await server.account({ plan: 'basic', email: 'basic@example.test' });
    const basicId = await accountIdOf(store, basicKey);
    foreign = await seedPage(store, basicId, { url: 'http://127.0.0.1:9/foreign.html' });
    basicPages = [foreign, await seedPage(store, basicId, { url: 'http://127.0.0.1:9/foreign2.html' })];
    const ownerEmail = (await authenticate(store.db, server.config.plans, server.key))!.email;
    owner = server.key;
    viewer = await server.account({ plan: 'pro', role: 'viewer', teamOf: ownerEmail });
    basic = basicKey;
    ownerCookie = await signIn(owner);
    viewerCookie = await signIn(viewer);
    basicCookie = await signIn(basic);
    const tag = await fetch(`${server.api}/page_tags`, {
      method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${owner}:`).toString('base64')}`, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'tag', attributes: { name: 'Shop', color: 'FF8800' } } }),
    });
    tagId = ((await tag.json()) as { data: { id: string } }).data.id;
  });

  after(async () => {
    await server?.close();
  });

  it('lists the account\'s pages, newest test first, each URL linking to its page view', async () => {
    const { status, html } = await get(ownerCookie, '/pages');
    assert.equal(status, 200);
    assert.match(html, /<h1>Pages<\/h1>/);
    // Each URL link is named by its URL (its text may wrap after each /: kit.ts urlLink).
    const links = [...html.matchAll(/<td class="url"><a href="\/pages\/([^"]+)" aria-label="([^"]+)">/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(links, [[a.pageId, a.options.url], [b.pageId, b.options.url]]);
    assert.doesNotMatch(html, /foreign/);
    for (const label of ['Filter by URL', 'Tag', 'Sort by']) assert.match(html, new RegExp(`<label for="[^"]+">${label}</label>`));
    assert.match(html, /<form method="get" action="\/pages" role="search"/);
  });

  it('filters by URL text and tag, sorts, and answers bad values with a list, not an error', async () => {
    assert.deepEqual([...(await get(ownerCookie, '/pages?url=BETA')).html.matchAll(/<td class="url"><a href="\/pages\/([^"]+)"/g)].map((m) => m[1]), [b.pageId]);
    const oldest = await get(ownerCookie, '/pages?sort=latest_report_time');
    assert.deepEqual([...oldest.html.matchAll(/<td class="url"><a href="\/pages\/([^"]+)"/g)].map((m) => m[1]), [b.pageId, a.pageId]);
    const byUrl = await get(ownerCookie, '/pages?sort=url');
    assert.deepEqual([...byUrl.html.matchAll(/<td class="url"><a href="\/pages\/([^"]+)"/g)].map((m) => m[1]), [a.pageId, b.pageId]);
    for (const q of ['tag=no-such-tag', 'tag=%00%27', 'sort=bogus&page=-3', 'page=99', 'url=%25_!', `tag=${tagId}`]) {
      const res = await get(ownerCookie, `/pages?${q}`);
      assert.equal(res.status, 200, q);
    }
    assert.match((await get(ownerCookie, `/pages?tag=${tagId}`)).html, /No page matches these filters/);
    assert.match((await get(ownerCookie, '/pages?page=99')).html, /Previous/);
  });

  it('shows a page: h1 the URL, a chart per metric with a named link per report, the reports to compare', async () => {
    const { status, html } = await get(ownerCookie, `/pages/${a.pageId}`);
    assert.equal(status, 200);
    assert.match(html, new RegExp(`<h1 class="pv-url" aria-label="${a.options.url.replace(/\./g, '\\.')}">`));
    assert.equal(html.match(/<figure class="chart/g)?.length, 8);
    // The seeded reports have no Lighthouse figures (null), and zero timings and sizes.
    assert.match(html, /No performance figures/);
    assert.equal(html.match(/aria-label="\d\d:\d\d:\d\d \d+ \w+ \d{4}: fully loaded 0 ms"/g)?.length, 3);
    assert.match(html, /<form method="get" action="\/compare"/);
    assert.equal(html.match(/<input type="checkbox" id="cmp-[^"]+" name="reports"/g)?.length, 3);
    assert.match(html, /<label for="f-monitoring">Monitoring<\/label>/);
    for (const name of ['Retest', 'Delete page', 'Save monitoring', 'Save tags', 'Compare selected']) assert.match(html, new RegExp(`>${name}</button>`));
    assert.match(html, /<legend class="visually-hidden">Tags<\/legend>/);
  });

  it('gives 404 for another account\'s page and an unknown one, on screens and forms', async () => {
    assert.equal((await get(ownerCookie, `/pages/${foreign.pageId}`)).status, 404);
    assert.equal((await get(ownerCookie, '/pages/nope')).status, 404);
    for (const action of ['retest', 'delete', 'monitoring', 'tags']) {
      assert.equal((await post(ownerCookie, `/pages/${foreign.pageId}/${action}`, [['frequency', 'daily']])).status, 404, action);
    }
  });

  it('sets monitoring through core, with the API\'s messages when refused', async () => {
    const ok = await post(ownerCookie, `/pages/${a.pageId}/monitoring`, [['frequency', 'daily']]);
    assert.equal(ok.status, 303);
    assert.equal(ok.location, `/pages/${a.pageId}?saved=monitoring`);
    const shown = (await get(ownerCookie, ok.location)).html;
    assert.match(shown, /<option value="daily" selected>Daily<\/option>/);
    assert.match(shown, /Next test: <time/);
    assert.match((await get(ownerCookie, '/pages')).html, /<td>Daily<\/td>/);
    const bad = await post(ownerCookie, `/pages/${a.pageId}/monitoring`, [['frequency', 'yearly']]);
    assert.equal(bad.status, 400);
    assert.match(bad.html, /role="alert">Invalid request parameter: frequency must be one of/);
    // The basic plan: no hourly in the list, and one slot.
    const view = (await get(basicCookie, `/pages/${foreign.pageId}`)).html;
    assert.doesNotMatch(view, /Hourly/);
    assert.equal((await post(basicCookie, `/pages/${basicPages[0].pageId}/monitoring`, [['frequency', 'weekly']])).status, 303);
    const full = await post(basicCookie, `/pages/${basicPages[1].pageId}/monitoring`, [['frequency', 'weekly']]);
    assert.equal(full.status, 403);
    assert.match(full.html, /All 1 monitoring slots of the basic plan are in use/);
    const hourly = await post(basicCookie, `/pages/${basicPages[0].pageId}/monitoring`, [['frequency', 'hourly']]);
    assert.equal(hourly.status, 403);
    assert.match(hourly.html, /Hourly monitoring is not part of the basic plan/);
  });

  it('attaches the checked tags and detaches the unchecked', async () => {
    const on = await post(ownerCookie, `/pages/${a.pageId}/tags`, [['tags', tagId]]);
    assert.equal(on.status, 303);
    assert.match((await get(ownerCookie, `/pages/${a.pageId}`)).html, new RegExp(`id="tag-${tagId}" name="tags" value="${tagId}" checked`));
    assert.deepEqual([...(await get(ownerCookie, `/pages?tag=${tagId}`)).html.matchAll(/<td class="url"><a href="\/pages\/([^"]+)"/g)].map((m) => m[1]), [a.pageId]);
    assert.equal((await post(ownerCookie, `/pages/${a.pageId}/tags`)).status, 303);
    assert.doesNotMatch((await get(ownerCookie, `/pages/${a.pageId}`)).html, /checked/);
    const unknown = await post(ownerCookie, `/pages/${a.pageId}/tags`, [['tags', 'no-such-tag']]);
    assert.equal(unknown.status, 404);
    assert.match(unknown.html, /role="alert">Tag not found|No tag with ID/);
  });

  it('shows the Viewer role no controls and refuses its posts', async () => {
    const { status, html } = await get(viewerCookie, `/pages/${a.pageId}`);
    assert.equal(status, 200);
    for (const name of ['Retest', 'Delete page', 'Save monitoring', 'Save tags']) assert.doesNotMatch(html, new RegExp(`>${name}</button>`));
    assert.match(html, /Monitoring: <b>Daily<\/b>/);
    for (const action of ['retest', 'delete', 'monitoring', 'tags']) {
      assert.equal((await post(viewerCookie, `/pages/${a.pageId}/${action}`, [['frequency', 'daily']])).status, 403, action);
    }
  });

  it('retests with the page\'s options and deletes the page', async () => {
    const retest = await post(ownerCookie, `/pages/${b.pageId}/retest`);
    assert.equal(retest.status, 303);
    assert.match(retest.location ?? '', /^\/tests\/[\w-]+$/);
    const del = await post(ownerCookie, `/pages/${b.pageId}/delete`);
    assert.equal(del.status, 303);
    assert.equal(del.location, '/pages');
    assert.equal((await get(ownerCookie, `/pages/${b.pageId}`)).status, 404);
  });

  it('links a page\'s siblings on other devices and shows their latest figures side by side; never another account\'s', async () => {
    // Seeded here, after the lists' tests: one URL's pages of the account, and one of another account.
    const store = server.app.store;
    const [accountId, basicId] = [await accountIdOf(store, owner), await accountIdOf(store, basic)];
    const SIB = 'http://127.0.0.1:9/devices.html';
    const now = Date.now();
    // Each seeded with the default options (one fingerprint: one at a time), then given its own.
    phone = await reshape(store, await seedPage(store, accountId, { url: SIB, created: now - 3 * HOUR }), { device_class: 'phone-mid' });
    otherOptions = await reshape(store, await seedPage(store, accountId, { url: SIB, created: now - 2 * HOUR }), { device_class: 'phone-low', adblock: 1 });
    desktop = await reshape(store, await seedPage(store, accountId, { url: SIB, created: now - 4 * HOUR }), {});
    foreignPhone = await reshape(store, await seedPage(store, basicId, { url: SIB }), { device_class: 'phone-low' });
    const { html } = await get(ownerCookie, `/pages/${desktop.pageId}`);
    assert.match(html, new RegExp(`<p>Tested as <b>Desktop</b>\\. Also tested as: <a href="/pages/${phone.pageId}">Phone \\(mid-tier\\)</a>\\.</p>`));
    const table = /<table class="list pv-device-table">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    assert.match(table, /<th scope="col" class="num">Desktop <span class="muted">\(this page\)<\/span><\/th>/);
    assert.match(table, new RegExp(`<th scope="col" class="num"><a href="/pages/${phone.pageId}">Phone \\(mid-tier\\)</a></th>`));
    assert.match(table, /<th scope="row">LCP<\/th><td class="num rated-good"[^>]*>1\.20 s<\/td><td class="num rated-needs_improvement"[^>]*>3\.10 s<\/td>/);
    assert.match(table, /<th scope="row">Performance<\/th><td class="num">77%?<\/td><td class="num">77%?<\/td>/);
    // The same URL with other options (adblock) and another account's phone page are no siblings.
    for (const other of [otherOptions, foreignPhone]) assert.doesNotMatch(html, new RegExp(other.pageId));
    const back = (await get(ownerCookie, `/pages/${phone.pageId}`)).html;
    assert.match(back, new RegExp(`<p>Tested as <b>Phone \\(mid-tier\\)</b>\\. Also tested as: <a href="/pages/${desktop.pageId}">Desktop</a>\\.</p>`));
    // A page without siblings has no Devices part; the other account sees its own page alone.
    assert.doesNotMatch((await get(ownerCookie, `/pages/${b.pageId}`)).html, /id="pv-devices"/);
    assert.doesNotMatch((await get(basicCookie, `/pages/${foreignPhone.pageId}`)).html, /id="pv-devices"/);
    // The untested device is offered as a first test; the tested ones are not.
    assert.match(html, />Test as Phone \(low-tier\)<\/button>/);
    assert.doesNotMatch(html, />Test as Phone \(mid-tier\)<\/button>/);
  });

  it('monitors a sibling with the page ("Also monitor as"), and stops it when unchecked', async () => {
    const db = server.app.store.db;
    const monitored = async (id: string) => (await db.selectFrom('pages').select('monitored').where('id', '=', id).executeTakeFirstOrThrow()).monitored;
    assert.match((await get(ownerCookie, `/pages/${desktop.pageId}`)).html,
      new RegExp(`<input type="checkbox" id="also-${phone.pageId}" name="also" value="${phone.pageId}"> Also monitor as Phone \\(mid-tier\\)</label>`));
    const on = await post(ownerCookie, `/pages/${desktop.pageId}/monitoring`, [['frequency', 'weekly'], ['also', phone.pageId], ['also', foreignPhone.pageId]]);
    assert.equal(on.status, 303);
    assert.equal(await monitored(desktop.pageId), 'weekly');
    assert.equal(await monitored(phone.pageId), 'weekly');
    assert.equal(await monitored(foreignPhone.pageId), 'no', 'another account\'s page is never touched');
    assert.match((await get(ownerCookie, `/pages/${desktop.pageId}`)).html, new RegExp(`id="also-${phone.pageId}" name="also" value="${phone.pageId}" checked`));
    assert.equal((await post(ownerCookie, `/pages/${desktop.pageId}/monitoring`, [['frequency', 'weekly']])).status, 303);
    assert.equal(await monitored(desktop.pageId), 'weekly');
    assert.equal(await monitored(phone.pageId), 'no');
    assert.equal((await post(ownerCookie, `/pages/${desktop.pageId}/monitoring`, [['frequency', 'no']])).status, 303);
  });

  it('starts a first test as a device the page has no sibling of, with that device_class', async () => {
    const res = await post(ownerCookie, `/pages/${desktop.pageId}/test-as/phone-low`);
    assert.equal(res.status, 303);
    const testId = /^\/tests\/([\w-]+)$/.exec(res.location ?? '')![1]!;
    const row = await server.app.store.db.selectFrom('tests').select('options').where('id', '=', testId).executeTakeFirstOrThrow();
    const options = JSON.parse(row.options) as AnalysisOptions;
    assert.equal(options.device_class, 'phone-low');
    assert.equal(options.url, desktop.options.url);
    assert.equal((await post(ownerCookie, `/pages/${desktop.pageId}/test-as/tablet`)).status, 400);
    assert.equal((await post(ownerCookie, `/pages/${foreignPhone.pageId}/test-as/desktop`)).status, 404);
    assert.equal((await post(viewerCookie, `/pages/${desktop.pageId}/test-as/phone-low`)).status, 403);
  });
});
