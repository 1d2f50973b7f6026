/**
 * `GET /metrics` (outside /api/2.0) in Prometheus' text format, for operators (WEBGAUGE_METRICS_TOKEN: a bearer
 * token; without it there is no endpoint): context/service-metrics.ts says what is counted.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from '../context/service-metrics.js';

const sameToken = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

export function registerMetrics(app: FastifyInstance, metrics: ServiceMetrics | undefined, token: string | undefined): void {
  // No endpoint, no per-request cost.
  if (metrics === undefined || token === undefined) return;
  // Route patterns, not URLs: a report ID per label value would grow the series without bound.
  app.addHook('onResponse', async (req, reply) => {
    metrics.httpDuration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  app.get('/metrics', async (req, reply) => {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!m || !sameToken(m[1]!, token)) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer realm="metrics"').type('text/plain').send('Bearer token required (WEBGAUGE_METRICS_TOKEN)\n');
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
