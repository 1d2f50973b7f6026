import type { ErrorCode } from '../../core/errors.js';

/**
 * The shape of one entry of the route schema registry (index.ts). Schemas are written in the OpenAPI 3.0
 * subset of JSON Schema (`nullable`, no `const`, no type arrays) so the same object validates requests (Ajv)
 * and goes into the OpenAPI document unchanged. The one exception is a querystring schema: it is never emitted
 * whole (its properties become parameters), so it may use `patternProperties`.
 */
export type JsonSchema = Record<string, unknown>;

export type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH';

/** `"<METHOD> <path as registered in the router>"`, e.g. `"GET /reports/:id/resources/:name"`. */
export type RouteKey = `${Method} /${string}`;

/** A documented response; documentation only: responses are never validated or serialized with it. */
export interface ResponseDoc {
  description: string;
  /** Media type → schema. */
  content?: Record<string, JsonSchema>;
  /** Header name → header object or `$ref` to `#/components/headers/...`. */
  headers?: Record<string, JsonSchema>;
}

export interface BodySpec {
  /** The JSON of the body once parsed (usually a `$ref` into the components). */
  schema: JsonSchema;
  /** Code of a schema failure of the envelope (the body, `data`, `data.type`...). */
  errorCode: ErrorCode;
  /** Failures under `attributesPath` take this code instead (defaults to `errorCode`). */
  attributesErrorCode?: ErrorCode;
  attributesPath?: string;
  /** What to send, appended to every detail: the user sees how to fix the body. */
  hint: string;
}

export interface RouteSchema {
  operationId: string;
  summary: string;
  description: string;
  /** OpenAPI tag names (groups). */
  tags: string[];
  /** Path parameters, an object schema whose properties are the `:name`s of the path. */
  params?: JsonSchema;
  /** Query parameters, an object schema over the query as server.ts parses it (repeated keys → arrays). */
  querystring?: JsonSchema;
  /** Code of a querystring failure (and of a params failure unless `paramsErrorCode` says otherwise). */
  validationErrorCode: ErrorCode;
  /** A path ID that fails its schema cannot exist: the route's not-found code, as the handler would answer. */
  paramsErrorCode?: ErrorCode;
  /**
   * The route's own query check, run when the querystring fails its schema: it throws the precise spec error
   * (E40005-E40008 with what is accepted). Only if it accepts the query does the schema's own error stand.
   */
  explainQuery?: (query: Record<string, string | string[]>) => void;
  /** The JSON:API body, checked where the handler reads it (body.ts), after its 404/403/415 checks. */
  body?: BodySpec;
  responses: Record<string, ResponseDoc>;
}
