/**
 * Analyze: a URL and, under "Analysis options", every option of POST /tests the account's plan allows. The form's
 * fields carry the API's attribute names; the values are handed to the same parser as the API's (core/options/options.ts),
 * so the checks and messages are the API's own. Below the form, the account's recent tests and where each one is.
 */
import { fromTenths, refilledCredits, type Principal } from '../../core/accounts/accounts.js';
import type { Catalog } from '../../core/catalog/catalog.js';
import { parseTestOptions } from '../../core/options/options.js';
import { optionsOfKind } from '../../core/vocabulary/options.js';
import { REPORT_TYPE_MENU } from '../../core/vocabulary/report-types.js';
import { DEFAULT_RETENTION, RETENTION_MONTHS, retentionLabel } from '../../core/vocabulary/retentions.js';
import { DEVICE_CLASSES, deviceClassSpec, isDeviceClass, SLOW_4G } from '../../core/vocabulary/device-classes.js';
import { requestTest, type TestRow } from '../../core/tests/tests.js';
import { listTests } from '../../core/pages/pages.js';
import { TESTS_LIST } from '../../core/vocabulary/lists.js';
import type { FilterTerm, ListQuery } from '../../store/list-query.js';
import { reportsByIds, type ReportRow } from '../../core/reports/reports.js';
import { ApiError } from '../../core/errors.js';
import { plural } from '../../lib/words.js';
import type { Visitor } from '../session.js';
import { FormFields } from '../session.js';
import { checked, csrfField, errorBox, esc, formError, formField, formLines, seeOther, selected, shell, urlLink, type FormError, type WebKit } from '../kit.js';
import { journeyAttributes, journeyFields } from './analyze-journey.js';
import { gradeBox, journeyTitle, phoneLabel, utcMinute } from './figures.js';
import { testStateEvent, testTraits } from './progress.js';
import { listScans, scanProgress } from '../../core/scans/scans.js';
import { scanView } from '../../core/scans/scan-export.js';
import { clock } from '../../core/clock.js';
import { scanLabel } from './scan-view.js';

/** Connection presets (Kbit/s down, up, latency ms), as the throttle attribute writes them. */
export const CONNECTIONS: [string, string][] = [
  ['', 'The device’s: unthrottled on a desktop, slow 4G on a phone'],
  [SLOW_4G, 'Slow 4G (1.6 Mbps/750 Kbps, 150 ms)'],
  ['20000/5000/25', 'Broadband fast (20/5 Mbps, 25 ms)'],
  ['5000/1000/30', 'Broadband (5/1 Mbps, 30 ms)'],
  ['1500/384/50', 'Broadband slow (1.5 Mbps/384 Kbps, 50 ms)'],
  ['12000/6000/70', 'LTE mobile (12/6 Mbps, 70 ms)'],
  ['1600/768/200', '3G mobile (1.6 Mbps/768 Kbps, 200 ms)'],
  ['280/256/800', '2G mobile (280/256 Kbps, 800 ms)'],
  ['50/30/125', '56K dial-up (50/30 Kbps, 125 ms)'],
  ['custom', 'Custom (below)'],
];

/** The form's fields by the options table's kinds: lists one item per line, flags as checkboxes; throttle is the connection. */
const LIST_FIELDS = optionsOfKind('list');
const FLAG_FIELDS = optionsOfKind('flag');
const TEXT_FIELDS = optionsOfKind('url', 'id', 'report', 'retention', 'text', 'integer', 'number', 'device_class');

/** The labels of the form's one-entry-a-line fields, by the option each sends (a refused entry is named by its line). */
export const LIST_LABELS: Record<string, string> = {
  dns: 'DNS overrides', cookies: 'Cookies', allow_url: 'Only load URLs matching', block_url: 'Block URLs matching',
};

