/**
 * A scan's screen (screens/scans.ts serves it): while it discovers or runs, what was found and skipped (and why),
 * how many pages are done, and each page as it completes, kept current by the client script (the parts marked
 * data-live are fetched again when the scan's events say it changed); once done, the site report (docs/scans.md
 * "figures"): Core Web Vitals as distributions, grades, the worst pages and templates, the structure audits that fail
 * on the most pages, third parties; and the pages as a table sorted by the same list query as the API's.
 */
import type { ScanPageRow } from '../../core/scans/scans.js';
import type { ScanView } from '../../core/scans/scan-export.js';
import type { SiteFigures, VitalFigures } from '../../analysis/site-figures.js';
import { pathOnSite, scanSite, VITAL_NAMES, type Vital } from '../../analysis/site-figures.js';
import { bandsText, figure, formatFigure, headingOf, shortOf, titleOf } from '../../analysis/figures.js';
import type { ListQuery } from '../../store/list-query.js';
import { parseListQuery } from '../../core/list-query.js';
import { SCAN_PAGE_STATES, SCAN_PAGES_LIST } from '../../core/vocabulary/lists.js';
import { bytes, cls, inlineMarkdown, ms, pct } from '../../report/format.js';
import { GRADE_COLOUR } from '../../report/page.js';
import { actionButton, errorBox, esc, selected, urlLink, type WebKit } from '../kit.js';
import type { Visitor } from '../session.js';
import { figureHeads, inkOn, plural, ratedCell, utcMinute } from './figures.js';
import { leftText, rateText } from '../../core/scans/scan-pace.js';
import { aboutText } from '../../core/tests/phases.js';
import { deviceClassSpec, isDeviceClass } from '../../core/vocabulary/device-classes.js';
import type { ScanField, ScanFieldPage } from '../../core/scans/scan-field.js';
import { pageFieldCell, scanFieldPart, type ScanCrux } from './scan-field.js';

export const SOURCE_NAMES: Record<string, string> = { sitemap: 'Sitemap', crawl: 'Crawl', list: 'List of URLs' };
export const STATE_NAMES: Record<string, string> = {
  discovering: 'Discovering pages', running: 'Running', completed: 'Completed', cancelled: 'Cancelled', error: 'Ended in error',
};
const PAGE_STATE_NAMES: Record<string, string> = {
  queued: 'Queued', started: 'Loading', completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled',
};
/** Why discovery skipped URLs (discovery/types.ts SKIP_REASONS), as the screen says it. */
const SKIP_NAMES: Record<string, string> = {
  other_host: 'On another host',
  robots_txt: 'Disallowed by robots.txt',
  excluded: 'Left out by Include or Exclude',
  not_html: 'Not an HTML page',
  duplicate: 'Duplicates',
  sitemap_error: 'Sitemaps that could not be read',
  fetch_error: 'Pages that could not be fetched',
  crawl_limit: 'Beyond the crawl’s depth or limits',
  sampled_out: 'Sampled out (enough pages of their template)',
  over_max_pages: 'Over Max pages',
};

/** A device class as people read it ("Phone (mid-tier)"); an unknown one as it is. */
export const deviceLabel = (id: string): string => (isDeviceClass(id) ? deviceClassSpec(id).label : id);

export const isRunning = (state: string): boolean => state === 'discovering' || state === 'running';

/** Whether the screen follows the scan: it runs, or it was cancelled while a page was loading (its figures come after). */
export const isFollowed = (s: Pick<ScanView, 'state' | 'figures' | 'pages'>): boolean =>
  isRunning(s.state) || (s.state === 'cancelled' && s.figures === null && s.pages.queued + s.pages.started > 0);

/** What the status line says of a scan: a running one, its pages done and, once one is, the time left at its pace. */
export function scanLabel(s: Pick<ScanView, 'state' | 'found' | 'pages' | 'figures' | 'pace'>): string {
  const done = s.pages.completed + s.pages.failed;
  switch (s.state) {
    case 'discovering':
      return s.found > 0 ? `Discovering pages: ${plural(s.found, 'URL')} found so far` : 'Discovering pages';
    case 'running':
      return `Running: ${done} of ${plural(s.pages.total, 'page')} done${s.pace && done < s.pages.total ? `, ${leftText(s.pace)}` : ''}`;
    case 'completed':
      return `Completed: ${plural(s.pages.completed, 'page')} measured${s.pages.failed ? `, ${s.pages.failed} failed` : ''}`;
    case 'cancelled':
      return `Cancelled after ${plural(done, 'page')}${s.pages.total ? ` of ${s.pages.total}` : ''}`;
    default:
      return 'Ended in error';
  }
}

