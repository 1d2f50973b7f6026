// lane: pairs 10
/**
 * The web app in a real Chromium (puppeteer-core on Debian's browser), driven as a person would: elements found by
 * their accessible names, keyboard where it matters. One server on SQLite, one browser, one real test of the
 * fixture page (the later retests that make more reports of that page load nothing: their result is a stub, see
 * `loads`); the steps run in order and share what they made. Every screen visited passes checkScreen (axe-core,
 * CSP, 375 px wide).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { authenticate, setPassword } from '../../src/core/accounts/accounts.js';
import { SIGN_IN_LIMIT } from '../../src/core/accounts/sessions.js';
import { COMPARED_METRICS } from '../../src/core/vocabulary/metrics.js';
import { runTest } from '../../src/runner/run.js';
import type { RunResult, RunSpec } from '../../src/runner/types.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { call, errorOf, startServer, type TestServer } from '../helpers/server.js';
import { creditsOf } from '../helpers/assertions.js';
import { accountIdOf, completeSeededScanPage, seedPage, seedScan, type ScanPageSeed, type SeededScan } from '../helpers/seed.js';
import { stubResult } from '../helpers/stub-result.js';
import { journeySteps } from './web-app/journeys.js';
import { fieldSteps } from './web-app/field.js';
import {
  accessibleNodes, aria, assertErrorInView, assertStrictCsp, checkedScreens, checkScreen, clickAndWait, fieldNames, goto, heading, launchBrowser, newTab,
  PHONE, textOf,
} from '../helpers/browser.js';

const SESSION_COOKIE = 'webgauge_session';
const PASSWORD = 'correct horse battery staple';

/**
 * Analyze's fields by their accessible names (their labels alone), in order: the URL, the journey, the options under
 * "Analysis options" every plan has, and the pro plan's own.
 */
const ANALYZE_FIELDS = ['URL', 'Desktop', 'Phone (mid-tier)', 'Phone (low-tier)', 'Recording', 'Recording file', 'Secrets', 'Measured step', 'Location', 'Browser', 'Report type', 'Runs',
  'Keep the report', 'Connection speed', 'Download (custom)', 'Upload (custom)', 'Latency (custom)', 'Block ads', 'Record a video (extra credits)',
  'Stop the test at onload', 'HTTP user name', 'HTTP password', 'Cookies', 'Only load URLs matching', 'Block URLs matching'];
const PRO_FIELDS = ['Simulated device', 'User agent', 'Viewport width', 'Viewport height', 'Pixel ratio', 'Rotate (swap width and height)', 'DNS overrides'];
/** "New scan"'s fields: the scan's own, then Analyze's "Analysis options" (each page's test gets them). */
const SCAN_FIELDS = ['URL', 'Desktop', 'Phone (mid-tier)', 'Phone (low-tier)', 'Source', 'Max pages', 'Pages per template', 'Crawl depth', 'URLs', 'Include', 'Exclude', 'Templates',
  'Alert conditions', 'Respect robots.txt', 'Keep query strings', ...ANALYZE_FIELDS.slice(ANALYZE_FIELDS.indexOf('Location')), ...PRO_FIELDS, 'Repeat'];

/** The pages of the finished scan seeded in step 21a: known figures, so the site report's numbers are known. */
const SCAN_SITE = 'https://shop.example';
const LATENCY = { id: 'document-latency-insight', title: 'Document request latency', impact: 'high', score: 0, savings: { ms: 300, bytes: 400_000 } };
const CDN = [{ origin: 'https://cdn.example.net', requests: 3, bytes: 20_000, time_ms: 100 }];
const SCAN_PAGES: ScanPageSeed[] = [
  { url: `${SCAN_SITE}/`, template: '/', grade: 'A', performance_score: 95, largest_contentful_paint: 1200, total_blocking_time: 50,
    cumulative_layout_shift: 0.01, fully_loaded_time: 1800, audits: [{ ...LATENCY, score: 1 }], thirdParties: CDN },
  { url: `${SCAN_SITE}/p/1`, template: '/p/:id', grade: 'B', performance_score: 82, largest_contentful_paint: 2300, total_blocking_time: 150,
    cumulative_layout_shift: 0.05, fully_loaded_time: 2600, audits: [LATENCY], thirdParties: CDN },
  { url: `${SCAN_SITE}/p/2`, template: '/p/:id', grade: 'C', performance_score: 71, largest_contentful_paint: 3100, total_blocking_time: 320,
    cumulative_layout_shift: 0.12, fully_loaded_time: 3300, audits: [LATENCY], thirdParties: CDN },
  { url: `${SCAN_SITE}/p/3`, template: '/p/:id', grade: 'D', performance_score: 58, largest_contentful_paint: 4600, total_blocking_time: 700,
    cumulative_layout_shift: 0.3, fully_loaded_time: 5200, audits: [LATENCY], thirdParties: CDN },
  { url: `${SCAN_SITE}/blog/a`, template: '/blog/:slug', grade: 'B', performance_score: 88, largest_contentful_paint: 1900, total_blocking_time: 90,
    cumulative_layout_shift: 0.02, fully_loaded_time: 2100, audits: [{ ...LATENCY, score: 0.95 }], thirdParties: CDN },
  { url: `${SCAN_SITE}/p/4`, template: '/p/:id', state: 'failed', error: 'The page answered 500 Internal Server Error.' },
];