/** The form as POST /tests attributes: blank fields left out, one list item per line, the connection as throttle. */
export function attributesFromForm(form: FormFields): Record<string, unknown> {
  const a: Record<string, unknown> = {};
  for (const k of TEXT_FIELDS) {
    const v = form.get(k);
    if (v !== undefined && v.trim() !== '') a[k] = v;
  }
  for (const k of FLAG_FIELDS) if (form.has(k)) a[k] = 1;
  for (const k of LIST_FIELDS) {
    const { entries } = formLines(form.get(k));
    if (entries.length) a[k] = entries;
  }
  const connection = form.get('connection') ?? '';
  if (connection === 'custom') {
    const parts = ['down', 'up', 'latency'].map((k) => (form.get(k) ?? '').trim());
    // The API's own message explains a malformed value; an empty custom connection says which fields to fill.
    if (parts.every((p) => p === '')) throw new ApiError('E40004', 'Custom connection: give the download and upload speed (Kbit/s) and the latency (ms).');
    a.throttle = parts.join('/');
  } else if (connection !== '') a.throttle = connection;
  return { ...a, ...journeyAttributes(form) };
}


/**
 * The first choice after the URL: the device the page runs as (vocabulary/device-classes.ts), in plain words. A phone
 * runs on the agent's CPU slowed to the phone's, over slow 4G unless the connection says otherwise, on a phone's screen.
 */
export function deviceChoice(form: FormFields): string {
  const chosen = form.get('device_class') || 'desktop';
  const radios = DEVICE_CLASSES.map((c) => `<label class="check"><input type="radio" name="device_class" value="${c.id}"` +
    `${checked(c.id === chosen)}> ${esc(c.label)}</label>`).join(' ');
  return `<fieldset class="device-choice" aria-describedby="f-device-hint"><legend>Device</legend>${radios}
<span class="hint" id="f-device-hint">A phone runs on a phone’s CPU (this server’s, slowed to a mid-tier or low-tier phone’s speed), ` +
    `over slow 4G unless the connection says otherwise, on a phone’s screen</span></fieldset>`;
}

/** A text or number field named `name` (id f-NAME) showing the form's value; its hint is its description. */
export function input(form: FormFields, name: string, label: string, o: { type?: string; hint?: string; attrs?: string } = {}): string {
  return formField(`f-${name}`, label, (d) => `<input id="f-${name}" name="${name}" type="${o.type ?? 'text'}" value="${esc(form.get(name) ?? '')}"${o.attrs ?? ''}${d}>`, o.hint);
}

/** A textarea of one item per line. */
export function textarea(form: FormFields, name: string, label: string, hint: string, rows = 2): string {
  return formField(`f-${name}`, label, (d) => `<textarea id="f-${name}" name="${name}" rows="${rows}" spellcheck="false"${d}>${esc(form.get(name) ?? '')}</textarea>`, hint);
}

/** A checkbox named by its label; checked when the form has it (or, before any was sent, when `byDefault`). */
export const checkbox = (form: FormFields, name: string, label: string, byDefault?: boolean) =>
  `<label class="check"><input type="checkbox" name="${name}" value="1"${checked(byDefault !== undefined && !form.has('csrf') ? byDefault : form.has(name))}> ${label}</label>`;

/**
 * "Analysis options": every option of POST /tests the plan allows, as the API's attributes (attributesFromForm reads
 * them back). Analyze and a new scan (each page's test) share it.
 */
