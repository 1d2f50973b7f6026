/**
 * The web app's journey steps (issue 29): a part of the browser suite, test/integration/web-app.test.ts (in the folder
 * named for it; not a test file of its own), run in its one server and browser, after its other steps: a recording the
 * API refuses (its message, the form kept but not the secrets, nothing charged); the shop's sign-in from Analyze, given
 * as a file with its password in "Secrets" (a real run), and its report's steps table, measured step, film and flow
 * report; a broken recording's progress screen (the error, the steps that completed, the screen when it failed, which
 * another account cannot fetch).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { LIGHTHOUSE_HTML_CSP } from '../../../src/report/lighthouse-html.js';
import { ms } from '../../../src/report/format.js';
import type { FixtureSite } from '../../fixtures/site/server.js';
import { shopRecordings, SHOP } from '../../fixtures/site/shop.js';
import { creditsOf } from '../../helpers/assertions.js';
import { aria, checkScreen, clickAndWait, fieldNames, goto, heading, newTab, textOf } from '../../helpers/browser.js';
import { call, errorOf, type TestServer } from '../../helpers/server.js';

export interface SuiteState {
  server: TestServer;
  site: FixtureSite;
  browser: Browser;
  /** The owner's tab, signed in. */
  page: Page;
  /** A tab of another account, signed in. */
  other: Page;
  ownerKey: string;
}

/** The secret in every form a page could show it. */
const SECRET_FORMS = [SHOP.password, encodeURIComponent(SHOP.password), Buffer.from(SHOP.password).toString('base64')];