/** "27 of 50 done", the scans list's and the progress part's count (failed pages count as done). */
export const doneOf = (s: Pick<ScanView, 'pages'>): string => `${s.pages.completed + s.pages.failed} of ${s.pages.total}`;

const share = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 1000) / 10);
const timeTag = (t: number) => `<time datetime="${new Date(t).toISOString()}">${esc(utcMinute(t))}</time>`;

/** A grade letter in its colour (scan pages keep the grade, not its percentage). */
export function gradeLetter(g: string | null): string {
  if (!g) return '<span class="muted">–</span>';
  const bg = GRADE_COLOUR[g] ?? '#667085';
  return `<span class="gradebox" style="background:${bg};color:${inkOn(bg)}">${esc(g)}</span>`;
}

/* The pages table: sorted by the scan pages' list query (core listScanPages), 100 a page. */

export const PAGES_PAGE_SIZE = 100;
const MAX_PAGE_NUMBER = 100_000;

interface Column {
  attr: string;
  label: string;
  /** The first click sorts worst first: the highest times, the lowest scores, F before A. */
  firstDesc: boolean;
  num?: true;
}
const COLUMNS: Column[] = [
  { attr: 'position', label: '#', firstDesc: false, num: true },
  { attr: 'url', label: 'URL', firstDesc: false },
  { attr: 'template', label: 'Template', firstDesc: false },
  { attr: 'state', label: 'State', firstDesc: false },
  { attr: 'grade', label: 'Grade', firstDesc: true },
  { attr: 'performance_score', label: headingOf(figure('performance_score')), firstDesc: false, num: true },
  { attr: 'structure_score', label: headingOf(figure('structure_score')), firstDesc: false, num: true },
  { attr: 'largest_contentful_paint', label: headingOf(figure('largest_contentful_paint')), firstDesc: true, num: true },
  { attr: 'total_blocking_time', label: headingOf(figure('total_blocking_time')), firstDesc: true, num: true },
  { attr: 'cumulative_layout_shift', label: headingOf(figure('cumulative_layout_shift')), firstDesc: true, num: true },
  { attr: 'fully_loaded_time', label: headingOf(figure('fully_loaded_time')), firstDesc: true, num: true },
];
const SORTABLE = new Set(COLUMNS.map((c) => c.attr));

/** The filters of the pages list, as the form names them (empty: any), each an attribute the API's list filters on. */
export const PAGE_FILTERS = ['state', 'template', 'grade'] as const;
export type PagesFilter = Record<(typeof PAGE_FILTERS)[number], string>;

export interface PagesView {
  sort: { attr: string; desc: boolean };
  page: number;
  /** What the filter form holds (`state=completed&grade=B`); checked by the API's list rules in pagesQueryOf. */
  filter: PagesFilter;
}

const first = (v: unknown): string => (Array.isArray(v) ? first(v[0]) : typeof v === 'string' ? v : '');

/** The table's view from the query string (`sort=-largest_contentful_paint`, `page=2`, `state=completed`); a bad sort or page is the default. */
export function pagesViewOf(query: unknown): PagesView {
  const q = (query ?? {}) as Record<string, unknown>;
  const s = first(q.sort);
  const desc = s.startsWith('-');
  const attr = desc ? s.slice(1) : s;
  const n = Number(first(q.page));
  return {
    sort: SORTABLE.has(attr) ? { attr, desc } : { attr: 'position', desc: false },
    page: Number.isInteger(n) && n >= 1 && n <= MAX_PAGE_NUMBER ? n : 1,
    filter: Object.fromEntries(PAGE_FILTERS.map((k) => [k, first(q[k]).trim()])) as PagesFilter,
  };
}

const filtered = (f: PagesFilter): boolean => PAGE_FILTERS.some((k) => f[k] !== '');

