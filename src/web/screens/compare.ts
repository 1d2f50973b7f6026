/**
 * Compare: 2 to 4 reports of the account side by side (`/compare?reports=ID1,ID2[,ID3,ID4]`, or `reports` repeated
 * as a form of checkboxes sends it). Scores and every timing with the difference from the first report, the
 * filmstrips on one time axis, and each report's waterfall. The reports are read as the report screen reads them
 * (ownReport: the account's own, not expired) and drawn with the report page's own parts.
 */
import type { ReportRow } from '../../core/reports/reports.js';
import { ApiError } from '../../core/errors.js';
import { formatChangeSize, formatFigure, type FigureSpec } from '../../analysis/figures.js';
import { DIFFERENCE_WORDS, judgeDifference, NOISE_BASIS, type Difference } from '../../analysis/noise.js';
import { runValuesOf } from '../../core/scans/page-artifacts.js';
import { COMPARED_METRICS, type MetricUnit } from '../../core/vocabulary/metrics.js';
import { ms } from '../../report/format.js';
import { loadReportData, type ReportData } from '../../report/view.js';
import { renderWaterfall, waterfallSpan, type WaterfallMarks } from '../../report/waterfall.js';
import { esc, shell, type WebKit } from '../kit.js';
import { gradeBox, plural, utcMinute } from './figures.js';
import { ownReport } from './report.js';

export const COMPARE_MIN = 2;
export const COMPARE_MAX = 4;

/** How a figure reads: the metrics table's unit (core/vocabulary/metrics.ts), which also says which way is better. */
export type FigureKind = MetricUnit;

type NumericKey = { [K in keyof ReportRow]: ReportRow[K] extends number | null ? K : never }[keyof ReportRow];

/** The compared figures: the metrics table's, in its compare order, with their labels, units and directions. */
export const FIGURES: { key: NumericKey; label: string; kind: FigureKind; spec: FigureSpec }[] = COMPARED_METRICS.map((m) => ({
  key: m.name as NumericKey, label: m.label, kind: m.unit, spec: m,
}));

/**
 * The report IDs of the query, in order, duplicates dropped: `reports=A,B` and `reports=A&reports=B` alike.
 * Throws E40001 unless there are 2 to 4.
 */
export function compareIds(param: unknown): string[] {
  const values = Array.isArray(param) ? param : param === undefined ? [] : [param];
  const ids = [...new Set(values.filter((x): x is string => typeof x === 'string')
    .flatMap((x) => x.split(',')).map((x) => x.trim()).filter((x) => x !== ''))];
  if (ids.length < COMPARE_MIN || ids.length > COMPARE_MAX) {
    throw new ApiError('E40001', `Give ${COMPARE_MIN} to ${COMPARE_MAX} report IDs to compare, e.g. /compare?reports=ID1,ID2; ` +
      `got ${ids.length === 0 ? 'none' : ids.length}. Pick the reports on a page's view, or use “Compare with previous” on a report.`);
  }
  return ids;
}

/** A figure's value, or null when it was not measured (a time of -1: the test stopped at onload). */
export function figureValue(kind: FigureKind, v: number | null | undefined): number | null {
  if (v === null || v === undefined || !Number.isFinite(v)) return null;
  return kind !== 'score' && v < 0 ? null : v;
}

/** A figure as the report shows it (a time of -1: the test stopped at onload). */
export function showFigure(kind: FigureKind, v: number | null | undefined): string {
  return kind === 'time' ? ms(v) : formatFigure(kind, v);
}

export interface Delta {
  /** "+120 ms", "−3 points", "same"; empty when there is nothing to compare. */
  text: string;
  /** By the one rule of differences (analysis/noise.ts): better, worse, within noise; same when it rounds to nothing. */
  verdict: Difference | 'same' | 'none';
  /** What decided: the test over both reports' runs, or the figure's noise. */
  basis?: 'test' | 'threshold';
}

const MINUS = '\u2212';

