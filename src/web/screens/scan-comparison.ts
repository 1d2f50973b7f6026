/**
 * Two scans of a site compared (`/scans/BEFORE/compare/AFTER`; docs/scans.md "Compare two scans", the comparison is
 * core/scans/comparison-reader.ts, the API's own): the notes first (different options or Lighthouse versions), the counts,
 * both scans' site figures side by side, the templates that got worse, then the pages, worse first, each linking its
 * two reports; then the pages new, gone and not measured. A finished scan's screen links here ("Compare with the
 * previous scan", or another scan of the site picked in a form: `/scans/ID/compare?with=OTHER`, the earlier first).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { COMPARE_RULES, COMPARED_METRICS, pText } from '../../analysis/scan-comparison-rules.js';
import { COMPARED_SITE_FIGURES } from '../../analysis/named-site-figures.js';
import { DIFFERENCE_WORDS, judgeDifference, type Difference } from '../../analysis/noise.js';
import type { ComparedMetric, ComparedPage, OtherPage, Reason, ScanComparison, SiteFigureRow } from '../../analysis/scan-comparison-types.js';
import { ApiError } from '../../core/errors.js';
import { couldBeId } from '../../core/ids.js';
import { compareScanPair, type ComparedScan, type ScanPairComparison } from '../../core/scans/comparison-reader.js';
import { getScan, scanNotFound, type ScanRow } from '../../core/scans/scans.js';
import { figure, formatChangeSize, formatFigure, headingOf, type FigureUnit } from '../../analysis/figures.js';
import { errorScreen, esc, formField, seeOther, shell, type WebKit } from '../kit.js';
import type { Visitor } from '../session.js';
import { figureHeads, plural, utcMinute } from './figures.js';
import { deviceLabel, gradeLetter, SOURCE_NAMES } from './scan-view.js';
import { pathOnSite, scanSite } from '../../analysis/site-figures.js';

/** The compared figures' column headings: their short names in the one table ("LCP", "Fully loaded"). */
const FIGURE_LABELS = Object.fromEntries(COMPARED_METRICS.map((m) => [m, headingOf(figure(m))])) as Record<ComparedMetric, string>;
const VERDICT_NAMES = { worse: 'Worse', better: 'Better', unchanged: 'Unchanged' } as const;
const PAGE_STATE_NAMES: Record<string, string> = { queued: 'Queued', started: 'Loading', completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled' };

const when = (s: ScanRow) => `<time datetime="${new Date(s.started ?? s.created).toISOString()}">${esc(utcMinute(s.started ?? s.created))}</time>`;

/** A site figure row's unit as the API names it (ms, count) in the one table's terms. */
const figureUnit = (unit: SiteFigureRow['unit']): FigureUnit => (unit === 'ms' ? 'time' : unit);

/** A value of a compared figure, or of a site figure row's unit, as the one table prints it. */
function value(metric: ComparedMetric | SiteFigureRow['unit'], v: number | null): string {
  return formatFigure(metric in COMPARE_RULES ? COMPARE_RULES[metric as ComparedMetric].unit : figureUnit(metric as SiteFigureRow['unit']), v);
}

/**
 * A site figure's change in words and colour: a statistic of a report figure (a median, a 75th percentile) by the one
 * rule of differences (analysis/noise.ts: the figure's noise), within noise in the neutral colour; a count of pages
 * by its sign. Worse in the poor colour, better in the good one, each said in words too.
 */
function changeCell(r: SiteFigureRow): string {
  if (r.change === null || r.before === null || r.after === null) return '<td class="num">–</td>';
  const size = formatChangeSize(figureUnit(r.unit), r.change);
  if (size === '') return '<td class="num muted">no change</td>';
  const of = COMPARED_SITE_FIGURES.find((f) => f.name === r.figure)?.of;
  const judged = of ? judgeDifference(of, { before: r.before, after: r.after })!.difference : undefined;
  const worse = r.better === 'lower' ? r.change > 0 : r.change < 0;
  const difference: Difference = judged ?? (worse ? 'worse' : 'better');
  return `<td class="num scmp-change ${difference}"><span class="nw">${r.change > 0 ? '+' : '−'}${size}</span> <span class="nw">${DIFFERENCE_WORDS[difference]}</span></td>`;
}

const reasonItem = (r: Reason) => `<li class="${r.direction}"><span>${esc(r.text)}</span> <span class="muted">(${esc(r.basis === 'test' ? 'test' : 'threshold')}: ${esc(r.why)})</span></li>`;

function scanFacts(label: string, side: ComparedScan, kit: WebKit): string {
  const s = side.scan;
  const { catalog } = kit.ctx;
  const o = side.options;
  return `<section class="card scan-card" aria-labelledby="scmp-${label.toLowerCase()}-h"><h2 id="scmp-${label.toLowerCase()}-h">${label}</h2>` +
    `<dl class="facts"><dt>Scan</dt><dd><a href="/scans/${esc(s.id)}">${esc(SOURCE_NAMES[s.source] ?? s.source)}, started ${when(s)} UTC</a></dd>` +
    `<dt>Location</dt><dd>${esc(catalog.location(String(o.location))?.name ?? String(o.location))}</dd>` +
    `<dt>Browser</dt><dd>${esc(catalog.browser(String(o.browser))?.name ?? String(o.browser))}</dd>` +
    `<dt>Throttle</dt><dd>${esc(o.throttle === null ? 'none' : String(o.throttle))}</dd>` +
    `<dt>Runs a page</dt><dd>${esc(String(o.runs))}</dd></dl></section>`;
}

function countsPart(c: ScanComparison): string {
  const n = c.counts;
  const rows: [string, number, string][] = [
    ['Worse', n.worse, n.worse ? 'worse' : ''], ['Better', n.better, n.better ? 'better' : ''], ['Unchanged', n.unchanged, ''],
    ['New', n.new, ''], ['Gone', n.gone, ''], ['Not measured', n.failed, ''],
  ];
  const thresholds = COMPARED_METRICS.map((m) => `${FIGURE_LABELS[m]} ${formatChangeSize(COMPARE_RULES[m].unit, c.rules.thresholds[m])}`).join(', ');
  return `<section class="card scan-card scmp-counts" aria-labelledby="scmp-counts-h"><h2 id="scmp-counts-h">${plural(n.matched, 'page')} in both scans</h2>` +
    `<ul class="scmp-count-list">${rows.map(([k, x, cls]) => `<li${cls ? ` class="${cls}"` : ''}><b>${x}</b> ${k.toLowerCase()}</li>`).join('')}</ul>` +
    `<p class="muted">A page counts as worse or better by the Mann-Whitney test over its runs (p &lt; ${c.rules.alpha}) when both scans loaded it ` +
    `enough times, and otherwise by a change beyond the figure's noise, its usual load-to-load change: ${esc(thresholds)}, a grade ` +
    `${c.rules.grade_letters} letters. A smaller change is within noise; the site figures' medians and percentiles are judged by the same noise.</p></section>`;
}

function siteFiguresPart(c: ScanComparison): string {
  if (!c.figures.before || !c.figures.after) return '<div class="card"><p class="muted">A scan has no site figures.</p></div>';
  const rows = c.site_figures.map((r) => `<tr><th scope="row">${esc(r.label)}</th><td class="num">${value(r.unit, r.before)}</td>` +
    `<td class="num">${value(r.unit, r.after)}</td>${changeCell(r)}</tr>`).join('');
  return `<div class="card tablewrap"><table class="list scmp-site"><thead><tr><th scope="col">Figure</th><th scope="col" class="num">Before</th>` +
    `<th scope="col" class="num">After</th><th scope="col" class="num">Change</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** A cell with its column's name, which a phone shows before it (the table stacks its rows: pv-stack); one element inside. */
const cell = (label: string, html: string, cls = '') => `<td data-label="${esc(label)}"${cls ? ` class="${cls}"` : ''}>${html}</td>`;

function templatesPart(c: ScanComparison): string {
  const worse = c.templates.filter((t) => t.verdict === 'worse');
  if (worse.length === 0) {
    return `<div class="card"><p class="muted">No template got worse as a whole${c.templates.length ? ` (${plural(c.templates.length, 'template')} compared)` : ''}.</p></div>`;
  }
  const rows = worse.map((t) => `<tr>${cell('Template', esc(t.template), 'scan-template')}${cell('Pages', String(t.pages), 'num')}` +
    `${cell('What got worse', `<ul>${t.reasons.filter((r) => r.direction === 'worse').map(reasonItem).join('')}</ul>`, 'scmp-reasons')}</tr>`).join('');
  return `<div class="card tablewrap"><table class="list pv-stack scmp-templates"><thead><tr><th scope="col">Template</th><th scope="col" class="num">Pages</th>` +
    `<th scope="col">What got worse</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** A report's link: `label` (HTML), and for a screen reader which page's report it is (`of`: its path). */
const reportLink = (label: string, report: string | null, of = '') => (report
  ? `<a href="/reports/${esc(report)}">${label}${of ? `<span class="visually-hidden"> report of ${esc(of)}</span>` : ''}</a>`
  : `<span class="muted">${label}: none</span>`);
const beforeAfter = (b: string, a: string) => `<span><span class="nw">${b}</span> → <span class="nw">${a}</span></span>`;

function figureCell(p: ComparedPage, m: ComparedMetric): string {
  const reason = p.reasons.find((r) => r.metric === m);
  return cell(FIGURE_LABELS[m], beforeAfter(value(m, p.before[m]), value(m, p.after[m])), `num${reason ? ` ${reason.direction}` : ''}`);
}

/** The page, its template and its two reports, in one cell. */
const pageCell = (site: string, p: { url: string; template: string }, links: string) =>
  cell('Page', `<div><span class="scmp-path">${esc(pathOnSite(site, p.url))}</span><span class="scmp-sub scan-template-inline">${esc(p.template)}</span>${links}</div>`, 'url');

function pagesPart(site: string, c: ScanComparison): string {
  if (c.pages.length === 0) return '<div class="card"><p class="muted">No page was measured in both scans.</p></div>';
  const metrics = COMPARED_METRICS;
  const rows = c.pages.map((p) => {
    const grade = p.changes.grade === null && p.before.grade && p.after.grade
      ? `<span>${beforeAfter(gradeLetter(p.before.grade), gradeLetter(p.after.grade))} <span class="muted">(not compared)</span></span>`
      : beforeAfter(gradeLetter(p.before.grade), gradeLetter(p.after.grade));
    const reasons = p.reasons.length ? `<ul>${p.reasons.map(reasonItem).join('')}</ul>` : '<span class="muted">Every change within noise</span>';
    const path = pathOnSite(site, p.url);
    // Both reports side by side on Compare (its filmstrips, waterfalls and every figure), when both sides have one.
    const both = p.before.report && p.after.report
      ? ` · <a href="/compare?reports=${esc(p.before.report)},${esc(p.after.report)}">Compare<span class="visually-hidden"> the reports of ${esc(path)}</span></a>` : '';
    const links = `<span class="scmp-sub scmp-links">${reportLink('Before', p.before.report, path)} · ${reportLink('After', p.after.report, path)}${both}</span>`;
    return `<tr>${pageCell(site, p, links)}${cell('Verdict', VERDICT_NAMES[p.verdict], `scmp-verdict${p.verdict === 'unchanged' ? '' : ` ${p.verdict}`}`)}` +
      `${cell('Why', reasons, 'scmp-reasons')}${cell('Grade', grade, 'scmp-grade')}${metrics.map((m) => figureCell(p, m)).join('')}</tr>`;
  }).join('');
  return `<div class="card tablewrap"><table class="list pv-stack scmp-pages"><caption class="visually-hidden">Pages in both scans, the worse first</caption>` +
    `<thead><tr><th scope="col">Page and reports</th><th scope="col">Verdict</th><th scope="col">Why</th><th scope="col">Grade</th>` +
    `${metrics.map((m) => `<th scope="col" class="num">${FIGURE_LABELS[m]}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function otherPages(site: string, pages: readonly OtherPage[], empty: string, caption: string): string {
  if (pages.length === 0) return `<div class="card"><p class="muted">${empty}</p></div>`;
  const rows = pages.map((p) => `<tr>${pageCell(site, p, p.side.report ? `<span class="scmp-sub scmp-links">${reportLink('Report', p.side.report, pathOnSite(site, p.url))}</span>` : '')}` +
    `${cell('State', esc(PAGE_STATE_NAMES[p.state] ?? p.state))}${cell('Grade', gradeLetter(p.side.grade))}` +
    `${cell(FIGURE_LABELS.performance_score, value('performance_score', p.side.performance_score), 'num')}` +
    `${cell(FIGURE_LABELS.largest_contentful_paint, value('largest_contentful_paint', p.side.largest_contentful_paint), 'num')}</tr>`).join('');
  return `<div class="card tablewrap"><table class="list pv-stack scmp-other"><caption class="visually-hidden">${caption}</caption>` +
    `<thead><tr><th scope="col">Page</th><th scope="col">State</th><th scope="col">Grade</th>${figureHeads('performance_score', 'largest_contentful_paint')}` +
    `</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function failedPart(site: string, c: ScanComparison): string {
  if (c.failed_pages.length === 0) return '<div class="card"><p class="muted">Every page in both scans was measured in both.</p></div>';
  const side = (s: { state: string; error: string | null }) =>
    `<div>${esc(PAGE_STATE_NAMES[s.state] ?? s.state)}` +
    `${s.error ? `<span class="scan-page-error">${esc(s.error)}</span>` : ''}</div>`;
  const rows = c.failed_pages.map((p) => `<tr>${pageCell(site, p, '')}${cell('Before', side(p.before), 'scmp-state')}` +
    `${cell('After', side(p.after), 'scmp-state')}</tr>`).join('');
  return `<div class="card tablewrap"><table class="list pv-stack scmp-failed"><caption class="visually-hidden">Pages not measured in one of the scans</caption>` +
    `<thead><tr><th scope="col">Page</th><th scope="col">Before</th><th scope="col">After</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

const section = (id: string, title: string, content: string, note = '') =>
  `<section class="scan-section" aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${note ? `<p class="muted">${note}</p>` : ''}${content}</section>`;

export function comparisonScreen(kit: WebKit, v: Visitor, nonce: string, pair: ScanPairComparison): string {
  const c = pair.comparison;
  const site = scanSite(pair.after.scan);
  const notes = c.notes.length
    ? `<section class="card scmp-notes" aria-labelledby="scmp-notes-h"><h2 id="scmp-notes-h">Read this first</h2><ul>${c.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul></section>`
    : '';
  const body = `<h1 class="scan-title">Scans of <span class="url">${esc(site)}</span> compared</h1>` +
    `<p class="muted scan-facts">${esc(deviceLabel(pair.after.scan.device_class))} · Before: ${when(pair.before.scan)} UTC · ` +
    `After: ${when(pair.after.scan)} UTC</p>` +
    `<div class="actions"><a class="btn secondary" href="/scans/${esc(pair.before.scan.id)}">The before scan</a>` +
    `<a class="btn secondary" href="/scans/${esc(pair.after.scan.id)}">The after scan</a></div>` +
    `${notes}<div class="scan-cards">${countsPart(c)}${scanFacts('Before', pair.before, kit)}${scanFacts('After', pair.after, kit)}</div>` +
    section('scmp-site-h', 'Site figures', siteFiguresPart(c), 'Both scans’ figures over the pages each measured.') +
    section('scmp-templates-h', 'Templates that got worse', templatesPart(c),
      `Over a template’s pages in both scans: the Mann-Whitney test of their values when each side has at least ${c.rules.template_test_min_pages} pages, else the median’s change against the figure’s noise.`) +
    section('scmp-pages-h', 'Pages', pagesPart(site, c), 'Pages in both scans, matched by URL: the worse first. Each figure before → after.') +
    section('scmp-new-h', 'New pages', otherPages(site, c.new_pages, 'No page is only in the after scan.', 'Pages only in the after scan'), 'Only in the after scan.') +
    section('scmp-gone-h', 'Gone pages', otherPages(site, c.gone_pages, 'No page is only in the before scan.', 'Pages only in the before scan'), 'Only in the before scan.') +
    section('scmp-failed-h', 'Not measured', failedPart(site, c), 'In both scans, but not measured in one of them.');
  return shell(v, nonce, { title: `Scans of ${site} compared`, active: 'scans', body });
}

/**
 * What a finished scan's screen offers: "Compare with the previous scan" when there is one, and a form to pick
 * another completed scan of the site (`others`, newest first).
 */
export function comparePart(scan: ScanRow, previous: ScanRow | undefined, others: readonly ScanRow[]): string {
  if (!previous && others.length === 0) return '';
  const link = previous
    ? `<p><a class="btn" href="/scans/${esc(previous.id)}/compare/${esc(scan.id)}">Compare with the previous scan</a> ` +
      `<span class="muted">(${esc(SOURCE_NAMES[previous.source] ?? previous.source)}, started ${when(previous)} UTC)</span></p>`
    : '';
  const options = others.map((s) => `<option value="${esc(s.id)}"${s.id === previous?.id ? ' selected' : ''}>${esc(utcMinute(s.started ?? s.created))} UTC · ` +
    `${esc(SOURCE_NAMES[s.source] ?? s.source)}</option>`).join('');
  const form = others.length
    ? `<form method="get" action="/scans/${esc(scan.id)}/compare" class="row scmp-pick">` +
      `${formField('scmp-with', 'Scan to compare with', (d) => `<select id="scmp-with" name="with"${d}>${options}</select>`, `Completed scans of this site as ${esc(deviceLabel(scan.device_class))}, newest first; the earlier is the before`)}` +
      '<div class="field"><button class="btn secondary" type="submit">Compare</button></div></form>'
    : '';
  return `<section class="card scan-compare-with" aria-labelledby="scan-compare-h"><h2 id="scan-compare-h">Compare</h2>${link}${form}</section>`;
}

const first = (v: unknown): string => (Array.isArray(v) ? first(v[0]) : typeof v === 'string' ? v : '');

export function registerScanCompareScreens(kit: WebKit): void {
  const { ctx } = kit;
  const notFound = (reply: FastifyReply, v: Visitor, nonce: string, err: unknown): FastifyReply => {
    if (err instanceof ApiError && err.status === 404) return errorScreen(reply, v, nonce, 404, 'Scan not found', err.detail ?? err.title);
    throw err;
  };
  const params = (req: FastifyRequest) => req.params as { id: string; other?: string };

  kit.screen('/scans/:id/compare/:other', async (req, reply, v, nonce) => {
    const { id, other = '' } = params(req);
    let pair: ScanPairComparison;
    try {
      if (!couldBeId(id)) throw scanNotFound(id);
      if (!couldBeId(other)) throw scanNotFound(other);
      pair = await compareScanPair(ctx.store, v.principal.accountId, id, other);
    } catch (err) {
      return notFound(reply, v, nonce, err);
    }
    return comparisonScreen(kit, v, nonce, pair);
  });

  /** The form of a scan's screen: the two scans in their order, the earlier first. */
  kit.screen('/scans/:id/compare', async (req, reply, v, nonce) => {
    const { id } = params(req);
    const other = first((req.query as Record<string, unknown> | undefined)?.with);
    let a: ScanRow;
    let b: ScanRow;
    try {
      if (!couldBeId(id)) throw scanNotFound(id);
      if (!couldBeId(other)) throw new ApiError('E40003', 'Pick a scan to compare with.');
      a = await getScan(ctx.store.db, v.principal.accountId, id);
      b = await getScan(ctx.store.db, v.principal.accountId, other);
    } catch (err) {
      return notFound(reply, v, nonce, err);
    }
    const [before, after] = a.created < b.created || (a.created === b.created && a.id < b.id) ? [a, b] : [b, a];
    return seeOther(reply, `/scans/${encodeURIComponent(before.id)}/compare/${encodeURIComponent(after.id)}`);
  });
}
