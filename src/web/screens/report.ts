/**
 * The report inside the app, for its own account: the public report's parts (report/page.ts) under tabs named
 * Summary, Performance, Structure, Waterfall, Video and History, with retest, downloads, compare and delete.
 * Anyone else who holds the link still sees the public report page.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ARTIFACT, artifactKey, deleteReport, reportNotFound, reportResources, requireReport, type ReportRow, type ReportWithTags,
} from '../../core/reports/reports.js';
import type { AppContext } from '../../context/app-context.js';
import { listPageReports, getPage } from '../../core/pages/pages.js';
import { readOptions } from '../../core/options/stored-options.js';
import { requestTest } from '../../core/tests/tests.js';
import { scanOfTest } from '../../core/scans/scans.js';
import { dayAndMinute } from '../../lib/dates.js';
import { ApiError } from '../../core/errors.js';
import { couldBeId } from '../../core/ids.js';
import type { OwnerReportView } from '../report-page.js';
import { Links } from '../../context/links.js';
import { pdfService } from '../../report/pdf.js';
import { PDF_COST } from '../../core/accounts/pricing.js';
import { reportParts } from '../../report/page.js';
import { loadReportData } from '../../report/view.js';
import { ms, pct } from '../../report/format.js';
import type { ListQuery } from '../../store/list-query.js';
import { newNonce, visitorOf, type Visitor } from '../session.js';
import { actionButton, esc, seeOther, sendHtml, shell, type WebKit } from '../kit.js';
import { figureHeads, gradeBox, ratedCell, utcMinute } from './figures.js';
import { deviceClassOfReport, fieldDeviceOfClass, readUrlField } from '../../core/field/lab-field.js';
import { labFieldCard } from './lab-field.js';
import { cruxFormFactorOf } from '../../core/field/crux.js';

/** The report's parts in the app; a journey's report has its steps after Summary. */
const REPORT_TABS = ['Summary', 'Journey', 'Performance', 'Structure', 'Waterfall', 'Video', 'History'] as const;

/** The newest reports of a page, for History and the page view. */
export function newestReports(size: number): ListQuery {
  return { filters: [], bool: 'AND', sort: [{ attr: 'created', desc: true }], filteredOrSorted: false, page: { size, number: 1 } };
}

const DOWNLOADS: Record<string, { artifact: string; type: string; label: string }> = {
  'net.har': { artifact: ARTIFACT.har, type: 'application/json', label: 'HAR' },
  'lighthouse.json': { artifact: ARTIFACT.lighthouse, type: 'application/json', label: 'Lighthouse JSON' },
  'flow.json': { artifact: ARTIFACT.flow, type: 'application/json', label: 'Lighthouse flow JSON' },
};

/** A tab's part; a report section that brings its own heading of that name (Structure, Waterfall, Video) keeps it. */
function section(title: string, content: string): string {
  const id = title.toLowerCase();
  if (content.startsWith('<section') && content.includes(`<h2>${title}`)) return `<div id="${id}" class="part" tabindex="-1">${content}</div>`;
  return `<section id="${id}" class="part" aria-labelledby="part-${id}" tabindex="-1">` +
    `<h2 class="part-title" id="part-${id}">${title}</h2>${content}</section>`;
}

function history(report: ReportRow, rows: ReportRow[]): string {
  if (rows.length === 0) return '<p class="muted">No other reports of this page.</p>';
  const items = rows.map((r) => `<tr${r.id === report.id ? ' aria-current="true"' : ''}><td><a href="/reports/${esc(r.id)}">${esc(utcMinute(r.created))}</a>` +
    `${r.id === report.id ? ' <span class="muted">(this report)</span>' : ''}</td><td>${gradeBox(r)}</td>` +
    `<td class="num">${pct(r.performance_score)}</td>${ratedCell('largest_contentful_paint', r.largest_contentful_paint)}<td class="num">${ms(r.fully_loaded_time)}</td></tr>`).join('');
  return `<div class="card tablewrap"><table class="list"><thead><tr><th>Tested (UTC)</th><th>Grade</th>` +
    `${figureHeads('performance_score', 'largest_contentful_paint', 'fully_loaded_time')}</tr></thead><tbody>${items}</tbody></table></div>`;
}

