import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { readOptions } from '../../core/options/stored-options.js';
import { clock } from '../../core/clock.js';
import { ApiError, type ErrorCode } from '../../core/errors.js';
import { servedOptions } from '../../core/options/options.js';
import { ARTIFACT, artifactKey, deleteReport, hasStructureAudits, pagespeedFilesState, requireReport, reportResources, type FilmstripIndex, type ReportRow, type ReportWithTags } from '../../core/reports/reports.js';
import { MODERN_FORMATS, optimizedImages, type ModernFormat } from '../../core/reports/images.js';
import { objectWithArray, readJsonArtifact } from '../../artifacts/store.js';
import { pdfService } from '../../report/pdf.js';
import { LIGHTHOUSE_HTML_CSP, storedLighthouseHtml } from '../../report/lighthouse-html.js';
import { storedStructure } from '../../report/view.js';
import { answeredNotModified, entityTag } from '../conditional.js';
import { sendRanged } from '../../context/http-range.js';
import { principalOf } from '../auth.js';
import type { AppContext } from '../../context/app-context.js';
import { JSONAPI } from '../errors.js';
import { reportResource, reportViewKey } from '../jsonapi.js';
import type { Links } from '../../context/links.js';
import type { Router } from '../router.js';
import { queueAndRespond } from './tests.js';

const IMMUTABLE = 'max-age=31536000';

/** Resource names of spec 4.2, and the link-attribute names accepted as aliases (COMPAT.md). */
const RESOURCE_NAMES: Record<string, string> = {
  'screenshot.jpg': 'screenshot.jpg',
  screenshot: 'screenshot.jpg',
  'filmstrip.json': 'filmstrip.json',
  filmstrip: 'filmstrip.json',
  'filmstrip-frame.jpg': 'filmstrip-frame.jpg',
  'filmstrip-frame': 'filmstrip-frame.jpg',
  'net.har': 'net.har',
  har: 'net.har',
  'analysis-options': 'analysis-options',
  analysis_options: 'analysis-options',
  'video.mp4': 'video.mp4',
  video: 'video.mp4',
  'optimized-images.tar': 'optimized-images.tar',
  optimized_images: 'optimized-images.tar',
  'report.pdf': 'report.pdf',
  report_pdf: 'report.pdf',
  'lighthouse.json': 'lighthouse.json',
  lighthouse: 'lighthouse.json',
  'lighthouse.html': 'lighthouse.html',
  lighthouse_html: 'lighthouse.html',
  'pagespeed.json': 'pagespeed.json',
  pagespeed: 'pagespeed.json',
  'pagespeed-files.tar': 'pagespeed-files.tar',
  pagespeed_files: 'pagespeed-files.tar',
  'yslow.json': 'yslow.json',
  yslow: 'yslow.json',
  'resource-summary': 'resource-summary',
  resource_summary: 'resource-summary',
  'runs.json': 'runs.json',
  runs: 'runs.json',
  'flow.json': 'flow.json',
  flow: 'flow.json',
  'flow.html': 'flow.html',
  flow_html: 'flow.html',
  'structure.json': 'structure.json',
  structure: 'structure.json',
};

/** A journey's resources, missing from other reports. */
const NO_FLOW: [ErrorCode, string] = ['E40407', 'This report has no user flow: it was not a journey (give journey in POST /tests).'];

const loadReport = (ctx: AppContext, accountId: string, id: string, code?: 'E40401' | 'E40402'): Promise<ReportWithTags> =>
  requireReport(ctx.store.db, accountId, id, code);

async function sendArtifact(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  report: ReportRow,
  name: string,
  type: string,
  missing: [ErrorCode, string],
): Promise<FastifyReply> {
  if (!reportResources(report).has(name)) throw new ApiError(...missing);
  reply.header('Cache-Control', IMMUTABLE);
  if (answeredNotModified(req, reply, storedArtifactTag(report, name))) return reply;
  const data = await ctx.artifacts.get(artifactKey(report.id, name));
  if (!data) throw new ApiError(...missing);
  return reply.code(200).type(type).send(data);
}

/**
 * structure.json: the audits behind the report's structure score as it was scored (report/view.ts storedStructure: the
 * stored file in today's shape, or for the oldest reports the same audits read from their Lighthouse result).
 */
