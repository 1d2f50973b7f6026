/**
 * The report web page: what people see first, and (in print mode) the PDF. One template: grade and scores,
 * Web Vitals, browser timings, page size by content type, filmstrip, video, waterfall, structure audits,
 * screenshot and the test's settings (without cookie values or credentials). No script; pictures are linked
 * next to the page (web) or inline (PDF).
 */
import type { StructureAuditResult, StructureItem } from '../analysis/structure/index.js';
import { runCount, type AnalysisOptions } from '../core/options/analysis-options.js';
import type { ReportRow } from '../core/reports/reports.js';
import { deviceCpuText, readDeviceCpu } from '../core/reports/device-cpu.js';
import { deviceClassSpec } from '../core/vocabulary/device-classes.js';
import { readRunsMeta, type RunsMeta } from '../core/tests/runs.js';
import { bandsText, figure, formatFigure, RATED_FIGURES, rate, RATING_WORDS, titleOf, type FigureName, type FigureUnit, type Rating } from '../analysis/figures.js';
import { bytes, esc, inlineMarkdown, inOurUnits, ms, pct } from './format.js';
import { GRADE_FLOORS, GRADE_WEIGHTS, IMPACT_WEIGHT, type StructureReport } from '../analysis/grade.js';
import { CONTENT_TYPES } from '../analysis/resource-summary.js';
import { FAVICON_LINK, REPORT_CSS } from './style.js';
import type { ReportData } from './view.js';
import { renderWaterfall } from './waterfall.js';
import { filmBySteps, journeySteps, type FilmFrame } from './journey.js';

/** Grade colours; each carries white text at 4.5:1 or more (WCAG AA). */
export const GRADE_COLOUR: Record<string, string> = { A: '#0b8040', B: '#42831c', C: '#8b7100', D: '#af6000', E: '#c8420d', F: '#c92a2a' };

const scoreColour = (v: number): string =>
  v >= 90 ? GRADE_COLOUR.A : v >= 80 ? GRADE_COLOUR.B : v >= 70 ? GRADE_COLOUR.C : v >= 60 ? GRADE_COLOUR.D
    : v >= 50 ? GRADE_COLOUR.E : GRADE_COLOUR.F;

/** The Web Vitals the report rates, with their bands (the one table of figures). */
const VITALS = RATED_FIGURES.map((name) => ({ name, spec: figure(name) }));
/** A rating's colour on the report. */
const RATING_COLOUR: Record<Rating, string> = { good: 'var(--good)', needs_improvement: 'var(--ok)', poor: 'var(--poor)' };

function ring(label: string, value: number | null): string {
  if (value === null) return '';
  return `<div class="score"><div class="ring" style="--v:${value};--c:${scoreColour(value)}"><div>${value}%</div></div>` +
    `<p>${label}</p></div>`;
}

function vitals(r: ReportRow): string {
  const cards = VITALS.map(({ name, spec }) => {
    const value = r[name];
    const title = titleOf(spec);
    if (value === null) {
      return `<div class="vital" style="--c:#98a2b3"><p>${title}</p><b>–</b><span>not measured</span><small class="bands">${esc(bandsText(name))}</small></div>`;
    }
    const rating = rate(name, value);
    return `<div class="vital" style="--c:${RATING_COLOUR[rating]}"><p>${title}</p><b>${esc(formatFigure(spec.unit, value))}</b>` +
      `<span>${RATING_WORDS[rating]}</span><small class="bands">${esc(bandsText(name))}</small></div>`;
  });
  return `<div class="card"><h2>Web Vitals</h2><div class="vitals">${cards.join('')}</div>${keyNumbers(r)}</div>`;
}

/** Where the public report and the app explain the grade and the structure score (web/screens/help.ts). */
export const SCORES_HELP_PATH = '/help/scores';

