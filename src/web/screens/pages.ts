/**
 * Pages: the account's pages (filter by URL text and tag, sort, 50 a page) with their latest report's figures,
 * and a page's view: history charts, its reports (to compare), monitoring, tags, alerts (page-alerts.ts), retest and
 * delete. Every rule (lists, monitoring, tags, alerts, tests) is core's, as the API applies it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { mayChange } from '../../core/accounts/roles.js';
import { ApiError } from '../../core/errors.js';
import { parseFrequency, setMonitoring, type Frequency } from '../../core/pages/monitoring.js';
import { tagIdsForPages } from '../../core/pages/page-tags-lookup.js';
import { deletePage, expireDueReports, listPageReports, listPages, pageNotFound, requirePage, type PageRow } from '../../core/pages/pages.js';
import { reportsByIds, type ReportRow } from '../../core/reports/reports.js';
import { readOptions } from '../../core/options/stored-options.js';
import { linkTags, listTags, type TagRow } from '../../core/pages/tags.js';
import { failedTestsOfPage, requestTest, type TestRow } from '../../core/tests/tests.js';
import { couldBeId, hasControlCharacter } from '../../core/ids.js';
import { cls, ms, pct } from '../../report/format.js';
import type { FilterTerm, ListQuery, SortKey } from '../../store/list-query.js';
import { day, lineChart, when, type ChartLine, type ChartMarker, type ChartMetric } from '../charts.js';
import { fieldDeviceOfClass, LAB_TWINS, readUrlField, type UrlField } from '../../core/field/lab-field.js';
import { labFieldCard } from './lab-field.js';
import { cruxFormFactorOf, type CruxHistory } from '../../core/field/crux.js';
import { deviceOfPage } from '../../core/pages/device-siblings.js';
import { StoredOptionsError } from '../../core/options/stored-options.js';
import { actionButton, csrfField, errorBox, esc, seeOther, selected, shell, urlBreaks, urlLink, type WebKit } from '../kit.js';
import type { Visitor } from '../session.js';
import { figureHeads, gradeBox, inkOn, ratedCell } from './figures.js';
import { deltaHtml, figureDelta, figureValue, showFigure } from './compare.js';
import { headingOf, shortOf, titleOf } from '../../analysis/figures.js';
import { NOISE_BASIS } from '../../analysis/noise.js';
import { sameStructureAudits } from '../../analysis/structure/index.js';
import { CHARTED_METRICS } from '../../core/vocabulary/metrics.js';
import { FREQUENCIES, type FrequencySpec } from '../../core/vocabulary/frequencies.js';
import { newestReports } from './report.js';
import { alertMarkers, alertsPart, loadPageAlerts, registerAlertRoutes, type AlertFormState } from './page-alerts.js';
import { cpuBasis, cpuBasisName } from '../../core/reports/device-cpu.js';
import { deviceSiblings, optionsAsDevice, type DevicePage } from '../../core/pages/device-siblings.js';
import { DEVICE_CLASS_IDS, deviceClassSpec, isDeviceClass, type DeviceClass } from '../../core/vocabulary/device-classes.js';

export const PAGE_SIZE = 50;
/** Reports a page view charts and lists: the newest. */
export const HISTORY_SIZE = 100;
const MAX_PAGE_NUMBER = 1_000_000;
const MAX_FILTER_LENGTH = 2048;

/**
 * The sort choices: the API's sorts of GET /pages (latest_report_time, created) and the URL, which the list builder
 * orders by as well (the API's list does not offer it: spec 4.3).
 */
export const SORTS: Record<string, { label: string; key: SortKey }> = {
  '-latest_report_time': { label: 'Last test, newest first', key: { attr: 'latest_report_time', desc: true } },
  latest_report_time: { label: 'Last test, oldest first', key: { attr: 'latest_report_time', desc: false } },
  '-created': { label: 'Created, newest first', key: { attr: 'created', desc: true } },
  created: { label: 'Created, oldest first', key: { attr: 'created', desc: false } },
  url: { label: 'URL A–Z', key: { attr: 'url', desc: false } },
};
const DEFAULT_SORT = '-latest_report_time';

/** The app's name of each monitoring frequency: the frequencies table's labels. */
export const FREQUENCY_NAMES = Object.fromEntries(FREQUENCIES.map((f) => [f.name, f.label])) as Record<Frequency, string>;
const frequencyName = (f: string) => FREQUENCY_NAMES[f as Frequency] ?? f;

/** What the list shows, from the query string; anything unusable falls back to the default, never an error. */
export interface PagesView {
  url: string;
  tag: string;
  sort: string;
  page: number;
}

const first = (v: unknown): string => (Array.isArray(v) ? first(v[0]) : typeof v === 'string' ? v : '');