/**
 * The list query of the view: its filters read by the API's list parser from the scan pages' table (core/list-query.ts
 * and SCAN_PAGES_LIST: the values GET /scans/{id}/pages accepts, its E40006 for any other), its sort and page.
 */
export function pagesQueryOf(view: PagesView): ListQuery {
  const given = Object.fromEntries(PAGE_FILTERS.filter((k) => view.filter[k] !== '').map((k) => [`filter[${k}]`, view.filter[k]]));
  const { filters } = parseListQuery(SCAN_PAGES_LIST, given);
  return {
    filters, bool: 'AND', sort: [view.sort], filteredOrSorted: filters.length > 0 || view.sort.attr !== 'position' || view.sort.desc,
    page: { size: PAGES_PAGE_SIZE, number: view.page },
  };
}

function pagesHref(scanId: string, view: Pick<PagesView, 'sort' | 'filter'>, page = 1): string {
  const p = new URLSearchParams();
  for (const k of PAGE_FILTERS) if (view.filter[k] !== '') p.set(k, view.filter[k]);
  if (view.sort.attr !== 'position' || view.sort.desc) p.set('sort', `${view.sort.desc ? '-' : ''}${view.sort.attr}`);
  if (page > 1) p.set('page', String(page));
  const s = p.toString();
  return `/scans/${scanId}${s ? `?${s}` : ''}#pages`;
}

const GRADES = SCAN_PAGES_LIST.attrs.grade?.values ?? [];

/** The filter form: a GET of the scan's screen, its fields named by their labels, what it holds kept; the sort kept too. */
function filterForm(s: ScanView, view: PagesView, templates: readonly string[], error?: string): string {
  const options = (values: readonly string[], current: string, name: (v: string) => string, any: string) =>
    `<option value="">${any}</option>${values.map((v) => `<option value="${esc(v)}"${selected(v === current)}>${esc(name(v))}</option>`).join('')}`;
  const field = (key: string, label: string, menu: string) =>
    `<div class="field"><label for="f-pages-${key}">${label}</label><select id="f-pages-${key}" name="${key}">${menu}</select></div>`;
  const sort = view.sort.attr !== 'position' || view.sort.desc ? `<input type="hidden" name="sort" value="${esc(`${view.sort.desc ? '-' : ''}${view.sort.attr}`)}">` : '';
  return `<form method="get" action="/scans/${esc(s.id)}#pages" role="search" aria-label="Filter the pages" class="card pages-filter scan-pages-filter">` +
    `${errorBox(error)}${sort}<div class="row">` +
    field('state', 'State', options(SCAN_PAGE_STATES, view.filter.state, (v) => PAGE_STATE_NAMES[v] ?? v, 'Any state')) +
    field('template', 'Template', options(templates, view.filter.template, (v) => v, 'Any template')) +
    field('grade', 'Grade', options(GRADES, view.filter.grade, (v) => v, 'Any grade')) +
    '<div class="field pages-apply"><button class="btn" type="submit">Apply</button></div></div></form>';
}

function pageCells(site: string, p: ScanPageRow, field: ReadonlyMap<string, ScanFieldPage> | undefined): string {
  const href = p.report_id ? `/reports/${p.report_id}` : p.state === 'queued' || p.state === 'started' ? `/tests/${p.id}` : undefined;
  const url = href ? urlLink(href, pathOnSite(site, p.url)) : esc(pathOnSite(site, p.url));
  const state = esc(PAGE_STATE_NAMES[p.state] ?? p.state) + (p.error ? `<span class="scan-page-error">${esc(p.error)}</span>` : '');
  return `<td class="num">${p.position + 1}</td><td class="url">${url}</td><td class="scan-template">${esc(p.template)}</td>` +
    `<td class="scan-page-state">${state}</td><td>${gradeLetter(p.grade)}</td><td class="num">${pct(p.performance_score)}</td>` +
    `<td class="num">${pct(p.structure_score)}</td>${ratedCell('largest_contentful_paint', p.largest_contentful_paint)}` +
    `${ratedCell('total_blocking_time', p.total_blocking_time)}${ratedCell('cumulative_layout_shift', p.cumulative_layout_shift)}<td class="num">${ms(p.fully_loaded_time)}</td>` +
    (field ? pageFieldCell(field, p.url) : '');
}