async function sendStructure(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, report: ReportRow): Promise<FastifyReply> {
  const missing: [ErrorCode, string] = ['E40410', 'This report has no structure audits; they exist for reports with report=lighthouse.'];
  const structure = hasStructureAudits(report) ? await storedStructure(ctx.artifacts, report) : undefined;
  if (!structure) throw new ApiError(...missing);
  reply.header('Cache-Control', IMMUTABLE).type('application/json');
  return sendJson(req, reply, structure);
}

/** A JSON body with its ETag, or 304 when the client has it already. */
function sendJson(req: FastifyRequest, reply: FastifyReply, value: unknown): FastifyReply {
  const body = JSON.stringify(value);
  if (answeredNotModified(req, reply, entityTag(body))) return reply;
  return reply.send(body);
}

/** A stored file of a report never changes: its tag is its name (with the variant asked for). */
function storedArtifactTag(report: ReportRow, name: string, ...variant: string[]): string {
  return entityTag(report.id, name, ...variant);
}

/** Report bodies served lately, by everything they depend on (jsonapi.ts reportViewKey), per service. */
const renderedReports = new WeakMap<AppContext, LRUCache<string, { body: string; etag: string }>>();

/** GET /reports/{id} and GET /pages/{id}/latest-report: the report object as the spec gives it. */
export function sendReport(req: FastifyRequest, reply: FastifyReply, ctx: AppContext, links: Links, report: ReportWithTags): FastifyReply {
  const view = { legacyBrandFields: ctx.config.legacyBrandFields, pageTags: report.pageTags, now: clock.now(), plan: principalOf(req).plan };
  const key = reportViewKey(report, links, view);
  let rendered = renderedReports.get(ctx);
  if (!rendered) renderedReports.set(ctx, (rendered = new LRUCache({ max: 2_000 })));
  let kept = rendered.get(key);
  if (!kept) {
    const data = reportResource(report, links, view);
    const body = JSON.stringify({ data, links: { self: data.links.self } });
    kept = { body, etag: entityTag(body) };
    rendered.set(key, kept);
  }
  reply.header('Cache-Control', IMMUTABLE).type(JSONAPI);
  if (answeredNotModified(req, reply, kept.etag)) return reply;
  return reply.send(kept.body);
}

