/**
 * The beacon endpoint (issue 50, point 3): `POST /field/beacon/:siteId`, where the field snippet's visitors send one
 * beacon per page view. Public by nature (no API key), outside the API's prefix; core/field/ingest.ts holds every
 * rule. Answers: 204 once committed, or the spec's error (the snippet reads no answer; people and tests do).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { MAX_BEACON_BYTES, type FieldIngest } from '../core/field/ingest.js';
import { handleError, sendApiError, type ErrorHandling } from './errors.js';

export const BEACON_PATH = '/field/beacon';

export function registerFieldBeacon(app: FastifyInstance, ingest: FieldIngest, errors: ErrorHandling): void {
  // Errors answer as the API's do (JSON), never as the web app's page: no person reads them.
  const plain: ErrorHandling = { health: errors.health };
  const siteOf = (req: FastifyRequest) => (req.params as { siteId: string }).siteId;
  app.route({
    method: 'POST',
    url: `${BEACON_PATH}/:siteId`,
    bodyLimit: MAX_BEACON_BYTES,
    // Fastify refuses a larger body before the handler: counted for its site, answered 413; the rest as everywhere.
    errorHandler: (error, req, reply) => {
      if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendBeaconError(reply, ingest.tooLarge(siteOf(req)));
      return handleError(error as Error, req, reply, plain);
    },
    handler: async (req, reply) => {
      // The beacon is read by no page: no cookie is set, no answer is cached.
      reply.header('Cache-Control', 'no-store');
      try {
        await ingest.take({
          siteId: siteOf(req),
          origin: req.headers.origin,
          gpc: req.headers['sec-gpc'] === '1',
          userAgent: req.headers['user-agent'],
          address: req.ip,
          body: typeof req.body === 'string' ? req.body : undefined,
        });
      } catch (err) {
        if (err instanceof ApiError) return sendBeaconError(reply, err);
        throw err;
      }
      return reply.code(204).send();
    },
  });
}

function sendBeaconError(reply: FastifyReply, err: ApiError): FastifyReply {
  return sendApiError(reply.header('Cache-Control', 'no-store'), err);
}
