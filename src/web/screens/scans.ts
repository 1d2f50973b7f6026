/**
 * Scans (docs/scans.md): the account's scans, newest first, and "New scan": the scan's own fields and, under
 * "Analysis options", Analyze's (each page's test gets them). The form's fields carry the API's attribute names and go
 * through the API's parser (core/scans/scan-request.ts), so the checks and messages are the API's own. A scan's screen
 * (scan-view.ts) follows it live while it runs, then shows the site report and the site over time (scan-history.ts); its
 * pages download as CSV and JSON. A finished scan compares with another of its site (scan-comparison.ts). "Repeat" makes a
 * schedule instead, listed with the account's others (scan-schedules.ts).
 */
import { readScanField } from '../../core/scans/scan-field.js';
import { isDeviceClass } from '../../core/vocabulary/device-classes.js';
import { askableOrigin, cruxFormFactorOf } from '../../core/field/crux.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fromTenths, refilledCredits } from '../../core/accounts/accounts.js';
import { mayChange } from '../../core/accounts/roles.js';
import { ApiError } from '../../core/errors.js';
import { couldBeId } from '../../core/ids.js';
import { DEFAULT_MAX_PAGES, DEFAULT_SAMPLE, DEFAULT_CRAWL_DEPTH } from '../../core/scans/scan-request.js';
import {
  cancelScan, getScan, listScanPages, listScans, runningScanPace, scanNotFound, scanPages, scanPagesMatching, scanProgress, siblingScans, type ScanRow,
} from '../../core/scans/scans.js';
import { siteHistory } from '../../core/scans/scan-history.js';
import { scanFileName, scanPagesCsv, scanPagesJson, scanView, type ScanView } from '../../core/scans/scan-export.js';
import { scansToCompareWith } from '../../core/scans/comparison-reader.js';
import { testsChanged } from '../../core/tests/test-signal.js';
import type { ListQuery } from '../../store/list-query.js';
import { csrfField, errorBox, errorScreen, esc, formError, formField, formLines, seeOther, selected, shell, urlLink, type FormError, type WebKit } from '../kit.js';
import { FormFields, newNonce, secureHeaders, visitorOf, type Visitor } from '../session.js';
import { attributesFromForm, checkbox, input, LIST_LABELS, optionsFields, textarea } from './analyze.js';
import { utcMinute } from './figures.js';
import { comparePart, registerScanCompareScreens } from './scan-comparison.js';
import { alertsPart, conditionsFromLines, CONDITIONS_HINT } from './scan-alerts.js';
import { siteOverTime } from './scan-history.js';
import { devicesField, devicesFromForm, siblingsPart } from './scan-devices.js';
import { registerScanScheduleScreens, repeatField, schedulesPart, startFromForm } from './scan-schedules.js';
import {
  deviceLabel, doneOf, isFollowed, pagesPart, pagesQueryOf, pagesViewOf, progressPart, scanHead, scanKey, scanLabel, siteReport, SOURCE_NAMES, STATE_NAMES,
} from './scan-view.js';

/** Scans the list shows a page. */
export const SCANS_PAGE_SIZE = 20;
const MAX_PAGE_NUMBER = 100_000;
/** How often a follower re-reads its scan (its pages change as their tests do; the scans' follower writes them). */
const REREAD_MS = 2_000;
/** A stream ends after this long (the browser reconnects on its own). */
const STREAM_MAX_MS = 10 * 60_000;

const first = (v: unknown): string => (Array.isArray(v) ? first(v[0]) : typeof v === 'string' ? v : '');
const lines = (s: string | undefined): string[] => formLines(s).entries;

/** The labels of the form's one-entry-a-line fields, by the list each sends (a refused entry is named by its line). */
const SCAN_LIST_LABELS: Record<string, string> = {
  ...LIST_LABELS, urls: 'URLs', include: 'Include', exclude: 'Exclude', templates: 'Templates', alert_conditions: 'Alert conditions',
};