/** What the filtered list shows: how many pages of the scan match, and the filters in words. */
export interface PagesMatch {
  /** Pages the filters keep (all of them without a filter). */
  count: number;
  /** The scan's templates, for the filter's menu. */
  templates: readonly string[];
  /** The API's message when the filters were refused (the list is then unfiltered). */
  error?: string;
}

/**
 * The pages part: the filter form, then the list (data-live: it follows the scan, the form keeps what is chosen in it):
 * a header link per column sorts by it (again: the other way), a pager past 100 pages; filtered, the count of matches.
 */
export function pagesPart(s: ScanView, rows: ScanPageRow[], hasNext: boolean, view: PagesView, match: PagesMatch,
  /** Real visitors beside the scan: a column of each page's visitors' LCP p75 (not sortable: the API's list has no such attribute). */
  field?: ScanField): string {
  const byUrl = field ? new Map(field.pages.map((p) => [p.url, p])) : undefined;
  const isFiltered = filtered(view.filter) && !match.error;
  const shown = isFiltered ? view : { ...view, filter: { state: '', template: '', grade: '' } };
  let content: string;
  if (s.pages.total === 0) {
    content = `<div class="card"><p class="muted scan-empty">${s.state === 'discovering'
      ? 'Discovery is looking for the pages to test; they are listed here as soon as they are queued.'
      : 'This scan has no pages.'}</p></div>`;
  } else if (rows.length === 0 && isFiltered && match.count === 0) {
    content = `<div class="card"><p class="scan-empty">No page of this scan matches the filters. <a href="${esc(pagesHref(s.id, { sort: view.sort, filter: { state: '', template: '', grade: '' } }))}">Show every page</a>.</p></div>`;
  } else if (rows.length === 0) {
    content = `<div class="card"><p class="scan-empty">There are no pages this far into the list. <a href="${esc(pagesHref(s.id, shown))}">Go to the first page</a>.</p></div>`;
  } else {
    const head = COLUMNS.map((c) => {
      const current = view.sort.attr === c.attr;
      const next = { attr: c.attr, desc: current ? !view.sort.desc : c.firstDesc };
      const arrow = current ? `<span aria-hidden="true">${view.sort.desc ? ' ▼' : ' ▲'}</span>` : '';
      return `<th scope="col"${c.num ? ' class="num"' : ''}${current ? ` aria-sort="${view.sort.desc ? 'descending' : 'ascending'}"` : ''}>` +
        `<a class="sort" href="${esc(pagesHref(s.id, { sort: next, filter: shown.filter }))}">${c.label}</a>${arrow}</th>`;
    }).join('') + (field ? '<th scope="col" class="num">Visitors\' LCP</th>' : '');
    const from = (view.page - 1) * PAGES_PAGE_SIZE + 1;
    const of = isFiltered ? `${match.count} matching` : String(s.pages.total);
    content = `<div class="card tablewrap"><table class="list scan-pages"><caption class="visually-hidden">Pages ${from} to ${from + rows.length - 1} of ${of}</caption>` +
      `<thead><tr>${head}</tr></thead><tbody>${rows.map((p) => `<tr>${pageCells(scanSite(s), p, byUrl)}</tr>`).join('')}</tbody></table></div>`;
  }
  const pager = view.page > 1 || hasNext
    ? `<nav class="pager" aria-label="Pages of the list">` +
      (view.page > 1 ? `<a class="btn secondary" href="${esc(pagesHref(s.id, shown, view.page - 1))}" rel="prev">Previous</a>` : '') +
      `<span aria-current="page">Page ${view.page}</span>` +
      (hasNext ? `<a class="btn secondary" href="${esc(pagesHref(s.id, shown, view.page + 1))}" rel="next">Next</a>` : '') + '</nav>'
    : '';
  const note = s.pages.total > 0
    ? `<p class="muted">Pages of ${esc(scanSite(s))}. ${isRunning(s.state) ? 'Each shows its figures as soon as its test completes. ' : ''}` +
      'A column’s name sorts by it; again, the other way.</p>'
    : '';
  const words = PAGE_FILTERS.filter((k) => view.filter[k] !== '')
    .map((k) => `${k} ${k === 'state' ? (PAGE_STATE_NAMES[view.filter[k]] ?? view.filter[k]).toLowerCase() : view.filter[k]}`).join(', ');
  const count = isFiltered
    ? `<p class="scan-pages-count"><b>${match.count} of ${plural(s.pages.total, 'page')}</b> match${match.count === 1 ? 'es' : ''} ${esc(words)}. ` +
      `<a href="${esc(pagesHref(s.id, { sort: view.sort, filter: { state: '', template: '', grade: '' } }))}">Show every page</a></p>`
    : '';
  const form = s.pages.total > 0 ? filterForm(s, view, match.templates, match.error) : '';
  return `<section id="pages" class="scan-section" aria-labelledby="scan-pages"><h2 id="scan-pages">Pages</h2>${note}${form}` +
    `<div id="scan-pages-list" data-live>${count}${content}${pager}</div></section>`;
}