export function pagesViewOf(query: unknown): PagesView {
  const q = (query ?? {}) as Record<string, unknown>;
  const n = Number(first(q.page));
  return {
    url: first(q.url).trim().slice(0, MAX_FILTER_LENGTH),
    tag: first(q.tag).trim().slice(0, MAX_FILTER_LENGTH),
    sort: Object.hasOwn(SORTS, first(q.sort)) ? first(q.sort) : DEFAULT_SORT,
    page: Number.isInteger(n) && n >= 1 && n <= MAX_PAGE_NUMBER ? n : 1,
  };
}

/** The list query of the view: the URL as one substring (commas included), one tag (an unknown one matches nothing). */
export function listQueryOf(view: PagesView): ListQuery {
  const filters: FilterTerm[] = [];
  if (view.url) filters.push({ attr: 'url', type: 'fuzzy', op: 'eq', values: [view.url] });
  if (view.tag) filters.push({ attr: 'page_tag', type: 'tag', op: 'eq', values: [view.tag] });
  return { filters, bool: 'AND', sort: [SORTS[view.sort].key], filteredOrSorted: filters.length > 0, page: { size: PAGE_SIZE, number: view.page } };
}

/** /pages with the view's choices (defaults left out) on page `page`. */
export function pagesHref(view: PagesView, page: number): string {
  const p = new URLSearchParams();
  if (view.url) p.set('url', view.url);
  if (view.tag) p.set('tag', view.tag);
  if (view.sort !== DEFAULT_SORT) p.set('sort', view.sort);
  if (page > 1) p.set('page', String(page));
  const s = p.toString();
  return s ? `/pages?${s}` : '/pages';
}

const timeTag = (t: number | null) => (t === null ? '–' : `<time datetime="${new Date(t).toISOString()}">${when(t)}</time>`);

export function tagPill(t: Pick<TagRow, 'name' | 'color' | 'description'>): string {
  const bg = `#${t.color}`;
  return `<span class="pill" style="background:${esc(bg)};color:${inkOn(bg)}"${t.description ? ` title="${esc(t.description)}"` : ''}>${esc(t.name)}</span>`;
}

function filterForm(view: PagesView, tags: TagRow[]): string {
  const tagOptions = `<option value="">All tags</option>` +
    tags.map((t) => `<option value="${esc(t.id)}"${selected(t.id === view.tag)}>${esc(t.name)}</option>`).join('');
  const sortOptions = Object.entries(SORTS).map(([k, s]) => `<option value="${esc(k)}"${selected(k === view.sort)}>${esc(s.label)}</option>`).join('');
  return `<form method="get" action="/pages" role="search" aria-label="Filter pages" class="card pages-filter">
<div class="row"><div class="field"><label for="f-url">Filter by URL</label><input id="f-url" name="url" type="search" value="${esc(view.url)}" placeholder="part of the URL"></div>
<div class="field"><label for="f-tag">Tag</label><select id="f-tag" name="tag">${tagOptions}</select></div>
<div class="field"><label for="f-sort">Sort by</label><select id="f-sort" name="sort">${sortOptions}</select></div>
<div class="field pages-apply"><button class="btn" type="submit">Apply</button></div></div></form>`;
}

function pageRow(p: PageRow, r: ReportRow | undefined, tags: string, browser: string): string {
  return `<tr><td class="url">${urlLink(`/pages/${p.id}`, p.url)}</td><td class="wraps">${esc(browser)}</td>` +
    `<td>${r ? gradeBox(r) : '–'}</td><td class="num">${pct(r?.performance_score)}</td><td class="num">${pct(r?.structure_score)}</td>` +
    `${ratedCell('largest_contentful_paint', r?.largest_contentful_paint)}${ratedCell('total_blocking_time', r?.total_blocking_time)}` +
    `${ratedCell('cumulative_layout_shift', r?.cumulative_layout_shift)}<td class="num">${ms(r?.fully_loaded_time)}</td>` +
    `<td class="wraps">${timeTag(p.latest_report_time)}</td><td>${esc(frequencyName(p.monitored))}</td><td class="tags">${tags}</td></tr>`;
}

