import Fastify, { type FastifyInstance } from 'fastify';
import { ApiError } from '../core/errors.js';
import { authenticateRequest } from './auth.js';
import type { AppContext } from './context.js';
import { handleError, sendApiError } from './errors.js';
import { API_PREFIX } from './links.js';
import { Router } from './router.js';
import { registerReferenceRoutes } from './routes/reference.js';
import { registerReportRoutes } from './routes/reports.js';
import { registerTestRoutes } from './routes/tests.js';
import { registerListRoutes } from './routes/lists.js';
import { registerPageRoutes } from './routes/pages.js';
import { registerMonitoringRoutes } from './routes/monitoring.js';
import { registerTagRoutes } from './routes/tags.js';
import { registerReportPage } from '../report/routes.js';

/** Query strings as clients send them: raw `[` `]` kept in keys, repeated keys become arrays, `+` is a space. */
export function parseQuery(qs: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(qs)) {
    if (k === '') continue;
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

export async function buildServer(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: ctx.config.logLevel,
      // Credentials never reach the log: neither API keys nor the tested page's cookies and passwords.
      redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
    },
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, querystringParser: parseQuery },
    requestIdHeader: false,
    trustProxy: ctx.config.trustProxy,
  });

  // One catch-all parser: the raw text reaches the route, which checks the type itself (E41500) and parses it
  // (E40002). Body-less POSTs (retests) therefore work with any or no Content-Type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.setErrorHandler(handleError);

  const router = new Router(app, ctx);
  registerTestRoutes(router, ctx);
  registerReportRoutes(router, ctx);
  registerReferenceRoutes(router, ctx);
  registerListRoutes(router, ctx);
  registerPageRoutes(router, ctx);
  registerTagRoutes(router, ctx);
  registerMonitoringRoutes(router, ctx);
  registerReportPage(app, ctx);

  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0].replace(/\/{2,}/g, '/');
    if (!path.startsWith(API_PREFIX + '/') && path !== API_PREFIX) {
      return reply.code(404).type('text/plain').send('Not found');
    }
    // API answers need a key first, as every endpoint does; then unknown path vs wrong method.
    await authenticateRequest(ctx, req, reply);
    const allowed = router.allowedMethods(path);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendApiError(reply, new ApiError('E40500', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`));
    }
    return sendApiError(reply, new ApiError('E40000', `Unknown request: ${req.method} ${path}.`));
  });

  return app;
}