/** "10 reserved, 5 used" while the scan holds more than it used; "10 used" once they are the same. */
export function creditsText(s: Pick<ScanView, 'creditsReserved' | 'creditsUsed'>): string {
  const n = (c: number) => c.toLocaleString('en');
  return s.creditsReserved > s.creditsUsed ? `${n(s.creditsReserved)} reserved, ${n(s.creditsUsed)} used` : `${n(s.creditsUsed)} used`;
}

/* Progress and discovery: found, skipped by reason, discovery errors, pages done. */

/** A running scan's rate or time left when it has no pace yet. */
const noPace = (done: number): string => (done === 0 ? 'known once a page is done' : 'not known yet');

export function progressPart(s: ScanView): string {
  const { pages } = s;
  const done = pages.completed + pages.failed;
  const bar = pages.total > 0
    ? `<div class="scan-bar" aria-hidden="true"><span class="scan-bar-good" style="width:${share(pages.completed, pages.total)}%"></span>` +
      `<span class="scan-bar-poor" style="width:${share(pages.failed, pages.total)}%"></span></div>`
    : '';
  const counts = [
    ['Pages done', pages.total > 0 ? `${doneOf(s)}` : (isRunning(s.state) ? 'none yet' : '0')],
    ['Completed', String(pages.completed)],
    ['Failed', String(pages.failed)],
    ...(isRunning(s.state) || pages.queued + pages.started > 0 ? [['Queued', String(pages.queued)], ['Loading', String(pages.started)]] : []),
    ...(pages.cancelled ? [['Cancelled', String(pages.cancelled)]] : []),
    // No pace: none done yet, or (pages done whose tests' times are gone) not known; never "once a page is done" beside a done one.
    ...(s.state === 'running' ? [['Rate', s.pace ? esc(rateText(s.pace)) : noPace(done)], ['Time left', s.pace ? esc(aboutText(s.pace.leftMs)) : noPace(done)]] : []),
    ['Credits', creditsText(s)],
  ];
  const progress = `<section class="card scan-card" aria-labelledby="scan-progress-h"><h2 id="scan-progress-h">Progress</h2>${bar}` +
    `<dl class="facts">${counts.map(([k, val]) => `<dt>${k}</dt><dd>${val}</dd>`).join('')}</dl>` +
    `${done < pages.total && isRunning(s.state) ? '<p class="muted">A scan’s tests wait behind every test that is not a scan’s.</p>' : ''}</section>`;

  const skipped = Object.entries(s.skipped).filter(([, n]) => n > 0);
  const skippedTotal = skipped.reduce((a, [, n]) => a + n, 0);
  const skippedList = skipped.length
    ? `<h3>Skipped: ${plural(skippedTotal, 'URL')}</h3><ul class="scan-skipped">${skipped.map(([k, n]) =>
      `<li><span>${esc(SKIP_NAMES[k] ?? k)}</span><b>${n.toLocaleString('en')}</b></li>`).join('')}</ul>`
    : s.state === 'discovering' ? '' : '<p class="muted">No URL was skipped.</p>';
  const errors = s.discoveryErrors.length
    ? `<h3>Discovery errors</h3><ul class="scan-errors">${s.discoveryErrors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul>`
    : '';
  const settings = s.settings;
  const found = s.state === 'discovering' && s.found === 0 ? 'counting…' : plural(s.found, 'URL');
  const discovery = `<section class="card scan-card" aria-labelledby="scan-discovery-h"><h2 id="scan-discovery-h">Discovery</h2>` +
    `<dl class="facts"><dt>Source</dt><dd>${esc(SOURCE_NAMES[s.source] ?? s.source)}${s.source === 'list' ? ` (${plural(settings.urls.length, 'URL')} given)` : ''}` +
    `${s.source === 'crawl' ? ` (depth ${settings.crawl_depth})` : ''}</dd><dt>Found</dt><dd>${found}</dd>` +
    `<dt>Tested</dt><dd>${s.state === 'discovering' ? 'not known yet' : plural(pages.total, 'page')} (at most ${settings.max_pages}, ` +
    `${settings.sample === 0 ? 'every page of a template' : `${settings.sample} per template`})</dd></dl>` +
    `${skippedList}${errors}</section>`;
  const error = s.error ? `<div class="error" role="alert">${esc(s.error)}</div>` : '';
  return `<div id="scan-progress" data-live>${error}<div class="scan-cards">${progress}${discovery}</div></div>`;
}

