/**
 * The web app's Field steps (issue 50, point 5): a part of the browser suite, test/integration/web-app.test.ts, run in
 * its one server and browser after its other steps. "New field site" (each field named by its label; a bad origin gets
 * the API's message and creates nothing); the site's view with its snippet and live count; page views with known
 * figures, sent as a visitor's browser would (text/plain, the page's Origin), read back as p75 cards within the
 * rollups' 1 %; the device toggle and a template's own view; another account's site is not found. Each screen passes
 * checkScreen (axe, CSP, labels, 375 px).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { nearestRank } from '../../../src/core/field/figures.js';
import { RELATIVE_ACCURACY } from '../../../src/core/field/sketch.js';
import { aria, checkScreen, clickAndWait, fieldNames, goto, heading, textOf } from '../../helpers/browser.js';
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
}
