import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import { ApiError, ERRORS, type ErrorCode } from '../core/errors.js';
import { JSONAPI } from './schemas/common.js';
import { routeSchema } from './schemas/index.js';
import { requestValidationError } from './validation.js';

export { JSONAPI };

export function errorBody(code: ErrorCode, detail?: string) {
  const e = ERRORS[code];
  const item: Record<string, string> = { status: String(e.status), code, title: e.title };
  if (detail) item.detail = detail;
  return { errors: [item] };
}

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.status).type(JSONAPI).send(errorBody(err.code, err.detail));
}

/**
 * The one error handler: spec errors as they are; Fastify's own request errors mapped to spec codes;
 * anything else is a 500 E50000 logged with the request ID (the logger redacts credentials).
 */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ApiError) return sendApiError(reply, error);
  const fe = error as FastifyError;
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendApiError(reply, new ApiError('E41500', 'Send the body with Content-Type: application/vnd.api+json.'));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return sendApiError(reply, new ApiError('E40002', 'The request body is empty or its length is wrong; send a JSON:API document.'));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendApiError(reply, new ApiError('E40002', 'The request body is larger than 1 MiB.'));
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
  return sendApiError(reply, new ApiError('E50000', `Unexpected error; quote request ID ${request.id} to the operator.`));
}