/* The site report. */

/** The site vitals' cards: each figure's title, short name, print and bands from the one table. */
const VITAL_PARTS = VITAL_NAMES.map((key: Vital) => {
  const f = figure(key);
  return { key, title: `${titleOf(f)} (${headingOf(f)})`, format: (v: number | null) => formatFigure(f.unit, v), limits: bandsText(key) };
});

function vitalCard(part: (typeof VITAL_PARTS)[number], f: VitalFigures): string {
  const total = f.good + f.needs_improvement + f.poor;
  const bands: [string, string, number][] = [['good', 'good', f.good], ['ni', 'needs improvement', f.needs_improvement], ['poor', 'poor', f.poor]];
  const bar = `<div class="dist" aria-hidden="true">${bands.filter(([, , n]) => n > 0)
    .map(([k, , n]) => `<span class="dist-${k}" style="width:${share(n, total)}%"></span>`).join('')}</div>`;
  const legend = `<ul class="dist-legend">${bands.map(([k, name, n]) =>
    `<li><span class="dist-key dist-${k}" aria-hidden="true"></span><b>${n}</b> ${name} <span class="muted">(${Math.round(share(n, total))}%)</span></li>`).join('')}</ul>`;
  return `<div class="card scan-vital"><h3>${part.title}</h3>${total > 0 ? bar + legend : '<p class="muted">No page measured has this figure.</p>'}` +
    `<dl class="facts"><dt>Median</dt><dd>${part.format(f.median)}</dd><dt>75th percentile</dt><dd>${part.format(f.p75)}</dd></dl>` +
    `<p class="hint">${part.limits}</p></div>`;
}

function gradesCard(grades: Record<string, number>): string {
  if (Object.values(grades).every((n) => n === 0)) return '<div class="card"><p class="muted">No page measured has a grade.</p></div>';
  const letters = Object.keys(GRADE_COLOUR);
  const max = Math.max(1, ...letters.map((g) => grades[g] ?? 0));
  const rows = letters.map((g) => {
    const n = grades[g] ?? 0;
    return `<li>${gradeLetter(g)}<span class="grade-bar" aria-hidden="true"><span style="width:${share(n, max)}%;background:${GRADE_COLOUR[g]}"></span></span>` +
      `<span class="grade-count">${plural(n, 'page')}</span></li>`;
  }).join('');
  return `<div class="card"><ul class="scan-grades" aria-label="Pages by grade">${rows}</ul></div>`;
}

const reportLink = (url: string, report: string | null) => (report ? urlLink(`/reports/${report}`, url) : esc(url));