/** The form's scan fields as POST /scans attributes (blank fields left out, one list item per line); the rest are Analyze's. */
export function scanAttributesFromForm(form: FormFields): Record<string, unknown> {
  const a: Record<string, unknown> = { ...attributesFromForm(form) };
  const source = form.get('source');
  if (source) a.source = source;
  for (const k of ['max_pages', 'sample', 'crawl_depth']) {
    const v = form.get(k);
    if (v !== undefined && v.trim() !== '') a[k] = v.trim();
  }
  for (const k of ['urls', 'include', 'exclude', 'templates']) {
    const l = lines(form.get(k));
    if (l.length) a[k] = l;
  }
  const conditions = lines(form.get('alert_conditions'));
  if (conditions.length) a.alert_conditions = conditionsFromLines(conditions);
  const devices = devicesFromForm(form);
  if (devices) a.devices = devices;
  // A box left unchecked sends nothing: robots.txt is respected unless its box was unchecked.
  a.respect_robots = form.has('respect_robots') ? 1 : 0;
  if (form.has('keep_query')) a.keep_query = 1;
  return a;
}

async function viewOf(kit: WebKit, s: ScanRow): Promise<ScanView> {
  const pages = await scanProgress(kit.ctx.store.db, s.id);
  return { ...scanView(s, pages), pace: await runningScanPace(kit.ctx.store.db, s, pages) };
}

/**
 * A field of one source only (Crawl depth, URLs): the client script shows it for that source and hides it for the others
 * (hidden, its label kept for when it shows); without script every field stays visible.
 */
const onlyFor = (source: string, field: string): string => field.replace(/^<div class="field"/, `<div class="field" data-only-when="source=${source}"`);

function newScanForm(v: Visitor, form: FormFields, kit: WebKit, credits: string, error?: FormError): string {
  const plan = v.principal.plan;
  const source = form.get('source') ?? 'sitemap';
  const sources = Object.entries(SOURCE_NAMES).map(([k, name]) => `<option value="${k}"${selected(k === source)}>${name}</option>`).join('');
  const cap = plan.maxScanPages;
  const sourceField = formField('f-source', 'Source', (d) => `<select id="f-source" name="source"${d}>${sources}</select>`,
    'Sitemap: robots.txt’s, or /sitemap.xml · Crawl: links from the URL · List: the URLs below');
  return `<form method="post" action="/scans" class="card scan-form">${csrfField(v)}${errorBox(error)}
${formField('f-url', 'URL', (d) => `<input id="f-url" name="url" type="text" inputmode="url" placeholder="https://example.com/"${d} value="${esc(form.get('url') ?? '')}">`,
    'The site’s start page; only pages of its host are tested')}
${devicesField(form)}
<div class="row">${sourceField}
${input(form, 'max_pages', 'Max pages', { type: 'number', hint: `1 to ${cap}; default ${Math.min(DEFAULT_MAX_PAGES, cap)}`, attrs: ` min="1" max="${cap}"` })}
${input(form, 'sample', 'Pages per template', { type: 'number', hint: `default ${DEFAULT_SAMPLE}; 0 tests every page`, attrs: ' min="0"' })}
${onlyFor('crawl', input(form, 'crawl_depth', 'Crawl depth', { type: 'number', hint: `Crawl: links deep, 0 to 10; default ${DEFAULT_CRAWL_DEPTH}`, attrs: ' min="0" max="10"' }))}</div>
${onlyFor('list', textarea(form, 'urls', 'URLs', 'List of URLs: one page per line, absolute or a path of the site (<code>/pricing</code>)', 4))}
<div class="row scan-patterns">${textarea(form, 'include', 'Include', 'path patterns, one per line (<code>/blog/*</code>); none: every page', 3)}
${textarea(form, 'exclude', 'Exclude', 'path patterns, one per line (<code>*</code> matches anything)', 3)}
${textarea(form, 'templates', 'Templates', 'URL shapes to group pages by, one per line (<code>/p/:id</code>)', 3)}</div>
${textarea(form, 'alert_conditions', 'Alert conditions', CONDITIONS_HINT, 3)}
<div class="scan-checks">${checkbox(form, 'respect_robots', 'Respect robots.txt', true)} ${checkbox(form, 'keep_query', 'Keep query strings')}</div>
${optionsFields(v.principal, kit.ctx.catalog, form)}
<div class="scan-repeat">${repeatField(v, form)}</div>
<div class="scan-submit"><button class="btn" type="submit">Start scan</button>
<span class="hint">Reserves Max pages × a test’s credits (of each device) now and gives back what discovery does not use · ${credits} · ${esc(plan.name)} plan</span></div>
</form>`;
}

