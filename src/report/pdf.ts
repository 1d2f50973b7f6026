/**
 * The report page printed to PDF by Chromium: the same template as the web page in print mode, pictures
 * inline, JavaScript off and the network offline, so the PDF shows exactly our report and fetches nothing.
 * One fresh browser per PDF (~0.3 s to launch), like the runner's.
 */
import type { ArtifactStore } from '../artifacts/store.js';
import type { Catalog } from '../core/catalog/catalog.js';
import { PdfService } from '../core/reports/pdf.js';
import type { ReportRow } from '../core/reports/reports.js';
import { closeBrowser, launchBrowser, type BrowserSandbox } from '../runner/browser.js';
import { renderReportPage } from './page.js';
import { loadReportData } from './view.js';
import type { Store } from '../store/db.js';

/** What printing a report needs of the app (the application context has it all; report/ depends on no edge). */
export interface ReportPdfContext {
  /** The operator's settings printing uses (config.ts: WEBGAUGE_CHROME_PATH, WEBGAUGE_PDF_WAIT_MS). */
  config: { chromePath: string; pdfWaitMs: number };
  store: Store;
  artifacts: ArtifactStore;
  catalog: Catalog;
  sandbox: BrowserSandbox;
}

export interface PdfRenderOptions {
  chromePath: string;
  sandbox?: BrowserSandbox;
  timeoutMs?: number;
}

export async function htmlToPdf(html: string, o: PdfRenderOptions): Promise<Buffer> {
  const timeoutMs = o.timeoutMs ?? 60_000;
  // The launcher makes the profile and removes it again, also when the launch fails.
  const browser = await launchBrowser({ chromePath: o.chromePath, sandbox: o.sandbox, protocolTimeoutMs: timeoutMs });
  try {
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
    await closeBrowser(browser);
  }
}

export async function renderReportPdf(ctx: ReportPdfContext, report: ReportRow, full: boolean, pageUrl: string): Promise<Buffer> {
  const data = await loadReportData(ctx.artifacts, ctx.store.box, report, full ? 'pdf-full' : 'pdf', pageUrl);
  const labels = {
    location: ctx.catalog.location(report.location)?.name ?? report.location,
    browser: ctx.catalog.browser(report.browser)?.name ?? report.browser,
  };
  return htmlToPdf(renderReportPage(data, labels), { chromePath: ctx.config.chromePath, sandbox: ctx.sandbox });
}

const services = new WeakMap<ReportPdfContext, PdfService>();

/** The PDF service of an app (one per server process; the parallel limit and joining go through the database). */
export function pdfService(ctx: ReportPdfContext): PdfService {
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