export function optionsFields(p: Principal, catalog: Catalog, form: FormFields): string {
  const plan = p.plan;
  const location = form.get('location') ?? catalog.defaultLocation;
  const locations = catalog.locations().map((l) => {
    const online = l.agentsOnline === undefined ? '' : l.agentsOnline > 0 ? ` (${plural(l.agentsOnline, 'agent')} online)` : ' (no agent online: tests wait)';
    return `<option value="${esc(l.id)}"${selected(l.id === location)}>${esc(l.name)} · ${esc(l.region)}${online}</option>`;
  }).join('');
  const browser = form.get('browser') ?? catalog.defaultBrowser;
  // What a browser cannot do is said beside its name (its capability flags); its report type is the default below.
  const browsers = catalog.browsers().map((b) => {
    const lacks = [!b.lighthouse && 'no Lighthouse', !b.video && 'no video'].filter(Boolean).join(', ');
    return `<option value="${esc(b.id)}"${selected(b.id === browser)}>${esc(b.name)}${lacks ? ` (${lacks})` : ''}</option>`;
  }).join('');
  // Left at the browser's default, a test runs Lighthouse where the browser has it and the legacy report elsewhere.
  const report = form.get('report') ?? '';
  const reports = `<option value=""${selected(report === '')}>The browser's default</option>` + REPORT_TYPE_MENU
    .map(({ name: v, label: l }) => `<option value="${v}"${selected(v === report)}>${l}</option>`).join('');
  const retention = form.get('retention') ?? String(DEFAULT_RETENTION);
  const retentions = RETENTION_MONTHS.map(String).map((m) => `<option value="${m}"${selected(m === retention)}>${retentionLabel(Number(m))}</option>`).join('');
  const connection = form.get('connection') ?? '';
  const connections = CONNECTIONS.map(([v, l]) => `<option value="${v}"${selected(v === connection)}>${esc(l)}</option>`).join('');
  const device = form.get('simulate_device') ?? '';
  const devices = `<option value="">None (the device’s screen)</option>` + catalog.devices()
    .map((d) => `<option value="${esc(d.id)}"${selected(d.id === device)}>${esc(d.name)} (${d.width}×${d.height}, ${d.dppx}×)</option>`).join('');
  const pro = plan.proAnalysisOptions
    ? `<fieldset><legend>Device and browser (pro)</legend>
<div class="row"><div class="field"><label for="f-simulate_device">Simulated device</label><select id="f-simulate_device" name="simulate_device" aria-describedby="f-simulate_device-hint">${devices}</select>
<span class="hint" id="f-simulate_device-hint">its screen and user agent; its CPU and link are the Device’s (Desktop keeps this server’s CPU)</span></div>
${input(form, 'user_agent', 'User agent', { hint: 'replaces the browser’s or the device’s' })}</div>
<div class="row">${input(form, 'browser_width', 'Viewport width', { type: 'number', hint: 'px, with the height', attrs: ' min="1" max="10000"' })}
${input(form, 'browser_height', 'Viewport height', { type: 'number', hint: 'px, with the width', attrs: ' min="1" max="10000"' })}
${input(form, 'browser_dppx', 'Pixel ratio', { type: 'number', hint: '1 to 5', attrs: ' min="1" max="5" step="0.1"' })}</div>
${checkbox(form, 'browser_rotate', 'Rotate (swap width and height)')}
${textarea(form, 'dns', LIST_LABELS.dns, 'one <code>host:address</code> per line')}</fieldset>`
    : `<p class="muted">Device simulation, user agent, viewport and DNS overrides are options of the pro plan.</p>`;
  return `<details class="card"${form.has('url') ? ' open' : ''}><summary>Analysis options</summary>
<div class="row"><div class="field"><label for="f-location">Location</label><select id="f-location" name="location">${locations}</select></div>
<div class="field"><label for="f-browser">Browser</label><select id="f-browser" name="browser" aria-describedby="f-browser-hint">${browsers}</select>
<span class="hint" id="f-browser-hint">Chrome and Firefox measure differently: compare reports of one browser</span></div>
<div class="field"><label for="f-report">Report type</label><select id="f-report" name="report" aria-describedby="f-report-hint">${reports}</select>
<span class="hint" id="f-report-hint">default: Lighthouse in Chrome, legacy (PageSpeed, YSlow) in Firefox</span></div></div>
<div class="row">${input(form, 'runs', 'Runs', { type: 'number', hint: `1 to ${plan.maxRuns}; the report is the median run`, attrs: ` min="1" max="${plan.maxRuns}"` })}
<div class="field"><label for="f-retention">Keep the report</label><select id="f-retention" name="retention">${retentions}</select></div></div>
<fieldset><legend>Connection</legend><div class="field"><label for="f-connection">Connection speed</label><select id="f-connection" name="connection">${connections}</select></div>
<div class="row">${input(form, 'down', 'Download (custom)', { type: 'number', hint: 'Kbit/s', attrs: ' min="1"' })}
${input(form, 'up', 'Upload (custom)', { type: 'number', hint: 'Kbit/s', attrs: ' min="1"' })}
${input(form, 'latency', 'Latency (custom)', { type: 'number', hint: 'ms', attrs: ' min="0"' })}</div></fieldset>
<fieldset><legend>Page load</legend>
${checkbox(form, 'adblock', 'Block ads')} ${checkbox(form, 'video', 'Record a video (extra credits)')} ${checkbox(form, 'stop_onload', 'Stop the test at onload')}
<div class="row">${input(form, 'httpauth_username', 'HTTP user name', { attrs: ' autocomplete="off"' })}${input(form, 'httpauth_password', 'HTTP password', { type: 'password', attrs: ' autocomplete="new-password"' })}</div>
${textarea(form, 'cookies', LIST_LABELS.cookies, 'one <code>name=value</code> per line, sent with the page’s requests')}
${textarea(form, 'allow_url', LIST_LABELS.allow_url, 'one pattern per line (<code>*</code> matches anything)')}
${textarea(form, 'block_url', LIST_LABELS.block_url, 'one pattern per line, applied after the allowed ones')}</fieldset>
${pro}</details>`;
}

