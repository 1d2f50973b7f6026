import type { FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';

/**
 * The body of a POST that must be JSON:API: Content-Type checked (415 E41500), JSON parsed (400 E40002).
 * The raw body is collected by the catch-all content parser in server.ts, so every content type reaches here.
 */
export function jsonApiBody(req: FastifyRequest): unknown {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/vnd.api+json') {
    throw new ApiError(
      'E41500',
      type ? `Content-Type "${type}" is not accepted; send application/vnd.api+json.` : 'Send the body with Content-Type: application/vnd.api+json.',
    );
  }
  const raw = typeof req.body === 'string' ? req.body : '';
  if (raw.trim() === '') throw new ApiError('E40002', 'The request body is empty; send a JSON:API document {"data": {...}}.');
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new ApiError('E40002', `The request body is not valid JSON: ${(err as Error).message}`);
  }
}
