/**
 * The web app in a real Chromium (puppeteer-core on Debian's browser), driven as a person would: elements found by
 * their accessible names, keyboard where it matters. One server on SQLite, one browser, one real test of the
 * fixture page; the steps run in order and share what they made. Every screen visited passes checkScreen
 * (axe-core, CSP, 375 px wide).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { authenticate, setPassword } from '../../src/core/accounts.js';
import { SIGN_IN_LIMIT } from '../../src/core/sessions.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { call, errorOf, startServer, type TestServer } from '../helpers/server.js';
import { creditsOf } from '../helpers/assertions.js';
import {
  accessibleNodes, aria, assertStrictCsp, checkedScreens, checkScreen, clickAndWait, goto, heading, launchBrowser, newTab, textOf,
} from '../helpers/browser.js';

const SESSION_COOKIE = 'webgauge_session';
const PASSWORD = 'correct horse battery staple';

/** The options under "Analysis options" every plan has, and the pro plan's own (accessible names start so). */
const OPTIONS = ['Location', 'Browser', 'Report type', 'Runs', 'Connection speed', 'Block ads', 'Record a video', 'Stop the test at onload',
  'Cookies', 'HTTP user name', 'HTTP password', 'Only load URLs matching', 'Block URLs matching'];
const PRO_OPTIONS = ['Simulated device', 'User agent', 'Viewport width', 'Viewport height', 'Pixel ratio', 'Rotate', 'DNS overrides'];