export async function pagesScreen(kit: WebKit, v: Visitor, nonce: string, view: PagesView): Promise<string> {
  const { ctx } = kit;
  const db = ctx.store.db;
  const accountId = v.principal.accountId;
  await expireDueReports(ctx.store, ctx.artifacts, accountId);
  // No URL or tag ID holds a control character (PostgreSQL text cannot even hold NUL): such a filter matches nothing.
  const impossible = hasControlCharacter(view.url + view.tag);
  const [list, tags] = await Promise.all([
    impossible ? { rows: [], hasNext: false } : listPages(db, accountId, listQueryOf(view)), listTags(db, accountId),
  ]);
  const ids = list.rows.map((p) => p.id);
  const [latest, links] = await Promise.all([
    reportsByIds(db, accountId, list.rows.map((p) => p.latest_report_id).filter((id): id is string => id !== null)),
    tagIdsForPages(db, ids),
  ]);
  const tagById = new Map(tags.map((t) => [t.id, t]));
  const filtered = view.url !== '' || view.tag !== '';
  let content: string;
  if (list.rows.length === 0) {
    content = view.page > 1
      ? `<p>There are no pages this far into the list. <a href="${esc(pagesHref(view, 1))}">Go to the first page</a>.</p>`
      : filtered
        ? `<p>No page matches these filters. <a href="/pages">Show all pages</a> or <a href="/">Analyze</a> a new one.</p>`
        : `<p>No pages yet: a page appears here after its first test. <a href="/">Analyze</a> a URL to start.</p>`;
    content = `<div class="card pages-empty">${content}</div>`;
  } else {
    const rows = list.rows.map((p) => {
      const pills = (links.get(p.id) ?? []).map((id) => tagById.get(id)).filter((t): t is TagRow => t !== undefined).map(tagPill).join('');
      return pageRow(p, p.latest_report_id ? latest.get(p.latest_report_id) : undefined, pills,
        ctx.catalog.browser(p.browser)?.name ?? p.browser);
    }).join('');
    const from = (view.page - 1) * PAGE_SIZE + 1;
    content = `<div class="card tablewrap"><table class="list pages-list"><caption class="visually-hidden">Pages ${from} to ${from + list.rows.length - 1}</caption>
<thead><tr><th scope="col">URL</th><th scope="col">Browser</th><th scope="col">Grade</th>${figureHeads('performance_score', 'structure_score', 'largest_contentful_paint', 'total_blocking_time', 'cumulative_layout_shift', 'fully_loaded_time')}
<th scope="col">Last test (UTC)</th><th scope="col">Monitoring</th><th scope="col">Tags</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  }
  const pager = view.page > 1 || list.hasNext
    ? `<nav class="pager" aria-label="Pages of the list">` +
      (view.page > 1 ? `<a class="btn secondary" href="${esc(pagesHref(view, view.page - 1))}" rel="prev">Previous</a>` : '') +
      `<span aria-current="page">Page ${view.page}</span>` +
      (list.hasNext ? `<a class="btn secondary" href="${esc(pagesHref(view, view.page + 1))}" rel="next">Next</a>` : '') + '</nav>'
    : '';
  const body = `<h1>Pages</h1>${filterForm(view, tags)}${content}${pager}`;
  return shell(v, nonce, { title: view.page > 1 ? `Pages (page ${view.page})` : 'Pages', active: 'pages', body });
}

/* The page view. */

/**
 * The charted figures, from the metrics table (its chart titles, labels and axes, in its chart order): a report's
 * value, or null when it has none (a negative time is a test stopped at onload: no figure).
 */
const CHARTS: { column: string; metric: ChartMetric; value: (r: ReportRow) => number | null }[] = CHARTED_METRICS.map((m) => ({
  column: m.name,
  metric: { title: titleOf(m), label: shortOf(m), format: (v: number) => showFigure(m.unit, v), max: m.chart.max, minTop: m.chart.minTop,
    byAuditSet: m.byAuditSet === true, ...(m.bands ? { bands: m.bands } : {}), binary: m.unit === 'size' },
  value: (r: ReportRow) => figureValue(m.unit, r[m.name as keyof ReportRow] as number | null),
}));

/**
 * The eight history charts of reports given newest first (as the list answers), drawn oldest to newest, with the
 * alerts that triggered on them by metric (page-alerts.ts alertMarkers).
 */
export function historyCharts(reports: ReportRow[], markers: ReadonlyMap<string, ChartMarker[]> = new Map(),
  /** Per charted column, real visitors' lines drawn beside the lab points (fieldLines). */
  lines: ReadonlyMap<string, ChartLine[]> = new Map()): string {
  const oldestFirst = [...reports].reverse();
  // Each report's CPU read once, not once per chart.
  const cpus = oldestFirst.map((r) => cpuBasis(r.device_cpu));
  return `<div class="charts">${CHARTS.map((c) => lineChart(c.metric, oldestFirst.map((r, i) => ({
    href: `/reports/${r.id}`, time: r.created, value: c.value(r), lighthouse: r.lighthouse_version, cpu: cpus[i],
  })), markers.get(c.column), 'report', lines.get(c.column))).join('')}</div>`;
}

/**
 * This site's visitors' daily p75 as a line on the charts of the figures that have a field twin (LCP, CLS), over the
 * days the charted reports span (at least the last day).
 */
export function fieldLines(reports: readonly ReportRow[], field: UrlField | undefined, crux?: CruxHistory | null): Map<string, ChartLine[]> {
  const out = new Map<string, ChartLine[]>();
  if (reports.length === 0) return out;
  const from = Math.min(...reports.map((r) => r.created)) - 86_400_000;
  const add = (column: string, line: ChartLine) => {
    if (line.points.length) out.set(column, [...(out.get(column) ?? []), line]);
  };
  if (field) {
    const days = field.daily.filter((d) => d.day >= from);
    const whose = field.basis === 'template' ? `template ${field.template}` : 'this URL';
    for (const twin of LAB_TWINS) {
      add(twin.lab, { name: `Visitors' p75 per day (${whose}, ${field.device})`, className: 'line-field',
        points: days.flatMap((d) => (d.p75[twin.name] === null ? [] : [{ time: d.day + 43_200_000, value: d.p75[twin.name]! }])) });
    }
  }
  if (crux) {
    // Each weekly period drawn at its last day; Google's, said in its name.
    const weeks = crux.points.map((p) => ({ time: Date.parse(`${p.last}T12:00:00Z`), p75: p.p75 })).filter((p) => p.time >= from - 7 * 86_400_000);
    const whose = crux.scope === 'url' ? 'this URL' : `the origin ${crux.key}`;
    for (const twin of LAB_TWINS) {
      add(twin.lab, { name: `Google's CrUX p75 per week (${whose}, ${crux.formFactor === 'PHONE' ? 'phones' : 'desktops'})`, className: 'line-crux',
        points: weeks.flatMap((w) => (w.p75[twin.name] === undefined ? [] : [{ time: w.time, value: w.p75[twin.name]! }])) });
    }
  }
  return out;
}