/** How many of the account's newest tests (and scans, one line each) "Recent tests" shows. */
export const RECENT_TESTS = 10;

/** A test's row: its URL linking to its progress (or its report), where it is, when it started. */
async function recentTestRow(kit: WebKit, t: TestRow, reports: ReadonlyMap<string, ReportRow>): Promise<string> {
  const db = kit.ctx.store.db;
  let href: string | undefined = `/tests/${t.id}`;
  let state: string;
  if (t.state === 'completed') {
    const report = t.report_id ? reports.get(t.report_id) : undefined;
    href = report ? `/reports/${report.id}` : undefined;
    state = !report ? 'Completed <span class="muted">(the report expired or was deleted)</span>'
      : report.service_grade ? `Completed, grade ${gradeBox(report)}` : 'Completed';
  } else if (t.state === 'queued' || t.state === 'started') {
    state = esc((await testStateEvent(db, t, testTraits(kit, t))).label);
  } else {
    state = `Error: ${esc(t.error ?? 'the test ended in error.')}`;
  }
  const url = href ? urlLink(href, t.url) : esc(t.url);
  const journey = journeyTitle(kit.ctx.store.box, t.options);
  const phone = phoneLabel(kit.ctx.store.box, t.options, kit.ctx.catalog.browser(t.browser)?.cpu_throttle ?? false);
  const started = t.started !== null
    ? `Started <time datetime="${new Date(t.started).toISOString()}">${esc(utcMinute(t.started))}</time> UTC`
    : t.state === 'queued' ? 'Not started yet' : 'Never started';
  return `<tr><td class="url">${url}${journey !== undefined ? ` <span class="recent-when">Journey “${esc(journey)}”</span>` : ''}` +
    `${phone !== undefined ? ` <span class="recent-when">${esc(phone)}</span>` : ''} <span class="recent-when">${started}</span></td><td class="recent-state">${state}</td></tr>`;
}

/** How many of the account's scans of the last day "Recent tests" shows, each as one line. */
export const RECENT_SCANS = 3;

/** The account's scans of the last day, newest first, each one line linking its screen: "Scan of X", "Running: 4 of 10 pages done". */
async function recentScanRows(kit: WebKit, v: Visitor): Promise<{ created: number; html: string }[]> {
  const db = kit.ctx.store.db;
  const since: FilterTerm = { attr: 'created', type: 'time', op: 'gte', values: [Math.floor((clock.now() - 86_400_000) / 1000)] };
  const q: ListQuery = { filters: [since], bool: 'AND', sort: [{ attr: 'created', desc: true }], filteredOrSorted: false, page: { size: RECENT_SCANS, number: 1 } };
  const { rows } = await listScans(db, v.principal.accountId, q);
  return Promise.all(rows.map(async (scan) => {
    const s = scanView(scan, await scanProgress(db, scan.id));
    const at = s.started ?? s.created;
    const phone = isDeviceClass(scan.device_class) && scan.device_class !== 'desktop' ? ` <span class="recent-when">${esc(deviceClassSpec(scan.device_class).label)}</span>` : '';
    return { created: s.created, html: `<tr class="recent-scan"><td class="url"><a href="/scans/${esc(s.id)}">Scan of ${esc(s.url)}</a>${phone} <span class="recent-when">` +
      `Started <time datetime="${new Date(at).toISOString()}">${esc(utcMinute(at))}</time> UTC</span></td><td class="recent-state">${esc(scanLabel(s))}</td></tr>` };
  }));
}