/** One line each on how the grade and the structure score are made, with this report's own numbers. */
function howScored(d: ReportData): string {
  const r = d.report;
  if (!r.service_grade || r.performance_score === null || r.structure_score === null) return '';
  const floors = GRADE_FLOORS.map(([letter, floor]) => `${letter} from ${floor}%`).join(', ');
  const weights = Object.entries(IMPACT_WEIGHT).map(([impact, weight]) => `${impact} ×${weight}`).join(', ');
  const scored = d.structure?.audits.filter((a) => a.score !== null).length;
  const more = d.mode === 'web' ? ` <a href="${SCORES_HELP_PATH}">How the scores are made</a>` : '';
  return `<div class="card how-scored"><p><b>Grade ${esc(r.service_grade)} (${pct(r.service_score)})</b> = ` +
    `${Math.round(GRADE_WEIGHTS.performance * 100)}% of performance (${pct(r.performance_score)}, Lighthouse's score of this load) + ` +
    `${Math.round(GRADE_WEIGHTS.structure * 100)}% of structure (${pct(r.structure_score)}); ${floors}, else F.</p>` +
    `<p><b>Structure ${pct(r.structure_score)}</b> is the mean of ${scored ? `${scored} audits'` : 'the audits\''} scores weighted by ` +
    `their impact (${weights}); audits that do not apply to the page are left out. The Structure part lists them.${more}</p></div>`;
}

function keyNumbers(r: ReportRow): string {
  const keys: [string, string][] = [
    ['Fully loaded', ms(r.fully_loaded_time)], ['Onload', ms(r.onload_time)], ['First contentful paint', ms(r.first_contentful_paint)],
    ['Time to first byte', ms(r.time_to_first_byte)], ['Page size', bytes(r.page_bytes)], ['Requests', String(r.page_requests)],
  ];
  return `<div class="keys">${keys.map(([k, v]) => `<div class="key"><p>${k}</p><b>${esc(v)}</b></div>`).join('')}</div>`;
}

function timings(r: ReportRow): string {
  const row = (k: string, v: string, note?: string) =>
    `<tr><td>${k}${note ? `<small>${note}</small>` : ''}</td><td>${esc(v)}</td></tr>`;
  const left = [
    row('Redirect', ms(r.redirect_duration)),
    row('Connect', ms(r.connect_duration), 'blocked, DNS, connect and send of the page'),
    row('Backend', ms(r.backend_duration), 'server time of the page'),
    row('Time to first byte', ms(r.time_to_first_byte)),
    row('First paint', ms(r.first_paint_time)),
    row('First contentful paint', ms(r.first_contentful_paint)),
  ];
  const right = [
    row('DOM interactive', ms(r.dom_interactive_time)),
    row('DOM content loaded', ms(r.dom_content_loaded_time), `handlers ${ms(r.dom_content_loaded_duration)}`),
    row('Onload', ms(r.onload_time), `handlers ${ms(r.onload_duration)}`),
    row('Fully loaded', ms(r.fully_loaded_time), r.fully_loaded_time < 0 ? 'the test stopped at onload' : 'last request before 2 s of network quiet'),
    row('Time to interactive', ms(r.time_to_interactive)),
    row('Speed index', ms(r.speed_index), `RUM speed index ${ms(r.rum_speed_index)}`),
  ];
  return `<section><h2>Browser timings</h2><div class="card cols"><table class="kv">${left.join('')}</table>` +
    `<table class="kv">${right.join('')}</table></div></section>`;
}

function pageDetails(d: ReportData): string {
  const s = d.summary;
  if (!s) return '';
  const total = Math.max(1, s.total.transfer_bytes);
  const bar = s.content_types.filter((t) => t.transfer_bytes > 0)
    .map((t) => `<i class="t-${t.type}" style="width:${((100 * t.transfer_bytes) / total).toFixed(2)}%" title="${t.type}"></i>`).join('');
  const rows = s.content_types.filter((t) => t.requests > 0).map((t) =>
    `<tr><td><span class="dot t-${t.type}"></span>${t.type}</td><td class="num">${t.requests}</td>` +
    `<td class="num">${bytes(t.transfer_bytes)}</td><td class="num">${bytes(t.decoded_bytes)}</td></tr>`).join('');
  return `<section><h2>Page details <small>${s.total.requests} requests, ${bytes(s.total.transfer_bytes)} transferred, ` +
    `HTML ${bytes(d.report.html_bytes)}</small></h2><div class="card"><div class="stack">${bar}</div>` +
    `<table><thead><tr><th>Content type</th><th class="num">Requests</th><th class="num">Transferred</th>` +
    `<th class="num">Decoded</th></tr></thead><tbody>${rows}<tr><td><b>Total</b></td><td class="num"><b>${s.total.requests}</b></td>` +
    `<td class="num"><b>${bytes(s.total.transfer_bytes)}</b></td><td class="num"><b>${bytes(s.total.decoded_bytes)}</b></td></tr>` +
    `</tbody></table></div></section>`;
}

function filmstrip(d: ReportData): string {
  if (d.filmstrip.length === 0) return '';
  // The frame on screen at first contentful paint: the last one that had appeared by then. Not on a journey's film:
  // its zero is the first navigation, and where the measured step's navigation started on it is not kept.
  const fcp = d.report.first_contentful_paint;
  const atFcp = d.filmSteps ? undefined : d.filmstrip.filter((f) => f.timestamp <= fcp).pop();
  const painted = (f: FilmFrame) => f === atFcp && f.timestamp > 0;
  const figure = (f: FilmFrame) =>
    `<figure${painted(f) ? ' class="painted"' : ''}><img src="${esc(f.src)}" alt="the page at ${ms(f.timestamp)}"` +
    `${d.mode === 'web' ? ' loading="lazy"' : ''}><figcaption>${ms(f.timestamp)}${painted(f) ? ' · FCP' : ''}` +
    '</figcaption></figure>';
  if (d.filmSteps) {
    return `<section><h2>Filmstrip <small>what the screen showed during the journey, step by step, from its first navigation</small></h2>` +
      `<div class="card film-steps">${filmBySteps(d.filmstrip, d.filmSteps, d.journey, figure)}</div></section>`;
  }
  return `<section><h2>Filmstrip <small>what the screen showed during the load, from navigation start</small></h2>` +
    `<div class="card film" tabindex="0" role="group" aria-label="Filmstrip">${d.filmstrip.map(figure).join('')}</div></section>`;
}

function video(d: ReportData): string {
  if (!d.video) return '';
  const poster = d.filmstrip.length ? ` poster="${esc(d.filmstrip[d.filmstrip.length - 1].src)}"` : '';
  const what = d.journey ? 'the journey at 30 frames per second, from its first navigation' : 'the load at 30 frames per second, from navigation start';
  return `<section><h2>Video <small>${what}</small></h2><div class="card">` +
    `<video controls preload="metadata"${poster} src="${esc(d.video)}"></video></div></section>`;
}

/** What fixing an audit would save, as Lighthouse estimates it: "saves ≈ 300 ms, 2.0 KB" (unless its line says so). */
function savingsText(a: StructureAuditResult): string {
  if (a.display_value && /savings/i.test(a.display_value)) return '';
  const parts = [a.savings?.ms ? ms(a.savings.ms) : '', a.savings?.bytes ? bytes(a.savings.bytes) : ''].filter(Boolean);
  return parts.length ? ` <span class="savings">saves ≈ ${parts.join(', ')}</span>` : '';
}

/** One thing an audit names: the resource or element, and what it costs. */
function itemText(i: StructureItem): string {
  const what = [i.url && esc(i.url), i.element && esc(i.element), i.label && inlineMarkdown(i.label)].filter((v): v is string => typeof v === 'string');
  const cost = [i.wasted_bytes ? `${bytes(i.wasted_bytes)} to save` : '', i.wasted_ms ? ms(i.wasted_ms) : '',
    !i.wasted_bytes && i.total_bytes ? bytes(i.total_bytes) : ''].filter(Boolean);
  return `<li>${what.join(' · ') || '–'}${cost.length ? ` <span class="muted">(${cost.join(', ')})</span>` : ''}</li>`;
}

function structureAudits(d: ReportData): string {
  const s: StructureReport | undefined = d.structure;
  if (!s) return '';
  const full = d.mode !== 'pdf';
  const weight = { high: 3, medium: 2, low: 1 } as const;
  const audits = s.audits
    .filter((a) => a.score !== null && (full || a.score < 1))
    .sort((a, b) => a.score! - b.score! || weight[b.impact] - weight[a.impact]);
  const row = (a: (typeof audits)[number]) => {
    const pct = Math.round(100 * a.score!);
    // What it names matters where it failed; a passed audit's list (a chain, statistics) is in Lighthouse's report.
    const items = full && a.score! < 1 && a.items.length
      ? `<ul class="offenders">${a.items.slice(0, d.mode === 'web' ? 20 : 10).map(itemText).join('')}</ul>` : '';
    return `<tr><td><span class="badge" style="background:${scoreColour(pct)}">${pct}</span></td>` +
      `<td>${inlineMarkdown(a.title)}${a.display_value ? ` <span class="muted">— ${inlineMarkdown(inOurUnits(a.display_value))}</span>` : ''}` +
      `${a.score! < 1 ? savingsText(a) : ''}${items}</td><td class="impact">${a.impact}</td></tr>`;
  };
  const failed = audits.filter((a) => a.score! < 1);
  const passed = audits.filter((a) => a.score! >= 1);
  const skipped = s.audits.filter((a) => a.score === null).length;
  const version = s.lighthouse_version ? ` · Lighthouse ${esc(s.lighthouse_version)}'s audits` :
    s.audit_set === '12' ? ' · Lighthouse 12\'s audits' : '';
  const note = full ? `${failed.length} to improve, ${passed.length} passed, ${skipped} not applicable${version}`
    : `${failed.length} to improve; the full PDF lists every audit${version}`;
  const head = '<thead><tr><th>Score</th><th>Audit</th><th>Impact</th></tr></thead>';
  const rest = full && passed.length
    ? `<details${d.mode === 'pdf-full' ? ' open' : ''}><summary>${passed.length} passed audits</summary>` +
      `<table class="audits">${head}<tbody>${passed.map(row).join('')}</tbody></table></details>`
    : '';
  return `<section class="long"><h2>Structure <small>${note}</small></h2><div class="card"><table class="audits">` +
    `${head}<tbody>${failed.map(row).join('') || '<tr><td></td><td>Every scored audit passed.</td><td></td></tr>'}` +
    `</tbody></table>${rest}</div></section>`;
}

