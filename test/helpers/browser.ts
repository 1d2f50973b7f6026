/**
 * Driving the web app in a real Chromium (puppeteer-core on Debian's browser), as a person would: elements are
 * found by their accessible names, and every screen is checked the same way (checkScreen): no serious or
 * critical axe-core violation, no Content-Security-Policy violation, a CSP without 'unsafe-inline' scripts, every form
 * field named by its label alone, and at 1366 and 375 px wide nothing past the window's edge outside a box that
 * scrolls and says so (assertInView).
 *
 * The functions handed to the page are strings: tsx compiles test files with names kept (`__name(...)` calls),
 * which do not exist inside the page.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import puppeteer, { type Browser, type BrowserContext, type HTTPResponse, type Page } from 'puppeteer-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const DESKTOP = { width: 1366, height: 900 };
export const PHONE = { width: 375, height: 800 };

/** The browser that drives the app (as root Chromium needs --no-sandbox; it loads only our own test server). */
export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: process.env.WEBGAUGE_CHROME_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

/** A tab at desktop size that records every CSP violation of the documents it shows (window.__csp). */
export async function newTab(owner: Browser | BrowserContext): Promise<Page> {
  const page = await owner.newPage();
  page.setDefaultTimeout(30_000);
  await page.setViewport(DESKTOP);
  await page.evaluateOnNewDocument(`window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')));`);
  return page;
}

/** `::-p-aria` selector of the element with this accessible name (and role). */
export const aria = (name: string, role?: string): string =>
  role ? `::-p-aria([name=${JSON.stringify(name)}][role=${JSON.stringify(role)}])` : `::-p-aria(${name})`;

/** Click what the selector finds and wait for the navigation it starts; the final response. */
export async function clickAndWait(page: Page, selector: string): Promise<HTTPResponse> {
  const [res] = await Promise.all([page.waitForNavigation(), page.locator(selector).click()]);
  assert.ok(res, `clicking ${selector} on ${page.url()} started no navigation`);
  return res;
}

export async function goto(page: Page, url: string): Promise<HTTPResponse> {
  const res = await page.goto(url, { waitUntil: 'load' });
  assert.ok(res, `no response for ${url}`);
  return res;
}

export const textOf = (page: Page, css: string): Promise<string> =>
  page.evaluate(`(document.querySelector(${JSON.stringify(css)})?.textContent ?? '').replace(/\\s+/g, ' ').trim()`) as Promise<string>;

/** The <h1> of the screen. */
export const heading = (page: Page): Promise<string> => textOf(page, 'h1');

export interface AxNode {
  role: string;
  name: string;
}

/** Every node of the accessibility tree of the page (role and accessible name), in document order. */
export async function accessibleNodes(page: Page): Promise<AxNode[]> {
  const out: AxNode[] = [];
  const walk = (n: { role?: string; name?: string; children?: unknown[] } | null) => {
    if (!n) return;
    out.push({ role: n.role ?? '', name: n.name ?? '' });
    for (const c of n.children ?? []) walk(c as typeof n);
  };
  walk(await page.accessibility.snapshot());
  return out;
}

/** A form field of a screen: its computed accessible name, the text of its label, and its description. */
export interface FieldName {
  /** tag#id or tag[name=…], to say which field. */
  field: string;
  name: string;
  label: string;
  description: string;
  /** Whether an element styled as a hint (.hint) sits inside its label (where it would become part of the name). */
  hintInLabel: boolean;
}

const FIELDS = 'input:not([type=hidden]), select, textarea';

/**
 * Every input, select and textarea of the screen, in document order, with the accessible name and description
 * Chromium computes for it (CDP Accessibility.getPartialAXTree) and the text of its label (its <label>s without the
 * field itself, else aria-labelledby's elements, else aria-label). Closed <details> keep their fields out of the
 * accessibility tree: they are opened while reading, then closed again; so are the fields a choice hides
 * (data-only-when, New scan's URLs and Crawl depth), shown while reading: named for when they show.
 */