/**
 * The newest report against the one before it, each charted figure by the one rule of differences (analysis/noise.ts):
 * better, worse or within noise; the grade and structure only when both read the same structure audits.
 */
export function latestChange(reports: readonly ReportRow[]): string {
  const [latest, previous] = reports;
  if (!latest || !previous) return '';
  const [now, before] = [cpuBasis(latest.device_cpu), cpuBasis(previous.device_cpu)];
  if (now !== before) {
    return `<div class="card pv-change"><h3 id="pv-change">The newest report against the one before</h3><p>The newest report ran on ` +
      `${esc(cpuBasisName(now))}, the one before on ${esc(cpuBasisName(before))}: their figures do not compare.</p></div>`;
  }
  const items = CHARTED_METRICS.flatMap((m) => {
    if (m.byAuditSet && !sameStructureAudits(latest.lighthouse_version, previous.lighthouse_version)) return [];
    const d = figureDelta(m, previous[m.name as keyof ReportRow] as number | null, latest[m.name as keyof ReportRow] as number | null);
    return d.verdict === 'none' ? [] : [`<li><span class="pv-change-name">${esc(headingOf(m))}</span> ${deltaHtml(d)}</li>`];
  });
  if (items.length === 0) return '';
  return `<div class="card pv-change"><h3 id="pv-change">The newest report against the one before</h3><ul class="pv-changes" aria-labelledby="pv-change">${items.join('')}</ul>` +
    `<p class="muted">${esc(NOISE_BASIS)}</p></div>`;
}

function reportsTable(reports: ReportRow[], total: number): string {
  const compare = reports.length > 1;
  const rows = reports.map((r) => {
    const t = when(r.created);
    const pick = compare
      ? `<td><input type="checkbox" id="cmp-${esc(r.id)}" name="reports" value="${esc(r.id)}"><label for="cmp-${esc(r.id)}" class="visually-hidden">Select report of ${t}</label></td>`
      : '';
    return `<tr>${pick}<td><a href="/reports/${esc(r.id)}"><time datetime="${new Date(r.created).toISOString()}">${t}</time></a></td><td>${gradeBox(r)}</td>` +
      `<td class="num">${pct(r.performance_score)}</td>${ratedCell('largest_contentful_paint', r.largest_contentful_paint)}${ratedCell('total_blocking_time', r.total_blocking_time)}` +
      `${ratedCell('cumulative_layout_shift', r.cumulative_layout_shift)}<td class="num">${ms(r.fully_loaded_time)}</td></tr>`;
  }).join('');
  const note = total > reports.length ? `<p class="muted">The ${reports.length} newest of ${total} reports.</p>` : '';
  const table = `<div class="tablewrap"><table class="list"><thead><tr>${compare ? '<th scope="col">Compare</th>' : ''}<th scope="col">Tested (UTC)</th><th scope="col">Grade</th>` +
    figureHeads('performance_score', 'largest_contentful_paint', 'total_blocking_time', 'cumulative_layout_shift', 'fully_loaded_time') +
    `</tr></thead><tbody>${rows}</tbody></table></div>`;
  if (!compare) return `<div class="card">${table}${note}</div>`;
  return `<form method="get" action="/compare" class="card">${table}${note}` +
    `<div class="actions pv-compare"><button class="btn" type="submit">Compare selected</button><span class="hint">Choose 2 to 4 reports.</span></div></form>`;
}

