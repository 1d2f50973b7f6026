/**
 * The report page printed to PDF by Chromium: the same template as the web page in print mode, pictures
 * inline, JavaScript off and the network offline, so the PDF shows exactly our report and fetches nothing.
 * One fresh browser per PDF (~0.3 s to launch), like the runner's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppContext } from '../api/context.js';
import { PdfService } from '../core/pdf.js';
import type { ReportRow } from '../core/reports.js';
import { closeBrowser, launchBrowser } from '../runner/browser.js';
import { renderReportPage } from './page.js';
import { loadReportData } from './view.js';

export interface PdfRenderOptions {
  chromePath: string;
  timeoutMs?: number;
}

export async function htmlToPdf(html: string, o: PdfRenderOptions): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-pdf-'));
  const timeoutMs = o.timeoutMs ?? 60_000;
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  try {
    // Inside the try: a browser that fails to start leaves no profile folder behind either.
    browser = await launchBrowser({ chromePath: o.chromePath, userDataDir: join(dir, 'profile'), protocolTimeoutMs: timeoutMs });
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    await page.setJavaScriptEnabled(false);
    await page.setOfflineMode(true);
    await page.emulateMediaType('print');
    await page.setContent(html, { waitUntil: 'load', timeout: timeoutMs });
    const pdf = await page.pdf({
      format: 'A4',
      printBackground: true,
      preferCSSPageSize: true,
      displayHeaderFooter: true,
      headerTemplate: '<span></span>',
      footerTemplate: '<div style="font:8px Arial,sans-serif;color:#8a94a6;width:100%;text-align:right;padding:0 9mm">' +
        'Webgauge · page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
      timeout: timeoutMs,
    });
    return Buffer.from(pdf);
  } finally {
    if (browser) await closeBrowser(browser);
    await rm(dir, { recursive: true, force: true });
  }
}

export async function renderReportPdf(ctx: AppContext, report: ReportRow, full: boolean, pageUrl: string): Promise<Buffer> {
  const data = await loadReportData(ctx.artifacts, report, full ? 'pdf-full' : 'pdf', pageUrl);
  const labels = {
    location: ctx.catalog.location(report.location)?.name ?? report.location,
    browser: ctx.catalog.browser(report.browser)?.name ?? report.browser,
  };
  return htmlToPdf(renderReportPage(data, labels), { chromePath: ctx.config.chromePath });
}

const services = new WeakMap<AppContext, PdfService>();

/** The PDF service of an app (one per server process; the parallel limit and joining go through the database). */
export function pdfService(ctx: AppContext): PdfService {
  let service = services.get(ctx);
  if (!service) {
    service = new PdfService({
      store: ctx.store,
      artifacts: ctx.artifacts,
      chromePath: ctx.config.chromePath,
      waitMs: ctx.config.pdfWaitMs,
      render: (report, full, pageUrl) => renderReportPdf(ctx, report, full, pageUrl),
    });
    services.set(ctx, service);
  }
  return service;
}