function waterfall(d: ReportData): string {
  const r = d.report;
  const html = renderWaterfall(d.entries, {
    firstContentfulPaint: r.first_contentful_paint, domContentLoaded: r.dom_content_loaded_time, onload: r.onload_time,
    fullyLoaded: r.fully_loaded_time,
  }, d.mode === 'pdf' ? 40 : Infinity);
  const of = d.journey ? ' of the measured step, from its page of the HAR (which has every step’s)' : ', from the HAR';
  return `<section class="long"><h2>Waterfall <small>${d.entries.length} requests${of}</small></h2>` +
    `<div class="card">${html}</div></section>`;
}

/** A standard deviation of the spread: finer than its figure (it is usually small). */
const STDEV: Record<FigureUnit, (v: number) => string> = {
  score: (v) => v.toFixed(1), cls: (v) => v.toFixed(3), time: ms, size: bytes, count: (v) => v.toFixed(1),
};

/** The spread of a multi-run test's key figures: what "median of N runs" hides. */
const RUN_FIGURES: readonly FigureName[] = [
  'service_score', 'performance_score', 'largest_contentful_paint', 'total_blocking_time', 'cumulative_layout_shift',
  'first_contentful_paint', 'time_to_first_byte', 'onload_time', 'fully_loaded_time', 'page_bytes',
];

