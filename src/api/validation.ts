/**
 * Request validation with the route schemas of the registry (schemas/index.ts), and the mapping of every
 * schema failure to the spec error of its route with a detail that says what is wrong and what is accepted.
 *
 * One Ajv for all request schemas: no type coercion, no defaults, nothing removed, so handlers see the
 * request exactly as the client sent it (the API is lenient on purpose and its own parsers normalise).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ApiError, show as shown, type ErrorCode } from '../core/errors.js';
import { COMPONENT_SCHEMAS, routeSchema, type JsonSchema, type RouteSchema } from './schemas/index.js';

export const ajv = new Ajv({
  allErrors: false,
  strict: true,
  verbose: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  validateFormats: false,
  // List queries document `filter[created:gt]` as a property and match `filter[created:GT]` by pattern too.
  allowMatchingProperties: true,
});
// OpenAPI annotations that JSON Schema does not know.
ajv.addVocabulary(['example']);

/** The schema with every `#/components/schemas/X` reference replaced by the component (none is recursive). */
export function inlineRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inlineRefs);
  if (typeof schema !== 'object' || schema === null) return schema;
  const s = schema as JsonSchema;
  if (typeof s.$ref === 'string') {
    const name = /^#\/components\/schemas\/(.+)$/.exec(s.$ref)?.[1];
    const target = name === undefined ? undefined : COMPONENT_SCHEMAS[name];
    if (!target) throw new Error(`unresolved schema reference ${s.$ref}`);
    return inlineRefs(target);
  }
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, inlineRefs(v)]));
}

/** Fastify's validator compiler: params and querystring of every route. */
export function compileRequestSchema({ schema }: { schema: unknown }): ValidateFunction {
  return ajv.compile(inlineRefs(schema) as JsonSchema);
}

/* ---------- details ---------- */

export type RequestPart = 'params' | 'querystring' | 'body';

/** A value the client sent, quoted as every error detail quotes one (core/errors.ts); "nothing" when absent. */
const show = (v: unknown): string => (v === undefined ? 'nothing' : shown(v));

const segments = (pointer: string) => pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

function valueAt(data: unknown, pointer: string): unknown {
  let v = data;
  for (const seg of segments(pointer)) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[seg] : undefined;
  return v;
}