describe('the web app in a real browser (sqlite)', () => {
  let site: FixtureSite;
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  /** A second account (basic plan), signed in in its own browser context. */
  let otherContext: BrowserContext;
  let other: Page;
  let otherKey: string;
  let ownerEmail: string;
  let ownerKey: string;
  let testId = '';
  let reportPath = '';
  const t0 = Date.now();

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  /** A form post as a script (not the browser) sends it. */
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(server.base + path, { method: 'POST', redirect: 'manual', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  const sessionCookie = async (p: Page) => (await p.cookies()).find((c) => c.name === SESSION_COOKIE);

  /** Press Tab until the focused element is the one `test` (a page expression on `e`) accepts; false after `max` presses. */
  async function tabTo(p: Page, test: string, max = 30): Promise<boolean> {
    for (let i = 0; i < max; i++) {
      await p.keyboard.press('Tab');
      if (await p.evaluate(`((e) => !!e && (${test}))(document.activeElement)`)) return true;
    }
    return false;
  }

  before(async () => {
    site = await startFixtureSite();
    server = await startServer({ engine: 'sqlite', agentSlots: 1 });
    ownerKey = server.key;
    const owner = await authenticate(server.app.store.db, server.config.plans, ownerKey);
    assert.ok(owner, 'the test server made an owner account');
    ownerEmail = owner.email;
    otherKey = await server.account({ plan: 'basic', email: 'other@example.test' });
    browser = await launchBrowser();
    page = await newTab(browser);
    otherContext = await browser.createBrowserContext();
    other = await newTab(otherContext);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
    process.stderr.write(`[web-app] ${Date.now() - t0} ms; screens checked (axe, CSP, 375 px): ${checkedScreens.join(', ')}\n`);
  });

  it('1. signs in with e-mail and password; a wrong password signs no one in; the session cookie is HttpOnly and SameSite=Lax', async () => {
    const res = await goto(page, `${server.base}/`);
    assert.equal(res.status(), 200);
    assertStrictCsp(res, 'sign-in');
    assert.equal(await heading(page), 'Sign in to Webgauge');
    for (const [name, role] of [['E-mail', 'textbox'], ['Password', 'textbox'], ['API key', 'textbox']]) {
      assert.ok(await page.$(aria(name!, role)), `the sign-in screen has a ${role} named "${name}"`);
    }
    assert.equal((await page.$$(aria('Sign in', 'button'))).length, 2, 'two "Sign in" buttons: password and API key');
    await checkScreen(page, 'sign-in');

    await page.locator(aria('E-mail', 'textbox')).fill(ownerEmail);
    await page.locator(aria('Password', 'textbox')).fill('not the password');
    const wrong = await clickAndWait(page, `${aria('With your e-mail and password', 'form')} ${aria('Sign in', 'button')}`);
    assert.equal(wrong.status(), 401, 'a wrong password answers 401');
    assert.equal(await textOf(page, '[role=alert]'), 'Wrong e-mail or password.');
    assert.equal(await sessionCookie(page), undefined, 'a wrong password sets no session cookie');
    assert.equal(await heading(page), 'Sign in to Webgauge');
    await checkScreen(page, 'sign-in, wrong password', { reload: false });

    await setPassword(server.app.store.db, ownerEmail, PASSWORD);
    await goto(page, `${server.base}/`);
    await page.locator(aria('E-mail', 'textbox')).fill(ownerEmail);
    await page.locator(aria('Password', 'textbox')).fill(PASSWORD);
    const ok = await clickAndWait(page, `${aria('With your e-mail and password', 'form')} ${aria('Sign in', 'button')}`);
    assert.equal(ok.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/');
    assert.equal(await heading(page), 'Analyze a page', 'signed in, / is Analyze');
    const cookie = await sessionCookie(page);
    assert.ok(cookie, `a session cookie named ${SESSION_COOKIE} is set`);
    assert.equal(cookie.httpOnly, true, 'the session cookie is HttpOnly');
    assert.equal(cookie.sameSite, 'Lax', 'the session cookie is SameSite=Lax');
    assert.equal(cookie.path, '/');
    const visible = (await page.evaluate('document.cookie')) as string;
    assert.ok(!visible.includes(SESSION_COOKIE) && !visible.includes(cookie.value), `document.cookie shows the session: ${visible}`);
  });

  it('2. sign-in attempts are limited: the 11th for one e-mail is refused with 429, and then even the right password', async () => {
    const email = 'limited@example.test';
    await server.account({ plan: 'basic', email });
    await setPassword(server.app.store.db, email, PASSWORD);
    const origin = { origin: server.base };
    // (Every sign-in of this file counts toward the limit per client address too: about 17 of its 30.)
    for (let i = 1; i <= SIGN_IN_LIMIT.perEmail; i++) {
      const res = await post('/sign-in', form({ email, password: `wrong ${i}` }), origin);
      assert.equal(res.status, 401, `wrong password #${i} answers 401`);
      assert.match(await res.text(), /Wrong e-mail or password\./);
    }
    const limited = await post('/sign-in', form({ email, password: 'wrong 11' }), origin);
    assert.equal(limited.status, 429, `wrong password #${SIGN_IN_LIMIT.perEmail + 1} for one e-mail answers 429`);
    assert.match(await limited.text(), /Too many sign-in attempts/);
    assert.ok(Number(limited.headers.get('retry-after')) > 0, 'with a Retry-After');
    const right = await post('/sign-in', form({ email, password: PASSWORD }), origin);
    assert.equal(right.status, 429, 'past the limit even the right password is refused');
    assert.equal(right.headers.get('set-cookie'), null, 'and no session is made');
  });

  it('3. state-changing posts need the CSRF token and our own Origin: 403 otherwise, and no test is created', async () => {
    const cookie = await sessionCookie(page);
    assert.ok(cookie);
    const csrf = (await page.$eval('form[action="/analyze"] input[name=csrf]', (e) => (e as HTMLInputElement).value)) as string;
    assert.ok(csrf.length > 20, 'the Analyze form carries a CSRF token');
    const headers = { cookie: `${SESSION_COOKIE}=${cookie.value}` };
    const url = site.url('/');
    const attempts: [string, string, Record<string, string>][] = [
      ['no csrf field', form({ url }), { ...headers, origin: server.base }],
      ['a wrong csrf field', form({ url, csrf: `${csrf.slice(0, -2)}xx` }), { ...headers, origin: server.base }],
      ['a foreign Origin', form({ url, csrf }), { ...headers, origin: 'https://evil.example' }],
      ['no Origin and no csrf', form({ url }), headers],
    ];
    for (const [what, body, h] of attempts) {
      const res = await post('/analyze', body, h);
      assert.equal(res.status, 403, `POST /analyze with ${what} answers 403`);
      assert.match(await res.text(), /Form expired/, `the 403 of ${what} says why`);
    }
    const tests = await call(server, 'GET', '/tests', { key: ownerKey });
    assert.equal(tests.status, 200, tests.text);
    assert.deepEqual(tests.body.data, [], 'no test was created by the refused posts');
  });

  it('4. the navigation has Analyze, Pages, Tags, Account and Sign out', async () => {
    for (const name of ['Analyze', 'Pages', 'Tags', 'Account']) assert.ok(await page.$(aria(name, 'link')), `a link named "${name}"`);
    assert.ok(await page.$(aria('Sign out', 'button')), 'a button named "Sign out"');
    assert.equal(await page.$eval('nav a[aria-current=page]', (e) => e.textContent), 'Analyze', 'Analyze is the current screen');
    await checkScreen(page, 'analyze');
    for (const name of ['Pages', 'Tags']) {
      await goto(page, `${server.base}/`);
      const res = await clickAndWait(page, aria(name, 'link'));
      assert.equal(res.status(), 200, `the ${name} screen answers 200`);
      assert.equal(await heading(page), name);
      await checkScreen(page, `${name.toLowerCase()}, empty`);
    }
  });

  it('5. Analyze offers every option the plan allows under "Analysis options", with the API\'s own messages', async () => {
    await goto(page, `${server.base}/`);
    assert.ok(await page.$(aria('URL', 'textbox')), 'a field named "URL"');
    assert.ok(await page.$(aria('Analyze', 'button')), 'a button named "Analyze"');
    const names = async (p: Page) => {
      await p.locator(aria('Analysis options')).click();
      await p.waitForSelector(aria('Location', 'combobox'), { visible: true });
      return (await accessibleNodes(p)).map((n) => n.name);
    };
    const has = (all: string[], option: string) => all.some((n) => n === option || n.startsWith(`${option} `));
    const pro = await names(page);
    for (const o of [...OPTIONS, ...PRO_OPTIONS]) assert.ok(has(pro, o), `the pro account's Analysis options have "${o}"`);
    await checkScreen(page, 'analyze, options open', { reload: false });

    // A bad value: the API's own message, and nothing charged.
    const credits = await creditsOf(server, ownerKey);
    const api = await call(server, 'POST', '/tests', { key: ownerKey, body: { data: { type: 'test', attributes: { url: 'ftp://x' } } } });
    const apiError = errorOf(api);
    assert.ok(apiError?.detail, `the API refuses ftp://x: ${api.text}`);
    await page.locator(aria('URL', 'textbox')).fill('ftp://x');
    const res = await clickAndWait(page, aria('Analyze', 'button'));
    assert.equal(res.status(), api.status, "the app answers with the API's status");
    const shown = await textOf(page, '[role=alert]');
    assert.ok(shown.includes(apiError.detail!), `the app shows the API's message "${apiError.detail}"; it showed "${shown}"`);
    assert.equal(await page.$eval('#f-url', (e) => (e as HTMLInputElement).value), 'ftp://x', 'the form keeps what was typed');
    await checkScreen(page, 'analyze, refused URL', { reload: false });
    assert.equal(await creditsOf(server, ownerKey), credits, 'a refused test charges nothing');
    assert.deepEqual((await call(server, 'GET', '/tests', { key: ownerKey })).body.data, [], 'and creates no test');

    // A basic account: no pro options.
    await goto(other, `${server.base}/`);
    await other.locator(aria('API key', 'textbox')).fill(otherKey);
    await clickAndWait(other, `${aria('With your API key', 'form')} ${aria('Sign in', 'button')}`);
    assert.equal(await heading(other), 'Analyze a page', 'the basic account signed in with its key');
    const basic = await names(other);
    for (const o of OPTIONS) assert.ok(has(basic, o), `the basic account's Analysis options have "${o}"`);
    for (const o of PRO_OPTIONS) assert.ok(!has(basic, o), `the basic account's Analysis options lack the pro option "${o}"`);
  });

  it('6. a test started with the keyboard alone shows its progress live, then its report opens by itself', { timeout: 180_000 }, async () => {
    await goto(page, `${server.base}/`);
    assert.ok(await tabTo(page, "e.id === 'f-url'"), 'Tab reaches the URL field');
    await page.keyboard.type(site.url('/'));
    const [landing] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    const m = /^\/tests\/([^/]+)$/.exec(new URL(page.url()).pathname);
    assert.ok(m, `Enter in the URL field starts a test and opens its progress: ${page.url()}`);
    assert.equal(landing?.status(), 200);
    testId = m[1]!;
    const opened = page.waitForNavigation({ timeout: 150_000 });
    opened.catch(() => undefined); // awaited below; an earlier failure must not leave it unhandled

    // Watch the status element from here: every change is logged with this document's marker.
    assert.ok(await page.$('::-p-aria([role="status"])'), 'the progress screen has a status element');
    const initial = (await page.evaluate(`(() => {
      const marker = String(Math.random());
      window.__marker = marker;
      const el = document.querySelector('[role=status]');
      const log = [{ marker, text: el.textContent }];
      sessionStorage.setItem('wg-status', JSON.stringify(log));
      new MutationObserver(() => {
        log.push({ marker: window.__marker, text: el.textContent });
        sessionStorage.setItem('wg-status', JSON.stringify(log));
      }).observe(el, { childList: true, characterData: true, subtree: true });
      return el.textContent;
    })()`)) as string;
    assert.match(initial, /^(Queued|Started)/, 'the progress screen starts at Queued… or Started…');
    await checkScreen(page, 'progress', { reload: false });

    await opened;
    const landed = new URL(page.url()).pathname;
    assert.match(landed, /^\/reports\/[^/]+$/, 'the browser opened the report by itself');
    reportPath = landed;
    const log = JSON.parse((await page.evaluate(`sessionStorage.getItem('wg-status')`)) as string) as { marker: string; text: string }[];
    const changes = log.slice(1);
    assert.ok(changes.length >= 1, `the status changed live at least once: ${JSON.stringify(log)}`);
    assert.ok(log.every((l) => l.marker === log[0]!.marker), `every change happened in the same document (no reload): ${JSON.stringify(log)}`);
    assert.ok(changes.some((c) => /^(Started|Completed)/.test(c.text)), `the status went on to Started or Completed: ${JSON.stringify(log)}`);

    for (const tab of ['Summary', 'Performance', 'Structure', 'Waterfall', 'Video', 'History']) {
      assert.ok(await page.$(aria(tab, 'link')), `the report has a part named "${tab}"`);
    }
    for (const [name, role] of [['Retest', 'button'], ['Download HAR', 'link'], ['Download PDF', 'link'], ['Delete report', 'button']]) {
      assert.ok(await page.$(aria(name!, role)), `the report has a ${role} named "${name}"`);
    }
    await checkScreen(page, 'report');
    const test = await call(server, 'GET', `/tests/${testId}`, { key: ownerKey });
    assert.equal(test.body?.data?.attributes?.state, 'completed', test.text);
    assert.equal(test.body.data.attributes.source, 'on-demand', 'a test started in the app has source on-demand');
  });

  it('7. "Download HAR" gives the HAR of the report', async () => {
    const href = await page.$eval(aria('Download HAR', 'link'), (e) => e.getAttribute('href'));
    assert.ok(href, 'the Download HAR link has an address');
    const got = (await page.evaluate(`fetch(${JSON.stringify(href)}, { credentials: 'same-origin' })
      .then(async (r) => ({ status: r.status, type: r.headers.get('content-type'), text: await r.text() }))`)) as { status: number; type: string; text: string };
    assert.equal(got.status, 200, got.text.slice(0, 300));
    assert.match(got.type, /json/);
    const har = JSON.parse(got.text);
    assert.ok(Array.isArray(har.log?.entries) && har.log.entries.length > 0, 'the HAR has log.entries');
    assert.ok(har.log.entries.some((e: { request: { url: string } }) => e.request.url === site.url('/')), 'and the page itself among them');
  });

  it("7b. the report's page: Pages lists it, and \"Page history\" opens the page's own screen", async () => {
    const res = await clickAndWait(page, aria('Page history', 'link'));
    assert.equal(res.status(), 200);
    const pagePath = new URL(page.url()).pathname;
    assert.match(pagePath, /^\/pages\/[^/]+$/, 'Page history opens /pages/{id}');
    await checkScreen(page, 'page view');
    await clickAndWait(page, aria('Pages', 'link'));
    assert.equal(await heading(page), 'Pages');
    assert.ok(await page.$(`main a[href="${pagePath}"]`), `the Pages list links to ${pagePath}`);
    await checkScreen(page, 'pages, one page');
  });

  it('8. Account shows plan, credits and usage; "Regenerate API key" asks first, then shows the new key once', async () => {
    const res = await clickAndWait(page, aria('Account', 'link'));
    assert.equal(res.status(), 200);
    assert.equal(await heading(page), 'Account');
    const facts = (await page.evaluate(`Object.fromEntries([...document.querySelectorAll('dl.facts dt')]
      .map((dt) => [dt.closest('section').querySelector('h2').textContent + ' / ' + dt.textContent, dt.nextElementSibling.textContent.trim()]))`)) as
      Record<string, string>;
    assert.equal(facts['You / E-mail'], ownerEmail);
    assert.match(facts['You / Role'] ?? '', /^Owner/);
    assert.ok(await page.$(aria('Plan: pro', 'heading')), 'the plan is named');
    assert.equal(facts['Plan: pro / Runs per test'], 'up to 9');
    assert.match(facts['Plan: pro / Monitoring'] ?? '', /^100 pages, hourly/);
    const credits = await creditsOf(server, ownerKey);
    assert.equal(await textOf(page, '.account-figure'), `${credits} credits left`, 'the balance is the API\'s');
    assert.match(await textOf(page, '#acc-credits + *, section[aria-labelledby=acc-credits]'), /Next refill: \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    assert.match(facts['Usage / Tests, last 24 hours'] ?? '', /^1 \(1 credit charged\)$/, 'one test, and what it cost');
    assert.equal(facts['Usage / Reports, last 30 days'], '1');
    assert.equal(facts['Usage / Pages'], '1');
    assert.equal(facts['Usage / Monitored pages'], '0 of 100');
    assert.equal(facts['Usage / Tags'], '0 of 500');
    await checkScreen(page, 'account');

    await clickAndWait(page, aria('Regenerate API key', 'button'));
    assert.equal(await heading(page), 'Regenerate your API key?');
    assert.match(await textOf(page, 'main'), /stops working at once/);
    assert.ok(await page.$(aria('Cancel', 'link')), 'a "Cancel" link');
    await checkScreen(page, 'regenerate key, confirm', { reload: false });
    assert.equal((await call(server, 'GET', '/status', { key: ownerKey })).status, 200, 'asking changed nothing yet');

    await clickAndWait(page, aria('Yes, regenerate', 'button'));
    assert.equal(await heading(page), 'Your new API key');
    const newKey = await textOf(page, 'code.key-once');
    assert.match(newKey, /^\S{20,}$/, 'the new key is shown');
    assert.notEqual(newKey, ownerKey);
    assert.match(await textOf(page, 'main'), /copy it now/i);
    await checkScreen(page, 'regenerate key, new key', { reload: false });
    assert.equal((await call(server, 'GET', '/status', { key: ownerKey })).status, 401, 'the old key is refused at once');
    assert.equal((await call(server, 'GET', '/status', { key: newKey })).status, 200, 'the new key works');
    ownerKey = newKey;
    const again = await goto(page, `${server.base}/account`);
    assert.equal(again.status(), 200, 'the session outlives the old key');
    assert.ok(!(await textOf(page, 'main')).includes(newKey), 'the key is not shown again');
  });

  it("8b. a team viewer's Account says whose team it is in, and regenerates its own key, not the owner's", async () => {
    const viewerKey = await server.account({ plan: 'basic', email: 'viewer@example.test', role: 'viewer', teamOf: ownerEmail });
    const signedIn = await post('/sign-in', form({ api_key: viewerKey }), { origin: server.base });
    assert.equal(signedIn.status, 303, 'the viewer signs in with its key');
    const token = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(signedIn.headers.get('set-cookie') ?? '')?.[1];
    assert.ok(token, 'and gets a session');
    const headers = { cookie: `${SESSION_COOKIE}=${token}`, origin: server.base };
    const html = await (await fetch(`${server.base}/account`, { headers })).text();
    assert.match(html, /<dd>Viewer/, 'the role is Viewer');
    assert.ok(html.includes(`Member of the team of ${ownerEmail}`), 'and the team is the owner\'s');
    assert.match(html, /Plan: pro/, "the plan is the team owner's");
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    assert.ok(csrf);
    const ask = await post('/account/key', form({ csrf }), headers);
    assert.equal(ask.status, 200);
    assert.match(await ask.text(), /Regenerate your API key\?/, 'without confirm=yes it only asks');
    assert.equal((await call(server, 'GET', '/status', { key: viewerKey })).status, 200, 'asking changed nothing');
    const done = await post('/account/key', form({ csrf, confirm: 'yes' }), headers);
    assert.equal(done.status, 200);
    const newKey = /<code class="key-once">([^<]+)<\/code>/.exec(await done.text())?.[1];
    assert.ok(newKey, 'the new key is shown');
    assert.equal((await call(server, 'GET', '/status', { key: viewerKey })).status, 401, "the viewer's old key is refused");
    assert.equal((await call(server, 'GET', '/status', { key: newKey })).status, 200, 'its new key works');
    assert.equal((await call(server, 'GET', '/status', { key: ownerKey })).status, 200, "the owner's key is untouched");
  });

  it("9. another account cannot see the first one's test, and sees its report only as the public page", async () => {
    const res = await goto(other, `${server.base}/tests/${testId}`);
    assert.equal(res.status(), 404, `another account's test is not found; got ${other.url()} "${await heading(other)}"`);
    assert.equal(await heading(other), 'Test not found');
    await checkScreen(other, 'test not found');

    const report = await goto(other, `${server.base}${reportPath}`);
    assert.equal(report.status(), 200);
    assert.equal(await other.$(aria('Retest', 'button')), null, 'the public report has no Retest');
    assert.equal(await other.$(aria('Delete report', 'button')), null, 'nor Delete report');
    assert.equal(await other.$(aria('Sign out', 'button')), null, 'nor the app around it');
    await checkScreen(other, 'public report');
  });

  it('10. "Sign out" ends the session: back to sign in, and /account asks to sign in again', async () => {
    const before = await sessionCookie(page);
    assert.ok(before);
    const res = await clickAndWait(page, aria('Sign out', 'button'));
    assert.equal(res.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/');
    assert.equal(await heading(page), 'Sign in to Webgauge');
    assert.equal(await sessionCookie(page), undefined, 'the cookie is gone');
    const replay = await fetch(`${server.base}/account`, { redirect: 'manual', headers: { cookie: `${SESSION_COOKIE}=${before.value}` } });
    assert.equal(replay.status, 303, 'the old session token no longer signs in');
    await goto(page, `${server.base}/account`);
    const url = new URL(page.url());
    assert.equal(url.pathname, '/');
    assert.equal(url.searchParams.get('next'), '/account', '/account redirects to sign in, and back after');
    assert.equal(await heading(page), 'Sign in to Webgauge');
  });

  it('11. with the keyboard alone: Tab to "API key", type it, Tab to its "Sign in", Enter', async () => {
    assert.ok(await tabTo(page, "e.id === 'api_key'"), 'Tab reaches the API key field');
    await page.keyboard.type(ownerKey);
    await page.keyboard.press('Tab');
    const focused = (await page.evaluate(`(() => { const e = document.activeElement; return e.tagName + ' ' + e.textContent + ' ' + e.form?.getAttribute('aria-labelledby'); })()`)) as string;
    assert.equal(focused, 'BUTTON Sign in with-key', 'the next Tab stop is the key form\'s Sign in button');
    const [res] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    assert.equal(res?.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/account', 'signed in, and back at /account');
    assert.equal(await heading(page), 'Account');
  });
});