/**
 * What the report's figures are the median of, in words that say what was asked: "median of 5 runs"; when the run
 * guard discarded every load (the host was busy), "median of 3 loads, all on a busy host (1 run asked)", not "3 runs"
 * a test with Runs left at 1 never asked for.
 */
export function medianOf(m: RunsMeta, asked: number): string {
  const askedText = `${asked} ${asked === 1 ? 'run' : 'runs'} asked`;
  if (m.discarded >= m.count) return `median of ${m.count} loads, all on a busy host (${askedText})`;
  return m.count === asked ? `median of ${m.count} runs` : `median of ${m.count} runs (${askedText})`;
}

function runsSpread(m: RunsMeta | undefined, asked: number): string {
  if (!m) return '';
  const rows = RUN_FIGURES.filter((k) => m.spread[k]).map((k) => {
    const s = m.spread[k]!;
    const { label: name, unit } = figure(k);
    const show = { value: (v: number) => formatFigure(unit, v), stdev: STDEV[unit] };
    // Min and max may wrap between them (a phone has no room for five columns); each value stays whole.
    return `<tr><td>${name}</td><td>${esc(show.value(s.median))}</td><td class="range"><span>${esc(show.value(s.min))} –</span> ` +
      `<span>${esc(show.value(s.max))}</span></td><td>± ${esc(show.stdev(s.stdev))}</td></tr>`;
  });
  const discarded = m.discarded >= m.count
    ? ` Every load was discarded by the run guard (the test agent's host was busy or slow), so the figures are the median of all ` +
      `${m.count} of them, and may be slower than the page is.`
    : m.discarded > 0 ? ` ${m.discarded} more load${m.discarded > 1 ? 's were' : ' was'} discarded: the test agent's host was busy or slow.` : '';
  return `<section><h2>Runs <small>${esc(medianOf(m, asked))}: every figure above is run ${m.median_run}'s</small></h2>` +
    `<div class="card"><table class="spread"><thead><tr><th>Figure</th><th>Median</th><th>Min – max</th><th>Std. dev.</th></tr></thead><tbody>` +
    `${rows.join('')}</tbody></table><p class="note">The report shows the run whose performance score is the median ` +
    `(closest to the median first contentful paint and time to interactive among equals), so the grade, the figures and ` +
    `the files all come from one real load.${discarded}</p></div></section>`;
}