export function journeySteps(state: () => SuiteState): void {
  /** The shop's sign-in: the login page (navigation), typing e-mail and password (timespan), signing in (navigation). */
  const signIn = () => ({ title: 'Shop sign-in', steps: shopRecordings(state().site.origin).checkout.steps.slice(0, 6) });
  const valueOf = (p: Page, selector: string) => p.$eval(selector, (e) => (e as HTMLInputElement | HTMLTextAreaElement).value);
  const openJourney = async (p: Page) => {
    await goto(p, `${state().server.base}/`);
    await p.locator(aria('Journey')).click();
    await p.waitForSelector(aria('Recording', 'textbox'), { visible: true });
  };
  const noSecretIn = async (p: Page, where: string) => {
    const html = await p.content();
    for (const form of SECRET_FORMS) assert.ok(!html.includes(form), `${where} shows the secret (${form === SHOP.password ? 'plain' : 'encoded'})`);
  };
  let reportPath = '';

  it('22. a recording the API refuses: its own message, the recording and measured step kept, the secrets not, nothing charged', async () => {
    const { server, page, ownerKey } = state();
    const recording = signIn();
    recording.steps.splice(3, 0, { type: 'customStep', name: 'stamp', parameters: {} } as never);
    const text = JSON.stringify(recording, null, 2);
    const api = await call(server, 'POST', '/tests', { key: ownerKey, body: { data: { type: 'test', attributes: {
      journey: text, journey_secrets: { SHOP_PASSWORD: SHOP.password }, journey_measured_step: '1' } } } });
    const apiError = errorOf(api);
    assert.equal(api.status, 400, api.text);
    assert.match(apiError?.detail ?? '', /^journey\.steps\[3\]: customStep/, 'the API names the step');
    const credits = await creditsOf(server, ownerKey);

    await openJourney(page);
    await page.locator(aria('Recording', 'textbox')).fill(text);
    await page.locator(aria('Secrets', 'textbox')).fill(`SHOP_PASSWORD=${SHOP.password}`);
    await page.locator(aria('Measured step', 'spinbutton')).fill('1');
    const res = await clickAndWait(page, aria('Analyze the journey', 'button'));
    assert.equal(res.status(), api.status, "the app answers with the API's status");
    const shown = await textOf(page, '[role=alert]');
    assert.ok(shown.includes(apiError!.detail!), `the app shows the API's message "${apiError!.detail}"; it showed "${shown}"`);
    assert.equal(await valueOf(page, '#f-journey'), text, 'the recording is kept as typed');
    assert.equal(await valueOf(page, '#f-journey_measured_step'), '1', 'and the measured step');
    assert.equal(await valueOf(page, '#f-journey_secrets'), '', 'the secrets are not sent back');
    assert.match(await textOf(page, '#f-journey_secrets-hint'), /Type them again/, 'and the field says to type them again');
    await noSecretIn(page, 'the refused form');
    assert.equal(await creditsOf(server, ownerKey), credits, 'nothing charged');
    await checkScreen(page, 'analyze, refused recording', { reload: false });
  });

  it('23. a journey from Analyze ("Recording file", "Secrets", "Measured step"): its report lists the steps, the measured one marked, with the flow report', { timeout: 240_000 }, async () => {
    const { server, page, other, browser, ownerKey } = state();
    const recording = signIn();
    const dir = await mkdtemp(join(tmpdir(), 'webgauge-recording-'));
    try {
      const file = join(dir, 'shop-sign-in.json');
      await writeFile(file, JSON.stringify(recording, null, 2));
      await openJourney(page);
      assert.deepEqual((await fieldNames(page)).slice(0, 8).map((f) => f.name),
        ['URL', 'Desktop', 'Phone (mid-tier)', 'Phone (low-tier)', 'Recording', 'Recording file', 'Secrets', 'Measured step']);
      const input = await page.$('input#f-journey_file');
      assert.ok(input, 'a file input');
      await input.uploadFile(file);
      await page.waitForFunction(`document.getElementById('f-journey').value.includes('Shop sign-in')`);
      assert.equal(await valueOf(page, '#f-journey'), JSON.stringify(recording, null, 2), 'the script read the file into "Recording"');
      assert.equal(await valueOf(page, '#f-journey_file'), '', 'and emptied the file input');
      assert.match(await textOf(page, '[data-read-note]'), /^shop-sign-in\.json was read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await page.locator(aria('Secrets', 'textbox')).fill(`SHOP_PASSWORD=${SHOP.password}`);
    await page.locator(aria('Measured step', 'spinbutton')).fill('1');
    await clickAndWait(page, aria('Analyze the journey', 'button'));
    const opened = page.waitForNavigation({ timeout: 200_000, waitUntil: 'load' });
    opened.catch(() => undefined); // awaited below; an earlier failure must not leave it unhandled
    const testId = /^\/tests\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1];
    assert.ok(testId, `the journey's progress opens: ${page.url()}`);
    assert.match(await textOf(page, '.progress-journey'), /Journey “Shop sign-in”/);
    await opened;
    reportPath = new URL(page.url()).pathname;
    assert.equal(reportPath, `/reports/${testId}`, 'its report opens by itself');

    const api = (await call(server, 'GET', `/reports/${testId}`, { key: ownerKey })).body.data.attributes as
      { journey: { measured_step: number; steps: { index: number; figures: Record<string, number> }[] }; time_to_first_byte: number; largest_contentful_paint: number };
    assert.equal(api.journey.measured_step, 1, '"Measured step" reached the API');
    assert.ok(await page.$(aria('Journey', 'link')), 'the report has a part named "Journey"');
    const rows = (await page.$$eval('table.steps tbody tr', (trs) => trs.map((tr) => ({
      measured: tr.classList.contains('measured'), cells: [...tr.children].map((c) => (c.textContent ?? '').replace(/\s+/g, ' ').trim()),
    })))) as { measured: boolean; cells: string[] }[];
    assert.deepEqual(rows.map((r) => [r.cells[0], r.cells[2]]), [['1', 'Navigation'], ['2–4', 'Timespan'], ['5', 'Navigation']], 'a row per measured step');
    assert.deepEqual(rows.map((r) => r.measured), [true, false, false], 'the first row is the measured step');
    assert.match(rows[0]!.cells[1]!, /Measured step/, 'said in words, not only colour');
    assert.equal(rows[0]!.cells[4], ms(api.time_to_first_byte), "the measured row's TTFB is the report's");
    assert.equal(rows[0]!.cells[6], ms(api.largest_contentful_paint), 'and its LCP');
    assert.match(await textOf(page, '.journey-note'), /the measured step, recording step 1: navigate /);
    assert.equal((await page.$$('.film-step')).length, 3, 'the filmstrip is cut at the three steps');
    await noSecretIn(page, "the journey's report");
    await checkScreen(page, 'report, journey');

    const flow = await page.$eval(aria('Lighthouse flow report', 'link'), (a) => (a as HTMLAnchorElement).href);
    assert.ok(await page.$(aria('Lighthouse report', 'link')), '"Lighthouse report" is beside it');
    assert.equal(new URL(flow).pathname, `${reportPath}/flow.html`);
    const tab = await newTab(browser);
    const problems: string[] = [];
    tab.on('pageerror', (e) => problems.push(String(e)));
    tab.on('request', (r) => { if (!r.url().startsWith(flow) && !r.url().startsWith('data:')) problems.push(`requested ${r.url()}`); });
    try {
      const res = await tab.goto(flow, { waitUntil: 'load' });
      assert.equal(res?.status(), 200);
      assert.equal(res?.headers()['content-security-policy'], LIGHTHOUSE_HTML_CSP, 'under the CSP of lighthouse.html');
      await tab.waitForFunction(`document.body.innerText.includes('Shop sign-in')`, { timeout: 10_000 });
      assert.deepEqual(problems, []);
    } finally {
      await tab.close();
    }

    // Recent tests names it; the public page shows the same table and links.
    await goto(page, `${server.base}/`);
    assert.match(await textOf(page, 'section.recent'), /Journey “Shop sign-in”/);
    const pub = await goto(other, `${server.base}${reportPath}`);
    assert.equal(pub.status(), 200);
    assert.equal((await other.$$('table.steps tbody tr.measured')).length, 1, 'the public page marks the measured step');
    assert.ok(await other.$(aria('Lighthouse flow report', 'link')), 'and links to the flow report');
    await checkScreen(other, 'public report, journey');
  });

  it('24. a broken recording: its progress shows the error, the steps that completed and the screen when it failed (not to another account)', { timeout: 120_000 }, async () => {
    const { server, page, other } = state();
    const [viewport, navigate] = signIn().steps;
    const login = `${state().site.origin}/app/login`;
    assert.equal((navigate as { url?: string }).url, login, "the recording's second step opens the login page");
    const broken = { title: 'Broken', steps: [viewport, navigate, { type: 'click', selectors: [['aria/Remove from cart'], ['#remove']], offsetX: 1, offsetY: 1, timeout: 1000 }] };
    await openJourney(page);
    await page.locator(aria('Recording', 'textbox')).fill(JSON.stringify(broken));
    await clickAndWait(page, aria('Analyze the journey', 'button'));
    const testId = /^\/tests\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1];
    assert.ok(testId, page.url());
    await page.waitForSelector('.failed-journey', { timeout: 100_000 });
    assert.equal(await heading(page), `Testing ${login}`);
    assert.match(await textOf(page, '[data-detail]'), /^journey step 2 \(click "aria\/Remove from cart"\): no element matched/, 'the error names the step');
    const done = await page.$$eval('.failed-steps li b', (bs) => bs.map((b) => b.textContent));
    assert.deepEqual(done, [`navigate ${login}`], 'the step that completed');
    const shot = await page.$eval('.failure-shot img', (img) => ({ src: img.getAttribute('src'), width: (img as HTMLImageElement).naturalWidth }));
    assert.equal(shot.src, `/tests/${testId}/failure.jpg`);
    assert.ok(shot.width > 0, 'the screenshot loads');
    // A failed test says it failed and offers Retest, not a report that will never open.
    assert.equal(await textOf(page, '[role=status]'), 'The test failed');
    assert.doesNotMatch(await textOf(page, 'main'), /the report opens when it completes/);
    assert.equal(await page.$('[data-steps]'), null, 'no steps of a test that no longer runs');
    assert.equal(await page.$eval(aria('Retest', 'button'), (b) => b.closest('form')?.getAttribute('action')), `/tests/${testId}/retest`,
      'a failed test offers "Retest", which posts the test again');
    await checkScreen(page, 'progress, failed journey');

    const jpeg = (await page.evaluate(`fetch('/tests/${testId}/failure.jpg').then((r) => [r.status, r.headers.get('content-type')])`)) as [number, string];
    assert.deepEqual(jpeg, [200, 'image/jpeg'], 'its account gets the screenshot');
    assert.equal((await goto(other, `${server.base}/tests/${testId}/failure.jpg`)).status(), 404, 'another account gets 404');
    assert.equal((await goto(other, `${server.base}/tests/${testId}`)).status(), 404, 'as for the test itself');
  });
}
