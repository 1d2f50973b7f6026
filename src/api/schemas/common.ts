/**
 * Shared pieces of the route schemas: the JSON:API envelopes, the error object, response headers, error
 * responses by spec code, path ID parameters and the list query schema (from the same ListSpec tables that
 * core/list-query.ts parses with).
 */
import { ERRORS, type ErrorCode } from '../../core/errors.js';
import { ID_PATTERN, MAX_ID_LENGTH } from '../../core/ids.js';
import { OPS, isNumericType, type AttrSpec, type ListSpec } from '../../store/list-query.js';
import { MAX_PAGE_SIZE } from '../query.js';
import type { JsonSchema, ResponseDoc } from './types.js';

/** The media type of every JSON:API body (errors.ts has the same; imported from here it would be a cycle). */
export const JSONAPI = 'application/vnd.api+json';

/* ---------- small schema builders ---------- */

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const str = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...(description ? { description } : {}), ...extra });
export const int = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}), ...extra });
export const num = (description?: string): JsonSchema => ({ type: 'number', ...(description ? { description } : {}) });
export const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
export const strings = (description?: string): JsonSchema => ({ type: 'array', items: { type: 'string' }, ...(description ? { description } : {}) });
export const link = (description?: string): JsonSchema => str(description ?? 'absolute URL', { format: 'uri' });
export const obj = (properties: Record<string, JsonSchema>, required: string[] = [], extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  ...(required.length ? { required } : {}),
  properties,
  ...extra,
});

/** A JSON:API resource object `{type, id, attributes, links}` of one type. */
export function resource(type: string, attributes: JsonSchema, links: JsonSchema, description?: string): JsonSchema {
  return obj({ type: str(undefined, { enum: [type] }), id: str(`${type} ID`), attributes, links }, ['type', 'id', 'attributes'], description ? { description } : {});
}

/** `{data: <schema>, links?: {self}}`, the single-resource document. */
export const document = (data: JsonSchema): JsonSchema => obj({ data, links: ref('SelfLinks') }, ['data']);

/** A regular expression word matched case-insensitively without flags: "On" → "[oO][nN]". */
export function ci(word: string): string {
  return [...word].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c)).join('');
}

/**
 * Comma-separated items each matching `word`, with the leniency of query.ts: spaces around items, empty
 * items ignored (an all-empty value is refused by the parser, with its own code).
 */
export const commaList = (word: string): string => `^[\\s,]*(?:(?:${word})(?:\\s*,[\\s,]*(?:${word}))*[\\s,]*)?$`;

/* ---------- shared components ---------- */

export const COMMON_SCHEMAS: Record<string, JsonSchema> = {
  ErrorObject: obj(
    {
      status: str('the HTTP status code, as a string', { example: '404' }),
      code: str('the spec error code', { example: 'E40400' }),
      title: str('short, fixed title of the code'),
      detail: str('what went wrong and how to fix it'),
    },
    ['status', 'code', 'title'],
  ),
  Error: obj({ errors: { type: 'array', minItems: 1, items: ref('ErrorObject') } }, ['errors'], {
    description: 'Every response of status 400 or more: a non-empty `errors` array.',
  }),
  SelfLinks: obj({ self: link() }, ['self']),
  ListLinks: obj({ self: link(), prev: link('previous page; absent on the first'), next: link('next page; absent on the last') }, ['self']),
  ListMeta: obj({ curr_page: str('current page number, as a string', { example: '1' }) }, ['curr_page']),
  Deleted: obj(
    { data: obj({ type: str('report, page or tag'), id: str() }, ['type', 'id'], { additionalProperties: false }) },
    ['data'],
    { description: 'Answer of a DELETE: only the type and ID of what was deleted.' },
  ),
};

export const HEADERS: Record<string, JsonSchema> = {
  Location: { description: 'absolute URL inside /api/2.0 on the same origin', schema: str() },
  RetryAfter: { description: 'whole seconds; sent only while the test is queued or started', schema: str(undefined, { pattern: '^\\d+$' }) },
  CacheControl: { description: 'reports and their resources never change: `max-age=31536000`', schema: str() },
  RateLimitLimit: { description: '`<quota>, <quota>;window=<seconds>`', schema: str(undefined, { example: '960, 960;window=60' }) },
  RateLimitRemaining: { description: 'requests left in the current window', schema: str(undefined, { pattern: '^\\d+$' }) },
  RateLimitReset: { description: 'seconds until the window ends (an integer)', schema: str(undefined, { pattern: '^\\d+$' }) },
  WWWAuthenticate: { description: 'the Basic challenge', schema: str(undefined, { example: 'Basic realm="Webgauge API"' }) },
};

/** A reference to a header of the components; a required one is written out (a `$ref` takes no siblings). */
const header = (name: string, required = false): JsonSchema => (required ? { ...HEADERS[name], required: true } : { $ref: `#/components/headers/${name}` });
const RATE_HEADERS = { 'X-RateLimit-Limit': header('RateLimitLimit'), 'X-RateLimit-Remaining': header('RateLimitRemaining'), 'X-RateLimit-Reset': header('RateLimitReset') };

/* ---------- responses ---------- */

export interface OkOptions {
  location?: boolean;
  retryAfter?: boolean;
  cache?: boolean;
  /** Media types other than JSON:API, each with its schema. */
  content?: Record<string, JsonSchema>;
}