/** A difference's size in the figure's unit, rounded as it is shown (0 reads as "same"); requests are counted in words. */
function magnitude(kind: FigureKind, d: number): string {
  const size = formatChangeSize(kind, d);
  return kind === 'count' && size !== '' ? plural(Math.round(d), 'request', 'requests') : size;
}

/**
 * How `value` differs from `base`, and whether that is news: better or worse beyond the figure's noise, or within it
 * (the one rule, analysis/noise.ts); `runs`: both reports' values of their runs, when they loaded the page several times.
 */
export function figureDelta(spec: FigureSpec, base: number | null | undefined, value: number | null | undefined,
  runs?: [readonly number[], readonly number[]]): Delta {
  const b = figureValue(spec.unit, base);
  const v = figureValue(spec.unit, value);
  if (b === null || v === null) return { text: '', verdict: 'none' };
  const d = v - b;
  const size = magnitude(spec.unit, Math.abs(d));
  const j = judgeDifference(spec, { before: b, after: v, ...(runs ? { runs } : {}) })!;
  if (size === '' && j.difference === 'within_noise') return { text: 'same', verdict: 'same', basis: j.basis };
  return { text: size === '' ? 'same' : `${d > 0 ? '+' : MINUS}${size}`, verdict: j.difference, basis: j.basis };
}

/** The delta as HTML: a sign and unit, and the word (better, worse, within noise) so it never rests on colour alone. */
export function deltaHtml(d: Delta): string {
  if (d.verdict === 'none') return '<span class="cmp-delta none">not comparable</span>';
  if (d.verdict === 'same') return '<span class="cmp-delta same">same</span>';
  const how = d.basis === 'test' ? ' title="by a Mann-Whitney test over both reports\' runs"' : '';
  return `<span class="cmp-delta ${d.verdict}"${how}>${esc(d.text)} <b>${DIFFERENCE_WORDS[d.verdict]}</b></span>`;
}