describe('the web app in a real browser (sqlite)', () => {
  let site: FixtureSite;
  let server: TestServer;
  /** The service's log lines (warn and above) over the whole run. */
  const serverLog: string[] = [];
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
  /** The fixture page's own screen, /pages/{id} (step 7b). */
  let pagePath = '';
  const t0 = Date.now();
  /**
   * The agent's loads: real until `stub` is set, then a stub result made without a browser (one real load is what
   * the browser suite can afford; the retests only need more reports of the same page). Journeys are always real.
   */
  const loads = { stub: false, real: 0, stubbed: 0 };
  const run = async (spec: RunSpec): Promise<RunResult> => {
    if (!loads.stub || spec.conditions.journey) {
      loads.real++;
      return runTest(spec);
    }
    loads.stubbed++;
    const stubbed = withOneRequest(stubResult(spec.options.url));
    // The second retest's load ends 21 ms later than the first's: a difference of an unchanged page (step 19: within noise).
    if (loads.stubbed === 2) stubbed.metrics.fully_loaded_time += 21;
    return stubbed;
  };
  /** The stub's load with its one request in its HAR (6 ms long), so that its report has a waterfall to compare. */
  const withOneRequest = (r: RunResult): RunResult => {
    const entry = { startedDateTime: new Date().toISOString(), time: 6, request: { method: 'GET', url: r.finalUrl, headers: [] },
      response: { status: 200, headers: [], content: { size: 100, mimeType: 'text/html' }, _transferSize: 100, bodySize: 100 },
      timings: { send: 1, wait: 4, receive: 1 }, _resourceType: 'document' };
    return { ...r, har: { log: { ...r.har.log, entries: [entry] } } as unknown as RunResult['har'] };
  };

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

  /**
   * The `aria()` selector of the one element (of `role`, if given) whose accessible name is `prefix`, or `prefix`
   * and more after a space: a button or heading that says which of many it is ("Delete alert Fully loaded > 3.00 s").
   */
  async function named(p: Page, prefix: string, role?: string): Promise<string> {
    const found = (await accessibleNodes(p)).filter((n) => n.role !== 'StaticText' && (n.name === prefix || n.name.startsWith(`${prefix} `)) &&
      (!role || n.role === role));
    assert.equal(found.length, 1, `${p.url()}: one ${role ?? 'element'} named "${prefix}…" expected; found ${JSON.stringify(found)}`);
    return role ? aria(found[0]!.name, role) : `::-p-aria([name=${JSON.stringify(found[0]!.name)}])`;
  }

  /** Wait until the tab shows a path matching `re` (after redirects and script navigations) and has loaded it. */
  async function waitForPath(p: Page, re: RegExp, what: string, ms = 20_000): Promise<string> {
    const deadline = Date.now() + ms;
    while (!re.test(new URL(p.url()).pathname)) {
      if (Date.now() > deadline) assert.fail(`${what}: still at ${p.url()} ("${await heading(p).catch(() => '?')}") after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await p.waitForFunction('document.readyState === "complete"');
    return new URL(p.url()).pathname;
  }

  /** Text of the cells of the table row that links to `href` (the Pages list, the reports of a page view). */
  const rowWith = (p: Page, href: string) => p.evaluate(`(() => {
    const row = [...document.querySelectorAll('main tr')].find((tr) => tr.querySelector('a[href=' + JSON.stringify(${JSON.stringify(href)}) + ']'));
    return row ? [...row.querySelectorAll('td')].map((td) => td.textContent.replace(/\\s+/g, ' ').trim()) : null;
  })()`) as Promise<string[] | null>;

  /** The value of the option of a <select> (found by accessible name) whose text is `label`. */
  const optionValue = (p: Page, select: string, label: string) =>
    p.$eval(select, (s, l) => [...(s as HTMLSelectElement).options].find((o) => o.text === l)?.value ?? null, label);

  /** Accept (or dismiss) the next confirm dialog; its message. */
  const nextDialog = (p: Page, accept: boolean) => new Promise<string>((resolve) => {
    p.once('dialog', (d) => {
      const message = d.message();
      void (accept ? d.accept() : d.dismiss()).then(() => resolve(message));
    });
  });

  before(async () => {
    site = await startFixtureSite();
    // The service's warnings are kept (log level warn): the last step holds them to "every request answered once".
    server = await startServer({ engine: 'sqlite', agentSlots: 1, overrides: { run, logStream: { write: (line) => { serverLog.push(line); } } },
      env: { WEBGAUGE_LOG_LEVEL: 'warn' } });
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

  it('5. Analyze offers a journey and every option the plan allows under "Analysis options", each field named by its label alone, with the API\'s own messages', async () => {
    await goto(page, `${server.base}/`);
    assert.ok(await page.$(aria('URL', 'textbox')), 'a field named "URL"');
    assert.ok(await page.$(aria('Analyze', 'button')), 'a button named "Analyze"');
    assert.deepEqual((await fieldNames(page)).map((f) => f.name), [...ANALYZE_FIELDS, ...PRO_FIELDS], "the pro account's fields, by their names");
    // The device first, in plain words (issue 49): a desktop unless chosen otherwise.
    assert.deepEqual(await page.$$eval('input[name="device_class"]', (els) => els.map((e) => [(e as HTMLInputElement).value, (e as HTMLInputElement).checked])),
      [['desktop', true], ['phone-mid', false], ['phone-low', false]]);
    await page.locator(aria('Analysis options')).click();
    await page.waitForSelector(aria('Location', 'combobox'), { visible: true });
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
    assert.deepEqual((await fieldNames(other)).map((f) => f.name), ANALYZE_FIELDS, "the basic account's fields: no pro option");
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
      // Which steps the screen marks current as the test goes (its agent reports each phase as it enters it).
      const seen = [];
      const note = () => {
        const li = document.querySelector('[data-steps] li[aria-current=step]');
        const step = li ? li.dataset.step : null;
        if (step && seen[seen.length - 1] !== step) seen.push(step);
        sessionStorage.setItem('wg-steps', JSON.stringify(seen));
      };
      note();
      new MutationObserver(note).observe(document.querySelector('[data-steps]'), { attributes: true, subtree: true });
      return el.textContent;
    })()`)) as string;
    assert.match(initial, /^(Queued|Started)/, 'the progress screen starts at Queued… or Started…');
    // The steps of the test in order, the current one marked; the time elapsed ticking; no estimate without history.
    const steps = await page.$$eval('[data-steps] li', (lis) => lis.map((li) => li.textContent));
    assert.deepEqual(steps, ['Queued', 'Launching the browser', 'Loading the page', 'Lighthouse audits', 'Storing the results']);
    assert.equal(await textOf(page, '.progress-estimate'),
      'No test has completed at Local lately: there is no estimate of how long one takes yet.', 'the first test has no estimate');
    const elapsedAt = async () => (await textOf(page, '[data-elapsed]')).trim();
    const firstElapsed = await elapsedAt();
    assert.match(firstElapsed, /^\d+ s$/, 'the time elapsed in seconds');
    await page.waitForFunction((was) => document.querySelector('[data-elapsed]')?.textContent !== was, { timeout: 5_000 }, firstElapsed);
    assert.match(await elapsedAt(), /^\d+ s$/, 'the time elapsed ticks');
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
    // The phases the agent went through were said (the status line), and marked in order (the steps).
    assert.ok(['Started: loading the page', 'Started: Lighthouse audits'].every((l) => log.some((c) => c.text === l)),
      `the status said the phases: ${JSON.stringify(log)}`);
    const seenSteps = JSON.parse((await page.evaluate(`sessionStorage.getItem('wg-steps')`)) as string) as string[];
    const order = ['queued', 'launching', 'loading', 'auditing', 'storing'];
    assert.ok(['loading', 'auditing'].every((s) => seenSteps.includes(s)), `the steps marked loading and auditing current: ${JSON.stringify(seenSteps)}`);
    assert.deepEqual(seenSteps, [...seenSteps].sort((a, b) => order.indexOf(a) - order.indexOf(b)), `in order: ${JSON.stringify(seenSteps)}`);

    for (const tab of ['Summary', 'Performance', 'Structure', 'Waterfall', 'Video', 'History']) {
      assert.ok(await page.$(aria(tab, 'link')), `the report has a part named "${tab}"`);
    }
    for (const [name, role] of [['Retest', 'button'], ['Download HAR', 'link'], ['Download PDF', 'link'], ['Delete report', 'button']]) {
      assert.ok(await page.$(aria(name!, role)), `the report has a ${role} named "${name}"`);
    }
    await checkScreen(page, 'report');
    // At 375 px (the layout follows the width; no reload): the waterfall keeps a timing bar the row's width, and each
    // row its URL's file name whole (the folders are what is cut); a part's heading, its tab followed, shows below the
    // two-row sticky tabs.
    const desktop = page.viewport();
    await page.setViewport(PHONE);
    try {
      const wf = (await page.evaluate(`(async () => {
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        return { bars: [...document.querySelectorAll('.waterfall td.bar')].map((td) => Math.round(td.getBoundingClientRect().width)),
          files: [...document.querySelectorAll('.waterfall td.url .file')].filter((f) => f.scrollWidth > f.clientWidth + 1).map((f) => f.textContent) };
      })()`)) as { bars: number[]; files: string[] };
      assert.ok(wf.bars.length > 0 && wf.bars.every((w) => w >= 250), `at 375 px each waterfall row's timing bar is as wide as the row: ${JSON.stringify(wf.bars)}`);
      assert.deepEqual(wf.files, [], 'at 375 px no file name of the waterfall is cut');
      await page.locator(aria('Waterfall', 'link')).click();
      await page.waitForFunction('location.hash === "#waterfall"');
      const at = (await page.evaluate(`(async () => {
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        return { heading: Math.round(document.querySelector('#waterfall h2').getBoundingClientRect().top),
          tabs: Math.round(document.querySelector('.tabs').getBoundingClientRect().bottom) };
      })()`)) as { heading: number; tabs: number };
      assert.ok(at.heading >= at.tabs, `at 375 px the Waterfall heading shows below the sticky tabs: its top at ${at.heading} px, the tabs end at ${at.tabs} px`);
    } finally {
      if (desktop) await page.setViewport(desktop);
    }
    const test = await call(server, 'GET', `/tests/${testId}`, { key: ownerKey });
    assert.equal(test.body?.data?.attributes?.state, 'completed', test.text);
    assert.equal(test.body.data.attributes.source, 'on-demand', 'a test started in the app has source on-demand');

    // Analyze lists it under "Recent tests", completed, linking to its report (in another tab: this one stays on the report).
    const analyze = await newTab(browser);
    try {
      await goto(analyze, `${server.base}/`);
      assert.ok(await analyze.$(aria('Recent tests', 'heading')), 'Analyze has "Recent tests"');
      const row = await rowWith(analyze, reportPath);
      assert.ok(row, `"Recent tests" links to ${reportPath}: ${await textOf(analyze, 'section.recent')}`);
      assert.ok(row[0]?.startsWith(`${site.url('/')} Started `), row[0]);
      assert.match(row[1] ?? '', /^Completed/);
      await checkScreen(analyze, 'analyze, recent tests');
    } finally {
      await analyze.close();
    }
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

  it('7a. "Lighthouse report" opens Lighthouse\'s own report of the load: its score, sandboxed, nothing loaded from elsewhere', async () => {
    const href = await page.$eval(aria('Lighthouse report', 'link'), (e) => (e as HTMLAnchorElement).href);
    const tab = await newTab(browser);
    const problems: string[] = [];
    tab.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    tab.on('pageerror', (e) => problems.push(String(e)));
    tab.on('request', (r) => { if (!r.url().startsWith(href) && !r.url().startsWith('data:')) problems.push(`requested ${r.url()}`); });
    try {
      const res = await tab.goto(href, { waitUntil: 'load' });
      assert.equal(res?.status(), 200);
      await tab.waitForSelector('.lh-exp-gauge__percentage, .lh-gauge__percentage', { timeout: 10_000 });
      const shown = await tab.$eval('.lh-exp-gauge__percentage, .lh-gauge__percentage', (e) => e.textContent?.trim());
      const report = await fetch(`${server.api}/reports/${testId}`, { headers: { authorization: `Basic ${Buffer.from(`${ownerKey}:`).toString('base64')}` } });
      const score = ((await report.json()) as { data: { attributes: { performance_score: number } } }).data.attributes.performance_score;
      assert.equal(shown, String(score), 'the gauge shows the report\'s performance score');
      // The sandbox gives the report an origin of its own: its script cannot read the service's session cookie.
      assert.match(await tab.evaluate(() => { try { return `read: ${document.cookie}`; } catch (e) { return String(e); } }), /SecurityError/);
      assert.deepEqual(problems, []);
    } finally {
      await tab.close();
    }
  });

  it('7a2. the report says how its grade and structure score are made (its own numbers), the PDF\'s price before the click; "How the scores are made" explains both, public too', async () => {
    const api = (await call(server, 'GET', `/reports/${testId}`, { key: ownerKey })).body.data.attributes as
      { performance_score: number; structure_score: number; gtmetrix_grade?: string; service_grade?: string };
    const how = await textOf(page, '.how-scored');
    const m = /^Grade ([A-F]) \((\d+)%\) = 60% of performance \((\d+)%, Lighthouse's score of this load\) \+ 40% of structure \((\d+)%\); A from 90%, B from 80%, C from 70%, D from 60%, E from 50%, else F\.\s*Structure (\d+)% is the mean of (\d+) audits' scores weighted by their impact \(high ×3, medium ×2, low ×1\)/.exec(how);
    assert.ok(m, how);
    assert.equal(Number(m[3]), Math.round(api.performance_score), 'the performance score is the API\'s');
    assert.equal(Number(m[4]), Math.round(api.structure_score), 'the structure score is the API\'s');
    assert.ok(Math.abs(Number(m[2]) - (0.6 * api.performance_score + 0.4 * api.structure_score)) <= 0.5, `the grade's percent is the weighting of the two: ${how}`);
    const described = await page.$eval(aria('Download PDF', 'link'), (e) => document.getElementById(e.getAttribute('aria-describedby') ?? '')?.textContent);
    assert.equal(described, 'PDF: 0.2 credits the first time, free after', 'the PDF says its price before the click');
    assert.ok(await page.$('head link[rel=icon][href^="data:image/svg+xml"]'), 'the app has an icon');
    const res = await clickAndWait(page, aria('How the scores are made', 'link'));
    assert.equal(res.status(), 200);
    assert.equal(await heading(page), 'How the scores are made');
    assert.match(await textOf(page, 'table.help-grades'), /A\s*90% or more\s*B\s*80% to 90%.*F\s*below 50%/s);
    assert.match(await textOf(page, 'table.help-vitals'), /Largest contentful paint\s*good ≤ 2\.50 s, poor > 4\.00 s/i);
    await checkScreen(page, 'how the scores are made');
    const publicPage = await (await fetch(`${server.base}/reports/${testId}`)).text();
    assert.match(publicPage, /<link rel="icon"[^>]*href="data:image\/svg\+xml/, 'the public report has the icon');
    assert.ok(publicPage.includes('<a href="/help/scores">How the scores are made</a>'), 'and links the explanation');
    assert.equal((await fetch(`${server.base}/help/scores`)).status, 200, 'which anyone may read');
    // Back on the report at its top (going back would restore the scroll, the actions under the sticky tabs).
    await goto(page, `${server.base}${reportPath}`);
  });

  it("7b. the report's page: Pages lists it, and \"Page history\" opens the page's own screen", async () => {
    const res = await clickAndWait(page, aria('Page history', 'link'));
    assert.equal(res.status(), 200);
    pagePath = new URL(page.url()).pathname;
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
    // Where the credits went adds up to the balance, in words and as a sum.
    assert.match(await textOf(page, '.credit-sum'), new RegExp(`^Since the last refill \\(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\): 1 credit for 1 test\\. 100 − 1 = ${credits}\\.$`));
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

  it('8c. Account adds a webhook ("URL", an event, "Add webhook"), shows its secret once, sends a test event, and deletes it', async () => {
    await goto(page, `${server.base}/account`);
    await page.locator(aria('URL', 'textbox')).fill('http://127.0.0.1:9/hook');
    await page.locator(aria('alert.triggered', 'checkbox')).click();
    await clickAndWait(page, aria('Add webhook', 'button'));
    assert.equal(await heading(page), 'Webhook added');
    const secret = await textOf(page, 'code.key-once');
    assert.match(secret, /^whsec_\S{20,}$/, 'the signing secret is shown');
    await checkScreen(page, 'webhook added', { reload: false });
    const hooks = (await call(server, 'GET', '/webhooks', { key: ownerKey })).body.data;
    assert.deepEqual(hooks.map((w: { attributes: { url: string; events: string[] } }) => [w.attributes.url, w.attributes.events]),
      [['http://127.0.0.1:9/hook', ['alert.triggered']]], 'the API has it as the form gave it');

    await clickAndWait(page, aria('Open the webhook', 'link'));
    assert.match(await heading(page), /^Webhook http:\/\/127\.0\.0\.1:9\/hook$/);
    assert.ok(!(await textOf(page, 'main')).includes(secret), 'the secret is not shown again');
    // Nothing listens on port 9: the test event is refused, and the screen says so.
    await clickAndWait(page, aria('Send test event', 'button'));
    assert.match(await textOf(page, '[role=alert]'), /^Test event failed: .*ECONNREFUSED/);
    await checkScreen(page, 'webhook, a test event');

    const asked = nextDialog(page, true);
    await clickAndWait(page, aria('Delete webhook', 'button'));
    assert.match(await asked, /^Delete the webhook to http:\/\/127\.0\.0\.1:9\/hook\?/);
    assert.equal(new URL(page.url()).pathname, '/account');
    assert.match(await textOf(page, '[role=status]'), /Deleted the webhook/);
    assert.ok(!(await textOf(page, 'main')).includes(secret), 'nor on Account');
    assert.deepEqual((await call(server, 'GET', '/webhooks', { key: ownerKey })).body.data, [], 'the API has none');
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

  /* The flows of pages, tags and compare. The tag made in step 12 and the reports made in step 17 are used after. */
  const TAG = 'Checkout';
  const RENAMED = 'Checkout flow';
  let tagId = '';
  /** Another page of the account, without the tag and on another host (step 13): what the filters must leave out. */
  let otherPagePath = '';
  /** The fixture page's reports: the real one (step 6), then two retests with stub loads (step 17), oldest first. */
  const reports: string[] = [];
  const pageIdOf = () => pagePath.split('/')[2]!;
  const apiPage = async () => {
    const res = await call(server, 'GET', `/pages/${pageIdOf()}`, { key: ownerKey });
    assert.equal(res.status, 200, `GET /pages/${pageIdOf()}: ${res.text}`);
    return res.body.data.attributes as { monitored: string; page_tags: string[]; report_count: number; latest_report: string };
  };
  const apiTag = async () => {
    const res = await call(server, 'GET', `/page_tags/${tagId}`, { key: ownerKey });
    assert.equal(res.status, 200, `GET /page_tags/${tagId}: ${res.text}`);
    return res.body.data.attributes as { name: string; color: string; description: string | null };
  };
  const inputValue = (p: Page, selector: string) => p.$eval(selector, (e) => (e as HTMLInputElement).value);

  it('12. Tags: a tag made with the form is listed; a second one of that name gets the API\'s own message and status; "Save" renames it', async () => {
    const res = await clickAndWait(page, aria('Tags', 'link'));
    assert.equal(res.status(), 200);
    assert.equal(await heading(page), 'Tags');
    await page.locator(aria('Name', 'textbox')).fill(TAG);
    await page.locator(aria('Colour')).fill('#e4572e');
    await page.locator(aria('Description', 'textbox')).fill('The steps of buying');
    const created = await clickAndWait(page, aria('Create tag', 'button'));
    assert.equal(created.status(), 200);
    tagId = new URL(page.url()).searchParams.get('created') ?? '';
    assert.ok(tagId, `"Create tag" lands on /tags?created={id}: ${page.url()}`);
    assert.equal(await textOf(page, '[role=status]'), `Created the tag “${TAG}”.`);
    assert.ok(await page.$(aria(`Edit tag ${TAG}`, 'link')), `the tag is listed, with a link named "Edit tag ${TAG}"`);
    assert.deepEqual(await apiTag(), { name: TAG, color: 'E4572E', description: 'The steps of buying' }, 'the API has the tag as the form gave it');
    await checkScreen(page, 'tags, one tag');

    // The same name again: what the API answers for it, in the form.
    const api = await call(server, 'POST', '/page_tags', { key: ownerKey, body: { data: { type: 'tag', attributes: { name: TAG } } } });
    const apiError = errorOf(api);
    assert.ok(api.status >= 400 && apiError?.detail, `the API refuses a second tag named "${TAG}": ${api.status} ${api.text}`);
    await page.locator(aria('Name', 'textbox')).fill(TAG);
    const dup = await clickAndWait(page, aria('Create tag', 'button'));
    assert.equal(dup.status(), api.status, `the app answers a duplicate name with the API's status ${api.status}`);
    assert.equal(await textOf(page, '[role=alert]'), apiError.detail, "and shows the API's own message");
    assert.equal(await inputValue(page, aria('Name', 'textbox')), TAG, 'the form keeps what was typed');
    await checkScreen(page, 'tags, duplicate name', { reload: false });
    const all = await call(server, 'GET', '/page_tags', { key: ownerKey });
    assert.equal(all.body?.data?.length, 1, `no second tag was made: ${all.text}`);

    const edit = await clickAndWait(page, aria(`Edit tag ${TAG}`, 'link'));
    assert.equal(edit.status(), 200);
    assert.equal(new URL(page.url()).pathname, `/tags/${tagId}`);
    assert.equal(await heading(page), `Edit tag ${TAG}`);
    assert.equal(await inputValue(page, aria('Name', 'textbox')), TAG, 'the edit form shows the name');
    assert.equal(await inputValue(page, aria('Colour')), '#e4572e', 'and the colour');
    await checkScreen(page, 'tag edit');
    await page.locator(aria('Name', 'textbox')).fill(RENAMED);
    const saved = await clickAndWait(page, aria('Save', 'button'));
    assert.equal(saved.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/tags', '"Save" goes back to the list');
    assert.equal(await textOf(page, '[role=status]'), `Saved the tag “${RENAMED}”.`);
    assert.ok(await page.$(aria(`Edit tag ${RENAMED}`, 'link')), 'the new name is listed');
    assert.equal(await page.$(aria(`Edit tag ${TAG}`, 'link')), null, 'the old name is not');
    assert.deepEqual(await apiTag(), { name: RENAMED, color: 'E4572E', description: 'The steps of buying' }, 'renamed; colour and description kept');
  });

  it('13. the page view attaches the tag ("Tags", "Save tags"); the Pages list shows it on the page and filters by it', async () => {
    otherPagePath = `/pages/${(await seedPage(server.app.store, await accountIdOf(server.app.store, ownerKey))).pageId}`;
    await goto(page, server.base + pagePath);
    const box = `${aria('Tags', 'group')} ${aria(RENAMED, 'checkbox')}`;
    const checked = () => page.$eval(box, (e) => (e as HTMLInputElement).checked);
    assert.equal(await checked(), false, `the "Tags" fieldset has an unchecked checkbox named "${RENAMED}"`);
    await page.locator(box).click();
    const res = await clickAndWait(page, aria('Save tags', 'button'));
    assert.equal(res.status(), 200);
    assert.equal(new URL(page.url()).pathname, pagePath, '"Save tags" stays on the page view');
    assert.equal(await textOf(page, '[role=status]'), 'Tags saved.');
    assert.equal(await checked(), true, 'the tag is checked after saving');
    assert.deepEqual((await apiPage()).page_tags, [tagId], "the API's page carries the tag");
    await checkScreen(page, 'page view, tag saved');

    await clickAndWait(page, aria('Pages', 'link'));
    const row = await rowWith(page, pagePath);
    assert.ok(row, `the Pages list has the page's row: ${await textOf(page, 'main')}`);
    assert.equal(row.at(-1), RENAMED, `the Tags column of the page shows the tag: ${JSON.stringify(row)}`);
    assert.equal((await rowWith(page, otherPagePath))?.at(-1), '', 'the other page is listed, without tags');
    // At 1366 px the list's twelve columns fit: the Tags column is not cut off, nothing to scroll.
    const pagesList = (await page.$eval('table.pages-list', (t) => ({ scrolls: t.parentElement!.scrollWidth, shows: t.parentElement!.clientWidth }))) as { scrolls: number; shows: number };
    assert.ok(pagesList.scrolls <= pagesList.shows, `at 1366 px the Pages list fits its box (nothing to scroll): ${JSON.stringify(pagesList)}`);

    const tagSelect = aria('Tag', 'combobox');
    const value = await optionValue(page, tagSelect, RENAMED);
    assert.equal(value, tagId, `the "Tag" filter offers "${RENAMED}"`);
    await page.locator(tagSelect).fill(value);
    const filtered = await clickAndWait(page, aria('Apply', 'button'));
    assert.equal(filtered.status(), 200);
    assert.equal(new URL(page.url()).searchParams.get('tag'), tagId, '"Apply" filters by the tag');
    assert.ok(await rowWith(page, pagePath), 'filtered by its tag, the page is listed');
    assert.equal(await rowWith(page, otherPagePath), null, 'and the page without the tag is not');
    assert.equal(await page.$eval(tagSelect, (e) => (e as HTMLSelectElement).selectedOptions[0]?.text), RENAMED, 'the filter shows what it filters by');
    await checkScreen(page, 'pages, filtered by tag');

    // The Tags list counts the page, and its count opens the same filtered list.
    await clickAndWait(page, aria('Tags', 'link'));
    await clickAndWait(page, aria(`1 page tagged ${RENAMED}`, 'link'));
    assert.equal(new URL(page.url()).searchParams.get('tag'), tagId, `"1 page tagged ${RENAMED}" opens Pages filtered by the tag`);
    assert.ok(await rowWith(page, pagePath) && !(await rowWith(page, otherPagePath)), 'with the tagged page only');
  });

  it('14. the Pages filter with the keyboard alone: Tab to "Filter by URL", type, Enter; text no URL has shows no page', async () => {
    await goto(page, `${server.base}/pages`);
    assert.ok(await tabTo(page, "e.id === 'f-url'"), 'Tab reaches "Filter by URL"');
    const focusedName = "(() => { const e = document.activeElement; return (e.labels?.[0]?.textContent ?? e.textContent).trim(); })()";
    const order = [(await page.evaluate(focusedName)) as string];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      order.push((await page.evaluate(focusedName)) as string);
    }
    assert.deepEqual(order, ['Filter by URL', 'Tag', 'Sort by', 'Apply'], 'the filter form is in Tab order');
    await page.keyboard.down('Shift');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    assert.equal(await page.evaluate(focusedName), 'Filter by URL', 'Shift+Tab goes back to it');

    await page.keyboard.type('no-such-page');
    const [none] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    assert.equal(none?.status(), 200);
    assert.equal(new URL(page.url()).searchParams.get('url'), 'no-such-page', 'Enter in the field applies the filter');
    assert.equal(await rowWith(page, pagePath), null, 'no page has "no-such-page" in its URL');
    assert.match(await textOf(page, 'main'), /No page matches these filters\./);
    await checkScreen(page, 'pages, nothing matches');

    const host = new URL(site.url('/')).host;
    assert.ok(await tabTo(page, "e.id === 'f-url'"), 'Tab reaches "Filter by URL" again');
    assert.equal(await inputValue(page, '#f-url'), 'no-such-page', 'the field keeps the filter');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.type(host);
    const [some] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    assert.equal(some?.status(), 200);
    assert.equal(new URL(page.url()).searchParams.get('url'), host);
    assert.ok(await rowWith(page, pagePath), `filtered by "${host}", the fixture page is listed`);
    assert.equal(await rowWith(page, otherPagePath), null, 'and the page of another host is not');
  });

  it('15. "Monitoring" Daily and "Save monitoring" is what the API\'s page says; Off again stops it', async () => {
    await goto(page, server.base + pagePath);
    const select = aria('Monitoring', 'combobox');
    const chosen = () => page.$eval(select, (e) => (e as HTMLSelectElement).selectedOptions[0]?.text);
    assert.equal(await chosen(), 'Off');
    for (const [label, monitored] of [['Daily', 'daily'], ['Off', 'no']] as const) {
      const value = await optionValue(page, select, label);
      assert.ok(value, `"Monitoring" offers ${label}`);
      await page.locator(select).fill(value);
      const res = await clickAndWait(page, aria('Save monitoring', 'button'));
      assert.equal(res.status(), 200);
      assert.equal(new URL(page.url()).pathname, pagePath, '"Save monitoring" stays on the page view');
      assert.equal(await textOf(page, '[role=status]'), 'Monitoring saved.');
      assert.equal(await chosen(), label, `"Monitoring" shows ${label} after saving`);
      assert.equal((await apiPage()).monitored, monitored, `after ${label}, the API's page has monitored "${monitored}"`);
      const next = /Next test: /.test(await textOf(page, 'main'));
      assert.equal(next, label !== 'Off', `the next test's time is shown only while monitored (${label})`);
      if (label === 'Daily') await checkScreen(page, 'page view, monitored daily');
    }
  });

  it('16. a point of a chart is a link reached with Tab; Enter opens its report', async () => {
    await goto(page, server.base + pagePath);
    assert.ok(await tabTo(page, "e.tagName.toLowerCase() === 'a' && !!e.closest('svg')", 60), 'Tab reaches a point of a chart');
    const point = (await page.evaluate(`(() => { const e = document.activeElement;
      return { href: e.getAttribute('href'), name: e.getAttribute('aria-label'), chart: e.closest('svg').getAttribute('aria-label') }; })()`)) as
      { href: string; name: string; chart: string };
    assert.equal(point.href, reportPath, `the point links to the fixture page's report: ${JSON.stringify(point)}`);
    assert.match(point.name, /^\d\d:\d\d:\d\d \d{1,2} [A-Z][a-z]{2} \d{4}: [a-zA-Z ]+ \S+/, `the point is named with its time and figure: ${JSON.stringify(point)}`);
    const [res] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    assert.equal(res?.status(), 200);
    assert.equal(new URL(page.url()).pathname, reportPath, 'Enter on the point opens its report');
  });

  it('16b. "Add alert" on the page view ("Metric", "Condition", "Value", "Consecutive reports") lists the alert; its "Edit" screen; its "Delete" asks, then it is gone', async () => {
    // In another tab: this one stays on the report for step 17.
    const tab = await newTab(browser);
    try {
      await goto(tab, server.base + pagePath);
      for (const [name, label] of [['Metric', 'Fully loaded (ms)'], ['Condition', 'Above (>)']] as const) {
        const value = await optionValue(tab, aria(name, 'combobox'), label);
        assert.ok(value, `"${name}" offers ${label}`);
        await tab.locator(aria(name, 'combobox')).fill(value);
      }
      await tab.locator(aria('Consecutive reports', 'spinbutton')).fill('2');
      // Without a value: refused, the error at the form (far down the long page view) with the focus, the values kept.
      const refused = await clickAndWait(tab, aria('Add alert', 'button'));
      assert.equal(refused.status(), 400, 'an alert without a value is refused');
      assert.match(await assertErrorInView(tab, 'form.pv-alert-new', 'page view, alert without a value'), /^Invalid request parameter: .*value/);
      assert.deepEqual(await tab.evaluate(`['f-alert-metric', 'f-alert-operator', 'f-alert-value', 'f-alert-consecutive'].map((id) => document.getElementById(id).value)`),
        ['fully_loaded_time', 'gt', '', '2'], 'the form keeps what was chosen');
      assert.ok(((await tab.evaluate('scrollY')) as number) > 600, 'the page view opened far down, at its Alerts part');
      await checkScreen(tab, 'page view, alert refused', { reload: false });
      await tab.locator(aria('Value', 'textbox')).fill('3000');
      const added = await clickAndWait(tab, aria('Add alert', 'button'));
      assert.equal(added.status(), 200);
      assert.equal(new URL(tab.url()).pathname, pagePath, '"Add alert" stays on the page view');
      assert.equal(await textOf(tab, '[role=status]'), 'Alert added.');
      const listed = (await call(server, 'GET', `/pages/${pageIdOf()}/performance_alert_conditions`, { key: ownerKey })).body.data as
        { id: string; attributes: { metric: string; operator: string; value: number; consecutive: number } }[];
      assert.deepEqual(listed.map(({ attributes: c }) => [c.metric, c.operator, c.value, c.consecutive]), [['fully_loaded_time', 'gt', 3000, 2]], 'the API has it as the form gave it');
      const row = await rowWith(tab, `${pagePath}/alerts/${listed[0]!.id}`);
      assert.deepEqual(row?.slice(0, 5), ['Fully loaded', '> 3.00 s', '2', 'Yes', 'OK'], `the table lists it: ${JSON.stringify(row)}`);
      await checkScreen(tab, 'page view, one alert');
      // Its own screen ("Edit"): the same fields, named by their labels (checkScreen).
      await clickAndWait(tab, aria('Edit alert Fully loaded > 3.00 s', 'link'));
      assert.deepEqual((await fieldNames(tab)).map((f) => f.name), ['Metric', 'Condition', 'Value', 'Consecutive reports'], "the alert's edit form");
      await checkScreen(tab, 'alert edit');
      await goto(tab, server.base + pagePath);

      const asked = nextDialog(tab, true);
      const deleted = await clickAndWait(tab, await named(tab, 'Delete alert', 'button'));
      assert.equal(await asked, 'Delete the alert “Fully loaded > 3.00 s”? Its past events stay listed.');
      assert.equal(deleted.status(), 200);
      assert.equal(await textOf(tab, '[role=status]'), 'Alert deleted; its past events stay listed.');
      assert.equal(await rowWith(tab, `${pagePath}/alerts/${listed[0]!.id}`), null, 'the table no longer lists it');
      assert.deepEqual((await call(server, 'GET', `/pages/${pageIdOf()}/performance_alert_conditions`, { key: ownerKey })).body.data, [], 'nor the API');
    } finally {
      await tab.close();
    }
  });

  it('17. "Retest" on a report and on the page view: the progress screen opens the new report by itself (stub loads)', async () => {
    loads.stub = true;
    reports.push(reportPath.split('/')[2]!);
    assert.equal(new URL(page.url()).pathname, reportPath, 'step 16 left the tab on the report');
    for (const where of ['report', 'page view']) {
      if (where === 'page view') await goto(page, server.base + pagePath);
      const res = await clickAndWait(page, aria('Retest', 'button'));
      assert.ok(res.status() === 200, `"Retest" on the ${where} answers ${res.status()} at ${page.url()}`);
      const path = await waitForPath(page, /^\/reports\/[^/]+$/, `"Retest" on the ${where}`);
      const id = path.split('/')[2]!;
      assert.ok(!reports.includes(id), `"Retest" on the ${where} made a new report: ${id}`);
      reports.push(id);
      assert.ok(await page.$(aria('Delete report', 'button')), `the new report opened in the app (${where})`);
      const test = await call(server, 'GET', `/tests/${id}`, { key: ownerKey });
      assert.deepEqual([test.body?.data?.attributes?.state, test.body?.data?.attributes?.source], ['completed', 'on-demand'], test.text);
    }
    assert.deepEqual(loads, { stub: true, real: 1, stubbed: 2 }, 'one load in a browser (step 6), the two retests by the stub');
    const p = await apiPage();
    assert.deepEqual([p.report_count, p.latest_report], [3, reports[2]], 'both retests are reports of the same page');
  });

  it('18. "Compare selected" on the page view: one report is refused with the reason; two side by side, with differences, a filmstrip lane each and two waterfalls', async () => {
    const [real, stub] = reports as [string, string, string];
    await goto(page, server.base + pagePath);
    const boxes = (await accessibleNodes(page)).filter((n) => n.role === 'checkbox' && n.name.startsWith('Select report of '));
    assert.equal(boxes.length, 3, `each of the 3 reports has a checkbox named "Select report of …": ${JSON.stringify(boxes)}`);
    assert.ok(await page.$(aria('Compare selected', 'button')), 'and a "Compare selected" button');
    await checkScreen(page, 'page view, three reports');
    // The page's history judges the newest report against the one before by the one rule of differences, and says its basis once.
    const changes = await page.$$eval('.pv-changes li', (lis) => lis.map((li) => li.textContent ?? ''));
    assert.ok(changes.length > 0 && changes.every((c) => / (same|better|worse|within noise)$/.test(c)),
      `the newest report against the one before, each figure better, worse, within noise or the same: ${JSON.stringify(changes)}`);
    assert.equal(await page.$$eval('main p', (ps) => ps.filter((p) => /are marked within noise/.test(p.textContent ?? '')).length), 1,
      'the page view says the basis of "within noise" once');

    // By the checkbox's id: the names ("Select report of 14:50:07 25 Nov 2026") tell reports apart by the second, and
    // the two stub retests may even share that.
    await page.locator(`#cmp-${real}`).click();
    const one = await clickAndWait(page, aria('Compare selected', 'button'));
    assert.equal(one.status(), 400, 'one report is not enough to compare');
    assert.equal(new URL(page.url()).pathname, '/compare');
    assert.match(await textOf(page, '[role=alert]'), /^Give 2 to 4 report IDs to compare/, 'and the screen says why');
    assert.equal(await page.$eval(aria('Back to the previous screen', 'link'), (a) => a.getAttribute('href')), pagePath, 'and leads back to the page view');
    await checkScreen(page, 'compare, one report');

    await goto(page, server.base + pagePath);
    for (const id of [real, stub]) await page.locator(`#cmp-${id}`).click();
    const res = await clickAndWait(page, aria('Compare selected', 'button'));
    assert.equal(res.status(), 200);
    const url = new URL(page.url());
    assert.equal(url.pathname, '/compare');
    assert.deepEqual(url.searchParams.getAll('reports').sort(), [real, stub].sort(), `the form sends both reports: ${url.search}`);
    assert.equal(await heading(page), 'Compare');
    const columns = await page.$$eval('table.cmp-table thead th', (ths) => ths.map((th) => ({ text: (th.textContent ?? '').trim(), href: th.querySelector('a')?.getAttribute('href') ?? '' })));
    assert.equal(columns.length, 3, `a column of figure names and one per report: ${JSON.stringify(columns)}`);
    assert.equal(columns[0]!.text, 'Figure');
    assert.deepEqual(columns.slice(1).map((c) => c.href).sort(), [`/reports/${real}`, `/reports/${stub}`].sort(), 'each report has its column, linked to it');
    assert.match(columns[1]!.text, /^Report 1 baseline/, 'the first column is the baseline');
    const deltas = (await page.evaluate(`Object.fromEntries([...document.querySelectorAll('table.cmp-table tbody tr')]
      .map((tr) => [tr.querySelector('th').textContent, tr.querySelectorAll('td')[1]?.querySelector('.cmp-delta')?.textContent ?? null]))`)) as Record<string, string | null>;
    // The stub's load took 12 ms; the real one longer.
    assert.match(deltas['Fully loaded'] ?? '', /^[+\u2212]\S+ m?s (better|worse|within noise)$/, `report 2's "Fully loaded" shows its difference: ${JSON.stringify(deltas)}`);
    assert.equal(deltas['Performance'], 'not comparable', 'a figure one report lacks (the stub ran no Lighthouse) is not compared');
    // A difference is news only beyond the figure's noise (the one table): each word is the rule's for the two reports' figures.
    const attrs = async (id: string) => (await call(server, 'GET', `/reports/${id}`, { key: ownerKey })).body.data.attributes as Record<string, number | null>;
    const baseIsReal = columns[1]!.href === `/reports/${real}`;
    const [before, after] = baseIsReal ? [await attrs(real), await attrs(stub)] : [await attrs(stub), await attrs(real)];
    for (const f of COMPARED_METRICS) {
      const shown = deltas[f.label] ?? '';
      const a = before[f.name];
      const b = after[f.name];
      if (typeof a !== 'number' || typeof b !== 'number' || shown === 'same' || shown === 'not comparable') continue;
      const worseBy = f.better === 'lower' ? b - a : a - b;
      const word = worseBy >= f.noise.change ? 'worse' : -worseBy >= f.noise.change ? 'better' : 'within noise';
      assert.ok(shown.endsWith(` ${word}`), `${f.label}: ${a} → ${b} against a noise of ${f.noise.change} is ${word}: ${JSON.stringify(shown)}`);
    }
    assert.equal(await page.$$eval('main p', (ps) => ps.filter((p) => /are marked within noise/.test(p.textContent ?? '')).length), 1,
      'the screen says the basis of "within noise" once');

    assert.ok(await page.$(aria('Filmstrips on one time axis', 'region')), 'the filmstrips are one region');
    const lanes = await page.$$eval('.cmp-lane', (ls) => ls.map((l) => ({ name: l.querySelector('.cmp-lane-name b')?.textContent ?? '', frames: l.querySelectorAll('img').length })));
    assert.deepEqual(lanes.map((l) => l.name), ['Report 1', 'Report 2'], `a filmstrip lane per report: ${JSON.stringify(lanes)}`);
    const realLane = lanes[columns[1]!.href === `/reports/${real}` ? 0 : 1]!;
    assert.ok(realLane.frames > 0, `the real report's lane has its frames: ${JSON.stringify(lanes)}`);
    // One figure, one value: each lane's "fully loaded" is its report's "Fully loaded" in the table.
    const tableFully = (await page.evaluate(`[...[...document.querySelectorAll('table.cmp-table tbody tr')].find((tr) => tr.querySelector('th').textContent === 'Fully loaded')
      .querySelectorAll('td .cmp-value')].map((v) => v.textContent)`)) as string[];
    const laneFully = await page.$$eval('.cmp-lane-name span', (ss) => ss.map((sp) => /fully loaded (.+)$/.exec(sp.textContent ?? '')?.[1] ?? sp.textContent));
    assert.deepEqual(laneFully, tableFully, 'each filmstrip lane says its report\'s fully loaded time as the table does');
    // The two waterfalls on one time axis: the same ticks at the same places.
    const axes = await page.$$eval('.cmp-section .waterfall th.axis', (ths) => ths.map((th) => th.innerHTML));
    assert.equal(axes.length, 2);
    assert.equal(axes[0], axes[1], 'the two waterfalls share one time axis');
    for (const n of [1, 2]) assert.ok(await page.$(await named(page, `Waterfall of report ${n}`, 'heading')), `a waterfall of report ${n}`);
    assert.equal((await accessibleNodes(page)).filter((a) => a.role === 'heading' && a.name.startsWith('Waterfall of report')).length, 2, 'two waterfalls');
    await checkScreen(page, 'compare');
  });

  it('19. "Compare with previous" on the newer report compares the two; another account\'s report is a 404, for either account', async () => {
    const [real, stub] = reports as [string, string, string];
    await goto(page, `${server.base}/reports/${stub}`);
    const res = await clickAndWait(page, aria('Compare with previous', 'link'));
    assert.equal(res.status(), 200);
    const url = new URL(page.url());
    assert.deepEqual([url.pathname, url.searchParams.get('reports')], ['/compare', `${real},${stub}`], 'the previous report first, then this one');
    assert.equal(await heading(page), 'Compare');
    const order = await page.$$eval('table.cmp-table thead th a', (as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(order, [`/reports/${real}`, `/reports/${stub}`]);
    assert.match(await textOf(page, '.cmp-note'), /Differences smaller than a figure's usual load-to-load change .* are marked within noise/,
      'the report\'s "Compare with previous" judges by the same rule, and says so');
    // The two stub retests of the unchanged page: fully loaded 12 ms, then 33 ms. Within noise, in the neutral colour.
    await goto(page, `${server.base}/reports/${reports[2]}`);
    await clickAndWait(page, aria('Compare with previous', 'link'));
    const delta = async (figure: string) => page.$$eval('table.cmp-table tbody tr', (trs, name) => {
      const d = trs.find((tr) => tr.querySelector('th')?.textContent === name)?.querySelectorAll('td')[1]?.querySelector('.cmp-delta');
      return { text: d?.textContent ?? null, color: d ? getComputedStyle(d).color : null };
    }, figure);
    const fully = await delta('Fully loaded');
    assert.equal(fully.text, '+21 ms within noise', 'an unchanged page\'s 21 ms is not news');
    assert.equal(fully.color, (await delta('Page size')).color, 'within noise has the neutral colour of "same"');
    await goto(page, server.base + reportPath);
    assert.equal(await page.$(aria('Compare with previous', 'link')), null, 'the oldest report has no "Compare with previous"');

    const typed = await goto(page, `${server.base}/compare?reports=${real}`);
    assert.equal(typed.status(), 400, '/compare with one report ID answers 400');
    assert.match(await textOf(page, '[role=alert]'), /^Give 2 to 4 report IDs to compare/);

    const foreign = (await seedPage(server.app.store, await accountIdOf(server.app.store, otherKey))).reportId;
    const notOurs = await goto(page, `${server.base}/compare?reports=${real},${foreign}`);
    assert.equal(notOurs.status(), 404, "a report of another account is not found");
    assert.equal(await heading(page), 'Report not found');
    assert.match(await textOf(page, '[role=alert]'), new RegExp(`^No report with ID ${foreign} in this account`));
    await checkScreen(page, "compare, another account's report");
    const theirs = await goto(other, `${server.base}/compare?reports=${real},${stub}`);
    assert.equal(theirs.status(), 404, "the other account cannot compare this account's reports");
    assert.ok(!(await textOf(other, 'main')).includes(site.url('/')), 'and sees nothing of them');
  });

  it('20. "Delete report" asks first: dismissed, nothing is deleted; accepted, the report is gone (API 404) and the page view shows the others', async () => {
    const newest = reports[2]!;
    await goto(page, `${server.base}/reports/${newest}`);
    const dismissed = nextDialog(page, false);
    await page.locator(aria('Delete report', 'button')).click();
    assert.equal(await dismissed, 'Delete this report and its files? This cannot be undone.', '"Delete report" asks first');
    const moved = await page.waitForNavigation({ timeout: 500 }).then(() => true, () => false);
    assert.equal(moved, false, 'dismissed, the form is not sent');
    assert.equal((await call(server, 'GET', `/reports/${newest}`, { key: ownerKey })).status, 200, 'and the report is still there');

    const accepted = nextDialog(page, true);
    const res = await clickAndWait(page, aria('Delete report', 'button'));
    await accepted;
    assert.equal(res.status(), 200);
    assert.equal(new URL(page.url()).pathname, pagePath, 'accepted, the report is deleted and the page view opens');
    assert.equal((await call(server, 'GET', `/reports/${newest}`, { key: ownerKey })).status, 404, 'the API no longer has the report');
    assert.equal(await page.$(`main a[href="/reports/${newest}"]`), null, 'the page view no longer links to it');
    assert.match(await textOf(page, '.pv-facts'), /^2 reports /);
    assert.equal((await apiPage()).report_count, 2);
    reports.pop();
  });

  it('21. "Delete tag" asks, then no page carries it; "Delete page" asks, then the page and its reports are gone', async () => {
    await goto(page, `${server.base}/tags/${tagId}`);
    const tagAsked = nextDialog(page, true);
    const tagGone = await clickAndWait(page, aria('Delete tag', 'button'));
    assert.equal(await tagAsked, `Delete the tag “${RENAMED}”? It is removed from every page that carries it.`);
    assert.equal(tagGone.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/tags');
    assert.match(await textOf(page, '[role=status]'), /^Deleted the tag/);
    assert.equal(await page.$(aria(`Edit tag ${RENAMED}`, 'link')), null, 'the tag is no longer listed');
    assert.equal((await call(server, 'GET', `/page_tags/${tagId}`, { key: ownerKey })).status, 404, 'nor in the API');
    assert.deepEqual((await apiPage()).page_tags, [], 'and the page carries it no more');

    await goto(page, server.base + pagePath);
    const pageAsked = nextDialog(page, true);
    const pageGone = await clickAndWait(page, aria('Delete page', 'button'));
    assert.equal(await pageAsked, 'Delete this page and its 2 reports? This cannot be undone.');
    assert.equal(pageGone.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/pages', '"Delete page" goes back to Pages');
    assert.equal(await rowWith(page, pagePath), null, 'the page is no longer listed');
    assert.ok(await rowWith(page, otherPagePath), 'the other page still is');
    assert.equal((await call(server, 'GET', `/pages/${pageIdOf()}`, { key: ownerKey })).status, 404, 'the API no longer has the page');
    for (const id of reports) assert.equal((await call(server, 'GET', `/reports/${id}`, { key: ownerKey })).status, 404, `nor its report ${id}`);
  });

  /* Scans (docs/scans.md): a finished and a running scan seeded in the store (21a), then one started with the form (21d). */
  let finishedScan: SeededScan;
  let runningScan: SeededScan;
  /** The cells' text of the rows of a table (by CSS). */
  const tableRows = (p: Page, css: string) => p.evaluate(`[...document.querySelectorAll(${JSON.stringify(`${css} tbody tr`)})]
    .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.replace(/\\s+/g, ' ').trim()))`) as Promise<string[][]>;
  /** Fetched in the page, with its session (as a download link would be). */
  const fetchIn = (p: Page, href: string) => p.evaluate(`fetch(${JSON.stringify(href)}, { credentials: 'same-origin' })
    .then(async (r) => ({ status: r.status, type: r.headers.get('content-type'), disposition: r.headers.get('content-disposition'), text: await r.text() }))`) as
    Promise<{ status: number; type: string; disposition: string | null; text: string }>;
  /** The status line, read until it matches (across the reloads the scan's script makes); its text. */
  async function waitForStatus(p: Page, re: RegExp, what: string, ms = 30_000): Promise<string> {
    const deadline = Date.now() + ms;
    let text = '';
    for (;;) {
      text = await textOf(p, '[role=status]').catch(() => '');
      if (re.test(text)) return text;
      if (Date.now() > deadline) assert.fail(`${what}: the status still says "${text}" after ${ms} ms (${p.url()})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('21a. "Scans" lists the scans newest first (site, source, state, pages done, median performance); another account\'s scan is a 404', async () => {
    const store = server.app.store;
    const accountId = await accountIdOf(store, ownerKey);
    finishedScan = await seedScan(store, accountId, { url: `${SCAN_SITE}/`, state: 'completed', source: 'sitemap', pages: SCAN_PAGES, found: 14,
      skipped: { sampled_out: 6, robots_txt: 2 }, errors: [`sitemap ${SCAN_SITE}/news.xml: line 3: not a sitemap`], created: Date.now() - 3_600_000 });
    runningScan = await seedScan(store, accountId, { url: `${SCAN_SITE}/shop/`, state: 'running', source: 'crawl', pages: [
      { ...SCAN_PAGES[0]!, url: `${SCAN_SITE}/shop/` }, { url: `${SCAN_SITE}/shop/1`, template: '/shop/:id', state: 'started' }, { url: `${SCAN_SITE}/shop/2`, template: '/shop/:id', state: 'started' },
    ] });
    await goto(page, `${server.base}/pages`);
    const res = await clickAndWait(page, aria('Scans', 'link'));
    assert.equal(res.status(), 200);
    assert.equal(await heading(page), 'Scans');
    assert.equal(await page.$eval('nav a[aria-current=page]', (e) => e.textContent), 'Scans', 'Scans is the current screen');
    const rows = await tableRows(page, 'table.scans-list');
    assert.equal(rows.length, 2, `both scans are listed: ${JSON.stringify(rows)}`);
    assert.deepEqual(rows.map((r) => r[0]), [`${SCAN_SITE}/shop/`, `${SCAN_SITE}/`], 'newest first');
    assert.deepEqual(rows[0]!.filter((_, i) => i !== 5), [`${SCAN_SITE}/shop/`, 'Desktop', 'Crawl', 'Running', '1 of 3', '–']);
    assert.deepEqual(rows[1]!.filter((_, i) => i !== 5), [`${SCAN_SITE}/`, 'Desktop', 'Sitemap', 'Completed', '6 of 6 (1 failed)', '82%'], 'the median performance of its 5 pages');
    assert.match(rows[1]![5]!, /^\d{4}-\d\d-\d\d \d\d:\d\d$/, 'when it started');
    assert.equal(await page.$eval(aria(`${SCAN_SITE}/`, 'link'), (e) => e.getAttribute('href')), `/scans/${finishedScan.scanId}`, 'the site links to its scan');
    await checkScreen(page, 'scans');

    const theirs = await goto(other, `${server.base}/scans/${finishedScan.scanId}`);
    assert.equal(theirs.status(), 404, "another account's scan is not found");
    assert.equal(await heading(other), 'Scan not found');
    assert.ok(!(await textOf(other, 'main')).includes(SCAN_SITE), 'and shows nothing of it');
    await checkScreen(other, 'scan not found');
    for (const ext of ['csv', 'json']) {
      assert.equal((await fetchIn(other, `/scans/${finishedScan.scanId}/pages.${ext}`)).status, 404, `nor its pages.${ext}`);
    }
    await goto(other, `${server.base}/scans`);
    assert.equal(await other.$(`main a[href="/scans/${finishedScan.scanId}"]`), null, 'nor lists it');
  });

  it("21b. a finished scan: its Core Web Vitals as distributions with their numbers, grades, worst pages and templates, failing audits, third parties; its pages sort by a column, link their reports and download as CSV and JSON", async () => {
    await clickAndWait(page, aria(`${SCAN_SITE}/`, 'link'));
    assert.equal(new URL(page.url()).pathname, `/scans/${finishedScan.scanId}`);
    assert.equal(await heading(page), `Scan of ${SCAN_SITE}/`);
    assert.equal(await textOf(page, '[role=status]'), 'Completed: 5 pages measured, 1 failed');
    assert.equal(await page.$(aria('Cancel scan', 'button')), null, 'a finished scan has no "Cancel scan"');
    const discovery = await textOf(page, 'section[aria-labelledby=scan-discovery-h]');
    for (const said of ['Found14 URLs', 'Skipped: 8 URLs', 'Sampled out (enough pages of their template)6', 'Disallowed by robots.txt2',
      `sitemap ${SCAN_SITE}/news.xml: line 3: not a sitemap`]) assert.ok(discovery.includes(said), `Discovery says "${said}": ${discovery}`);

    const vitals = (await page.$$eval('.scan-vital', (cards) => cards.map((c) => ({
      title: c.querySelector('h3')?.textContent ?? '',
      legend: [...c.querySelectorAll('.dist-legend li')].map((li) => (li.textContent ?? '').replace(/\s+/g, ' ').trim()),
      widths: [...c.querySelectorAll('.dist span')].map((s) => (s as HTMLElement).style.width),
      figures: [...c.querySelectorAll('dd')].map((d) => d.textContent),
    }))));
    const legend = ['3 good (60%)', '1 needs improvement (20%)', '1 poor (20%)'];
    assert.deepEqual(vitals, [
      { title: 'Largest Contentful Paint (LCP)', legend, widths: ['60%', '20%', '20%'], figures: ['2.30 s', '3.10 s'] },
      { title: 'Cumulative Layout Shift (CLS)', legend, widths: ['60%', '20%', '20%'], figures: ['0.05', '0.12'] },
      { title: 'Total Blocking Time (TBT)', legend, widths: ['60%', '20%', '20%'], figures: ['150 ms', '320 ms'] },
    ], 'each vital: good, needs improvement and poor as bar widths and as numbers; its median and 75th percentile');
    assert.ok(await page.$(aria('Pages by grade', 'list')), 'a list named "Pages by grade"');
    assert.deepEqual(await page.$$eval('.scan-grades li', (lis) => lis.map((li) => (li.textContent ?? '').trim())),
      ['A1 page', 'B2 pages', 'C1 page', 'D1 page', 'E0 pages', 'F0 pages']);
    const worst = await tableRows(page, 'table.scan-worst');
    assert.deepEqual(worst[0], ['/p/3', '/p/:id', 'D', '58%', '4.60 s', '700 ms', '0.3'], 'the worst page first, by its path on the site');
    assert.equal(await page.$eval(`table.scan-worst ${aria('/p/3', 'link')}`, (e) => e.getAttribute('href')),
      `/reports/${finishedScan.pages[3]!.reportId}`, 'and it opens its report');
    assert.deepEqual(await tableRows(page, 'table.scan-worst-templates'),
      [['/p/:id', '3', '71%', '3.10 s'], ['/blog/:slug', '1', '88%', '1.90 s'], ['/', '1', '95%', '1.20 s']], 'templates, the worst first');
    assert.deepEqual(await page.$$eval('.scan-audits li', (lis) => lis.map((li) => (li.textContent ?? '').replace(/\s+/g, ' ').trim())),
      ['Document request latency fails on 3 of 5 pages; 900 ms and 1.14 MB to save high impact'], 'the failing audit, on how many pages, what it saves');
    assert.deepEqual(await tableRows(page, 'table.scan-third'), [['https://cdn.example.net', '5', '15', '97.7 KB', '500 ms']]);

    // The pages: each completed one links its report; the failed one says why.
    const table = await tableRows(page, 'table.scan-pages');
    const paths = (urls: string[]) => urls.map((u) => u.slice(SCAN_SITE.length));
    assert.deepEqual(table.map((r) => r[1]), paths(SCAN_PAGES.map((p) => p.url)), 'in test order, by their paths on the site');
    assert.deepEqual(table[5]!.slice(3, 5), ['FailedThe page answered 500 Internal Server Error.', '–']);
    for (const p of finishedScan.pages.filter((x) => x.reportId)) {
      assert.equal(await page.$eval(`table.scan-pages ${aria(paths([p.url])[0]!, 'link')}`, (e) => e.getAttribute('href')), `/reports/${p.reportId}`, `${p.url} links its report`);
    }
    assert.equal(await page.$(aria('Site over time', 'heading')), null, 'one completed scan of the site: no "Site over time"');
    await checkScreen(page, 'scan, finished');

    await clickAndWait(page, aria('LCP', 'link'));
    assert.equal(new URL(page.url()).searchParams.get('sort'), '-largest_contentful_paint', '"LCP" sorts the slowest first');
    assert.deepEqual((await tableRows(page, 'table.scan-pages')).map((r) => r[1]),
      ['/p/3', '/p/2', '/p/1', '/blog/a', '/', '/p/4'], 'the slowest first, a page without LCP last');
    assert.equal(await page.$eval('table.scan-pages th[aria-sort]', (th) => `${th.textContent?.trim()} ${th.getAttribute('aria-sort')}`), 'LCP ▼ descending');
    await clickAndWait(page, aria('LCP', 'link'));
    assert.equal(new URL(page.url()).searchParams.get('sort'), 'largest_contentful_paint', 'again, the other way');
    assert.deepEqual((await tableRows(page, 'table.scan-pages')).map((r) => r[1]),
      ['/', '/blog/a', '/p/1', '/p/2', '/p/3', '/p/4'], 'the fastest first, a page without LCP still last');

    // The pages filtered by state, template and grade, as the API's list filters them: a GET form, its fields named by
    // their labels, what was chosen kept, the count of matches said; the sort kept.
    assert.deepEqual((await fieldNames(page)).map((f) => f.name), ['State', 'Template', 'Grade'], 'the filter\'s fields');
    assert.deepEqual(await page.$$eval('#f-pages-template option', (os) => os.map((o) => o.textContent)), ['Any template', '/', '/blog/:slug', '/p/:id']);
    await page.locator(aria('State', 'combobox')).fill('completed');
    await page.locator(aria('Grade', 'combobox')).fill('B');
    await clickAndWait(page, aria('Apply', 'button'));
    const filteredUrl = new URL(page.url());
    assert.deepEqual([filteredUrl.searchParams.get('state'), filteredUrl.searchParams.get('grade'), filteredUrl.searchParams.get('sort')],
      ['completed', 'B', 'largest_contentful_paint'], `a GET of the scan's screen, the sort kept: ${page.url()}`);
    assert.deepEqual((await tableRows(page, 'table.scan-pages')).map((r) => r[1]), ['/blog/a', '/p/1'], 'the completed pages of grade B, fastest first');
    assert.equal(await textOf(page, '.scan-pages-count'), '2 of 6 pages match state completed, grade B. Show every page');
    assert.deepEqual(await page.$$eval('.scan-pages-filter select', (ss) => ss.map((e) => (e as HTMLSelectElement).value)), ['completed', '', 'B'],
      'the form keeps what was chosen');
    const api = await call(server, 'GET', `/scans/${finishedScan.scanId}/pages?filter[state]=completed&filter[grade]=B`, { key: ownerKey });
    assert.equal(api.body.data.length, 2, 'as the API filters them');
    // A value the API refuses is refused with its message, at the form; the list is shown whole.
    const refused = await goto(page, `${server.base}/scans/${finishedScan.scanId}?grade=Z#pages`);
    const apiRefused = errorOf(await call(server, 'GET', `/scans/${finishedScan.scanId}/pages?filter[grade]=Z`, { key: ownerKey }));
    assert.equal(refused.status(), 400, "the API's status");
    assert.ok((await textOf(page, '.scan-pages-filter [role=alert]')).includes(apiRefused.detail!), `the API's message "${apiRefused.detail}"`);
    assert.equal((await tableRows(page, 'table.scan-pages')).length, 6);

    const csvHref = await page.$eval(aria('Download CSV', 'link'), (e) => e.getAttribute('href'));
    assert.equal(csvHref, `/scans/${finishedScan.scanId}/pages.csv`);
    const csv = await fetchIn(page, csvHref!);
    assert.equal(csv.status, 200, csv.text.slice(0, 300));
    assert.match(csv.type, /^text\/csv/);
    assert.equal(csv.disposition, `attachment; filename="scan-${finishedScan.scanId}.csv"`);
    const lines = csv.text.trimEnd().split('\r\n');
    assert.equal(lines[0], 'url,template,position,state,error,test,report,grade,performance_score,structure_score,largest_contentful_paint,' +
      'total_blocking_time,cumulative_layout_shift,fully_loaded_time,page_bytes,page_requests', 'the API\'s columns');
    assert.equal(lines.length, 7, 'a header and a line per page');
    assert.ok(lines[4]!.startsWith(`${SCAN_SITE}/p/3,/p/:id,3,completed,,${finishedScan.pages[3]!.id},${finishedScan.pages[3]!.reportId},D,58,`), lines[4]);
    const jsonHref = await page.$eval(aria('Download JSON', 'link'), (e) => e.getAttribute('href'));
    const json = await fetchIn(page, jsonHref!);
    assert.equal(json.status, 200);
    const doc = JSON.parse(json.text) as { scan: string; site: string; pages: { url: string; largest_contentful_paint: number | null }[] };
    assert.deepEqual([doc.scan, doc.site, doc.pages.length], [finishedScan.scanId, SCAN_SITE, 6]);
    assert.equal(doc.pages[3]!.largest_contentful_paint, 4600);
  });

  it('21c. a running scan: its pages done, and each page as it completes without a reload; "Cancel scan" asks, then the scan is cancelled', async () => {
    await goto(page, `${server.base}/scans/${runningScan.scanId}`);
    assert.equal(await heading(page), `Scan of ${SCAN_SITE}/shop/`);
    assert.equal(await textOf(page, '[role=status]'), 'Running: 1 of 3 pages done');
    assert.deepEqual((await tableRows(page, 'table.scan-pages')).map((r) => r[3]), ['Completed', 'Loading', 'Loading']);
    assert.ok(await page.$(aria('Cancel scan', 'button')), 'a running scan has "Cancel scan"');
    /** The Progress card's facts, by name. */
    const progressFacts = async () => (await page.$eval('#scan-progress .scan-card dl.facts', (dl) =>
      Object.fromEntries([...dl.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])))) as Record<string, string>;
    const before = await progressFacts();
    // Credits held for the pages still to run are reserved, not used; no pace before a page done has its test's times
    // (this seeded page has none), and the card does not say "once a page is done" beside a page done.
    assert.deepEqual([before['Pages done'], before['Credits'], before['Rate'], before['Time left']],
      ['1 of 3', '3 reserved, 1 used', 'not known yet', 'not known yet'], JSON.stringify(before));
    await checkScreen(page, 'scan, running');

    await page.evaluate('window.__marker = "same document"');
    const [, loading] = runningScan.pages;
    const reportId = await completeSeededScanPage(server.app.store, await accountIdOf(server.app.store, ownerKey), loading!, {
      url: loading!.url, template: '/shop/:id', grade: 'B', performance_score: 84, largest_contentful_paint: 2000, total_blocking_time: 100,
      cumulative_layout_shift: 0.03, fully_loaded_time: 2500,
    });
    const status = await waitForStatus(page, /^Running: 2 of 3 pages done, about .+ left$/, 'the status follows the scan', 15_000);
    await page.waitForSelector(`table.scan-pages a[href="/reports/${reportId}"]`, { timeout: 15_000 });
    // The pace since its first page started, and the time left at it: the status line and the card say the same.
    const after = await progressFacts();
    assert.match(after['Rate'] ?? '', /^[\d.]+ pages? a minute$/, JSON.stringify(after));
    assert.match(after['Time left'] ?? '', /^about \d/);
    assert.equal(status, `Running: 2 of 3 pages done, ${after['Time left']} left`, `the status and the card agree: ${JSON.stringify(after)}`);
    assert.equal(after['Credits'], '3 reserved, 2 used');
    const row = (await tableRows(page, 'table.scan-pages'))[1]!;
    assert.deepEqual(row.slice(1, 8), ['/shop/1', '/shop/:id', 'Completed', 'B', '84%', '–', '2.00 s'], 'the page shows its figures as it completes');
    assert.equal(await page.evaluate('window.__marker'), 'same document', 'in the same document: no reload');

    const asked = nextDialog(page, true);
    await clickAndWait(page, aria('Cancel scan', 'button'));
    assert.match(await asked, /^Cancel this scan\?/);
    await waitForStatus(page, /^Cancelled after 2 pages of 3$/, '"Cancel scan"', 10_000);
    assert.equal(new URL(page.url()).pathname, `/scans/${runningScan.scanId}`);
    assert.equal(await page.$(aria('Cancel scan', 'button')), null, 'no "Cancel scan" once cancelled');
    assert.match(await textOf(page, '.scan-status'), /The page loading when the scan was cancelled finishes/, 'the page still loading is waited for');
    const api = await call(server, 'GET', `/scans/${runningScan.scanId}`, { key: ownerKey });
    assert.equal(api.body?.data?.attributes?.state, 'cancelled', api.text);
  });

  it('21d. "New scan": each field named by its label; a bad input gets the API\'s message and creates nothing; a list of URLs of the fixture site starts a scan that its screen follows to its site report', { timeout: 90_000 }, async () => {
    await goto(page, `${server.base}/scans`);
    // Every field is named by its label, shown or not (checkScreen); the list's URLs and a crawl's depth show for their
    // source alone (the script hides them for the others; without it every field stays visible).
    const fields = (await fieldNames(page)).map((f) => f.name);
    assert.deepEqual(fields, SCAN_FIELDS, 'the scan\'s fields, then Analyze\'s options');
    const shownFields = async () => {
      const hidden = await page.$$eval('[hidden] :is(input, select, textarea)', (es) => es.map((e) => e.id));
      return (await fieldNames(page)).filter((f) => !hidden.some((id) => f.field.endsWith(`#${id}`))).map((f) => f.name);
    };
    const without = (...names: string[]) => SCAN_FIELDS.filter((n) => !names.includes(n));
    assert.deepEqual(await shownFields(), without('Crawl depth', 'URLs'), 'a sitemap: neither URLs nor Crawl depth');
    await page.locator(aria('Source', 'combobox')).fill('crawl');
    assert.deepEqual(await shownFields(), without('URLs'), 'a crawl: its depth');
    await page.locator(aria('Source', 'combobox')).fill('list');
    assert.deepEqual(await shownFields(), without('Crawl depth'), 'a list: its URLs');
    const noScript = (await fetchIn(page, '/scans')).text;
    assert.match(noScript, /<div class="field" data-only-when="source=list"><label for="f-urls">URLs<\/label>/, 'sent visible: without script it stays so');
    assert.match(noScript, /<div class="field" data-only-when="source=crawl"><label for="f-crawl_depth">Crawl depth<\/label>/);
    assert.equal(await page.$eval(aria('Respect robots.txt', 'checkbox'), (e) => (e as HTMLInputElement).checked), true, 'robots.txt is respected unless unchecked');
    const url = site.url('/');
    const credits = await creditsOf(server, ownerKey);
    const scansBefore = (await call(server, 'GET', '/scans', { key: ownerKey })).body.data.length;
    const api = await call(server, 'POST', '/scans', { key: ownerKey, body: { data: { type: 'scan', attributes: { url, source: 'list' } } } });
    const apiError = errorOf(api);
    assert.equal(api.status, 400, api.text);

    await page.locator(aria('URL', 'textbox')).fill(url);
    await page.locator(aria('Source', 'combobox')).fill('list');
    const refused = await clickAndWait(page, aria('Start scan', 'button'));
    assert.equal(refused.status(), 400, "the app answers with the API's status");
    const shown = await textOf(page, '[role=alert]');
    assert.ok(shown.includes(apiError.detail!), `the app shows the API's message "${apiError.detail}"; it showed "${shown}"`);
    assert.equal(await page.$eval('#f-url', (e) => (e as HTMLInputElement).value), url, 'the form keeps what was typed');
    assert.equal(await page.$eval('#f-source', (e) => (e as HTMLSelectElement).value), 'list');
    await checkScreen(page, 'scans, refused', { reload: false });
    assert.equal(await creditsOf(server, ownerKey), credits, 'a refused scan reserves nothing');
    assert.equal((await call(server, 'GET', '/scans', { key: ownerKey })).body.data.length, scansBefore, 'and creates no scan');

    // Two bad alert lines among good ones (a blank line between): each named by its line, as the API names each by its
    // index; the error at the form with the focus, the lines kept.
    const lines = 'lcp_p75 > 2500\n\nlcpx > 1\ngrade_drop 9';
    await page.locator(aria('URLs', 'textbox')).fill(url);
    await page.locator(aria('Alert conditions', 'textbox')).fill(lines);
    const twoBad = await clickAndWait(page, aria('Start scan', 'button'));
    assert.equal(twoBad.status(), 400, 'two bad alert lines are refused');
    const summary = await assertErrorInView(page, 'form.scan-form', 'scans, two bad alert lines');
    assert.match(summary, /^Invalid test parameter: 2 lines are refused\. /);
    assert.match(summary, /Alert conditions: line 3 \(figure\) "lcpx" is no site figure/);
    assert.match(summary, /Alert conditions: line 4 \(value\) of kind grade_drop/);
    assert.equal(await page.$eval('#f-alert_conditions', (e) => (e as HTMLTextAreaElement).value), lines, 'the lines are kept');
    await checkScreen(page, 'scans, two bad alert lines', { reload: false });
    const apiLines = errorOf(await call(server, 'POST', '/scans', { key: ownerKey, body: { data: { type: 'scan', attributes: { url, source: 'list', urls: [url],
      alert_conditions: [{ figure: 'lcp_p75', operator: 'gt', value: 2500 }, { figure: 'lcpx', operator: 'gt', value: 1 }, { kind: 'grade_drop', value: 9 }] } } } }));
    assert.equal(apiLines.title, 'Invalid test parameter');
    assert.match(apiLines.detail ?? '', /^2 entries of alert_conditions are refused: alert_conditions\[1\]\.figure .*; alert_conditions\[2\]\.value/,
      'the API names both as well');
    await page.locator(aria('Alert conditions', 'textbox')).fill('');
    await page.locator(aria('Max pages', 'spinbutton')).fill('1');
    // Shown again after the refusal, the options are open already.
    if (!(await page.$eval('.scan-form details', (d) => (d as HTMLDetailsElement).open))) await page.locator(aria('Analysis options')).click();
    await page.waitForSelector(aria('Report type', 'combobox'), { visible: true });
    const none = await optionValue(page, aria('Report type', 'combobox'), 'Metrics only (no report)');
    assert.ok(none, 'the options offer "Metrics only"');
    await page.locator(aria('Report type', 'combobox')).fill(none);
    const started = await clickAndWait(page, aria('Start scan', 'button'));
    assert.equal(started.status(), 200);
    const m = /^\/scans\/([^/]+)$/.exec(new URL(page.url()).pathname);
    assert.ok(m, `"Start scan" opens the scan's screen: ${page.url()}`);
    assert.equal(await heading(page), `Scan of ${url}`);
    assert.match(await textOf(page, '[role=status]'), /^(Discovering pages|Running|Completed)/);
    const scan = await call(server, 'GET', `/scans/${m[1]}`, { key: ownerKey });
    const a = scan.body?.data?.attributes;
    assert.deepEqual([a?.url, a?.source, a?.max_pages, a?.urls_given], [url, 'list', 1, 1], `the API has the scan as the form gave it: ${scan.text}`);

    // The agent's load is the stub here: the screen follows the scan to its end by itself.
    await waitForStatus(page, /^Completed: 1 page measured$/, 'the new scan', 60_000);
    assert.ok(await page.$(aria('Core Web Vitals', 'heading')), 'the site report opened');
    const link = await page.$eval(`table.scan-pages ${aria('/', 'link')}`, (e) => e.getAttribute('href'));
    assert.match(link ?? '', /^\/reports\/[^/]+$/, 'the page links its report');
    await checkScreen(page, 'scan, started from the form');
    // The page's report says it is part of the scan and leads back to it.
    const report = (await fetchIn(page, link!)).text;
    assert.match(report, new RegExp(`<p class="report-scan">Part of the <a href="/scans/${m[1]}">scan of ${url.replace(/[.]/g, '\\.')}</a> on \\d{1,2} [A-Z][a-z]{2} \\d{4}, \\d\\d:\\d\\d UTC\\.</p>`),
      'the report names its scan and links it');
    // Analyze's "Recent tests": the scan is one line linking its screen; its page's test is not listed.
    const analyze = (await fetchIn(page, '/')).text;
    const recent = analyze.slice(analyze.indexOf('<h2 id="recent-tests">'));
    assert.match(recent, new RegExp(`<a href="/scans/${m[1]}">Scan of ${url.replace(/[.]/g, '\\.')}</a>[\\s\\S]*?Completed: 1 page measured`), 'the scan as one line');
    assert.ok(!recent.includes(`href="${link}"`), 'not its page\'s test');
  });

  it('21e. two scans of a site compared: "Compare with the previous scan" (or another picked in a form); the notes, the counts, both site figures, a template that got worse, the pages worse first linking both reports; another account\'s is a 404', async () => {
    const store = server.app.store;
    const accountId = await accountIdOf(store, ownerKey);
    // A later scan of the first one's site (step 21a): /p/2 slower, /p/3 faster, /blog/a gone, /blog/b new, /p/4 measured this time.
    const byPath = (path: string) => SCAN_PAGES.find((p) => p.url === `${SCAN_SITE}${path}`)!;
    const later = await seedScan(store, accountId, { url: `${SCAN_SITE}/`, state: 'completed', source: 'sitemap', throttle: '5000/1000/30',
      created: Date.now() - 1_800_000, pages: [
        byPath('/'), byPath('/p/1'), { ...byPath('/p/2'), largest_contentful_paint: 4200, grade: 'E' }, { ...byPath('/p/3'), total_blocking_time: 200 },
        { url: `${SCAN_SITE}/blog/b`, template: '/blog/:slug', grade: 'B', performance_score: 86, largest_contentful_paint: 2000, total_blocking_time: 100,
          cumulative_layout_shift: 0.02, fully_loaded_time: 2200 },
        { url: `${SCAN_SITE}/p/4`, template: '/p/:id', grade: 'C', performance_score: 75, largest_contentful_paint: 2600, total_blocking_time: 200,
          cumulative_layout_shift: 0.05, fully_loaded_time: 2800 },
      ] });
    const compareUrl = `/scans/${finishedScan.scanId}/compare/${later.scanId}`;
    await goto(page, `${server.base}/scans/${later.scanId}`);
    assert.equal(await page.$eval(aria('Compare with the previous scan', 'link'), (e) => e.getAttribute('href')), compareUrl,
      'a finished scan links its comparison with the previous scan of its site');
    assert.deepEqual((await fieldNames(page)).map((f) => f.name), ['Scan to compare with', 'State', 'Template', 'Grade'],
      'and offers the others in a form (then the pages\' filter)');
    await checkScreen(page, 'scan, with a comparison');

    await clickAndWait(page, aria('Compare with the previous scan', 'link'));
    assert.equal(new URL(page.url()).pathname, compareUrl);
    assert.equal(await heading(page), `Scans of ${SCAN_SITE} compared`);
    assert.match(await textOf(page, '.scmp-notes'), /different options: throttle not set → 5000\/1000\/30/, 'the notes say the throttle differs');
    assert.deepEqual(await page.$$eval('.scmp-count-list li', (lis) => lis.map((li) => (li.textContent ?? '').trim())),
      ['1 worse', '1 better', '2 unchanged', '1 new', '1 gone', '1 not measured']);
    const site = Object.fromEntries((await page.$$eval('table.scmp-site tbody tr', (trs) => trs.map((tr) =>
      [...tr.children].map((c) => (c.textContent ?? '').trim())))).map(([k, ...rest]) => [k, rest]));
    assert.deepEqual(site['Pages measured'], ['5', '6', '+1 better']);
    // A median of LCP 150 ms later is within LCP's noise (the one rule of differences), in the neutral colour.
    assert.deepEqual(site['LCP, median'], ['2.30 s', '2.45 s', '+150 ms within noise'], 'both scans\' site figures side by side');
    assert.equal(await page.$eval('table.scmp-site td.within_noise', (td) => getComputedStyle(td).color),
      await page.$eval('.scmp-counts p.muted', (p) => getComputedStyle(p).color), 'within noise is neutral, not green or red');
    assert.match(await textOf(page, '.scmp-counts p.muted'), /otherwise by a change beyond the figure's noise.*A smaller change is within noise/,
      'the screen says the basis once');
    const templates = await tableRows(page, 'table.scmp-templates');
    assert.equal(templates.length, 1);
    assert.deepEqual(templates[0]!.slice(0, 2), ['/p/:id', '3'], 'its pages in both scans');
    assert.match(templates[0]![2]!, /^LCP median 3\.10 s → 4\.20 s \(threshold: \+1\.10 s, threshold 500 ms; 3 and 3 pages are too few for a test\)$/);
    const paths = (css: string) => page.$$eval(`${css} .scmp-path`, (els) => els.map((e) => e.textContent));
    const rows = await tableRows(page, 'table.scmp-pages');
    assert.deepEqual(await paths('table.scmp-pages'), ['/p/2', '/p/3', '/', '/p/1'], 'worse first');
    assert.deepEqual(rows.map((r) => r[1]), ['Worse', 'Better', 'Unchanged', 'Unchanged']);
    assert.deepEqual(rows.slice(2).map((r) => r[2]), ['Every change within noise', 'Every change within noise']);
    assert.match(rows[0]![2]!, /^grade C → E \(threshold: 2 letters down, threshold 2 letters\) ?LCP 3\.10 s → 4\.20 s \(threshold: \+1\.10 s, threshold 500 ms\)$/);
    assert.deepEqual([rows[0]![3], rows[0]![5]], ['C → E', '3.10 s → 4.20 s'], 'each figure before → after');
    const links = await page.$$eval('table.scmp-pages tbody tr:first-child .scmp-links a', (as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
    const pair = `/compare?reports=${finishedScan.pages[2]!.reportId},${later.pages[2]!.reportId}`;
    assert.deepEqual(links, [['Before report of /p/2', `/reports/${finishedScan.pages[2]!.reportId}`], ['After report of /p/2', `/reports/${later.pages[2]!.reportId}`],
      ['Compare the reports of /p/2', pair]], 'each side\'s report, and the two side by side on Compare');
    assert.equal((await fetchIn(page, pair)).status, 200, 'Compare opens them');
    assert.deepEqual(await paths('table.scmp-other'), ['/blog/b', '/blog/a'], 'new, then gone');
    assert.deepEqual(await paths('table.scmp-failed'), ['/p/4']);
    assert.deepEqual((await tableRows(page, 'table.scmp-failed'))[0]!.slice(1), ['FailedThe page answered 500 Internal Server Error.', 'Completed']);
    await checkScreen(page, 'scans compared');

    // The form: the other scan picked, the earlier is the before side whichever way round.
    await goto(page, `${server.base}/scans/${finishedScan.scanId}`);
    assert.equal(await page.$(aria('Compare with the previous scan', 'link')), null, 'the first scan of the site has no previous one');
    await page.locator(aria('Scan to compare with', 'combobox')).fill(later.scanId);
    await clickAndWait(page, aria('Compare', 'button'));
    assert.equal(new URL(page.url()).pathname, compareUrl);

    const theirs = await goto(other, `${server.base}${compareUrl}`);
    assert.equal(theirs.status(), 404, "another account's comparison is not found");
    assert.equal(await heading(other), 'Scan not found');
    assert.ok(!(await textOf(other, 'main')).includes(SCAN_SITE), 'and shows nothing of it');
  });

  it('21f. a scan\'s "Site over time": the site\'s completed scans charted, each point linking its scan, the scans listed with their grades', async () => {
    // The seeded scan of step 21a and its later one of step 21e: two completed scans of the site, by sitemap.
    const history = await call(server, 'GET', `/scans/${finishedScan.scanId}/history`, { key: ownerKey });
    const ids: string[] = history.body.data.map((p: { id: string }) => p.id);
    assert.equal(ids.length, 2, history.text.slice(0, 300));
    assert.equal(ids[0], finishedScan.scanId, 'oldest first');
    await goto(page, `${server.base}/scans/${finishedScan.scanId}`);
    assert.ok(await page.$(aria('Site over time', 'heading')), 'two completed scans: "Site over time" is shown');
    const charts = await page.$$eval('#site-over-time figure.chart', (fs) => fs.map((f) => ({
      title: (f.querySelector('h3')?.firstChild?.textContent ?? '').trim(), latest: f.querySelector('.chart-latest')?.textContent,
      points: [...f.querySelectorAll('svg.points a')].map((a) => [a.getAttribute('href'), a.getAttribute('aria-label')]),
    })));
    assert.deepEqual(charts.map((c) => c.title), ['Performance, median', 'LCP, 75th percentile', 'TBT, 75th percentile', 'CLS, 75th percentile',
      'Fully loaded, 75th percentile', 'Pages with poor LCP', 'Pages with poor CLS', 'Pages with poor TBT']);
    const lcp = charts[1]!;
    assert.equal(lcp.latest, '4.20 s', 'the latest scan\'s LCP p75');
    assert.deepEqual(lcp.points.map(([href]) => href), ids.map((id) => `/scans/${id}`), 'every point opens its scan');
    assert.match(lcp.points[0]![1]!, /: LCP p75 3\.10 s$/, 'and is named by its time and figure');
    await page.locator('#site-over-time summary').click();
    const table = await tableRows(page, 'table.scan-history');
    assert.deepEqual(table.map((r) => r.slice(1, 5)), [['6', '0', '79%', '4.20 s'], ['5', '1', '82%', '3.10 s']], 'newest first: measured, failed, performance, LCP p75');
    assert.equal(table[1]![5], 'A 1B 2C 1D 1', 'with its grades');
    assert.equal(await page.$eval('table.scan-history a[aria-current=page]', (a) => a.getAttribute('href')), `/scans/${finishedScan.scanId}`,
      'the scan on screen is marked');
    await checkScreen(page, 'scan, site over time');
  });

  it('21g. "Repeat" on New scan: Weekly makes a schedule whose first scan starts now; the list of schedules shows it with Pause, Resume and Delete; another account\'s is not found', { timeout: 90_000 }, async () => {
    await goto(page, `${server.base}/scans`);
    const repeat = aria('Repeat', 'combobox');
    assert.deepEqual(await page.$eval(repeat, (e) => [...(e as HTMLSelectElement).options].map((o) => o.text)),
      ['Once', 'Hourly', 'Daily', 'Weekly', 'Monthly'], 'Once, then the pro plan\'s frequencies');
    assert.equal(await page.$eval(repeat, (e) => (e as HTMLSelectElement).value), 'once', 'Once by default');
    assert.match(await textOf(page, '#schedules'), /No scan repeats yet/);
    const url = site.url('/');
    await page.locator(aria('URL', 'textbox')).fill(url);
    await page.locator(aria('Source', 'combobox')).fill('list');
    await page.locator(aria('URLs', 'textbox')).fill(url);
    await page.locator(aria('Max pages', 'spinbutton')).fill('1');
    await page.locator(repeat).fill('weekly');
    await clickAndWait(page, aria('Start scan', 'button'));
    const m = /^\/scans\/([^/]+)$/.exec(new URL(page.url()).pathname);
    assert.ok(m, `a schedule's first scan opens: ${page.url()}`);
    assert.match(await textOf(page, '.scan-scheduled'), /^Started by a scheduled scan of the site\.$/);
    const schedules = (await call(server, 'GET', '/scan_schedules', { key: ownerKey })).body.data;
    assert.equal(schedules.length, 1);
    const a = schedules[0].attributes;
    assert.deepEqual([a.url, a.frequency, a.source, a.max_pages, a.urls_given, a.last_scan_id], [url, 'weekly', 'list', 1, 1, m[1]],
      'the API has the schedule as the form gave it');
    // The first scan runs as any other; with 21d's scan it makes two completed scans of the site.
    await waitForStatus(page, /^Completed: 1 page measured$/, 'the schedule\'s first scan', 60_000);
    // The screen reloads once the scan is done; then its site has two completed scans.
    await page.waitForSelector(aria('Site over time', 'heading'), { timeout: 15_000 });

    await clickAndWait(page, aria('scheduled scan', 'link'));
    const what = `${url} (weekly)`;
    let rows = await tableRows(page, 'table.schedules-list');
    assert.equal(rows.length, 1);
    assert.deepEqual([rows[0]![0], rows[0]![1], rows[0]![2], rows[0]![4], rows[0]![5]], [`${url}PauseDelete`, 'Desktop', 'Weekly', 'Completed', '–']);
    assert.match(rows[0]![3]!, /^\d{4}-\d\d-\d\d \d\d:\d\d$/, 'the next scan, a week on');
    assert.equal(await page.$eval('table.schedules-list td a', (e) => e.getAttribute('href')), `/scans/${m[1]}`, 'the last scan links its screen');
    await checkScreen(page, 'scans, a schedule');
    await clickAndWait(page, aria(`Pause ${what}`, 'button'));
    rows = await tableRows(page, 'table.schedules-list');
    assert.equal(rows[0]![3], 'Paused');
    await clickAndWait(page, aria(`Resume ${what}`, 'button'));
    assert.match((await tableRows(page, 'table.schedules-list'))[0]![3]!, /^\d{4}-/, 'resumed');

    // Another account's schedule: not found, and left alone.
    await goto(other, `${server.base}/scans`);
    const status = await other.evaluate(`(() => {
      const body = new URLSearchParams({ csrf: document.querySelector('input[name=csrf]').value });
      return fetch('/scan_schedules/${schedules[0].id}/pause', { method: 'POST', body, credentials: 'same-origin' }).then((r) => r.status);
    })()`);
    assert.equal(status, 404);
    assert.equal((await call(server, 'GET', `/scan_schedules/${schedules[0].id}`, { key: ownerKey })).body.data.attributes.paused, false);

    const asked = nextDialog(page, true);
    await clickAndWait(page, aria(`Delete ${what}`, 'button'));
    assert.match(await asked, /^Delete the schedule of .*\? No more scans of it start; its scans stay\.$/);
    assert.match(await textOf(page, '#schedules'), /No scan repeats yet/);
    assert.equal((await call(server, 'GET', `/scans/${m[1]}`, { key: ownerKey })).status, 200, 'its scan stays');
  });

  it('21h. "New scan" with Desktop and Phone (mid-tier) checked: a scan each; each screen says its device and links the other; their site figures side by side', { timeout: 90_000 }, async () => {
    await goto(page, `${server.base}/scans`);
    assert.deepEqual(await page.$$eval('fieldset.scan-devices input', (es) => es.map((e) => `${(e as HTMLInputElement).value} ${(e as HTMLInputElement).checked}`)),
      ['desktop true', 'phone-mid false', 'phone-low false'], 'Desktop checked by default');
    assert.equal(await page.$eval('fieldset.scan-devices', (e) => document.getElementById(e.getAttribute('aria-describedby') ?? '')?.textContent ?? ''),
      await textOf(page, '#f-devices-hint'), 'the Devices hint describes the group');
    const url = site.url('/');
    await page.locator(aria('URL', 'textbox')).fill(url);
    await page.locator(aria('Phone (mid-tier)', 'checkbox')).click();
    await page.locator(aria('Source', 'combobox')).fill('list');
    await page.locator(aria('URLs', 'textbox')).fill(url);
    await page.locator(aria('Max pages', 'spinbutton')).fill('1');
    await page.locator(aria('Analysis options')).click();
    await page.locator(aria('Report type', 'combobox')).fill((await optionValue(page, aria('Report type', 'combobox'), 'Metrics only (no report)'))!);
    await clickAndWait(page, aria('Start scan', 'button'));
    const m = /^\/scans\/([^/]+)$/.exec(new URL(page.url()).pathname);
    assert.ok(m, `"Start scan" opens the first device's scan: ${page.url()}`);
    const desktop = (await call(server, 'GET', `/scans/${m[1]}`, { key: ownerKey })).body.data.attributes;
    assert.equal(desktop.device_class, 'desktop');
    const phoneId = desktop.siblings[0].scan as string;
    assert.match(await textOf(page, '.scan-facts'), /^Desktop · List of URLs · /, 'the scan says its device first');
    assert.equal(await page.$eval(`.scan-siblings ${aria('Phone (mid-tier)', 'link')}`, (e) => e.getAttribute('href')), `/scans/${phoneId}`, 'and links its sibling');
    await waitForStatus(page, /^Completed: 1 page measured$/, 'the desktop scan', 60_000);
    for (let i = 0; (await call(server, 'GET', `/scans/${phoneId}`, { key: ownerKey })).body.data.attributes.state !== 'completed'; i++) {
      assert.ok(i < 300, 'the phone\'s scan completes');
      await new Promise((r) => setTimeout(r, 100));
    }
    await goto(page, `${server.base}/scans/${m[1]}`);
    const side = await tableRows(page, 'table.scan-devices-table');
    assert.deepEqual(side[0], ['1', '1'], `pages measured, each device: ${JSON.stringify(side)}`);
    assert.deepEqual(await page.$$eval('table.scan-devices-table thead th', (ths) => ths.map((t) => t.textContent)), ['Figure', 'Desktop', 'Phone (mid-tier)']);
    await checkScreen(page, 'scan, two devices');
    await clickAndWait(page, `.scan-siblings ${aria('Phone (mid-tier)', 'link')}`);
    assert.match(await textOf(page, '.scan-facts'), /^Phone \(mid-tier\) · /);
    assert.equal(await page.$eval(`.scan-siblings ${aria('Desktop', 'link')}`, (e) => e.getAttribute('href')), `/scans/${m[1]}`, 'the phone\'s links the desktop\'s');
    await checkScreen(page, 'scan, the phone of two devices');
    await goto(page, `${server.base}/scans`);
    assert.deepEqual((await tableRows(page, 'table.scans-list')).slice(0, 2).map((r) => r[1]).sort(), ['Desktop', 'Phone (mid-tier)'], 'the list says each scan\'s device');
  });

  journeySteps(() => ({ server, site, browser, page, other, ownerKey }));
  fieldSteps(() => ({ server, site, browser, page, other, ownerKey }));

  it('22. every request of the run was answered once: no "Reply was already sent" in the service\'s log', () => {
    const twice = serverLog.filter((line) => line.includes('Reply was already sent'));
    assert.deepEqual(twice.map((line) => (JSON.parse(line) as { err?: { message?: string } }).err?.message ?? line), [],
      'a route answered twice');
  });
});