export function registerReportRoutes(r: Router, ctx: AppContext): void {
  r.get('/reports/:id', async (req, reply, links) => {
    const report = await loadReport(ctx, principalOf(req).accountId, (req.params as { id: string }).id);
    return sendReport(req, reply, ctx, links, report);
  });

  r.delete('/reports/:id', async (req, reply) => {
    const principal = principalOf(req);
    const report = await loadReport(ctx, principal.accountId, (req.params as { id: string }).id);
    await deleteReport(ctx.store, ctx.artifacts, principal, report);
    return reply.type(JSONAPI).send({ data: { type: 'report', id: report.id } });
  });

  r.post('/reports/:id/retest', async (req, reply, links) => {
    // The spec assigns E40402 to an unknown report here.
    const report = await loadReport(ctx, principalOf(req).accountId, (req.params as { id: string }).id, 'E40402');
    return queueAndRespond(ctx, req, reply, links, readOptions(ctx.store.box, report.options), 'api');
  });

  // Its own route for its own schema in the OpenAPI document; the alias `structure` reaches it through :name.
  r.get('/reports/:id/resources/structure.json', async (req, reply) => {
    const report = await loadReport(ctx, principalOf(req).accountId, (req.params as { id: string }).id);
    return sendStructure(ctx, req, reply, report);
  });

  r.get('/reports/:id/resources/:name', async (req, reply, links) => {
    const { id, name: rawName } = req.params as { id: string; name: string };
    const report = await loadReport(ctx, principalOf(req).accountId, id);
    const name = RESOURCE_NAMES[rawName];
    if (!name) {
      throw new ApiError('E40001', `Unknown resource "${rawName}"; use one of ${Object.keys(RESOURCE_NAMES).filter((n) => n.includes('.') || n.includes('-')).join(', ')}.`);
    }
    const query = req.query as Record<string, string | string[] | undefined>;
    switch (name) {
      case 'screenshot.jpg':
        return sendArtifact(ctx, req, reply, report, ARTIFACT.screenshot, 'image/jpeg', ['E40405', 'This report has no screenshot.']);
      case 'net.har':
        return sendArtifact(ctx, req, reply, report, ARTIFACT.har, 'application/json', ['E40406', 'This report has no HAR file.']);
      case 'lighthouse.json':
        return sendArtifact(ctx, req, reply, report, ARTIFACT.lighthouse, 'application/json', [
          'E40410',
          'This report has no Lighthouse JSON; it was not run with report=lighthouse.',
        ]);
      case 'lighthouse.html':
      case 'flow.html': {
        // Webgauge extension: Lighthouse's own HTML report of the stored JSON, or of a journey's flow (report/lighthouse-html.ts).
        const flow = name === 'flow.html';
        const missing: [ErrorCode, string] = flow ? NO_FLOW
          : ['E40410', 'This report has no Lighthouse report; it was not run with report=lighthouse.'];
        if (!reportResources(report).has(flow ? ARTIFACT.flow : ARTIFACT.lighthouse)) throw new ApiError(...missing);
        reply.header('Cache-Control', IMMUTABLE);
        if (answeredNotModified(req, reply, storedArtifactTag(report, name))) return reply;
        const html = await storedLighthouseHtml(ctx.artifacts, report, flow ? 'flow' : 'lighthouse');
        if (!html) throw new ApiError(...missing);
        return reply.header('Content-Security-Policy', LIGHTHOUSE_HTML_CSP).header('X-Content-Type-Options', 'nosniff')
          .type('text/html; charset=utf-8').send(html);
      }
      case 'flow.json':
        return sendArtifact(ctx, req, reply, report, ARTIFACT.flow, 'application/json', NO_FLOW);
      case 'structure.json':
        return sendStructure(ctx, req, reply, report);
      case 'analysis-options':
        return sendJson(req, reply.header('Cache-Control', IMMUTABLE).type('application/json'), servedOptions(readOptions(ctx.store.box, report.options)));
      case 'filmstrip.json': {
        const missing: [ErrorCode, string] = ['E40409', 'This report has no filmstrip; it was not run with report=lighthouse.'];
        if (!reportResources(report).has(ARTIFACT.filmstrip)) throw new ApiError(...missing);
        const stored = await readJsonArtifact(ctx.artifacts, artifactKey(report.id, ARTIFACT.filmstrip), objectWithArray<FilmstripIndex>('frames'));
        if (stored.state === 'missing') throw new ApiError(...missing);
        if (stored.state === 'damaged') {
          req.log.warn({ reportId: report.id, reason: stored.reason }, 'damaged artifact');
          throw new ApiError('E40409', 'The stored filmstrip of this report is damaged and cannot be read; run a new test.');
        }
        const index = stored.value;
        const base64 = first(query.base64) === '1';
        const frames = await Promise.all(
          index.frames.map(async (f) => {
            const frame: Record<string, unknown> = {
              id: f.id,
              timestamp: f.timestamp,
              url: `${links.resource(report.id, 'filmstrip-frame.jpg')}?id=${f.id}`,
            };
            if (base64) frame.data = (await ctx.artifacts.get(artifactKey(report.id, ARTIFACT.frame(Number(f.id)))))?.toString('base64') ?? '';
            return frame;
          }),
        );
        return sendJson(req, reply.header('Cache-Control', IMMUTABLE).type('application/json'),
          index.steps ? { frames, steps: index.steps } : { frames });
      }
      case 'filmstrip-frame.jpg': {
        const frameId = first(query.id);
        if (frameId === undefined || !/^\d+$/.test(frameId)) {
          throw new ApiError('E40001', 'Give the frame with ?id=<frame id> (the ids are listed in filmstrip.json).');
        }
        if (Number(frameId) >= report.filmstrip_frames) {
          throw new ApiError('E40409', `This report has no filmstrip frame ${frameId}; it has ${report.filmstrip_frames}.`);
        }
        reply.header('Cache-Control', IMMUTABLE);
        if (answeredNotModified(req, reply, storedArtifactTag(report, ARTIFACT.frame(Number(frameId))))) return reply;
        const jpeg = await ctx.artifacts.get(artifactKey(report.id, ARTIFACT.frame(Number(frameId))));
        if (!jpeg) throw new ApiError('E40409', `Filmstrip frame ${frameId} is unavailable.`);
        return reply.type('image/jpeg').send(jpeg);
      }
      case 'video.mp4': {
        const missing: [ErrorCode, string] = ['E40407', 'This report has no video; run the test with video=1.'];
        const key = artifactKey(report.id, ARTIFACT.video);
        const size = reportResources(report).has(ARTIFACT.video) ? await ctx.artifacts.size(key) : null;
        if (size === null) throw new ApiError(...missing);
        reply.header('Cache-Control', IMMUTABLE);
        // If-None-Match comes before Range (RFC 9110 §13.2.2).
        if (answeredNotModified(req, reply, storedArtifactTag(report, ARTIFACT.video))) return reply;
        return sendRanged(reply, ctx.artifacts, key, size, 'video/mp4', first(req.headers.range), (reason) => {
          throw new ApiError('E41600', `${reason}; the video has ${size} bytes.`, { 'Content-Range': `bytes */${size}` });
        });
      }
      case 'report.pdf': {
        const full = first(query.full) === '1';
        // The report page the PDF prints, and where its footer points (kept with the report: no request's Host in it).
        const answer = await pdfService(ctx).request(principalOf(req), report, full, links.keptReportPage(report.id), req.log);
        if (answer.kind === 'pending') {
          // COMPAT: an absolute Location inside /api/2.0 (WEBGAUGE_PUBLIC_URL or the request's origin): the same URL, to ask again.
          const self = `${links.resource(report.id, rawName)}${full ? '?full=1' : ''}`;
          return reply.code(302).header('Location', self).header('Cache-Control', 'no-store').type(JSONAPI)
            .send({ meta: { detail: 'The PDF is being generated; follow the Location to receive it.' } });
        }
        reply.header('Cache-Control', IMMUTABLE);
        if (answeredNotModified(req, reply, storedArtifactTag(report, name, full ? 'full' : 'summary'))) return reply;
        return reply.type('application/pdf').send(answer.data);
      }
      case 'optimized-images.tar': {
        const format = first(query.format);
        if (format !== undefined && format !== '' && !MODERN_FORMATS.includes(format as ModernFormat)) {
          throw new ApiError('E40001', `format must be ${MODERN_FORMATS.join(' or ')} (or absent: each image keeps its format).`);
        }
        const outcome = await optimizedImages(ctx.artifacts, report, clock.now(), (format || undefined) as ModernFormat | undefined);
        if (!outcome.ok) {
          throw outcome.reason === 'expired'
            ? new ApiError('E40412', 'Optimized images are kept for 24 hours after the report was created; run a new test.')
            : new ApiError('E40411', 'This report has no optimized images; they exist for Lighthouse reports.');
        }
        reply.header('Cache-Control', IMMUTABLE);
        if (answeredNotModified(req, reply, storedArtifactTag(report, name, format ?? ''))) return reply;
        return reply.type('application/x-tar')
          .header('Content-Disposition', `attachment; filename="optimized-images-${report.id}${format ? `-${format}` : ''}.tar"`)
          .send(outcome.tar);
      }
      case 'resource-summary':
        return sendArtifact(ctx, req, reply, report, ARTIFACT.resourceSummary, 'application/json',
          ['E40407', 'This report has no resource summary.']);
      case 'runs.json':
        return sendArtifact(ctx, req, reply, report, ARTIFACT.runs, 'application/json',
          ['E40407', 'This report has no runs.json: its test loaded the page once (ask for more with the runs attribute of POST /tests).']);
      case 'pagespeed.json':
        return sendArtifact(ctx, req, reply, report, ARTIFACT.pagespeed, 'application/json',
          ['E40413', 'This report has no PageSpeed data; it was not run with report=legacy or report=lighthouse,legacy.']);
      case 'yslow.json':
        return sendArtifact(ctx, req, reply, report, ARTIFACT.yslow, 'application/json',
          ['E40414', 'This report has no YSlow data; it was not run with report=legacy or report=lighthouse,legacy.']);
      case 'pagespeed-files.tar': {
        const missing: [ErrorCode, string] = ['E40415', 'This report has no PageSpeed files; they exist for legacy reports.'];
        const state = pagespeedFilesState(report, clock.now());
        if (state === 'expired') {
          throw new ApiError('E40416', 'PageSpeed files are kept for 24 hours after the report was created; run a new test.');
        }
        if (state === 'not-applicable') throw new ApiError(...missing);
        reply.header('Cache-Control', IMMUTABLE);
        if (answeredNotModified(req, reply, storedArtifactTag(report, name))) return reply;
        const tar = await ctx.artifacts.get(artifactKey(report.id, ARTIFACT.pagespeedFiles));
        if (!tar) throw new ApiError(...missing);
        return reply.type('application/x-tar')
          .header('Content-Disposition', `attachment; filename="pagespeed-files-${report.id}.tar"`)
          .send(tar);
      }
      default:
        throw new ApiError('E40001', `Unknown resource "${rawName}".`);
    }
  });
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
