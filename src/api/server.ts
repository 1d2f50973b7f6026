import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { authenticateRequest } from './auth.js';
import type { AppContext } from '../context/app-context.js';
import { BODY_LIMIT, clientErrorHandler, handleError, sendApiError, type ErrorHandling, type ErrorPage } from './errors.js';
import { API_PREFIX, linkOrigin } from '../context/links.js';
import { openApiDocument } from './openapi.js';
import { Router } from './router.js';
import { registerReferenceRoutes } from './routes/reference.js';
import { registerReportRoutes } from './routes/reports.js';
import { registerTestRoutes } from './routes/tests.js';
import { registerScanRoutes } from './routes/scans.js';
import { registerScanScheduleRoutes } from './routes/scan-schedules.js';
import { registerListRoutes } from './routes/lists.js';
import { registerPageRoutes } from './routes/pages.js';
import { registerMonitoringRoutes } from './routes/monitoring.js';
import { registerTagRoutes } from './routes/tags.js';
import { registerAlertRoutes } from './routes/alerts.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { registerAgentProtocol } from './routes/agent-protocol.js';
import { registerMetrics } from './metrics.js';
import { registerHealth } from './health.js';
import { compileRequestSchema } from './validation.js';
import { registerFieldBeacon } from './field-beacon.js';
import { registerFieldRoutes } from './routes/field.js';
import { registerLabFieldRoutes } from './routes/lab-field.js';
import { registerFieldAlertRoutes } from './routes/field-alerts.js';

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

/**
 * One log line per request, when it is answered (method, URL, status, time), instead of Fastify's two: at info
 * level the line on arrival cost about a tenth of the report read's throughput (BENCH_LOG_LEVEL=info npm run
 * bench -- read). Fastify's other lines (errors) stay as they are.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null, req: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/**
 * The HTTP server: the API's routes, the agent protocol and the metrics, and (`mountWebApp`, given by the
 * composition in app.ts) the web app beside them on the same server, registered where it always was.
 */
export async function buildServer(ctx: AppContext, mountWebApp?: (app: FastifyInstance) => ErrorPage,
  logStream?: { write(line: string): void }): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: ctx.config.logLevel,
      // Credentials never reach the log: neither API keys nor the tested page's cookies and passwords.
      redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      ...(logStream ? { stream: logStream } : {}),
    },
    bodyLimit: BODY_LIMIT,
    clientErrorHandler,
    // Path IDs longer than the route schemas accept (128) reach them and get the route's own not-found code.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, querystringParser: parseQuery, maxParamLength: 1024 },
    // URLs the router cannot even match still answer a spec error body under /api/2.0 (COMPAT: every 4xx has errors).
    frameworkErrors: (err, req, res) => {
      const reply = res as FastifyReply;
      const path = req.url.split('?')[0].replace(/\/{2,}/g, '/');
      const detail = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path segment is over 1024 characters long; no ID is.' : 'The URL path is malformed (bad percent-encoding).';
      if (path.startsWith(API_PREFIX + '/')) return sendApiError(reply, new ApiError('E40000', detail));
      return reply.code(400).type('text/plain').send(detail);
    },
    requestIdHeader: false,
    trustProxy: ctx.config.trustProxy,
    logController: new OneLinePerRequest(),
  });

  // One catch-all parser: the raw text reaches the route, which checks the type itself (E41500) and parses it
  // (E40002). Body-less POSTs (retests) therefore work with any or no Content-Type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  const errors: ErrorHandling = { health: ctx.store.health };
  app.setErrorHandler((error, request, reply) => handleError(error as Error, request, reply, errors));
  // Route schemas (schemas/index.ts) are compiled by our own Ajv: no coercion, defaults or removal.
  app.setValidatorCompiler(compileRequestSchema);

  const router = new Router(app, ctx);
  registerTestRoutes(router, ctx);
  registerScanRoutes(router, ctx);
  registerScanScheduleRoutes(router, ctx);
  registerReportRoutes(router, ctx);
  registerReferenceRoutes(router, ctx);
  registerListRoutes(router, ctx);
  registerPageRoutes(router, ctx);
  registerTagRoutes(router, ctx);
  registerMonitoringRoutes(router, ctx);
  registerAlertRoutes(router, ctx);
  registerWebhookRoutes(router, ctx);
  registerFieldRoutes(router, ctx);
  registerLabFieldRoutes(router, ctx);
  registerFieldAlertRoutes(router, ctx);
  errors.errorPage = mountWebApp?.(app);
  registerAgentProtocol(app, ctx);
  registerFieldBeacon(app, ctx.field.ingest, errors);
  registerMetrics(app, ctx.metrics, ctx.config.metricsToken);
  registerHealth(app, ctx.store.health);

  // The OpenAPI document is documentation: no API key needed (spec 1.7).
  app.get(`${API_PREFIX}/openapi.json`, async (req, reply) =>
    reply.type('application/json').send(openApiDocument(router.routes(), linkOrigin(req, ctx.config))),
  );

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
