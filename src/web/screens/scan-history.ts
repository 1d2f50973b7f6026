/**
 * "Site over time" on a scan's screen (docs/scans.md "Site history"): the site figures of the account's completed
 * scans of the scan's site, device and source (core siteHistory, as GET /scans/{id}/history answers them) as line charts,
 * every point a link to its scan (charts.ts, as a page's history charts), then the same scans as a table with their
 * grades. Shown when the site has at least two completed scans.
 */
import type { HistoryPoint, SiteHistory } from '../../core/scans/scan-history.js';
import { CHARTED_SITE_FIGURES, formatSite, siteBudget } from '../../analysis/named-site-figures.js';
import { ms, pct } from '../../report/format.js';
import { GRADE_COLOUR } from '../../report/page.js';
import { lineChart, when, type ChartMetric } from '../charts.js';
import { esc } from '../kit.js';
import { figureHeads, plural } from './figures.js';
import { deviceLabel, SOURCE_NAMES } from './scan-view.js';

/** The charted figures: the site figures the table charts (analysis/named-site-figures.ts), with its labels, prints and axes. */
const SITE_CHARTS: { figure: string; metric: ChartMetric }[] = CHARTED_SITE_FIGURES.map((f) => ({
  figure: f.name,
  metric: { title: f.label, label: f.short, format: (v: number) => formatSite(f.unit, v), max: f.chart.max, minTop: f.chart.minTop,
    ...(f.chart.bands ? { bands: f.chart.bands } : {}) },
}));

/** The newest Lighthouse that made the scan's reports (a change of it is drawn on the charts). */
const lighthouseOf = (p: HistoryPoint): string | null => p.lighthouseVersions.at(-1) ?? null;

function gradesCell(grades: Record<string, number>): string {
  const letters = Object.keys(GRADE_COLOUR).filter((g) => (grades[g] ?? 0) > 0);
  if (letters.length === 0) return '<span class="muted">–</span>';
  return `<span class="history-grades">${letters.map((g) => `<span><abbr title="grade ${g}">${g}</abbr> ${grades[g]}</span>`).join('')}</span>`;
}

function scansTable(h: SiteHistory): string {
  const rows = [...h.points].reverse().map((p) => {
    const current = p.scan === h.scan.id;
    const link = `<a href="/scans/${esc(p.scan)}"${current ? ' aria-current="page"' : ''}>${esc(when(p.created))}</a>`;
    const f = p.figures;
    return `<tr${current ? ' class="history-current"' : ''}><td>${link}${p.scheduleId ? ' <span class="muted">scheduled</span>' : ''}</td>` +
      `<td class="num">${p.pagesMeasured}</td><td class="num">${f.failed_pages ?? 0}</td>` +
      `<td class="num">${pct(f.performance_median)}</td><td class="num">${ms(f.lcp_p75)}</td>` +
      `<td>${gradesCell(p.grades)}</td></tr>`;
  }).join('');
  return `<details class="card history-table"><summary>Every scan (${h.points.length})</summary><div class="tablewrap">` +
    `<table class="list scan-history"><thead><tr><th scope="col">Scan (UTC)</th><th scope="col" class="num">Measured</th>` +
    `<th scope="col" class="num">Failed</th>${figureHeads('performance_score')}<th scope="col" class="num">${esc(siteBudget('lcp_p75')!.short)}</th>` +
    `<th scope="col">Grades</th></tr></thead><tbody>${rows}</tbody></table></div></details>`;
}

/** The section, or nothing when the site has fewer than two completed scans. */
export function siteOverTime(h: SiteHistory): string {
  if (h.points.length < 2) return '';
  const charts = SITE_CHARTS.map(({ figure, metric }) => lineChart(metric, h.points.map((p) => ({
    href: `/scans/${p.scan}`, time: p.created, value: p.figures[figure] ?? null, lighthouse: lighthouseOf(p),
  })), [], 'scan')).join('');
  const first = h.points[0]!;
  const note = `${plural(h.points.length, 'completed scan')} of ${esc(h.site)} as ${esc(deviceLabel(h.deviceClass))} ` +
    `(${esc(SOURCE_NAMES[h.source] ?? h.source)}) since ${esc(when(first.created))}` +
    `${h.points.length >= 100 ? ', the newest 100' : ''}. Each point opens its scan.`;
  return `<section id="site-over-time" class="scan-section" aria-labelledby="site-over-time-h"><h2 id="site-over-time-h">Site over time</h2>` +
    `<p class="muted">${note}</p><div class="charts">${charts}</div>${scansTable(h)}</section>`;
}