function worstPages(site: string, f: SiteFigures): string {
  if (f.worst_pages.length === 0) return '<div class="card"><p class="muted">No page was measured.</p></div>';
  const rows = f.worst_pages.map((p) => `<tr><td class="url">${reportLink(pathOnSite(site, p.url), p.report)}</td><td class="scan-template">${esc(p.template)}</td>` +
    `<td>${gradeLetter(p.grade)}</td><td class="num">${pct(p.performance_score)}</td>${ratedCell('largest_contentful_paint', p.largest_contentful_paint)}` +
    `${ratedCell('total_blocking_time', p.total_blocking_time)}${ratedCell('cumulative_layout_shift', p.cumulative_layout_shift)}</tr>`).join('');
  return `<div class="card tablewrap"><table class="list scan-worst"><thead><tr><th scope="col">Page</th><th scope="col">Template</th><th scope="col">Grade</th>` +
    figureHeads('performance_score', 'largest_contentful_paint', 'total_blocking_time', 'cumulative_layout_shift') +
    `</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function worstTemplates(f: SiteFigures): string {
  if (f.worst_templates.length === 0) return '<div class="card"><p class="muted">No page was measured.</p></div>';
  const rows = f.worst_templates.map((t) => `<tr><td class="scan-template">${esc(t.template)}</td><td class="num">${t.pages}</td>` +
    `<td class="num">${pct(t.performance_score)}</td><td class="num">${ms(t.largest_contentful_paint)}</td></tr>`).join('');
  return `<div class="card tablewrap"><table class="list scan-worst-templates"><thead><tr><th scope="col">Template</th><th scope="col" class="num">Pages</th>` +
    `<th scope="col" class="num">Median ${esc(shortOf(figure('performance_score')))}</th><th scope="col" class="num">Median ${esc(shortOf(figure('largest_contentful_paint')))}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** "Document request latency fails on 38 of 50 pages; 9.10 s and 1.15 MB to save". */
export function auditLine(a: SiteFigures['structure'][number]): string {
  const savings = [a.savings_ms > 0 ? ms(a.savings_ms) : '', a.savings_bytes > 0 ? bytes(a.savings_bytes) : ''].filter(Boolean).join(' and ');
  return `${a.title} fails on ${a.failing_pages} of ${plural(a.pages_measured, 'page')}${savings ? `; ${savings} to save` : ''}`;
}

const TOP_AUDITS = 10;

function structurePart(f: SiteFigures): string {
  if (f.structure.length === 0) return '<div class="card"><p class="muted">No structure audit fails on any page (or no page ran Lighthouse).</p></div>';
  const items = f.structure.slice(0, TOP_AUDITS).map((a) =>
    `<li><span class="scan-audit">${inlineMarkdown(auditLine(a))}</span> <span class="scan-impact scan-impact-${esc(a.impact)}">${esc(a.impact)} impact</span></li>`).join('');
  const more = f.structure.length > TOP_AUDITS ? `<p class="muted">And ${f.structure.length - TOP_AUDITS} more audits fail on fewer pages.</p>` : '';
  return `<div class="card"><ol class="scan-audits">${items}</ol>${more}</div>`;
}

function thirdPartiesPart(f: SiteFigures): string {
  if (f.third_parties.length === 0) return '<div class="card"><p class="muted">No page loaded anything from another site.</p></div>';
  const rows = f.third_parties.map((t) => `<tr><td class="url">${esc(t.origin)}</td><td class="num">${t.pages}</td><td class="num">${t.requests}</td>` +
    `<td class="num">${bytes(t.bytes)}</td><td class="num">${ms(t.time_ms)}</td></tr>`).join('');
  return `<div class="card tablewrap"><table class="list scan-third"><thead><tr><th scope="col">Origin</th><th scope="col" class="num">Pages</th>` +
    `<th scope="col" class="num">Requests</th><th scope="col" class="num">Transferred</th><th scope="col" class="num">Time</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></div>`;
}

const section = (id: string, title: string, content: string, note = '') =>
  `<section class="scan-section" aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${note ? `<p class="muted">${note}</p>` : ''}${content}</section>`;

export function siteReport(s: ScanView, f: SiteFigures, field?: ScanField | null, crux?: ScanCrux): string {
  const keys = `<div class="card scan-keys"><dl class="facts"><dt>Pages measured</dt><dd>${f.pages_measured}</dd>` +
    `<dt>Performance score</dt><dd>${f.performance_score.median === null ? '– <span class="muted">(no page ran Lighthouse)</span>'
      : `median ${pct(f.performance_score.median)}; three in four pages score at least ${pct(f.performance_score.p75)}`}</dd>` +
    `<dt>Fully loaded</dt><dd>median ${ms(f.fully_loaded_time.median)}, 75th percentile ${ms(f.fully_loaded_time.p75)}</dd></dl></div>`;
  const partial = s.state === 'cancelled' ? ' The scan was cancelled: these are the figures of the pages measured before.' : '';
  return section('sr-vitals', 'Core Web Vitals',
    `${keys}<div class="scan-vitals">${VITAL_PARTS.map((p) => vitalCard(p, f[p.key])).join('')}</div>`,
    `Of the pages measured (${f.pages_measured}): how many are good, need improvement or are poor, as web.dev rates them (TBT stands in for INP, as in Lighthouse).${partial}`) +
    (field !== null ? scanFieldPart(s, field, crux) : '') +
    section('sr-grades', 'Grades', gradesCard(f.grades)) +
    section('sr-worst', 'Worst pages', worstPages(scanSite(s), f), 'The lowest performance scores, then the slowest LCP; each opens its report.') +
    section('sr-templates', 'Worst templates', worstTemplates(f), 'Pages grouped by the shape of their URL, the lowest median performance first.') +
    section('sr-structure', 'Structure audits failing most', structurePart(f), 'On how many pages each audit fails, with what fixing it would save on those pages together.') +
    section('sr-third', 'Third parties', thirdPartiesPart(f), 'Origins of other sites the pages load, on the most pages first.');
}

/** The scan's heading, facts, actions and status card (the status follows the scan's events while it runs). */
export function scanHead(kit: WebKit, v: Visitor, s: ScanView): string {
  const { catalog } = kit.ctx;
  const when = s.finished ? `started ${timeTag(s.started ?? s.created)}, finished ${timeTag(s.finished)} UTC` : `started ${timeTag(s.started ?? s.created)} UTC`;
  const facts = `<p class="muted scan-facts">${esc(deviceLabel(s.deviceClass))} · ${esc(SOURCE_NAMES[s.source] ?? s.source)} · ${when} · ` +
    `${esc(catalog.location(s.location)?.name ?? s.location)} · ${esc(catalog.browser(s.browser)?.name ?? s.browser)}</p>`;
  const running = isRunning(s.state);
  const followed = isFollowed(s);
  const downloads = s.pages.total > 0
    ? `<a class="btn secondary" href="/scans/${esc(s.id)}/pages.csv" download>Download CSV</a><a class="btn secondary" href="/scans/${esc(s.id)}/pages.json" download>Download JSON</a>`
    : '';
  const cancel = running && v.principal.role !== 'viewer'
    ? actionButton(v, `/scans/${s.id}/cancel`, 'Cancel scan', {
      style: 'danger', confirm: 'Cancel this scan? Its queued pages are dropped and their credits given back; the reports made so far stay.',
    })
    : '';
  const actions = downloads || cancel ? `<div class="actions">${downloads}${cancel}<a class="btn secondary" href="/scans">All scans</a></div>` : '';
  const key = scanKey(s);
  const status = `<div class="card scan-status"${followed ? ` data-scan-events="/scans/${esc(s.id)}/events" data-key="${esc(key)}"` : ''}>` +
    `<p class="state" id="scan-state" role="status" aria-live="polite" data-state data-live>${esc(scanLabel(s))}</p>` +
    `${running ? '<p class="muted">This page follows the scan: pages are added as they complete, and the site report opens when the last one is done.</p>'
      : followed ? '<p class="muted">The page loading when the scan was cancelled finishes; then the report of the pages measured opens here.</p>' : ''}</div>`;
  return `<h1 class="scan-title">Scan of <span class="url">${esc(s.url)}</span></h1>${facts}${actions}${status}`;
}

/**
 * What changes on the screen when the scan moves, its status line included (the events send it; the script fetches the
 * screen again when it differs, and the status line, the progress and the pages take their new content together, so
 * that they never disagree).
 */
export function scanKey(s: Pick<ScanView, 'state' | 'found' | 'pages' | 'figures' | 'pace'>): string {
  const p = s.pages;
  return [s.state, s.found, p.total, p.queued, p.started, p.completed, p.failed, p.cancelled, s.figures ? 'figures' : '', scanLabel(s)].join('.');
}