/**
 * The page's tests that ended in error in the last 24 hours: a failure makes no report, so the history above cannot
 * show it (a monitored journey that broke, with the step its error names).
 */
function failedTestsPart(tests: TestRow[]): string {
  if (tests.length === 0) return '';
  const items = tests.map((t) => `<li><a href="/tests/${esc(t.id)}"><time datetime="${new Date(t.created).toISOString()}">` +
    `${when(t.created)}</time></a> <span class="muted">(${esc(t.source)})</span>: ${esc(t.error ?? 'The test failed.')}</li>`).join('');
  return `<section class="pv-section" aria-labelledby="pv-failed"><h2 id="pv-failed">Failed tests</h2><div class="card">` +
    `<p class="muted">Tests of this page that ended in error in the last 24 hours (UTC); a failed test makes no report.</p>` +
    `<ul class="pv-failed">${items}</ul></div></section>`;
}

export interface PageNotice {
  /** Which form failed, and the API's words. */
  error?: { part: 'monitoring' | 'tags'; message: string };
  /** Which form was just saved (after its redirect). */
  saved?: string;
  /** The add-alert form's failure and values (page-alerts.ts). */
  alertForm?: AlertFormState;
}

/** The page's device and its siblings' (the same URL and options on other devices), with the latest report of each. */
interface Devices {
  device: DeviceClass;
  siblings: DevicePage[];
  latest: ReadonlyMap<string, ReportRow>;
  /** The devices the page has no sibling of that its browser can run (offered as a first test). */
  untested: DeviceClass[];
}

const deviceLabel = (d: DeviceClass) => deviceClassSpec(d).label;

/**
 * "Tested as Desktop; also tested as: Phone (mid-tier)", and the latest figures of each device side by side (grade,
 * performance, LCP, TBT, CLS × device), each device's column heading linking its page. Nothing without siblings.
 */