/** The URL without its scheme, shortened for a column heading. */
export function shortUrl(url: string, max = 48): string {
  const bare = url.replace(/^https?:\/\//, '').replace(/\/$/, '');
  return bare.length > max ? `${bare.slice(0, max - 1)}…` : bare;
}

const tested = (t: number) => `${utcMinute(t)} UTC`;

/** One second and a tenth, for the frames' alt text: "report 1 at 1.2 s". */
const seconds = (t: number) => `${(t / 1000).toFixed(1)} s`;

function headings(reports: ReportRow[], browserName: (id: string) => string): string {
  return reports.map((r, i) => `<th scope="col"><a class="cmp-name" href="/reports/${esc(r.id)}">Report ${i + 1}</a>` +
    `${i === 0 ? ' <span class="cmp-base">baseline</span>' : ''}` +
    `<span class="cmp-url" title="${esc(r.url)}">${esc(shortUrl(r.url))}</span>` +
    `<span class="cmp-browser">${esc(browserName(r.browser))}</span>` +
    `<span class="cmp-when">${esc(tested(r.created))}</span><span class="cmp-grade">${gradeBox(r)}</span></th>`).join('');
}

/** Each report's figures over its runs (runs.json), when its test loaded the page several times; else none. */
type RunValues = Record<string, number[]> | null;

function figuresTable(reports: ReportRow[], runValues: readonly RunValues[], browserName: (id: string) => string): string {
  const base = reports[0];
  const runsOf = (i: number, key: string): [readonly number[], readonly number[]] | undefined => {
    const a = runValues[0]?.[key];
    const b = runValues[i]?.[key];
    return a && b ? [a, b] : undefined;
  };
  const rows = FIGURES.map((f) => {
    const cells = reports.map((r, i) => {
      const value = `<span class="cmp-value">${esc(showFigure(f.kind, r[f.key]))}</span>`;
      return `<td class="num">${value}${i === 0 ? '' : deltaHtml(figureDelta(f.spec, base[f.key], r[f.key], runsOf(i, f.key)))}</td>`;
    }).join('');
    return `<tr><th scope="row">${f.label}</th>${cells}</tr>`;
  }).join('');
  const others = reports.length === 2 ? 'Report 2 shows its' : `Reports 2 to ${reports.length} show their`;
  return `<p class="cmp-note">${others} difference from report 1 under each figure. ${esc(NOISE_BASIS)}</p>` +
    `<div class="card tablewrap cmp-wrap"><table class="cmp-table" aria-labelledby="cmp-figures">` +
    `<thead><tr><th scope="col">Figure</th>${headings(reports, browserName)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/**
 * The end of a report's load: its fully loaded figure, the table's own value (onload when the test stopped there). The
 * lane's label and its end line say this one value.
 */
export function loadEnd(r: Pick<ReportRow, 'fully_loaded_time' | 'onload_time'>): { label: string; at: number } {
  return r.fully_loaded_time >= 0 ? { label: 'fully loaded', at: r.fully_loaded_time } : { label: 'onload', at: Math.max(0, r.onload_time) };
}

/** How far a report's lane reaches on the shared axis: the end of its load, or its last frame when that came later. */
function laneEnd(d: ReportData): number {
  const last = d.filmstrip.length ? d.filmstrip[d.filmstrip.length - 1].timestamp : 0;
  return Math.max(loadEnd(d.report).at, last);
}

/** Width of a frame on the strip, its caption included, and the gap to the next (px). */
const FRAME_SLOT = 104;

function filmstrips(data: ReportData[]): string {
  if (data.every((d) => d.filmstrip.length === 0)) {
    return '<div class="card"><p class="muted">None of these reports has a filmstrip.</p></div>';
  }
  const axisEnd = Math.max(1, ...data.map(laneEnd));
  // Wide enough that the closest two frames of a lane sit side by side (within bounds); the box scrolls itself.
  let gap = Infinity;
  for (const d of data) {
    for (let i = 1; i < d.filmstrip.length; i++) gap = Math.min(gap, Math.max(1, d.filmstrip[i].timestamp - d.filmstrip[i - 1].timestamp));
  }
  const width = Math.round(Math.min(4000, Math.max(520, Number.isFinite(gap) ? (axisEnd * FRAME_SLOT) / gap : 520)));
  const pct = (t: number) => `${((100 * Math.min(t, axisEnd)) / axisEnd).toFixed(3)}%`;
  const step = [50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 20_000, 30_000, 60_000].find((s) => (s / axisEnd) * width >= 90) ?? 120_000;
  const ticks: string[] = [];
  for (let t = 0; t <= axisEnd; t += step) ticks.push(`<span class="cmp-tick" style="left:${pct(t)}">${ms(t)}</span>`);
  const lanes = data.map((d, i) => {
    const n = i + 1;
    const frames = d.filmstrip.map((f) => `<figure class="cmp-frame" style="left:${pct(f.timestamp)}">` +
      `<img src="${esc(f.src)}" alt="report ${n} at ${seconds(f.timestamp)}" loading="lazy"><figcaption>${ms(f.timestamp)}</figcaption></figure>`).join('');
    const end = loadEnd(d.report);
    return `<div class="cmp-lane"><p class="cmp-lane-name"><b>Report ${n}</b> <span>${esc(shortUrl(d.report.url, 40))} · ` +
      `${end.label} ${esc(showFigure('time', end.at))}</span></p>` +
      `<div class="cmp-strip"><i class="cmp-end" style="left:${pct(end.at)}"></i>` +
      `${frames || '<span class="muted cmp-none">no filmstrip</span>'}</div></div>`;
  }).join('');
  return `<div class="card cmp-film" role="region" aria-label="Filmstrips on one time axis" tabindex="0">` +
    `<div class="cmp-film-inner" style="width:${width}px"><div class="cmp-axis" aria-hidden="true">${ticks.join('')}</div>${lanes}</div>` +
    '<p class="cmp-legend"><i class="cmp-end"></i>end of the load (fully loaded, or onload when the test stopped there)</p></div>';
}

const waterfallMarks = (r: ReportRow): WaterfallMarks => ({
  firstContentfulPaint: r.first_contentful_paint, domContentLoaded: r.dom_content_loaded_time, onload: r.onload_time,
  fullyLoaded: r.fully_loaded_time,
});

/** A report's waterfall on the time axis all of them share (`span`: the latest event of any of them). */
function waterfall(d: ReportData, n: number, span: number): string {
  const r = d.report;
  const html = renderWaterfall(d.entries, waterfallMarks(r), Infinity, span);
  return `<section class="cmp-section" aria-labelledby="cmp-wf-${n}"><h2 id="cmp-wf-${n}">Waterfall of report ${n} ` +
    `<small>${d.entries.length} requests · ${esc(shortUrl(r.url))} · ${esc(tested(r.created))}</small></h2>` +
    `<div class="card">${html}</div></section>`;
}

/** The reports' waterfalls, one under the other on one time axis, so that they compare by eye as the filmstrips do. */
function waterfalls(data: ReportData[]): string {
  const span = Math.max(1, ...data.map((d) => waterfallSpan(d.entries, waterfallMarks(d.report))));
  const note = data.length > 1 ? `<p class="muted cmp-note">The waterfalls share one time axis, to ${esc(ms(span))}.</p>` : '';
  return note + data.map((d, i) => waterfall(d, i + 1, span)).join('\n');
}

export function registerCompare(kit: WebKit): void {
  const { ctx } = kit;

  kit.screen('/compare', async (req, _reply, v, nonce) => {
    const ids = compareIds((req.query as Record<string, unknown>).reports);
    const reports: ReportRow[] = [];
    for (const id of ids) {
      reports.push(await ownReport(ctx, v, id));
    }
    // The oldest is the baseline, whichever order the IDs came in: a page that got faster reads as better.
    reports.sort((a, b) => a.created - b.created);
    const data = await Promise.all(reports.map((r) => loadReportData(ctx.artifacts, ctx.store.box, r, 'web', `/reports/${r.id}`)));
    const compared = FIGURES.map((f) => f.key);
    const runValues = await Promise.all(reports.map(async (r) => {
      const json = await runValuesOf(ctx.artifacts, r, compared);
      return json === null ? null : (JSON.parse(json) as Record<string, number[]>);
    }));
    const samePage = reports.every((r) => r.page_id === reports[0].page_id);
    const browserName = (id: string): string => ctx.catalog.browser(id)?.name ?? id;
    const browsers = [...new Set(reports.map((r) => r.browser))];
    // Engines measure differently (Firefox's first paint, no CLS or TBT, no Lighthouse scores): say so where it matters.
    const mixed = browsers.length > 1
      ? `<p class="cmp-warn" role="note">These reports come from different browsers (${esc(browsers.map(browserName).join(', '))}): ` +
        'their figures are measured by different engines and are not comparable one to one, and what one browser cannot measure is empty.</p>'
      : '';
    const body = `<h1>Compare</h1>
<p class="muted">${reports.length} reports${samePage ? ` of <span class="cmp-inline-url">${esc(reports[0].url)}</span>` : ''}. ` +
      `Report 1 is the oldest; differences are from it; lower is better for times, sizes, requests and layout shift, higher for scores.` +
      `${samePage ? ` <a href="/pages/${esc(reports[0].page_id)}">Page history</a>` : ''}</p>
${mixed}<section class="cmp-section" aria-labelledby="cmp-figures"><h2 id="cmp-figures">Scores and timings</h2>${figuresTable(reports, runValues, browserName)}</section>
<section class="cmp-section" aria-labelledby="cmp-film"><h2 id="cmp-film">Filmstrips <small>on one time axis, from navigation start to the longest load</small></h2>${filmstrips(data)}</section>
${waterfalls(data)}`;
    return shell(v, nonce, { title: 'Compare', active: 'pages', body });
  });
}