async function recentTests(kit: WebKit, v: Visitor): Promise<string> {
  // Every source but scans (the API's list shows only source=api unless asked for others): started here, by the API, by
  // monitoring. A scan's pages would fill the list: each scan is one line instead, linking its screen.
  const sources: FilterTerm = { attr: 'source', type: 'enum', op: 'eq', values: (TESTS_LIST.attrs.source?.values ?? []).filter((x) => x !== 'scan') };
  const q: ListQuery = { filters: [sources], bool: 'AND', sort: [{ attr: 'created', desc: true }], filteredOrSorted: false, page: { size: RECENT_TESTS, number: 1 } };
  const { rows } = await listTests(kit.ctx.store.db, v.principal.accountId, q);
  const reports = await reportsByIds(kit.ctx.store.db, v.principal.accountId, rows.flatMap((t) => (t.report_id ? [t.report_id] : [])));
  // The scans among the tests, newest first.
  const tests = await Promise.all(rows.map(async (t) => ({ created: t.created, html: await recentTestRow(kit, t, reports) })));
  const lines = [...tests, ...(await recentScanRows(kit, v))].sort((a, b) => b.created - a.created).slice(0, RECENT_TESTS);
  const content = lines.length === 0
    ? '<div class="card"><p class="muted">No tests in the last 24 hours. Tests started here, through the API or by monitoring show here for a day.</p></div>'
    : `<div class="card tablewrap"><table class="list recent-tests"><thead><tr><th scope="col">Test</th><th scope="col">State</th>` +
      `</tr></thead><tbody>${lines.map((l) => l.html).join('')}</tbody></table></div>`;
  return `<section class="recent" aria-labelledby="recent-tests"><h2 id="recent-tests">Recent tests</h2>${content}</section>`;
}

export async function analyzeScreen(kit: WebKit, v: Visitor, nonce: string, form = new FormFields(''), error?: FormError): Promise<string> {
  const { ctx } = kit;
  const credits = fromTenths((await refilledCredits(ctx.store.db, v.principal.accountId, v.principal.plan)).tenths);
  const body = `<h1>Analyze a page</h1>${errorBox(error)}
<form method="post" action="/analyze" enctype="multipart/form-data">${csrfField(v)}
<div class="field"><label for="f-url">URL</label><div class="analyze-bar"><input id="f-url" name="url" type="text" inputmode="url" placeholder="https://example.com/" aria-describedby="f-url-hint" value="${esc(form.get('url') ?? '')}">
<button class="btn" type="submit">Analyze</button></div>
<span class="hint" id="f-url-hint">${v.principal.plan.unlimitedCredits ? 'Unlimited credits' : `${credits} credits left`} · ${esc(v.principal.plan.name)} plan</span></div>
${deviceChoice(form)}
${journeyFields(form)}
${optionsFields(v.principal, ctx.catalog, form)}</form>
${await recentTests(kit, v)}`;
  return shell(v, nonce, { title: 'Analyze', active: 'analyze', body });
}

export function registerAnalyze(kit: WebKit): void {
  const { ctx } = kit;
  kit.action('/analyze', async (_req, reply, v, form, nonce) => {
    try {
      const options = parseTestOptions(attributesFromForm(form), {
        plan: v.principal.plan, catalog: ctx.catalog, defaultLocation: ctx.catalog.defaultLocation, defaultBrowser: ctx.catalog.defaultBrowser,
      });
      const started = await requestTest(ctx.intake, v.principal, options, 'on-demand');
      return seeOther(reply, `/tests/${started.test.id}`);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      reply.code(err.status);
      return analyzeScreen(kit, v, nonce, form, formError(err, form, LIST_LABELS));
    }
  });
}
