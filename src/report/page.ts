import type { ReportRow, FilmstripIndex } from '../core/reports.js';

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const ms = (v: number | null): string => (v === null ? '–' : v < 0 ? 'stopped at onload' : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v} ms`);
const bytes = (v: number): string => (v >= 1_048_576 ? `${(v / 1_048_576).toFixed(2)} MB` : v >= 1024 ? `${(v / 1024).toFixed(1)} KB` : `${v} B`);

const GRADE_COLOUR: Record<string, string> = { A: '#0b8a3e', B: '#5aa51c', C: '#c9a400', D: '#e07b00', E: '#d9480f', F: '#c92a2a' };

/** The report web page: what people see first. The same markup will feed the PDF. */
export function renderReportPage(r: ReportRow, filmstrip: FilmstripIndex | null, base: string): string {
  const rows: [string, string][] = [
    ['Time to first byte', ms(r.time_to_first_byte)],
    ['First contentful paint', ms(r.first_contentful_paint)],
    ['Largest contentful paint', ms(r.largest_contentful_paint)],
    ['Speed index', ms(r.speed_index)],
    ['Total blocking time', ms(r.total_blocking_time)],
    ['Cumulative layout shift', r.cumulative_layout_shift === null ? '–' : r.cumulative_layout_shift.toFixed(3)],
    ['Time to interactive', ms(r.time_to_interactive)],
    ['DOM interactive', ms(r.dom_interactive_time)],
    ['DOM content loaded', `${ms(r.dom_content_loaded_time)} (handlers ${ms(r.dom_content_loaded_duration)})`],
    ['Onload', `${ms(r.onload_time)} (handlers ${ms(r.onload_duration)})`],
    ['Fully loaded', ms(r.fully_loaded_time)],
    ['RUM speed index', String(r.rum_speed_index)],
    ['Redirect', ms(r.redirect_duration)],
    ['Connect', ms(r.connect_duration)],
    ['Backend', ms(r.backend_duration)],
    ['Page size', bytes(r.page_bytes)],
    ['HTML size', bytes(r.html_bytes)],
    ['Requests', String(r.page_requests)],
  ];
  const grade = r.service_grade;
  const frames = (filmstrip?.frames ?? [])
    .map((f) => `<figure><img loading="lazy" src="${base}/filmstrip/${esc(f.id)}.jpg" alt="frame at ${f.timestamp} ms"><figcaption>${ms(f.timestamp)}</figcaption></figure>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex">
<title>Webgauge report: ${esc(r.url)}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2433;background:#f4f6f9}
header{background:#1d2433;color:#fff;padding:18px 28px}header a{color:#9cc3ff}
main{max-width:1100px;margin:0 auto;padding:20px 28px}
.summary{display:flex;gap:24px;align-items:stretch;flex-wrap:wrap}
.card{background:#fff;border-radius:8px;padding:16px 20px;box-shadow:0 1px 3px #0002}
.grade{font-size:64px;font-weight:700;color:#fff;border-radius:8px;width:110px;text-align:center;line-height:110px}
.score b{font-size:32px;display:block}
table{border-collapse:collapse;width:100%}td{padding:6px 8px;border-bottom:1px solid #e5e8ee}td:last-child{text-align:right;font-variant-numeric:tabular-nums}
.shot img{max-width:100%;border:1px solid #ccd}
.film{display:flex;gap:8px;overflow-x:auto}.film figure{margin:0;text-align:center;font-size:12px}.film img{height:120px;border:1px solid #ccd}
.muted{color:#667}
</style></head><body>
<header><div class="muted">Webgauge performance report</div><h1 style="margin:4px 0;font-size:20px;word-break:break-all">${esc(r.url)}</h1>
<div class="muted">Tested ${new Date(r.created).toUTCString()} · location ${esc(r.location)} · browser ${esc(r.browser)}</div></header>
<main>
<section class="summary">
${grade ? `<div class="grade" style="background:${GRADE_COLOUR[grade] ?? '#667'}">${esc(grade)}</div>` : ''}
${r.service_score !== null ? `<div class="card score">Score<b>${r.service_score}%</b></div>` : ''}
${r.performance_score !== null ? `<div class="card score">Performance<b>${r.performance_score}%</b></div>` : ''}
${r.structure_score !== null ? `<div class="card score">Structure<b>${r.structure_score}%</b></div>` : ''}
<div class="card score">Fully loaded<b>${ms(r.fully_loaded_time)}</b></div>
</section>
<h2>Timings and size</h2>
<div class="card"><table>${rows.map(([k, v]) => `<tr><td>${k}</td><td>${esc(v)}</td></tr>`).join('')}</table></div>
${frames ? `<h2>Filmstrip</h2><div class="card film">${frames}</div>` : ''}
<h2>Screenshot</h2><div class="card shot"><img src="${base}/screenshot.jpg" alt="screenshot of the page"></div>
</main></body></html>`;
}
