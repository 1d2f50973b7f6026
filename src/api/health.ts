/**
 * Health for machines, outside /api/2.0 and without a key: `GET /healthz` (liveness: the process answers) and
 * `GET /readyz` (readiness: the database answers, its migrations are current, the data directory has room;
 * store/health.ts). They say nothing of accounts, tests or configuration, and are not logged at info level (a
 * probe every few seconds would fill the log).
 */
import type { FastifyInstance } from 'fastify';
import { DATABASE_RETRY_AFTER_S } from '../core/errors.js';
import type { StoreHealth } from '../store/health.js';

export function registerHealth(app: FastifyInstance, health: StoreHealth): void {
  const quiet = { logLevel: 'warn' as const };
  app.get('/healthz', quiet, async (_req, reply) => reply.header('Cache-Control', 'no-store').send({ status: 'ok' }));
  app.get('/readyz', quiet, async (_req, reply) => {
    const { ready, reasons } = await health.readiness();
    reply.header('Cache-Control', 'no-store');
    if (ready) return reply.send({ status: 'ready' });
    return reply.code(503).header('Retry-After', String(DATABASE_RETRY_AFTER_S)).send({ status: 'unavailable', reasons });
  });
}