function scanRow(s: ScanView): string {
  const median = s.figures?.performance_score.median;
  const pages = s.state === 'discovering' ? '<span class="muted">discovering</span>'
    : `${doneOf(s)}${s.pages.failed ? ` <span class="muted">(${s.pages.failed} failed)</span>` : ''}`;
  return `<tr><td class="url">${urlLink(`/scans/${s.id}`, s.url)}</td><td>${esc(deviceLabel(s.deviceClass))}</td><td>${esc(SOURCE_NAMES[s.source] ?? s.source)}</td>` +
    `<td>${esc(STATE_NAMES[s.state] ?? s.state)}</td><td class="num">${pages}</td>` +
    `<td><time datetime="${new Date(s.started ?? s.created).toISOString()}">${esc(utcMinute(s.started ?? s.created))}</time></td>` +
    `<td class="num">${median === null || median === undefined ? '–' : `${Math.round(median)}%`}</td></tr>`;
}

export async function scansScreen(kit: WebKit, v: Visitor, nonce: string, page = 1, form = new FormFields(''), error?: FormError): Promise<string> {
  const { ctx } = kit;
  const db = ctx.store.db;
  const q: ListQuery = { filters: [], bool: 'AND', sort: [{ attr: 'created', desc: true }], filteredOrSorted: false, page: { size: SCANS_PAGE_SIZE, number: page } };
  const list = await listScans(db, v.principal.accountId, q);
  const views = await Promise.all(list.rows.map((s) => viewOf(kit, s)));
  let content: string;
  if (views.length === 0) {
    content = `<div class="card"><p class="scan-empty">${page > 1
      ? 'There are no scans this far into the list. <a href="/scans">Go to the first page</a>.'
      : 'No scans yet. A scan tests the pages of a site and reports on the whole site.'}</p></div>`;
  } else {
    content = `<div class="card tablewrap"><table class="list scans-list"><thead><tr><th scope="col">Site</th><th scope="col">Device</th><th scope="col">Source</th>` +
      `<th scope="col">State</th><th scope="col" class="num">Pages done</th><th scope="col">Started (UTC)</th>` +
      `<th scope="col" class="num">Median performance</th></tr></thead><tbody>${views.map(scanRow).join('')}</tbody></table></div>`;
  }
  const pager = page > 1 || list.hasNext
    ? `<nav class="pager" aria-label="Pages of the list">` +
      (page > 1 ? `<a class="btn secondary" href="/scans${page > 2 ? `?page=${page - 1}` : ''}" rel="prev">Previous</a>` : '') +
      `<span aria-current="page">Page ${page}</span>` +
      (list.hasNext ? `<a class="btn secondary" href="/scans?page=${page + 1}" rel="next">Next</a>` : '') + '</nav>'
    : '';
  let newScan: string;
  if (mayChange(v.principal)) {
    const credits = v.principal.plan.unlimitedCredits ? 'Unlimited credits'
      : `${fromTenths((await refilledCredits(db, v.principal.accountId, v.principal.plan)).tenths)} credits left`;
    newScan = newScanForm(v, form, kit, credits, error);
  } else {
    newScan = '<div class="card"><p class="muted">The Viewer role reads scans; only the Owner role starts them.</p></div>';
  }
  const body = `<h1>Scans</h1>
<section class="scan-new" aria-labelledby="new-scan"><h2 id="new-scan">New scan</h2>${newScan}</section>
${await schedulesPart(kit, v)}
<section class="scan-list" aria-labelledby="past-scans"><h2 id="past-scans">Past scans</h2>${content}${pager}</section>`;
  return shell(v, nonce, { title: page > 1 ? `Scans (page ${page})` : 'Scans', active: 'scans', body });
}