/** The device the page ran as and its CPU (core/reports/device-cpu.ts); a phone before device classes ran on the agent's CPU. */
function deviceRows(o: AnalysisOptions, r: ReportRow): [string, string][] {
  const d = readDeviceCpu(r.device_cpu);
  if (!d) return o.simulate_device ? [['CPU', 'the test agent\'s own, unthrottled (tested before phones ran on a phone\'s CPU)']] : [];
  const spec = deviceClassSpec(d.device_class);
  if (spec.cpuTarget === undefined) return [['Device', spec.label], ['CPU', 'the test agent\'s own']];
  return [['Device', spec.label], ['CPU', deviceCpuText(d)]];
}

/** The link a phone got without a `throttle` of its own (its class's default), for reports that say their device. */
function linkByDevice(r: ReportRow): string | undefined {
  const d = readDeviceCpu(r.device_cpu);
  return d && deviceClassSpec(d.device_class).defaultThrottle;
}

function settings(o: AnalysisOptions, r: ReportRow, labels: { location: string; browser: string }): string {
  const rows: [string, string][] = [
    ['Location', labels.location], ['Browser', labels.browser], ['Report', o.report],
    ['User agent', r.user_agent],
  ];
  rows.push(...deviceRows(o, r));
  if (o.simulate_device) rows.push(['Simulated device', o.simulate_device]);
  if (o.browser_width) rows.push(['Viewport', `${o.browser_width} × ${o.browser_height}`]);
  if (o.browser_dppx) rows.push(['Pixel ratio', String(o.browser_dppx)]);
  if (o.browser_rotate) rows.push(['Rotated', 'yes']);
  const link = o.throttle ?? linkByDevice(r);
  const byDevice = o.throttle === undefined && link !== undefined ? ' (the device\'s default: slow 4G)' : '';
  rows.push(['Connection', link ? `throttled: ${link.replace(/^(\d+)\/(\d+)\/(\d+)$/, '$1 Kbit/s down, $2 Kbit/s up, $3 ms latency')}${byDevice}` : 'unthrottled']);
  if (o.adblock) rows.push(['Ad blocking', 'on']);
  if (o.stop_onload) rows.push(['Stop at onload', 'yes']);
  if (o.cookies.length) rows.push(['Cookies', `${o.cookies.length} set (values not shown)`]);
  if (o.httpauth_username !== undefined) rows.push(['HTTP authentication', 'yes (credentials not shown)']);
  if (o.allow_url.length) rows.push(['Only URLs matching', o.allow_url.join(', ')]);
  if (o.block_url.length) rows.push(['Blocked URLs', o.block_url.join(', ')]);
  if (o.dns.length) rows.push(['DNS overrides', o.dns.join(', ')]);
  return `<section><h2>Test settings</h2><div class="card"><table class="kv">` +
    rows.map(([k, v]) => `<tr><td>${k}</td><td style="text-align:left;font-weight:400;word-break:break-all">${esc(v)}</td></tr>`).join('') +
    `</table></div></section>`;
}

export interface PageLabels {
  location: string;
  browser: string;
}

/** The report's parts, for the page below and for the web app (which arranges them under its own tabs). */
export interface ReportParts {
  title: string;
  /** The dark band: brand, URL, when and where, thumbnail. */
  header: string;
  summary: string;
  /** A journey's steps and their figures ('' for a test of one URL). */
  journey: string;
  timings: string;
  runs: string;
  details: string;
  filmstrip: string;
  video: string;
  waterfall: string;
  structure: string;
  screenshot: string;
  settings: string;
  footer: string;
}

