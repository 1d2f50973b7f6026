import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../api/context.js';
import { ARTIFACT, artifactKey, getReportById, reportResources, type FilmstripIndex } from '../core/reports.js';
import { renderReportPage } from './page.js';

/**
 * The public report page. No API key: whoever holds the unguessable report URL may read it (COMPAT.md),
 * the same way a shared link works. Unknown IDs get a plain 404.
 */
export function registerReportPage(app: FastifyInstance, ctx: AppContext): void {
  app.get('/reports/:id', async (req, reply) => {
    const { id } = req.params as { id: string };
    const report = await getReportById(ctx.store.db, id);
    if (!report) return reply.code(404).type('text/plain').send('This report does not exist or has expired.');
    let filmstrip: FilmstripIndex | null = null;
    if (reportResources(report).has(ARTIFACT.filmstrip)) {
      const raw = await ctx.artifacts.get(artifactKey(id, ARTIFACT.filmstrip));
      filmstrip = raw ? (JSON.parse(raw.toString('utf8')) as FilmstripIndex) : null;
    }
    return reply.type('text/html; charset=utf-8').send(renderReportPage(report, filmstrip, `/reports/${id}`));
  });

  app.get('/reports/:id/screenshot.jpg', async (req, reply) => {
    const { id } = req.params as { id: string };
    const report = await getReportById(ctx.store.db, id);
    const jpeg = report ? await ctx.artifacts.get(artifactKey(id, ARTIFACT.screenshot)) : null;
    if (!jpeg) return reply.code(404).type('text/plain').send('No screenshot.');
    return reply.header('Cache-Control', 'max-age=31536000').type('image/jpeg').send(jpeg);
  });

  app.get('/reports/:id/filmstrip/:frame', async (req, reply) => {
    const { id, frame } = req.params as { id: string; frame: string };
    const m = /^(\d+)\.jpg$/.exec(frame);
    const report = m ? await getReportById(ctx.store.db, id) : undefined;
    const jpeg = report && m && Number(m[1]) < report.filmstrip_frames ? await ctx.artifacts.get(artifactKey(id, ARTIFACT.frame(Number(m[1])))) : null;
    if (!jpeg) return reply.code(404).type('text/plain').send('No such frame.');
    return reply.header('Cache-Control', 'max-age=31536000').type('image/jpeg').send(jpeg);
  });
}
