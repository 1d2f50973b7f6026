import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorObject } from 'ajv';
import { ApiError, ERRORS, outageError, type ErrorCode } from '../core/errors.js';
import { JSONAPI } from './schemas/common.js';
import { routeSchema } from './schemas/index.js';
import { requestValidationError } from './validation.js';
import { SecretKeyError } from '../store/secret-box.js';
import { outageOf, type StoreHealth } from '../store/health.js';
import { API_PREFIX } from '../context/links.js';

export { JSONAPI };

export function errorBody(code: ErrorCode, detail?: string) {
  const e = ERRORS[code];
  const item: Record<string, string> = { status: String(e.status), code, title: e.title };
  if (detail) item.detail = detail;
  return { errors: [item] };
}

/** The largest request body read (server.ts); larger ones are 413 E41300. */
export const BODY_LIMIT = 1024 * 1024;

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over Node's 16 KiB, a malformed request,
 * a request that does not arrive in time) are answered with the spec's error body all the same. The path is not
 * known at this point, so every such answer is the API's JSON error, then the connection is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, detail]: [ErrorCode, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? ['E43100', 'The request line and headers are over 16 KiB together; shorten the URL (fewer filter values) or the headers.']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['E40800', 'The request did not arrive in time; send it again.']
        : ['E40000', `The HTTP request could not be parsed (${err.code ?? 'malformed request'}); send a well-formed HTTP/1.1 request.`];
  const status = ERRORS[code].status;
  const body = JSON.stringify(errorBody(code, detail));
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSONAPI}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  // Headers set for the success this is not (a year of caching, an ETag, a file name) must not describe an error.
  for (const h of ['cache-control', 'etag', 'content-disposition']) reply.removeHeader(h);
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.status).type(JSONAPI).send(errorBody(err.code, err.detail));
}

/** How the web app shows an error the API would answer (its page, in its shell); given by the composition (app.ts). */
export type ErrorPage = (reply: FastifyReply, err: ApiError) => FastifyReply;

/** Settings of the one error handler: where outages are said (once), and the web app's error page. */
export interface ErrorHandling {
  health?: StoreHealth;
  errorPage?: ErrorPage;
}

/** Outside the API's path, a person's browser asked: the web app's page, when there is one. */
function sendError(request: FastifyRequest, reply: FastifyReply, err: ApiError, o: ErrorHandling): FastifyReply {
  const path = request.url.split('?')[0];
  if (o.errorPage && path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) {
    for (const h of ['cache-control', 'etag', 'content-disposition']) reply.removeHeader(h);
    for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
    return o.errorPage(reply, err);
  }
  return sendApiError(reply, err);
}

/**
 * The one error handler: spec errors as they are; the database away or the disk full, 503 with Retry-After (said
 * once in the log by the store's health, not here); Fastify's own request errors mapped to spec codes; anything else
 * is a 500 E50000 logged with the request ID (the logger redacts credentials).
 */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply, o: ErrorHandling = {}): FastifyReply {
  if (error instanceof ApiError) return sendError(request, reply, error, o);
  const outage = outageOf(error);
  if (outage) {
    if (!o.health?.noticed(error)) request.log.warn({ reqId: request.id, outage }, 'request met an outage');
    return sendError(request, reply, outageError(outage), o);
  }
  if (error instanceof SecretKeyError) {
    // The operator's configuration, not the request: still a spec error that says what is wrong.
    request.log.error({ err: error }, 'stored secrets cannot be decrypted');
    return sendApiError(reply, new ApiError('E50000', `This resource holds the test's cookies or HTTP auth password, ` +
      `which this server cannot decrypt: ${error.message}. The operator must restore the service's secret key.`));
  }
  const fe = error as FastifyError;
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendApiError(reply, new ApiError('E41500', 'Send the body with Content-Type: application/vnd.api+json.'));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return sendApiError(reply, new ApiError('E40002', 'The request body is empty or its length is wrong; send a JSON:API document.'));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendApiError(reply, new ApiError('E41300', `The request body is larger than ${BODY_LIMIT / 1024 / 1024} MiB; a JSON:API document here is a few KiB.`));
    case 'FST_ERR_VALIDATION': {
      // Routes attach their validation errors (router.ts); should one escape, it still gets the route's code.
      const route = routeSchema(request.routeOptions.config.routeKey ?? '');
      if (route) {
        const v = fe as FastifyError & { validation?: ErrorObject[] };
        const data = fe.validationContext === 'params' ? request.params : request.query;
        return sendApiError(reply, requestValidationError(route, fe.validationContext, v.validation ?? [], data));
      }
    }
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    request.log.info({ err: error }, 'client error');
    return sendApiError(reply, new ApiError('E40000', error.message));
  }
  request.log.error({ err: error, reqId: request.id }, 'unexpected error');
  return sendError(request, reply, new ApiError('E50000', `Unexpected error; quote request ID ${request.id} to the operator.`), o);
}