export function reportParts(d: ReportData, labels: PageLabels = { location: d.report.location, browser: d.report.browser }): ReportParts {
  const r = d.report;
  const grade = r.service_grade;
  const gradeCard = grade
    ? `<div class="grade" style="background:${GRADE_COLOUR[grade] ?? '#667'}"><span class="label">Grade</span>` +
      `<span class="letter">${esc(grade)}</span><span class="pct">${r.service_score}%</span></div>`
    : `<div class="grade" style="background:#667"><span class="label">No grade</span><span class="pct">${esc(r.report_type)} report</span></div>`;
  const tested = new Date(r.created).toUTCString().replace(' GMT', ' UTC');
  const print = d.mode !== 'web';
  // One kept load (a single-run test, perhaps with a load the run guard discarded) is no median: nothing about runs.
  const stored = readRunsMeta(r.runs);
  const runs = stored && stored.count > 1 ? stored : undefined;
  const screenshot = d.screenshot
    ? `<section id="screenshot"><h2>Screenshot <small>the page after the load${print && d.mode === 'pdf' ? ', top part' : ''}</small></h2>` +
      `<div class="card shot"><img src="${esc(d.screenshot)}" alt="screenshot of the page"></div></section>`
    : '';
  return {
    title: `${grade ? `${grade} · ` : ''}${r.url}`,
    header: `<header><div class="wrap"><div class="title"><div class="brand">Webgauge<span>performance report${d.mode === 'pdf-full' ? ' (full)' : ''}</span></div>
<h1><a href="${esc(r.url)}" rel="noreferrer nofollow">${esc(r.url)}</a></h1>
<div class="meta">${d.journey ? `Journey <b>“${esc(d.journey.title)}”</b> · ` : ''}Tested <b>${esc(tested)}</b> · location <b>${esc(labels.location)}</b> · browser <b>${esc(labels.browser)}</b>` +
      `${r.fully_loaded_time < 0 ? ' · stopped at onload' : ''}${runs ? ` · <b>${esc(medianOf(runs, runCount(d.options)))}</b>` : ''}` +
      `${deviceMeta(r)}${r.lighthouse_version ? ` · Lighthouse <b>${esc(r.lighthouse_version)}</b>` : ''}` +
      `${d.lighthouseReport ? ` · <a href="${esc(d.lighthouseReport)}">Lighthouse report</a>` : ''}` +
      `${d.flowReport ? ` · <a href="${esc(d.flowReport)}">Lighthouse flow report</a>` : ''}</div></div>` +
      `${d.screenshot ? `<a class="thumb" href="#screenshot"><img src="${esc(d.screenshot)}" alt="the page after the load"></a>` : ''}</div></header>`,
    summary: `<section class="summary">${gradeCard}<div class="card scores">${ring('Performance', r.performance_score)}` +
      `${ring('Structure', r.structure_score)}${r.performance_score === null ? keyNumbers(r) : ''}</div>${vitals(r)}</section>${howScored(d)}`,
    journey: d.journey ? journeySteps(d.journey) : '',
    timings: timings(r),
    runs: runsSpread(runs, runCount(d.options)),
    details: pageDetails(d),
    filmstrip: filmstrip(d),
    video: print ? '' : video(d),
    waterfall: waterfall(d),
    structure: structureAudits(d),
    screenshot,
    settings: settings(d.options, r, labels),
    footer: `<footer>Report ${esc(r.id)} · expires ${esc(new Date(r.expires).toUTCString().replace(' GMT', ' UTC'))}` +
      `${print && d.pageUrl?.startsWith('http') ? ` · online: <a href="${esc(d.pageUrl)}">${esc(d.pageUrl)}</a>` +
        `${r.resources.includes('video.mp4') ? ' (with the video of the load)' : ''}` : ''}</footer>`,
  };
}

/** " · device <b>Phone (mid-tier)</b>, CPU 2.9× slower" in the report's header line; nothing for a desktop. */
function deviceMeta(r: ReportRow): string {
  const d = readDeviceCpu(r.device_cpu);
  if (!d || d.device_class === 'desktop') return '';
  const cpu = d.cpu_benchmark_target === undefined ? ''
    : d.cpu_target_reached ? `, CPU slowed ${d.cpu_throttling_rate}× to benchmark ${d.cpu_benchmark_index}` : ', CPU not slowed (agent too slow)';
  return ` · device <b>${esc(deviceClassSpec(d.device_class).label)}</b>${esc(cpu)}`;
}

export function renderReportPage(d: ReportData, labels: PageLabels = { location: d.report.location, browser: d.report.browser }): string {
  const p = reportParts(d, labels);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow"><meta name="referrer" content="no-referrer">
<title>${esc(p.title)} · Webgauge report</title>${FAVICON_LINK}
<style>${REPORT_CSS}</style></head><body>
${p.header}
<main class="wrap">
${p.summary}
${p.journey}
${p.timings}
${p.runs}
${p.details}
${p.filmstrip}
${p.video}
${p.waterfall}
${p.structure}
${p.screenshot}
${p.settings}
${p.footer}
</main></body></html>`;
}
