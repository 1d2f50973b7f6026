import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context/app-context.js';
import { couldBeId } from '../core/ids.js';
import { ARTIFACT, artifactKey, getReportById, reportResources, type ReportRow } from '../core/reports/reports.js';
import { renderReportPage } from '../report/page.js';
import { pdfService } from '../report/pdf.js';
import { sendRanged } from '../context/http-range.js';
import { loadReportData } from '../report/view.js';
import { LIGHTHOUSE_HTML_CSP, storedLighthouseHtml } from '../report/lighthouse-html.js';

const IMMUTABLE = 'max-age=31536000';
/** The page loads nothing but its own pictures and video, and runs no script. */
const CSP = "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'";

/**
 * The public report page and the files it shows. No API key: whoever holds the unguessable report URL may read
 * it (COMPAT.md), the way a shared link works; the page asks browsers not to send that URL on as a Referer and
 * search engines not to index it. Unknown or expired IDs get a plain 404.
 * Its own account, signed in to the web app, sees the same report inside the app (web/screens/report.ts).
 */
/**
 * Its own account's view of a report inside the web app, when the request is signed in as that account: true when it
 * answered. (Not the reply itself: a FastifyReply is a thenable, so an async function returning it resolves, once the
 * answer is sent, to undefined, and the public page was rendered and sent a second time: "Reply was already sent".)
 */
export type OwnerReportView = (req: FastifyRequest, reply: FastifyReply, report: ReportRow) => Promise<boolean>;

export function registerReportPage(app: FastifyInstance, ctx: AppContext, ownerView?: OwnerReportView): void {
  const notFound = (reply: FastifyReply, what: string) => reply.code(404).type('text/plain').send(what);
  // A string that is no ID (a NUL in it: PostgreSQL cannot even compare it) is simply not found.
  const reportById = async (id: string): Promise<ReportRow | undefined> => (couldBeId(id) ? getReportById(ctx.store.db, id) : undefined);
  const secure = (reply: FastifyReply) => reply.header('Referrer-Policy', 'no-referrer').header('X-Content-Type-Options', 'nosniff');

  app.get('/reports/:id', async (req, reply) => {
    const { id } = req.params as { id: string };
    const report = await reportById(id);
    if (!report) return notFound(reply, 'This report does not exist or has expired.');
    // Its own account, signed in to the web app, gets the report inside the app (tabs, retest, downloads).
    if (await ownerView?.(req, reply, report)) return reply;
    const data = await loadReportData(ctx.artifacts, ctx.store.box, report, 'web', `/reports/${id}`);
    const labels = {
      location: ctx.catalog.location(report.location)?.name ?? report.location,
      browser: ctx.catalog.browser(report.browser)?.name ?? report.browser,
    };
    return secure(reply).header('Content-Security-Policy', CSP).header('X-Robots-Tag', 'noindex, nofollow')
      .type('text/html; charset=utf-8').send(renderReportPage(data, labels));
  });

  app.get('/reports/:id/screenshot.jpg', async (req, reply) => {
    const { id } = req.params as { id: string };
    const report = await reportById(id);
    const jpeg = report ? await ctx.artifacts.get(artifactKey(id, ARTIFACT.screenshot)) : null;
    if (!jpeg) return notFound(reply, 'No screenshot.');
    return secure(reply).header('Cache-Control', IMMUTABLE).type('image/jpeg').send(jpeg);
  });

  // Lighthouse's own reports, rendered from the stored results: the load's, and a journey's flow report.
  for (const [file, which, what] of [['lighthouse.html', 'lighthouse', 'Lighthouse report'], ['flow.html', 'flow', 'Lighthouse flow report']] as const) {
    app.get(`/reports/:id/${file}`, async (req, reply) => {
      const { id } = req.params as { id: string };
      const report = await reportById(id);
      const html = report ? await storedLighthouseHtml(ctx.artifacts, report, which) : undefined;
      if (!html) return notFound(reply, `This report has no ${what}.`);
      return secure(reply).header('Cache-Control', IMMUTABLE).header('Content-Security-Policy', LIGHTHOUSE_HTML_CSP)
        .header('X-Robots-Tag', 'noindex, nofollow').type('text/html; charset=utf-8').send(html);
    });
  }

  app.get('/reports/:id/filmstrip/:frame', async (req, reply) => {
    const { id, frame } = req.params as { id: string; frame: string };
    const m = /^(\d+)\.jpg$/.exec(frame);
    const report = m ? await reportById(id) : undefined;
    const jpeg = report && m && Number(m[1]) < report.filmstrip_frames ? await ctx.artifacts.get(artifactKey(id, ARTIFACT.frame(Number(m[1])))) : null;
    if (!jpeg) return notFound(reply, 'No such frame.');
    return secure(reply).header('Cache-Control', IMMUTABLE).type('image/jpeg').send(jpeg);
  });

  app.get('/reports/:id/video.mp4', async (req, reply) => {
    const { id } = req.params as { id: string };
    const report = await reportById(id);
    const key = artifactKey(id, ARTIFACT.video);
    const size = report && reportResources(report).has(ARTIFACT.video) ? await ctx.artifacts.size(key) : null;
    if (size === null) return notFound(reply, 'This report has no video.');
    secure(reply).header('Cache-Control', IMMUTABLE);
    const range = Array.isArray(req.headers.range) ? req.headers.range[0] : req.headers.range;
    return sendRanged(reply, ctx.artifacts, key, size, 'video/mp4', range,
      (reason) => reply.code(416).type('text/plain').send(reason));
  });

  // PDFs being generated when the server stops are finished first (their credits are already taken).
  app.addHook('onClose', async () => {
    await pdfService(ctx).drain();
  });
}