async function scanScreen(kit: WebKit, v: Visitor, nonce: string, scan: ScanRow, query: unknown, reply: FastifyReply): Promise<string> {
  const s = await viewOf(kit, scan);
  const view = pagesViewOf(query);
  // The pages' filters are the API's (its rules and messages): a value it refuses is said at the form, the list unfiltered.
  let q: ListQuery;
  let error: string | undefined;
  try {
    q = pagesQueryOf(view);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    reply.code(err.status);
    error = `${err.title}: ${err.detail ?? ''}`;
    q = pagesQueryOf({ ...view, filter: { state: '', template: '', grade: '' } });
  }
  const db = kit.ctx.store.db;
  const list = await listScanPages(db, v.principal.accountId, scan.id, q);
  const match = { ...(await scanPagesMatching(db, v.principal.accountId, scan.id, q)), error };
  const compare = await scansToCompareWith(kit.ctx.store, v.principal.accountId, scan);
  const history = await siteHistory(kit.ctx.store.db, v.principal.accountId, scan.id);
  const scheduled = scan.schedule_id ? '<p class="muted scan-scheduled">Started by a <a href="/scans#schedules">scheduled scan</a> of the site.</p>' : '';
  const siblings = await Promise.all((await siblingScans(db, scan)).map(async (row) => ({ row, pages: await scanProgress(db, row.id) })));
  // Real visitors beside the site report, once there is one.
  const field = s.figures ? await readScanField(db, v.principal.accountId, scan) : undefined;
  const origin = scan.site ?? askableOrigin(scan.url);
  const crux = s.figures && kit.ctx.crux && origin
    ? { setUp: true, record: await kit.ctx.crux.originRecord(origin, cruxFormFactorOf(isDeviceClass(scan.device_class) ? scan.device_class : 'desktop')) }
    : { setUp: kit.ctx.crux !== undefined, record: null };
  const body = `${scanHead(kit, v, s)}${scheduled}${siblingsPart(s, siblings)}${comparePart(scan, compare.previous, compare.others)}${progressPart(s)}` +
    `${alertsPart(s)}${s.figures ? siteReport(s, s.figures, field, crux) : ''}${siteOverTime(history)}${pagesPart(s, list.rows, list.hasNext, view, match, field)}`;
  return shell(v, nonce, { title: `Scan of ${s.url}`, active: 'scans', body,
    head: isFollowed(s) ? '<noscript><meta http-equiv="refresh" content="5"></noscript>' : undefined });
}