/** How the user names the place: `data.attributes.url`, `page_ids[2]`, query parameter `page[size]`, path parameter `id`. */
function place(part: RequestPart, pointer: string, child?: string): string {
  const segs = child === undefined ? segments(pointer) : [...segments(pointer), child];
  if (part === 'querystring') return segs.length ? `query parameter ${segs[0]}` : 'the query';
  if (part === 'params') return segs.length ? `path parameter ${segs[0]}` : 'the path';
  if (segs.length === 0) return 'the body';
  return segs.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

const article = (type: string) => (type === 'integer' || type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`);

/** One sentence for the most telling Ajv error (the last one: for anyOf, the anyOf itself, not a branch). */
export function describeSchemaError(part: RequestPart, errors: readonly ErrorObject[], data: unknown): { message: string; pointer: string } {
  const e = errors[errors.length - 1];
  const pointer = e.instancePath;
  const at = place(part, pointer);
  const value = 'data' in e ? e.data : valueAt(data, pointer);
  const p = e.params as Record<string, unknown>;
  const described = (e.parentSchema as JsonSchema | undefined)?.description;
  const accepted = typeof described === 'string' ? described : undefined;
  switch (e.keyword) {
    case 'required': {
      const missing = String(p.missingProperty);
      return { message: `${place(part, pointer, missing)} is required`, pointer: `${pointer}/${missing}` };
    }
    case 'additionalProperties':
      return {
        message: part === 'querystring' ? `unknown query parameter "${String(p.additionalProperty)}"` : `${at} has an unknown member "${String(p.additionalProperty)}"`,
        pointer,
      };
    case 'type':
      return { message: `${at} must be ${article(String(p.type))}, not ${show(value)}`, pointer };
    case 'enum':
      return { message: `${at} must be ${(p.allowedValues as unknown[]).map(show).join(' or ')}, not ${show(value)}`, pointer };
    case 'anyOf':
    case 'oneOf':
    case 'pattern':
      return { message: `${at} does not accept ${show(value)}${accepted ? `: ${accepted}` : e.keyword === 'pattern' ? `: it must match ${String(p.pattern)}` : ''}`, pointer };
    case 'minItems':
    case 'maxItems':
      return { message: `${at} has ${Array.isArray(value) ? value.length : '?'} items; ${e.keyword === 'minItems' ? 'at least' : 'at most'} ${String(p.limit)} are accepted`, pointer };
    case 'minLength':
    case 'maxLength':
      return { message: `${at} must have ${e.keyword === 'minLength' ? 'at least' : 'at most'} ${String(p.limit)} characters`, pointer };
    default:
      return { message: `${at} ${e.message ?? 'is not valid'}; got ${show(value)}`, pointer };
  }
}

/** A params or querystring failure (Fastify's validation error) as the route's spec error. */
export function requestValidationError(route: RouteSchema, part: string | undefined, errors: readonly ErrorObject[], data: unknown): ApiError {
  const p: RequestPart = part === 'params' ? 'params' : 'querystring';
  const code: ErrorCode = p === 'params' ? (route.paramsErrorCode ?? route.validationErrorCode) : route.validationErrorCode;
  return new ApiError(code, `${describeSchemaError(p, errors, data).message}.`);
}

/* ---------- bodies ---------- */

/** JSON:API bodies of this API are a handful of levels deep; deeper ones are refused before anything walks them. */
export const MAX_BODY_DEPTH = 32;

/** Every string and key of a parsed body with its JSON pointer, walked without recursion (any depth is safe). */
function* stringsIn(body: unknown): Generator<[string, string]> {
  const stack: [unknown, string][] = [[body, '']];
  while (stack.length > 0) {
    const [v, pointer] = stack.pop()!;
    if (typeof v === 'string') yield [v, pointer];
    if (typeof v !== 'object' || v === null) continue;
    for (const [k, child] of Object.entries(v)) {
      const at = `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      yield [k, at];
      stack.push([child, at]);
    }
  }
}

/** Nesting depth of a parsed JSON value (a scalar is 0, `[]` is 1), counted without recursion, up to `limit` + 1. */
export function jsonDepth(value: unknown, limit = MAX_BODY_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

const bodyValidators = new Map<string, ValidateFunction>();

/**
 * Check a parsed JSON:API body against its route's schema; undefined when it conforms, else the spec error
 * (the route's body code, or its attributes code for a failure inside the attributes).
 */
export function checkBody(key: string, body: unknown): ApiError | undefined {
  const route = routeSchema(key);
  if (!route?.body) throw new Error(`route ${key} reads a JSON:API body but its registry entry has no body schema`);
  let validate = bodyValidators.get(key);
  if (!validate) {
    validate = ajv.compile(inlineRefs(route.body.schema) as JsonSchema);
    bodyValidators.set(key, validate);
  }
  const { attributesPath, attributesErrorCode, errorCode, hint } = route.body;
  const refuse = (message: string, pointer: string) => {
    const inAttributes = attributesPath !== undefined && pointer.startsWith(`${attributesPath}/`);
    return new ApiError(inAttributes ? (attributesErrorCode ?? errorCode) : errorCode, `${message}; ${hint}`);
  };
  if (!validate(body)) {
    const { message, pointer } = describeSchemaError('body', validate.errors ?? [], body);
    return refuse(message, pointer);
  }
  // No stored text holds NUL (PostgreSQL cannot), so a body with one anywhere is refused whatever the schema says.
  for (const [s, pointer] of stringsIn(body)) {
    if (s.includes('\u0000')) return refuse(`${place('body', pointer)} contains a NUL character (\\u0000); remove it`, pointer);
  }
  return undefined;
}
