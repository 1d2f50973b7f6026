/**
 * "Site over time" on a scan's screen (docs/scans.md "Site history"): the site figures of the account's completed
 * scans of the scan's site and source (core siteHistory, as GET /scans/{id}/history answers them) as line charts,
 * every point a link to its scan (charts.ts, as a page's history charts), then the same scans as a table with their
 * grades. Shown when the site has at least two completed scans.
 */
import type { HistoryPoint, SiteHistory } from '../../core/scans/scan-history.js';
import { ms } from '../../report/format.js';
import { GRADE_COLOUR } from '../../report/page.js';
import { lineChart, when, type ChartMetric } from '../charts.js';
import { esc } from '../kit.js';
import { plural } from './figures.js';
import { SOURCE_NAMES } from './scan-view.js';

const count = (v: number) => String(Math.round(v));
const pct = (v: number) => `${Math.round(v)}%`;
const cls = (v: number) => v.toFixed(2);

/** The charted figures: names of the one table of site figures (a history point's `figures`), the app's titles. */
const SITE_CHARTS: { figure: string; metric: ChartMetric }[] = [
  { figure: 'performance_median', metric: { title: 'Performance, median', label: 'median performance', format: pct, max: 100 } },
  { figure: 'lcp_p75', metric: { title: 'LCP, 75th percentile', label: 'LCP p75', format: ms, minTop: 1000 } },
  { figure: 'tbt_p75', metric: { title: 'TBT, 75th percentile', label: 'TBT p75', format: ms, minTop: 100 } },
  { figure: 'cls_p75', metric: { title: 'CLS, 75th percentile', label: 'CLS p75', format: cls, minTop: 0.1 } },
  { figure: 'fully_loaded_p75', metric: { title: 'Fully loaded, 75th percentile', label: 'fully loaded p75', format: ms, minTop: 1000 } },
  { figure: 'poor_lcp_pages', metric: { title: 'Pages with poor LCP', label: 'pages with poor LCP', format: count, minTop: 5 } },
  { figure: 'poor_cls_pages', metric: { title: 'Pages with poor CLS', label: 'pages with poor CLS', format: count, minTop: 5 } },
  { figure: 'poor_tbt_pages', metric: { title: 'Pages with poor TBT', label: 'pages with poor TBT', format: count, minTop: 5 } },
];

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
      `<td class="num">${f.performance_median === null ? '–' : pct(f.performance_median!)}</td><td class="num">${ms(f.lcp_p75)}</td>` +
      `<td>${gradesCell(p.grades)}</td></tr>`;
  }).join('');
  return `<details class="card history-table"><summary>Every scan (${h.points.length})</summary><div class="tablewrap">` +
    `<table class="list scan-history"><thead><tr><th scope="col">Scan (UTC)</th><th scope="col" class="num">Measured</th>` +
    `<th scope="col" class="num">Failed</th><th scope="col" class="num">Performance</th><th scope="col" class="num">LCP p75</th>` +
    `<th scope="col">Grades</th></tr></thead><tbody>${rows}</tbody></table></div></details>`;
}

/** The section, or nothing when the site has fewer than two completed scans. */
export function siteOverTime(h: SiteHistory): string {
  if (h.points.length < 2) return '';
  const charts = SITE_CHARTS.map(({ figure, metric }) => lineChart(metric, h.points.map((p) => ({
    href: `/scans/${p.scan}`, time: p.created, value: p.figures[figure] ?? null, lighthouse: lighthouseOf(p),
  })), [], 'scan')).join('');
  const first = h.points[0]!;
  const note = `${plural(h.points.length, 'completed scan')} of ${esc(h.site)} (${esc(SOURCE_NAMES[h.source] ?? h.source)}) since ${esc(when(first.created))}` +
    `${h.points.length >= 100 ? ', the newest 100' : ''}. Each point opens its scan.`;
  return `<section id="site-over-time" class="scan-section" aria-labelledby="site-over-time-h"><h2 id="site-over-time-h">Site over time</h2>` +
    `<p class="muted">${note}</p><div class="charts">${charts}</div>${scansTable(h)}</section>`;
}
