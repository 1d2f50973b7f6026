/**
 * The web app's Field steps (issue 50, point 5): a part of the browser suite, test/integration/web-app.test.ts, run in
 * its one server and browser after its other steps. "New field site" (each field named by its label; a bad origin gets
 * the API's message and creates nothing); the site's view with its snippet and live count; page views with known
 * figures, sent as a visitor's browser would (text/plain, the page's Origin), read back as p75 cards within the
 * rollups' 1 %; the device toggle and a template's own view; another account's site is not found; the live count
 * without a reload and the refusals in words; "too few" under 50 page views; the window; a path with lab tests linking
 * its page; the site's alerts (issue 51); the Viewer role sees no form; Settings and Delete. Each screen passes checkScreen (axe, CSP, labels, 375 px).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { nearestRank } from '../../../src/core/field/figures.js';
import { RELATIVE_ACCURACY } from '../../../src/core/field/sketch.js';
import { authenticate } from '../../../src/core/accounts/accounts.js';
import { aria, checkScreen, clickAndWait, fieldNames, goto, heading, newTab, textOf } from '../../helpers/browser.js';
import { accountIdOf, seedPage } from '../../helpers/seed.js';
import { call } from '../../helpers/server.js';
import type { SuiteState } from './journeys.js';

const FIELDS = ['Name', 'Origins', 'Sample rate (%)', 'Raw retention (days)', 'URL templates', 'Keep query strings', 'Honour Global Privacy Control'];
const MOBILE_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36';
const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';

/** The p75 a card shows, in ms ("3.75 s", "850 ms"). */
function ms(text: string): number {
  const m = /([\d.,]+)\s*(ms|s)\b/.exec(text);
  assert.ok(m, `no time in "${text}"`);
  const v = Number(m[1]!.replace(/,/g, ''));
  return m[2] === 's' ? v * 1000 : v;
}