export async function ownerReportScreen(kit: WebKit, v: Visitor, nonce: string, report: ReportRow): Promise<string> {
  const { ctx } = kit;
  const data = await loadReportData(ctx.artifacts, ctx.store.box, report, 'web', `/reports/${report.id}`);
  const p = reportParts(data, {
    location: ctx.catalog.location(report.location)?.name ?? report.location,
    browser: ctx.catalog.browser(report.browser)?.name ?? report.browser,
  });
  const deviceClass = deviceClassOfReport(ctx.store.box, ctx.catalog, report);
  const [page, field, crux] = await Promise.all([
    getPage(ctx.store.db, v.principal.accountId, report.page_id),
    readUrlField(ctx.store.db, v.principal.accountId, { url: report.url, device: fieldDeviceOfClass(deviceClass) }),
    ctx.crux?.record(report.url, cruxFormFactorOf(deviceClass)),
  ]);
  const others = page ? (await listPageReports(ctx.store.db, v.principal.accountId, page.id, newestReports(20))).rows : [];
  const previous = others.find((r) => r.created < report.created);
  const owner = v.principal.role === 'owner';
  // A page tested by a scan says so and leads back to the scan (its other pages, the site report).
  const scan = report.source === 'scan' ? await scanOfTest(ctx.store.db, v.principal.accountId, report.test_id) : undefined;
  const partOf = scan ? `<p class="report-scan">Part of the <a href="/scans/${esc(scan.id)}">scan of ${esc(scan.url)}</a> ` +
    `on ${esc(dayAndMinute(scan.started ?? scan.created))}.</p>` : '';
  const files = reportResources(report);
  const downloads = Object.entries(DOWNLOADS).filter(([, d]) => files.has(d.artifact))
    .map(([name, d]) => `<a class="btn secondary" href="/reports/${esc(report.id)}/download/${name}" download>Download ${d.label}</a>`);
  if (owner && v.principal.plan.pdf) {
    // The PDF is made on the first request, for credits, and kept: say which before the click spends anything.
    const made = (await ctx.artifacts.size(artifactKey(report.id, ARTIFACT.pdf(false)))) !== null;
    const cost = v.principal.plan.unlimitedCredits ? 'no credits on your plan' : made ? 'already made: free' : `${PDF_COST} credits the first time, free after`;
    downloads.push(`<a class="btn secondary" href="/reports/${esc(report.id)}/download/report.pdf" download aria-describedby="pdf-cost">Download PDF</a>` +
      `<span class="muted pdf-cost" id="pdf-cost">PDF: ${cost}</span>`);
  }
  const actions = `<div class="actions">${owner ? actionButton(v, `/reports/${report.id}/retest`, 'Retest') : ''}${downloads.join('')}` +
    `${page ? `<a class="btn secondary" href="/pages/${esc(page.id)}">Page history</a>` : ''}` +
    `${previous ? `<a class="btn secondary" href="/compare?reports=${esc(previous.id)},${esc(report.id)}">Compare with previous</a>` : ''}` +
    `${owner ? actionButton(v, `/reports/${report.id}/delete`, 'Delete report', { style: 'danger', confirm: 'Delete this report and its files? This cannot be undone.' }) : ''}</div>`;
  const shown = REPORT_TABS.filter((t) => t !== 'Journey' || p.journey !== '');
  const tabs = `<nav class="tabs" aria-label="Report parts"><ul>${shown.map((t) => `<li><a href="#${t.toLowerCase()}">${t}</a></li>`).join('')}</ul></nav>`;
  const video = p.video || `<div class="card"><p class="muted">This test recorded no video. Run it with “Record a video” under Analysis options.</p></div>`;
  const structure = p.structure || `<div class="card"><p class="muted">No structure audits: this report did not run Lighthouse.</p></div>`;
  const waterfall = p.waterfall || `<div class="card"><p class="muted">No waterfall: this report has no HAR.</p></div>`;
  const body = `${partOf}${actions}
${section('Summary', p.summary + labFieldCard({ lab: report, deviceClass, url: report.url, field, crux, cruxSetUp: ctx.crux !== undefined, labName: 'this test' }))}
${p.journey ? section('Journey', p.journey) : ''}
${section('Performance', p.timings + p.runs + p.details + p.filmstrip)}
${section('Structure', structure)}
${section('Waterfall', waterfall)}
${section('Video', video)}
${section('History', history(report, others))}
${p.screenshot}${p.settings}${p.footer}`;
  return shell(v, nonce, { title: p.title, active: scan ? 'scans' : 'pages', bare: true, before: p.header + tabs, body });
}