export async function fieldNames(page: Page): Promise<FieldName[]> {
  const opened = (await page.evaluate(`(() => { const closed = [...document.querySelectorAll('details:not([open])')];
    closed.forEach((d, i) => { d.open = true; d.dataset.wgOpened = String(i); });
    const hidden = [...document.querySelectorAll('[data-only-when][hidden]')];
    hidden.forEach((e) => { e.hidden = false; e.dataset.wgShown = ''; }); return closed.length + hidden.length; })()`)) as number;
  const cdp = await page.createCDPSession();
  try {
    if (opened > 0) await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    const labels = (await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(FIELDS)})].map((e) => {
      const text = (n) => (n?.textContent ?? '').replace(/\\s+/g, ' ').trim();
      const own = (l) => { const c = l.cloneNode(true); c.querySelectorAll(${JSON.stringify(FIELDS)}).forEach((x) => x.remove()); return text(c); };
      const by = e.getAttribute('aria-labelledby');
      const label = e.labels?.length ? [...e.labels].map(own).join(' ')
        : by ? by.split(/\\s+/).map((id) => text(document.getElementById(id))).join(' ') : (e.getAttribute('aria-label') ?? '').trim();
      const field = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '[name=' + e.getAttribute('name') + ']');
      return { field, label, hintInLabel: [...(e.labels ?? [])].some((l) => l.querySelector('.hint')) };
    })`)) as Omit<FieldName, 'name' | 'description'>[];
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: FIELDS });
    assert.equal(nodeIds.length, labels.length, `${page.url()}: the fields changed while they were read`);
    return await Promise.all(nodeIds.map(async (nodeId, i) => {
      const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
      const ax = nodes[0];
      const value = (v: { value?: unknown } | undefined) => (typeof v?.value === 'string' ? v.value.replace(/\s+/g, ' ').trim() : '');
      return { ...labels[i]!, name: value(ax?.name), description: value(ax?.description) };
    }));
  } finally {
    await cdp.detach();
    if (opened > 0) {
      await page.evaluate(`document.querySelectorAll('details[data-wg-opened]').forEach((d) => { d.open = false; delete d.dataset.wgOpened; });
        document.querySelectorAll('[data-wg-shown]').forEach((e) => { e.hidden = true; delete e.dataset.wgShown; })`);
    }
  }
}

/**
 * Each field's accessible name is its label alone (hints are descriptions, in aria-describedby): not empty, equal to
 * its label's text, no hint inside the label, and its description (if any) not part of its name.
 */
export async function assertFieldNames(page: Page, where: string): Promise<FieldName[]> {
  const fields = await fieldNames(page);
  for (const f of fields) {
    const what = `${where}: ${f.field} (named "${f.name}", label "${f.label}")`;
    assert.notEqual(f.name, '', `${what} has no accessible name`);
    assert.equal(f.name, f.label, `${what}: its accessible name is not its label`);
    assert.equal(f.hintInLabel, false, `${what}: a hint sits inside its label; make it the field's description (aria-describedby)`);
    if (f.description) assert.ok(!f.name.includes(f.description), `${what}: its description "${f.description}" is part of its name`);
  }
  return fields;
}

/** The CSP of a response lets no inline script run (its script-src, or default-src without one). */
export function assertStrictCsp(res: HTTPResponse, name: string): void {
  const csp = res.headers()['content-security-policy'];
  assert.ok(csp, `${name}: ${res.url()} has no Content-Security-Policy header`);
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([k, ...v]) => [k!, v]));
  const scripts = directives.get('script-src') ?? directives.get('default-src');
  assert.ok(scripts, `${name}: the CSP has neither script-src nor default-src: ${csp}`);
  assert.ok(!scripts.includes("'unsafe-inline'") && !scripts.includes("'unsafe-eval'"), `${name}: the CSP lets inline scripts run: ${csp}`);
}

/**
 * Nothing of the screen reaches past the right edge of the window (the page does not scroll sideways, nothing is cut
 * off there) unless it is inside a box that scrolls sideways within the window, and every box that scrolls sideways
 * is one a keyboard reaches and which has a name (tabindex and role region named by the client script, its edge
 * shaded and a line above it saying so). A box that clips (overflow hidden) past the edge cuts its content off:
 * refused too. One evaluate, after the layout settled.
 */
export async function assertInView(page: Page, where: string): Promise<void> {
  const found = (await page.evaluate(`(async () => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const vw = document.documentElement.clientWidth;
    const say = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
    const past = (e) => e.getBoundingClientRect().right > vw + 0.5;
    const clipper = (e) => { for (let a = e.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return a; return null; };
    const problems = new Set();
    const unmarked = (box) => box.tabIndex < 0 || !(box.getAttribute('aria-label') || box.getAttribute('aria-labelledby'));
    for (const e of document.body.querySelectorAll('*')) {
      const ox = getComputedStyle(e).overflowX;
      if ((ox === 'auto' || ox === 'scroll') && e.scrollWidth > e.clientWidth + 1 && unmarked(e))
        problems.add(say(e) + ' scrolls sideways but a keyboard cannot reach it or it has no name');
      const r = e.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1 || !past(e) || getComputedStyle(e).visibility === 'hidden') continue;
      const box = clipper(e);
      const shut = box?.getBoundingClientRect();
      if (shut && (shut.width <= 1 || shut.height <= 1)) continue; // inside a visually hidden box (a table's head kept for screen readers)
      if (box && !past(box)) {
        const o = getComputedStyle(box).overflowX;
        if (o !== 'auto' && o !== 'scroll') problems.add(say(e) + ' is cut off at the window edge by ' + say(box) + ' (overflow-x ' + o + ')');
        else if (unmarked(box)) problems.add(say(box) + ' scrolls sideways but a keyboard cannot reach it or it has no name');
        continue;
      }
      if (![...e.children].some(past)) problems.add(say(e) + ' reaches ' + Math.round(r.right) + ' px');
    }
    return { vw, width: document.documentElement.scrollWidth, problems: [...problems].slice(0, 8) };
  })()`)) as { vw: number; width: number; problems: string[] };
  assert.ok(found.width <= found.vw && found.problems.length === 0,
    `${where}: at ${found.vw} px wide, ${found.width > found.vw ? `the page is ${found.width} px wide (sideways scrolling); ` : ''}` +
    `past the window's right edge outside a named, focusable box that scrolls: ${found.problems.join('; ')}`);
}