export function fieldSteps(state: () => SuiteState): void {
  let sitePath = '';
  const lcps = { mobile: [] as number[], desktop: [] as number[] };

  it('23a. "Field": "New field site" with each field named by its label; a bad origin gets the API\'s message and creates nothing; the new site shows its snippet and no page views yet', async () => {
    const { server, page, ownerKey, site } = state();
    await goto(page, `${server.base}/field`);
    assert.equal(await heading(page), 'Field');
    assert.deepEqual((await fieldNames(page)).map((f) => f.name), FIELDS);
    await checkScreen(page, 'Field');
    await page.locator(aria('Name', 'textbox')).fill('Fixture site');
    await page.locator(aria('Origins', 'textbox')).fill(`${site.origin}/blog`);
    const refused = await clickAndWait(page, aria('Create field site', 'button'));
    assert.equal(refused.status(), 400);
    assert.match(await textOf(page, '[role=alert]'), /origins\[0\] .*has a path, query or fragment; give the origin alone/);
    assert.equal((await call(server, 'GET', '/field_sites', { key: ownerKey })).body.data.length, 0, 'nothing was created');
    await page.locator(aria('Origins', 'textbox')).fill(site.origin);
    await page.locator(aria('URL templates', 'textbox')).fill('/shop/:item');
    const created = await clickAndWait(page, aria('Create field site', 'button'));
    assert.equal(created.status(), 200);
    sitePath = new URL(page.url()).pathname;
    assert.match(sitePath, /^\/field\/[^/]+$/);
    assert.equal(await heading(page), 'Fixture site');
    const snippet = await page.$eval(aria('Snippet', 'textbox'), (e) => (e as HTMLTextAreaElement).value);
    const id = sitePath.split('/')[2]!;
    assert.match(snippet, new RegExp(`^<script async src="${server.base}/assets/field\\.[0-9a-f]{12}\\.js" data-site="${id}"></script>$`));
    assert.match(await textOf(page, '.field-live-count'), /^0 page views received in the last 5 minutes$/);
    assert.match(await textOf(page, '#main'), /No page view yet in this window/);
    assert.equal(await page.$('section[aria-labelledby=by-template], section[aria-labelledby=attr-h]'), null, 'nothing measured: no empty tables');
    await checkScreen(page, 'a new field site');
  });

  it('23b. page views with known figures: the live count, each card\'s p75 within 1 % of the exact, the device toggle, a template\'s own view; another account\'s site is not found', async () => {
    const { server, page, other, site } = state();
    const id = sitePath.split('/')[2]!;
    const sends: Promise<Response>[] = [];
    for (let i = 0; i < 120; i++) {
      const device = i % 2 === 0 ? 'mobile' : 'desktop';
      const lcp = device === 'mobile' ? 1800 + ((i * 97) % 2600) : 900 + ((i * 53) % 1400);
      lcps[device].push(lcp);
      const path = i % 3 === 0 ? `/shop/item-${i % 7}` : `/blog/post-${i % 5}`;
      sends.push(fetch(`${server.base}/field/beacon/${id}`, { method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', origin: site.origin, 'user-agent': device === 'mobile' ? MOBILE_UA : DESKTOP_UA },
        body: JSON.stringify({ v: 1, url: site.url(path), lcp: { v: lcp, el: '#hero' }, cls: { v: 0.02 }, ttfb: { v: 200 + i } }) }));
    }
    assert.deepEqual([...new Set((await Promise.all(sends)).map((r) => r.status))], [204]);
    await server.app.field.rollup.flush();
    await goto(page, `${server.base}${sitePath}`);
    assert.match(await textOf(page, '.field-live-count'), /^120 page views received in the last 5 minutes$/);
    const lcpCard = () => textOf(page, '.field-card:first-child .field-p75');
    const near = (shown: number, values: number[]) => {
      const exact = nearestRank(values, 0.75);
      assert.ok(Math.abs(shown - exact) <= exact * RELATIVE_ACCURACY + 5, `shown ${shown} against the exact p75 ${exact}`);
    };
    near(ms(await lcpCard()), [...lcps.mobile, ...lcps.desktop]);
    await checkScreen(page, 'a field site with page views');

    await clickAndWait(page, `${'.field-toggle'} ::-p-text(Mobile)`);
    assert.match(page.url(), /device=mobile/);
    assert.equal(await page.$eval('.field-toggle a[aria-current=true]', (e) => e.textContent), 'Mobile');
    near(ms(await lcpCard()), lcps.mobile);

    await clickAndWait(page, aria('/shop/:item', 'link'));
    assert.match(await textOf(page, '.field-filters'), /Showing template \/shop\/:item/);
    assert.match(await textOf(page, '#vitals-h + p'), /^20 page views on mobile devices/, 'the shop\'s mobile views alone (i even and a multiple of 3)');
    const paths = await page.$$eval('section[aria-labelledby=by-path] tbody th a', (as) => as.map((a) => a.textContent));
    assert.ok(paths.length > 0 && paths.every((p) => p!.startsWith('/shop/item-')), `the template's own paths: ${paths.join(', ')}`);
    await checkScreen(page, 'a template of a field site');

    await goto(other, `${server.base}${sitePath}`).catch(() => undefined);
    assert.equal(await heading(other), 'Field site not found');
  });

  /** A beacon as a visitor's browser sends it (text/plain, the page's Origin); its answer's status. */
  const send = async (body: string, origin: string, ua = DESKTOP_UA) => {
    const { server } = state();
    const res = await fetch(`${server.base}/field/beacon/${sitePath.split('/')[2]!}`, { method: 'POST', body,
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin, 'user-agent': ua } });
    return res.status;
  };
  /** The "Lab tests" cell of the By path row of `path`: its link's href, or null when the cell links nothing. */
  const labLink = (page: SuiteState['page'], path: string) => page.evaluate((p) => {
    const row = [...document.querySelectorAll('section[aria-labelledby=by-path] tbody tr')].find((tr) => tr.querySelector('th')?.textContent === p);
    if (!row) throw new Error(`no row for ${p}`);
    return row.querySelector('td:last-child a')?.getAttribute('href') ?? null;
  }, path);

  it('23c. the live count and the refusals in words without a reload; a rated p75 against "too few to judge" under 50 page views; the window; clearing the filter; a path with lab tests links its page (the account\'s own)', async () => {
    const { server, page, site, ownerKey } = state();
    // Pages of the fixture site's paths: one of this account (it links), one of another (it must not).
    const lab = await seedPage(server.app.store, await accountIdOf(server.app.store, ownerKey), { url: site.url('/blog/post-2') });
    const strangerKey = await server.account({ plan: 'basic', email: 'field-stranger@example.test' });
    await seedPage(server.app.store, await accountIdOf(server.app.store, strangerKey), { url: site.url('/blog/post-3') });
    await goto(page, `${server.base}${sitePath}`);
    assert.equal(await labLink(page, '/blog/post-2'), `/pages/${lab.pageId}`, 'the tested path links its page');
    assert.equal(await labLink(page, '/blog/post-3'), null, "another account's page of the path is not linked");
    assert.equal(await labLink(page, '/blog/post-1'), null, 'an untested path links nothing');
    assert.match(await page.$eval('.field-card:first-child .field-p75', (e) => e.className), /\brated-(good|needs_improvement|poor)\b/, '120 page views: coloured by their band');

    // New beacons while the screen is open: two taken, one from a page of another origin, one malformed.
    await page.evaluate(() => { (window as unknown as { unreloaded: boolean }).unreloaded = true; });
    const body = (path: string) => JSON.stringify({ v: 1, url: site.url(path), lcp: { v: 1000 }, cls: { v: 0 }, ttfb: { v: 100 } });
    assert.deepEqual(await Promise.all([send(body('/blog/post-0'), site.origin), send(body('/blog/post-0'), site.origin)]), [204, 204]);
    assert.equal(await send(body('/blog/post-0'), 'https://elsewhere.example'), 403);
    assert.equal(await send('{"v":1,"url":', site.origin), 400);
    await server.app.field.ingest.settle();
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.waitForFunction(() => document.getElementById('field-live-count')?.textContent?.startsWith('122 '), { timeout: 10_000 })
      .catch(async () => assert.fail(`the live count did not move: "${await textOf(page, '#field-live-count')}"`));
    assert.equal(await page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded), true, 'the screen was not reloaded');
    assert.equal(await textOf(page, '#field-live-count'), '122 page views received in the last 5 minutes');
    assert.equal(await textOf(page, '#field-live-intake'), 'In the last 28 days: 122 beacons taken; refused: 1 from a page of another origin, 1 malformed.');

    // A template on mobile: 20 page views, a p75 shown as what it is, not as a verdict.
    await goto(page, `${server.base}${sitePath}?device=mobile&template=${encodeURIComponent('/shop/:item')}`);
    const lcpCard = await textOf(page, '.field-card:first-child');
    assert.match(lcpCard, /p75 of only 20 page views: too few to judge \(50 or more\)/);
    assert.doesNotMatch(await page.$eval('.field-card:first-child .field-p75', (e) => e.className), /rated-/, 'no colour under 50 page views');
    await clickAndWait(page, `nav[aria-label=Window] ${aria('7 days', 'link')}`);
    assert.equal(new URL(page.url()).searchParams.get('days'), '7');
    assert.equal(new URL(page.url()).searchParams.get('template'), '/shop/:item', 'the window keeps the filter');
    assert.equal(await page.$eval('nav[aria-label=Window] a[aria-current=true]', (e) => e.textContent), '7 days');
    assert.equal(await textOf(page, '#vitals-h'), 'Real visitors, p75 over the last 7 days');
    await clickAndWait(page, aria('Show the whole site', 'link'));
    const whole = new URL(page.url());
    assert.deepEqual([whole.searchParams.get('template'), whole.searchParams.get('device'), whole.searchParams.get('days')], [null, 'mobile', '7'],
      'the filter cleared, the device and window kept');
    assert.equal(await page.$('.field-filters'), null, 'no filter shown');
    assert.match(await textOf(page, '#vitals-h + p'), /^60 page views on mobile devices/);
  });

  it('23c2. Alerts: each field named by its label; the API\'s refusal on the form; a condition added is not judged until judged, then triggered on the site\'s view; Delete asks', async () => {
    const { server, page, ownerKey } = state();
    await goto(page, `${server.base}${sitePath}`);
    assert.match(await textOf(page, '.field-alerts-line'), /No alerts yet/);
    await clickAndWait(page, aria('Alerts', 'link'));
    assert.equal(await heading(page), 'Alerts of Fixture site');
    assert.deepEqual((await fieldNames(page)).map((f) => f.name), ['Figure', 'Operator', 'Value', 'Device', 'Template', 'Path', 'Window (days)', 'Minimum page views']);
    await checkScreen(page, 'field alerts');
    const refused = await clickAndWait(page, aria('Add alert', 'button'));
    assert.equal(refused.status(), 400);
    assert.match(await textOf(page, '[role=alert]'), /value is required/);
    await checkScreen(page, 'field alerts, refused', { reload: false });
    await page.select(aria('Figure', 'combobox'), 'field_lcp_p75');
    await page.locator(aria('Value', 'spinbutton')).fill('1');
    await page.select(aria('Device', 'combobox'), 'mobile');
    await page.locator(aria('Minimum page views', 'spinbutton')).fill('1');
    const added = await clickAndWait(page, aria('Add alert', 'button'));
    assert.equal(added.status(), 200);
    assert.match(await textOf(page, '.field-alerts-table'), /LCP p75 > 1 ms, mobile, the whole site, last 7 days, at least 1 page view\s*Not judged yet/);
    const id = sitePath.split('/')[2]!;
    const conditions = (await call(server, 'GET', `/field_sites/${id}/alert_conditions`, { key: ownerKey })).body.data;
    assert.equal(conditions.length, 1, 'added through core, read by the API');
    const changes = await server.app.field.alerts!.judge(Date.now());
    assert.deepEqual(changes.filter((c) => c.condition.id === conditions[0].id).map((c) => c.change), ['triggered']);
    await goto(page, `${server.base}${sitePath}`);
    assert.match(await textOf(page, '.field-alerts-line'), /1 alert condition, 1 triggered/);
    await clickAndWait(page, aria('Alerts', 'link'));
    assert.match(await textOf(page, '.field-alerts-table'), /Triggered since/);
    assert.match(await textOf(page, '.field-alert-events'), /Triggered\s*LCP p75 > 1 ms, mobile/);
    // With a condition (its Delete column's hidden heading) and a change listed: neither may widen the page at 375 px.
    await checkScreen(page, 'field alerts, a condition triggered');
    page.once('dialog', (d) => void d.accept());
    await clickAndWait(page, 'main .field-alerts-table button');
    assert.match(await textOf(page, 'main'), /No alert conditions yet/);
  });

  it('23d. the Viewer role sees the figures and the snippet but no form; Settings change the site (a bad rate gets the API\'s message); Delete asks, then the site is gone', async () => {
    const { server, page, browser, ownerKey } = state();
    const owner = await authenticate(server.app.store.db, server.config.plans, ownerKey);
    assert.ok(owner);
    const viewerKey = await server.account({ plan: 'basic', email: 'field-viewer@example.test', role: 'viewer', teamOf: owner.email });
    const signedIn = await fetch(`${server.base}/sign-in`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ api_key: viewerKey }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.base } });
    const cookie = /(webgauge_session)=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '');
    assert.ok(cookie, 'the viewer signs in');
    const context = await browser.createBrowserContext();
    try {
      const viewer = await newTab(context);
      await viewer.setCookie({ name: cookie[1]!, value: cookie[2]!, url: server.base });
      await goto(viewer, `${server.base}/field`);
      assert.ok(await viewer.$(aria('Fixture site', 'link')), "the team's site is listed");
      assert.equal(await viewer.$('main form'), null, 'no form');
      assert.match(await textOf(viewer, 'main'), /The Viewer role can see field sites but not change them\./);
      await goto(viewer, `${server.base}${sitePath}`);
      assert.equal(await heading(viewer), 'Fixture site');
      assert.ok(await viewer.$(aria('Snippet', 'textbox')), 'the snippet');
      assert.equal(await viewer.$(aria('Settings', 'link')), null, 'no Settings');
      assert.equal(await viewer.$('main form'), null, 'no form');
      assert.equal((await goto(viewer, `${server.base}${sitePath}/settings`)).status(), 403);
    } finally {
      await context.close();
    }

    await goto(page, `${server.base}${sitePath}`);
    await clickAndWait(page, aria('Settings', 'link'));
    assert.equal(await heading(page), 'Settings of Fixture site');
    assert.deepEqual((await fieldNames(page)).map((f) => f.name), FIELDS);
    assert.equal(await page.$eval(aria('URL templates', 'textbox'), (e) => (e as HTMLTextAreaElement).value), '/shop/:item', 'the form holds the site');
    await page.locator(aria('Sample rate (%)', 'spinbutton')).fill('500');
    await page.$eval(aria('Sample rate (%)', 'spinbutton'), (e) => e.removeAttribute('max'));
    const refused = await clickAndWait(page, aria('Save', 'button'));
    assert.equal(refused.status(), 400);
    assert.match(await textOf(page, '[role=alert]'), /sample_rate/);
    await checkScreen(page, 'field site settings, refused', { reload: false });
    await page.locator(aria('Name', 'textbox')).fill('Fixture shop');
    await page.locator(aria('Sample rate (%)', 'spinbutton')).fill('50');
    await clickAndWait(page, aria('Save', 'button'));
    assert.equal(new URL(page.url()).pathname, sitePath);
    assert.equal(await heading(page), 'Fixture shop');
    assert.match(await textOf(page, 'main'), /50% of page views measured/);
    assert.match(await page.$eval(aria('Snippet', 'textbox'), (e) => (e as HTMLTextAreaElement).value), / data-sample="50"/, 'the tag says the new rate');

    await clickAndWait(page, aria('Settings', 'link'));
    const dismissed = new Promise<string>((resolve) => page.once('dialog', (d) => void d.dismiss().then(() => resolve(d.message()))));
    await page.locator(aria('Delete field site', 'button')).click();
    assert.match(await dismissed, /Delete the field site “Fixture shop”/);
    assert.equal((await call(server, 'GET', '/field_sites', { key: ownerKey })).body.data.length, 1, 'dismissed: nothing deleted');
    page.once('dialog', (d) => void d.accept());
    await clickAndWait(page, aria('Delete field site', 'button'));
    assert.equal(new URL(page.url()).pathname, '/field');
    assert.match(await textOf(page, 'main'), /No field site yet/);
    assert.equal((await call(server, 'GET', '/field_sites', { key: ownerKey })).body.data.length, 0);
    assert.equal((await goto(page, `${server.base}${sitePath}`)).status(), 404);
  });
}