/** A success response with the rate-limit headers every authenticated answer carries. */
export function ok(description: string, schema: JsonSchema | undefined, o: OkOptions = {}): ResponseDoc {
  const headers: Record<string, JsonSchema> = { ...RATE_HEADERS };
  if (o.location) headers.Location = header('Location', true);
  if (o.retryAfter) headers['Retry-After'] = header('RetryAfter');
  if (o.cache) headers['Cache-Control'] = header('CacheControl');
  const content = o.content ?? (schema ? { [JSONAPI]: schema } : undefined);
  return { description, headers, ...(content ? { content } : {}) };
}

/** Error codes that any authenticated endpoint may answer (spec 5, 7, 8). */
const COMMON_CODES: ErrorCode[] = ['E40100', 'E40300', 'E42901', 'E50000'];

/** One response per HTTP status, listing its spec codes; the common authentication and limit errors added. */
export function errors(...codes: ErrorCode[]): Record<string, ResponseDoc> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of [...codes, ...COMMON_CODES]) {
    const list = byStatus.get(ERRORS[c].status) ?? [];
    if (!list.includes(c)) list.push(c);
    byStatus.set(ERRORS[c].status, list);
  }
  const out: Record<string, ResponseDoc> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Record<string, JsonSchema> = {};
    if (status === 401) headers['WWW-Authenticate'] = header('WWWAuthenticate');
    if (status === 429) Object.assign(headers, RATE_HEADERS, { 'Retry-After': header('RetryAfter') });
    out[String(status)] = {
      description: list.map((c) => `${c}: ${ERRORS[c].title}`).join('; '),
      content: { [JSONAPI]: ref('Error') },
      ...(Object.keys(headers).length ? { headers } : {}),
    };
  }
  return out;
}

/* ---------- parameters ---------- */

export function idParams(description: string, extra: Record<string, JsonSchema> = {}): JsonSchema {
  const id = str(`${description}: up to ${MAX_ID_LENGTH} characters, none of them a control character`, {
    minLength: 1,
    maxLength: MAX_ID_LENGTH,
    pattern: ID_PATTERN,
  });
  return obj({ id, ...extra }, ['id', ...Object.keys(extra)]);
}

/** A query value as server.ts leaves it: a string, or an array when the key is repeated. */
export const queryValue = (description: string, pattern?: string): JsonSchema => {
  const one = pattern ? str(undefined, { pattern }) : str();
  return { description, anyOf: [one, { type: 'array', items: one }] };
};

const NUMBER = '-?\\d+(?:\\.\\d+)?';

/** Filter values shared by many list parameters, as components (the report list has some 180 filter keys). */
export const QUERY_SCHEMAS: Record<string, JsonSchema> = {
  FilterTime: queryValue('Unix time in seconds; several comma-separated or repeated: any of them', commaList('-?\\d+')),
  FilterNumber: queryValue('a number; several comma-separated or repeated: any of them', commaList(NUMBER)),
};

function filterValue(name: string, a: AttrSpec): JsonSchema {
  switch (a.type) {
    case 'enum': {
      const words = [...(a.values ?? []), ...Object.keys(a.aliases ?? {})];
      return queryValue(`one of ${words.join(', ')} (any case); several comma-separated or repeated: any of them`, commaList(words.map(ci).join('|')));
    }
    case 'time':
      return ref('FilterTime');
    case 'int':
    case 'number':
      return ref('FilterNumber');
    case 'fuzzy':
      return queryValue(`part of the ${name}, case-insensitive`);
    case 'tag':
      return queryValue('tag IDs, comma-separated or repeated (up to 500): pages having all of them, or any with filter[:bool]=OR');
    default:
      return queryValue(`${name} ID; several comma-separated or repeated: any of them`);
  }
}

/**
 * The query of a list endpoint (spec 4.1, 4.3), from the table query.ts parses with: `sort`, `page[size]`,
 * `page[number]`, `filter[:bool]` and one `filter[attr]` / `filter[attr:op]` per filterable attribute. Operators
 * are matched in any case, as the parser does (patternProperties, not documented as separate parameters).
 */
export function listQuerySchema(spec: ListSpec, defaultSort: string): JsonSchema {
  const attrs = Object.entries(spec.attrs as Record<string, AttrSpec>);
  const sortable = attrs.filter(([, a]) => a.sort).map(([k]) => k);
  const properties: Record<string, JsonSchema> = {
    sort: queryValue(
      `${sortable.join(', ')}; "-" before a name for descending; several comma-separated or repeated; default ${defaultSort}`,
      commaList(`-?\\s*(?:${sortable.join('|')})`),
    ),
    'page[size]': str(`items per page, 1 to ${MAX_PAGE_SIZE}; default ${spec.defaultPageSize}`, { pattern: '^\\s*\\d{1,10}\\s*$' }),
    'page[number]': str('page number, from 1', { pattern: '^\\s*\\d{1,10}\\s*$' }),
    'filter[:bool]': queryValue('AND (default) or OR: how the filters combine; needs at least one other filter', commaList(`${ci('and')}|${ci('or')}`)),
  };
  const patternProperties: Record<string, JsonSchema> = {};
  for (const [name, a] of attrs.filter(([, x]) => x.filter)) {
    const value = filterValue(name, a);
    properties[`filter[${name}]`] = value;
    const ops = isNumericType(a.type) ? OPS : (['eq'] as const);
    if (isNumericType(a.type)) for (const op of OPS) properties[`filter[${name}:${op}]`] = value;
    patternProperties[`^filter\\[${name}(?::(?:${ops.map(ci).join('|')}))?\\]$`] = value;
  }
  return { type: 'object', properties, patternProperties, additionalProperties: false };
}
