import type { FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { checkBody, jsonDepth, MAX_BODY_DEPTH } from './validation.js';

/**
 * The body of a POST that must be JSON:API: Content-Type checked (415 E41500), JSON parsed and its depth bounded
 * (400 E40002), validated against the route's body schema, then handed to `parse`, the domain parser that normalises it.
 * The raw body is collected by the catch-all content parser in server.ts, so every content type reaches here.
 *
 * When the schema refuses the body, the domain parser runs first all the same: it refuses it too, with its
 * precise spec code and wording (E40003/E40004 for a test option, E40009 for a tag name...), and that error
 * stands. The schema's own error is answered only when the domain parser would have let the body through.
 */
export function jsonApiBody<T>(req: FastifyRequest, parse: (body: unknown) => T): T {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/vnd.api+json') {
    throw new ApiError(
      'E41500',
      type ? `Content-Type "${type}" is not accepted; send application/vnd.api+json.` : 'Send the body with Content-Type: application/vnd.api+json.',
    );
  }
  const raw = typeof req.body === 'string' ? req.body : '';
  if (raw.trim() === '') throw new ApiError('E40002', 'The request body is empty; send a JSON:API document {"data": {...}}.');
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (err) {
    throw new ApiError('E40002', `The request body is not valid JSON: ${(err as Error).message}`);
  }
  // Before anything walks it: validation, the domain parsers and error details all recurse.
  if (jsonDepth(body) > MAX_BODY_DEPTH) {
    throw new ApiError('E40002', `The JSON body is nested deeper than ${MAX_BODY_DEPTH} levels; a JSON:API document here needs no more than a few.`);
  }
  const key = req.routeOptions.config.routeKey;
  if (key === undefined) throw new Error('jsonApiBody used on a route the router did not register');
  const refusal = checkBody(key, body);
  const parsed = parse(body);
  if (refusal) throw refusal;
  return parsed;
}