function devicesPart(page: PageRow, d: Devices): string {
  if (d.siblings.length === 0) return '';
  const links = d.siblings.map((s) => `<a href="/pages/${esc(s.page.id)}">${esc(deviceLabel(s.device))}</a>`).join(', ');
  const columns = [{ device: d.device, page }, ...d.siblings];
  const report = (p: PageRow) => (p.latest_report_id ? d.latest.get(p.latest_report_id) : undefined);
  const heads = columns.map((c) => (c.page.id === page.id
    ? `<th scope="col" class="num">${esc(deviceLabel(c.device))} <span class="muted">(this page)</span></th>`
    : `<th scope="col" class="num"><a href="/pages/${esc(c.page.id)}">${esc(deviceLabel(c.device))}</a></th>`)).join('');
  const row = (name: string, cell: (r: ReportRow | undefined) => string) =>
    `<tr><th scope="row">${esc(name)}</th>${columns.map((c) => cell(report(c.page))).join('')}</tr>`;
  const rows = [
    row('Grade', (r) => `<td class="num">${r ? gradeBox(r) : '–'}</td>`),
    row('Performance', (r) => `<td class="num">${pct(r?.performance_score)}</td>`),
    row('LCP', (r) => ratedCell('largest_contentful_paint', r?.largest_contentful_paint)),
    row('TBT', (r) => ratedCell('total_blocking_time', r?.total_blocking_time)),
    row('CLS', (r) => ratedCell('cumulative_layout_shift', r?.cumulative_layout_shift)),
    row('Tested (UTC)', (r) => `<td class="num">${timeTag(r?.created ?? null)}</td>`),
  ].join('');
  return `<section class="pv-section pv-devices" aria-labelledby="pv-devices"><h2 id="pv-devices">Devices</h2>` +
    `<p>Tested as <b>${esc(deviceLabel(d.device))}</b>. Also tested as: ${links}.</p>` +
    `<div class="card tablewrap"><table class="list pv-device-table"><caption class="visually-hidden">The latest figures of each device</caption>` +
    `<thead><tr><th scope="col">Latest</th>${heads}</tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

function monitoringPart(v: Visitor, page: PageRow, notice: PageNotice, d?: Devices): string {
  const next = page.monitored !== 'no' && page.monitor_next_run !== null
    ? `<p>Next test: ${timeTag(page.monitor_next_run)} (UTC).</p>` : '';
  const skipped = page.monitored !== 'no' && page.monitor_skipped_at !== null && page.monitor_skip_reason
    ? `<p class="muted">Skipped at ${when(page.monitor_skipped_at)}: ${esc(page.monitor_skip_reason)}</p>` : '';
  const head = `<h2>Monitoring</h2>`;
  if (!mayChange(v.principal)) {
    return `<section class="card pv-part" aria-labelledby="pv-monitoring">${head.replace('<h2>', '<h2 id="pv-monitoring">')}` +
      `<p>Monitoring: <b>${esc(frequencyName(page.monitored))}</b></p>${next}${skipped}</section>`;
  }
  // A frequency the plan lacks stays offered while the page is monitored at it.
  const offered: Frequency[] = FREQUENCIES.filter((f: FrequencySpec) => f.planFlag === undefined || v.principal.plan[f.planFlag] || page.monitored === f.name)
    .map((f) => f.name);
  const options = offered.map((f) => `<option value="${f}"${selected(f === page.monitored)}>${FREQUENCY_NAMES[f]}</option>`).join('');
  const error = notice.error?.part === 'monitoring' ? errorBox(notice.error.message) : '';
  const saved = notice.saved === 'monitoring' ? `<div class="ok" role="status">Monitoring saved.</div>` : '';
  return `<section class="card pv-part" aria-labelledby="pv-monitoring"><h2 id="pv-monitoring">Monitoring</h2>${error}${saved}
<form method="post" action="/pages/${esc(page.id)}/monitoring">${csrfField(v)}
<div class="field"><label for="f-monitoring">Monitoring</label>
<select id="f-monitoring" name="frequency" aria-describedby="f-monitoring-hint">${options}</select>
<span class="hint" id="f-monitoring-hint">Tests the page again at this interval; each test uses credits as any test does.</span></div>
${alsoMonitor(page, d)}<button class="btn" type="submit">Save monitoring</button></form>${next}${skipped}${testAs(v, page, d)}</section>`;
}

/** "Also monitor as Phone (mid-tier)": each sibling page, monitored at the frequency saved (its own schedule, its own slot). */
function alsoMonitor(page: PageRow, d: Devices | undefined): string {
  if (!d || d.siblings.length === 0) return '';
  const boxes = d.siblings.map((s) => `<label class="check" for="also-${esc(s.page.id)}"><input type="checkbox" id="also-${esc(s.page.id)}" ` +
    `name="also" value="${esc(s.page.id)}"${s.page.monitored !== 'no' && s.page.monitored === page.monitored ? ' checked' : ''}> ` +
    `Also monitor as ${esc(deviceLabel(s.device))}${s.page.monitored !== 'no' ? ` <span class="muted">(now ${esc(frequencyName(s.page.monitored))})</span>` : ''}</label>`)
    .join('');
  return `<fieldset class="pv-also"><legend class="visually-hidden">Other devices</legend>${boxes}</fieldset>`;
}

/** "Test as Phone (mid-tier)": a first test of the page's options as a device it has no page of (its page then appears above). */
function testAs(v: Visitor, page: PageRow, d: Devices | undefined): string {
  if (!d || d.untested.length === 0) return '';
  const buttons = d.untested.map((device) => actionButton(v, `/pages/${page.id}/test-as/${device}`, `Test as ${deviceLabel(device)}`, { style: 'secondary' }));
  return `<div class="actions pv-test-as">${buttons.join('')}</div><p class="muted">A first test as another device makes its page; ` +
    'it can then be monitored with this one.</p>';
}

function tagsPart(v: Visitor, page: PageRow, tags: TagRow[], attached: Set<string>, notice: PageNotice): string {
  const manage = `<p><a href="/tags">Manage tags</a></p>`;
  if (!mayChange(v.principal)) {
    const pills = tags.filter((t) => attached.has(t.id)).map(tagPill).join('');
    return `<section class="card pv-part" aria-labelledby="pv-tags"><h2 id="pv-tags">Tags</h2>${pills ? `<p>${pills}</p>` : '<p class="muted">No tags.</p>'}${manage}</section>`;
  }
  const error = notice.error?.part === 'tags' ? errorBox(notice.error.message) : '';
  const saved = notice.saved === 'tags' ? `<div class="ok" role="status">Tags saved.</div>` : '';
  if (tags.length === 0) {
    return `<section class="card pv-part" aria-labelledby="pv-tags"><h2 id="pv-tags">Tags</h2>${error}` +
      `<p class="muted">This account has no tags yet.</p>${manage}</section>`;
  }
  const boxes = tags.map((t) => `<label class="check" for="tag-${esc(t.id)}"><input type="checkbox" id="tag-${esc(t.id)}" name="tags" value="${esc(t.id)}"` +
    `${attached.has(t.id) ? ' checked' : ''}> ${tagPill(t)}</label>`).join('');
  return `<section class="card pv-part" aria-labelledby="pv-tags"><h2 id="pv-tags">Tags</h2>${error}${saved}
<form method="post" action="/pages/${esc(page.id)}/tags">${csrfField(v)}
<fieldset class="pv-tags"><legend class="visually-hidden">Tags</legend>${boxes}</fieldset>
<button class="btn" type="submit">Save tags</button></form>${manage}</section>`;
}

/** The page's devices (device-siblings.ts) with each sibling's latest report; none when its stored options cannot be read. */
async function loadDevices(kit: WebKit, accountId: string, page: PageRow): Promise<Devices | undefined> {
  const { ctx } = kit;
  let found;
  try {
    found = await deviceSiblings(ctx.store, ctx.catalog, accountId, page);
  } catch {
    return undefined;
  }
  const options = readOptions(ctx.store.box, page.options);
  const ids = [page, ...found.siblings.map((s) => s.page)].map((p) => p.latest_report_id).filter((id): id is string => id !== null);
  const latest = await reportsByIds(ctx.store.db, accountId, ids);
  const untested = DEVICE_CLASS_IDS.filter((d) => d !== found.device && !found.siblings.some((s) => s.device === d) &&
    optionsAsDevice(ctx.catalog, page, options, d) !== undefined);
  return { ...found, latest, untested };
}

/** The device a page's tests run as; desktop when its stored options do not read (a damaged row must not fail the view). */
function pageDeviceClass(kit: WebKit, page: PageRow): DeviceClass {
  try {
    return deviceOfPage(kit.ctx.catalog, page, readOptions(kit.ctx.store.box, page.options));
  } catch (err) {
    if (err instanceof StoredOptionsError) return 'desktop';
    throw err;
  }
}

export async function pageScreen(kit: WebKit, v: Visitor, nonce: string, page: PageRow, notice: PageNotice = {}): Promise<string> {
  const { ctx } = kit;
  const db = ctx.store.db;
  const accountId = v.principal.accountId;
  const deviceClass = pageDeviceClass(kit, page);
  const [history, tags, links, alerts, failed, devices, field, crux, cruxHistory] = await Promise.all([
    listPageReports(db, accountId, page.id, newestReports(HISTORY_SIZE)),
    listTags(db, accountId),
    tagIdsForPages(db, [page.id]),
    loadPageAlerts(db, accountId, page.id),
    failedTestsOfPage(db, accountId, page.id),
    loadDevices(kit, accountId, page),
    readUrlField(db, accountId, { url: page.url, device: fieldDeviceOfClass(deviceClass) }, { dailyDays: 90 }),
    ctx.crux?.record(page.url, cruxFormFactorOf(deviceClass)),
    ctx.crux?.history(page.url, cruxFormFactorOf(deviceClass)),
  ]);
  const reports = history.rows;
  const attached = new Set(links.get(page.id) ?? []);
  const owner = v.principal.role !== 'viewer';
  const location = ctx.catalog.location(page.location)?.name ?? page.location;
  const browser = ctx.catalog.browser(page.browser)?.name ?? page.browser;
  const facts = `<p class="muted pv-facts">${page.report_count} report${page.report_count === 1 ? '' : 's'} · first tested ${day(page.created)} ` +
    `${new Date(page.created).getUTCFullYear()} · ${esc(location)} · ${esc(browser)}</p>`;
  const actions = `<div class="actions">${owner ? actionButton(v, `/pages/${page.id}/retest`, 'Retest') : ''}` +
    `${page.latest_report_id ? `<a class="btn secondary" href="/reports/${esc(page.latest_report_id)}">Latest report</a>` : ''}` +
    `${owner ? actionButton(v, `/pages/${page.id}/delete`, 'Delete page', {
      style: 'danger', confirm: `Delete this page and its ${page.report_count} report${page.report_count === 1 ? '' : 's'}? This cannot be undone.`,
    }) : ''}</div>`;
  const body = `<h1 class="pv-url" aria-label="${esc(page.url)}">${urlBreaks(page.url)}</h1>${facts}${actions}
${devices ? devicesPart(page, devices) : ''}
<div class="pv-settings">${monitoringPart(v, page, notice, devices)}${tagsPart(v, page, tags, attached, notice)}</div>
<section class="pv-section" aria-labelledby="pv-history"><h2 id="pv-history">History</h2>
<p class="muted">${reports.length === 1 ? 'One report so far; its point opens it.' : `The ${reports.length} newest reports, oldest to newest; each point opens its report.`}</p>
${latestChange(reports)}${historyCharts(reports, alertMarkers(alerts.triggered, reports), fieldLines(reports, field, cruxHistory))}
${reports[0] ? labFieldCard({ lab: reports[0], deviceClass, url: page.url, field, crux, cruxSetUp: ctx.crux !== undefined, labName: 'newest report' }) : ''}</section>
${failedTestsPart(failed)}
${alertsPart(v, page, alerts, reports, notice)}
<section class="pv-section" aria-labelledby="pv-reports"><h2 id="pv-reports">Reports</h2>${reportsTable(reports, page.report_count)}</section>`;
  return shell(v, nonce, { title: page.url, active: 'pages', body });
}

export function registerPageScreens(kit: WebKit): void {
  const { ctx } = kit;

  /** The account's page, as GET /pages/{id} finds it (expired reports removed first), or 404. */
  const loadPage = async (v: Visitor, id: string): Promise<PageRow> => {
    if (!couldBeId(id)) throw pageNotFound(id);
    return requirePage(ctx.store, ctx.artifacts, v.principal.accountId, id);
  };
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;

  kit.screen('/pages', async (req, _reply, v, nonce) => pagesScreen(kit, v, nonce, pagesViewOf(req.query)));

  kit.screen('/pages/:id', async (req, _reply, v, nonce) => {
    const saved = first((req.query as Record<string, unknown> | undefined)?.saved);
    return pageScreen(kit, v, nonce, await loadPage(v, idOf(req)), { saved });
  });

  kit.action('/pages/:id/retest', async (req, reply, v) => {
    const page = await loadPage(v, idOf(req));
    // The page's options are those of the last test that produced a report for it (as POST /pages/{id}/retest).
    const started = await requestTest(ctx.intake, v.principal, readOptions(ctx.store.box, page.options), 'on-demand');
    return seeOther(reply, `/tests/${started.test.id}`);
  });

  kit.action('/pages/:id/test-as/:device', async (req, reply, v) => {
    const page = await loadPage(v, idOf(req));
    const device = (req.params as { device: string }).device;
    const options = isDeviceClass(device) ? optionsAsDevice(ctx.catalog, page, readOptions(ctx.store.box, page.options), device) : undefined;
    if (!options) {
      throw new ApiError('E40004', `This page's browser cannot run a test as ${device}: use ${DEVICE_CLASS_IDS.join(', ')} where its browser slows its CPU.`);
    }
    const started = await requestTest(ctx.intake, v.principal, options, 'on-demand');
    return seeOther(reply, `/tests/${started.test.id}`);
  });

  kit.action('/pages/:id/delete', async (req, reply, v) => {
    const page = await loadPage(v, idOf(req));
    await deletePage(ctx.store, ctx.artifacts, v.principal, page);
    return seeOther(reply, '/pages');
  });

  /** A form's failure shown on the page view with the API's title and detail; a missing page stays a 404 screen. */
  const refuse = async (reply: FastifyReply, v: Visitor, nonce: string, pageId: string, part: 'monitoring' | 'tags', err: unknown) => {
    // A missing page, or a viewer's post (who has no form to show it in), is an error screen.
    if (!(err instanceof ApiError) || err.code === 'E40402' || !mayChange(v.principal)) throw err;
    reply.code(err.status);
    return pageScreen(kit, v, nonce, await loadPage(v, pageId), { error: { part, message: `${err.title}: ${err.detail ?? ''}` } });
  };

  kit.action('/pages/:id/monitoring', async (req, reply, v, form, nonce) => {
    const page = await loadPage(v, idOf(req));
    try {
      const frequency = parseFrequency(form.get('frequency'));
      await setMonitoring(ctx.store, ctx.catalog, v.principal, page.id, frequency);
      // "Also monitor as …": each checked sibling at the same frequency; an unchecked one that was monitored at the
      // page's former frequency stops with it. Only the page's own siblings (the account's) are touched.
      const wanted = new Set(form.all('also'));
      // A page whose stored options cannot be read has no siblings to monitor (its view shows none).
      const { siblings } = await deviceSiblings(ctx.store, ctx.catalog, v.principal.accountId, page).catch(() => ({ siblings: [] as DevicePage[] }));
      for (const s of siblings) {
        if (wanted.has(s.page.id)) await setMonitoring(ctx.store, ctx.catalog, v.principal, s.page.id, frequency);
        else if (s.page.monitored !== 'no' && s.page.monitored === page.monitored) await setMonitoring(ctx.store, ctx.catalog, v.principal, s.page.id, 'no');
      }
    } catch (err) {
      return refuse(reply, v, nonce, page.id, 'monitoring', err);
    }
    return seeOther(reply, `/pages/${page.id}?saved=monitoring`);
  });

  kit.action('/pages/:id/tags', async (req, reply, v, form, nonce) => {
    const page = await loadPage(v, idOf(req));
    try {
      const wanted = new Set(form.all('tags'));
      const current = new Set((await tagIdsForPages(ctx.store.db, [page.id])).get(page.id) ?? []);
      const attach = [...wanted].filter((id) => !current.has(id));
      const detach = [...current].filter((id) => !wanted.has(id));
      // Attach runs even with nothing to attach: core checks the role (and the page) there.
      await linkTags(ctx.store, v.principal, 'attach', { pageIds: [page.id], tagIds: attach });
      if (detach.length) await linkTags(ctx.store, v.principal, 'detach', { pageIds: [page.id], tagIds: detach });
    } catch (err) {
      return refuse(reply, v, nonce, page.id, 'tags', err);
    }
    return seeOther(reply, `/pages/${page.id}?saved=tags`);
  });

  registerAlertRoutes(kit, {
    loadPage,
    pageScreen: async (v, nonce, page, alertForm) => pageScreen(kit, v, nonce, page, { alertForm }),
  });
}