/**
 * A refused form's error where the eye is: the error summary (#form-error) has the focus, sits inside the form `form`
 * (a CSS selector) and is wholly in the window. Its text.
 */
export async function assertErrorInView(page: Page, form: string, where: string): Promise<string> {
  const seen = (await page.evaluate(`(() => {
    const e = document.getElementById('form-error');
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { focused: document.activeElement === e, inForm: !!e.closest(${JSON.stringify(form)}), top: Math.round(r.top), bottom: Math.round(r.bottom),
      height: innerHeight, text: e.innerText.replace(/\\s+/g, ' ').trim() };
  })()`)) as { focused: boolean; inForm: boolean; top: number; bottom: number; height: number; text: string } | null;
  assert.ok(seen, `${where}: the screen has no error summary (#form-error)`);
  assert.ok(seen.inForm, `${where}: the error is not in its form (${form}): "${seen.text}"`);
  assert.ok(seen.focused, `${where}: the error does not have the focus: "${seen.text}"`);
  assert.ok(seen.top >= 0 && seen.bottom <= seen.height, `${where}: the error is out of view (${seen.top} to ${seen.bottom} px of ${seen.height}): "${seen.text}"`);
  return seen.text;
}

/** Names of the screens checkScreen passed, in order (printed at the end of a run). */
export const checkedScreens: string[] = [];

/** With WEBGAUGE_WEB_SHOTS=DIR, checkScreen saves each screen there at both widths (to look at them). */
const SHOTS = process.env.WEBGAUGE_WEB_SHOTS;
async function shot(page: Page, name: string, width: number): Promise<void> {
  if (!SHOTS) return;
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}-${width}.png`, fullPage: true });
}

/**
 * The checks every screen passes: no CSP violation so far, every form field named by its label alone
 * (assertFieldNames), no serious/critical axe-core violation, and at the tab's width (1366 px) and at 375 px wide
 * nothing past the window's edge outside a box that scrolls and says so (assertInView; at 375 px after a reload at that
 * width unless `reload: false`, for a screen that answered a POST: reloading would send the form again). The tab goes
 * back to its former size.
 */
export async function checkScreen(page: Page, name: string, o: { reload?: boolean } = {}): Promise<void> {
  const where = `${name} (${page.url()})`;
  const csp = (await page.evaluate('window.__csp ?? []')) as string[];
  assert.deepEqual(csp, [], `${where}: the page broke its Content-Security-Policy: ${csp.join('; ')}`);
  await assertFieldNames(page, where);

  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const all = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, count: v.nodes.length, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + (n.failureSummary ? ' — ' + n.failureSummary.replace(/\\s+/g, ' ') : '')) })))`)) as
    { id: string; impact: string; help: string; count: number; nodes: string[] }[];
  // WEBGAUGE_AXE_LOG=file: every screen's violations of any impact, one JSON line each (for the record).
  if (process.env.WEBGAUGE_AXE_LOG) {
    await appendFile(process.env.WEBGAUGE_AXE_LOG, JSON.stringify({ screen: name, violations: all.map(({ id, impact, count }) => ({ id, impact, count })) }) + '\n');
  }
  const violations = all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(violations.length, 0, `${where}: axe-core found serious or critical violations: ${violations.map((v) => v.id).join(', ')}\n` +
    violations.map((v) => `  ${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.join('\n    ')}`).join('\n'));

  const before = page.viewport() ?? DESKTOP;
  await assertInView(page, where);
  await shot(page, name, before.width);
  await page.setViewport(PHONE);
  try {
    if (o.reload !== false) {
      const res = await page.reload({ waitUntil: 'load' });
      assert.ok(res, `${where}: the reload at 375 px got no response`);
      assertStrictCsp(res, name);
    }
    await shot(page, name, PHONE.width);
    await assertInView(page, where);
  } finally {
    await page.setViewport(before);
  }
  checkedScreens.push(name);
}