/** The signed-in account's report named in a path; 404 for any other, a string that is no ID included. */
export function ownReport(ctx: AppContext, v: Visitor, id: string): Promise<ReportWithTags> {
  if (!couldBeId(id)) throw reportNotFound(id);
  return requireReport(ctx.store.db, v.principal.accountId, id);
}

export function registerReportScreens(kit: WebKit): OwnerReportView {
  const { ctx } = kit;

  kit.action('/reports/:id/retest', async (req, reply, v) => {
    const { id } = req.params as { id: string };
    const report = await ownReport(ctx, v, id);
    const started = await requestTest(ctx.intake, v.principal, readOptions(ctx.store.box, report.options), 'on-demand');
    return seeOther(reply, `/tests/${started.test.id}`);
  });

  kit.action('/reports/:id/delete', async (req, reply, v) => {
    const { id } = req.params as { id: string };
    const report = await ownReport(ctx, v, id);
    await deleteReport(ctx.store, ctx.artifacts, v.principal, report);
    const page = await getPage(ctx.store.db, v.principal.accountId, report.page_id);
    return seeOther(reply, page ? `/pages/${page.id}` : '/pages');
  });

  kit.screen('/reports/:id/download/:name', async (req, reply, v) => {
    const { id, name } = req.params as { id: string; name: string };
    const report = await ownReport(ctx, v, id);
    if (name === 'report.pdf') {
      const pageUrl = new Links(req, ctx.config).keptReportPage(report.id);
      // The PDF is made once and kept; a person waits for it here (the API answers 302 and is asked again).
      for (let waited = 0; ; waited += 500) {
        const answer = await pdfService(ctx).request(v.principal, report, false, pageUrl, req.log);
        if (answer.kind === 'file') {
          return reply.type('application/pdf').header('Content-Disposition', `attachment; filename="webgauge-${report.id}.pdf"`).send(answer.data);
        }
        if (waited > 120_000) throw new ApiError('E50300', 'The PDF is still being generated; try again in a minute.');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    const d = DOWNLOADS[name];
    const file = d && reportResources(report).has(d.artifact) ? await ctx.artifacts.get(artifactKey(report.id, d.artifact)) : null;
    if (!d || !file) throw new ApiError('E40407', `This report has no ${d ? d.label : `file named ${name}`}.`);
    return reply.type(d.type).header('Content-Disposition', `attachment; filename="webgauge-${report.id}-${name}"`).send(file);
  });

  /** GET /reports/{id} for its own account (the public route asks first); false: show the public page. */
  return async (req, reply, report) => {
    if (!req.headers.cookie) return false;
    const v = await visitorOf(ctx, req);
    if (!v || v.principal.accountId !== report.account_id) return false;
    const nonce = newNonce();
    sendHtml(reply, nonce, await ownerReportScreen(kit, v, nonce, report));
    return true;
  };
}