export function registerScanScreens(kit: WebKit): void {
  const { app, ctx } = kit;
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;
  /** The account's scan, or (another account's, or none) the "Scan not found" screen's error. */
  const loadScan = async (v: Visitor, id: string): Promise<ScanRow> => {
    if (!couldBeId(id)) throw scanNotFound(id);
    return getScan(ctx.store.db, v.principal.accountId, id);
  };
  /** A missing scan's screen says "Scan not found" (the API's E40400 is titled for tests). */
  const notFound = (reply: FastifyReply, v: Visitor, nonce: string, err: unknown): FastifyReply => {
    if (err instanceof ApiError && err.status === 404) return errorScreen(reply, v, nonce, 404, 'Scan not found', err.detail ?? err.title);
    throw err;
  };

  kit.screen('/scans', async (req, _reply, v, nonce) => {
    const n = Number(first((req.query as Record<string, unknown> | undefined)?.page));
    return scansScreen(kit, v, nonce, Number.isInteger(n) && n >= 1 && n <= MAX_PAGE_NUMBER ? n : 1);
  });

  kit.action('/scans', async (_req, reply, v, form, nonce) => {
    try {
      // Repeat: Once starts a scan, a frequency a schedule and its first scan.
      return seeOther(reply, `/scans/${await startFromForm(kit, v, scanAttributesFromForm(form), form.get('frequency'))}`);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      reply.code(err.status);
      return scansScreen(kit, v, nonce, 1, form, formError(err, form, SCAN_LIST_LABELS));
    }
  });

  kit.screen('/scans/:id', async (req, reply, v, nonce) => {
    let scan: ScanRow;
    try {
      scan = await loadScan(v, idOf(req));
    } catch (err) {
      return notFound(reply, v, nonce, err);
    }
    return scanScreen(kit, v, nonce, scan, req.query, reply);
  });

  registerScanCompareScreens(kit);
  registerScanScheduleScreens(kit);

  kit.action('/scans/:id/cancel', async (req, reply, v, _form, nonce) => {
    try {
      await loadScan(v, idOf(req));
    } catch (err) {
      return notFound(reply, v, nonce, err);
    }
    const scan = await cancelScan(ctx.intake, v.principal, idOf(req));
    return seeOther(reply, `/scans/${scan.id}`);
  });

  /** The pages as the API's downloads give them, under the session (the API's need Basic auth). */
  for (const ext of ['csv', 'json'] as const) {
    kit.screen(`/scans/:id/pages.${ext}`, async (req, reply, v, nonce) => {
      let found: Awaited<ReturnType<typeof scanPages>>;
      try {
        if (!couldBeId(idOf(req))) throw scanNotFound(idOf(req));
        found = await scanPages(ctx.store.db, v.principal.accountId, idOf(req));
      } catch (err) {
        return notFound(reply, v, nonce, err);
      }
      const { scan, pages } = found;
      reply.header('Content-Disposition', `attachment; filename="${scanFileName(scan, ext)}"`).header('Cache-Control', 'private, no-store');
      return ext === 'csv'
        ? reply.type('text/csv; charset=utf-8').send(scanPagesCsv(pages))
        : reply.type('application/json; charset=utf-8').send(JSON.stringify(scanPagesJson(scan, pages)));
    });
  }

  /** The scan's state as server-sent events while it is followed: its label and a key that changes when the screen would. */
  app.get('/scans/:id/events', async (req, reply) => {
    const v = await visitorOf(ctx, req);
    const id = idOf(req);
    const scan = v && couldBeId(id) ? await getScan(ctx.store.db, v.principal.accountId, id).catch(() => undefined) : undefined;
    if (!v || !scan) return secureHeaders(reply, newNonce()).code(404).type('text/plain').send(v ? scanNotFound(id).detail : 'Sign in first.');
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no', Connection: 'keep-alive' });
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const until = Date.now() + STREAM_MAX_MS;
    let last = '';
    let current: ScanRow | undefined = scan;
    try {
      while (!gone.signal.aborted && current && Date.now() < until) {
        const s = await viewOf(kit, current);
        const done = !isFollowed(s);
        const data = JSON.stringify({ state: s.state, label: scanLabel(s), key: scanKey(s), done });
        if (data !== last) {
          res.write(`event: state\ndata: ${data}\n\n`);
          last = data;
        } else res.write(': still here\n\n');
        if (done) break;
        await testsChanged.wait(REREAD_MS, gone.signal);
        current = await getScan(ctx.store.db, v.principal.accountId, id).catch(() => undefined);
      }
    } catch (err) {
      req.log.warn({ err }, 'scan event stream ended');
    }
    res.end();
  });
}
