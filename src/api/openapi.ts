/**
 * The OpenAPI 3.0.2 description of the API (spec 1.7, 9), built from the routes the router registered and their
 * entries in the schema registry: the same params, querystring and body schemas that validate requests, plus
 * the documented responses. Served without authentication at GET /api/2.0/openapi.json.
 */
import { JSONAPI } from './errors.js';
import { API_PREFIX } from '../context/links.js';
import type { RegisteredRoute } from './router.js';
import { API_TAGS, COMPONENT_HEADERS, COMPONENT_SCHEMAS, type JsonSchema, type RouteSchema } from './schemas/index.js';

export const OPENAPI_VERSION = '3.0.2';

/** `/reports/:id/resources/:name` → `/reports/{id}/resources/{name}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_]+)/g, '{$1}');

const propertiesOf = (s: JsonSchema | undefined) => ((s?.properties ?? {}) as Record<string, JsonSchema>);

function split(s: JsonSchema): { description?: string; schema: JsonSchema } {
  const { description, ...schema } = s;
  return typeof description === 'string' ? { description, schema } : { schema };
}

/**
 * Path parameters, then query parameters. `filter[attr]` / `filter[attr:op]` keys become one `filter`
 * parameter in deepObject style, which serializes to exactly those keys.
 */
function parameters(route: RouteSchema): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [name, s] of Object.entries(propertiesOf(route.params))) out.push({ name, in: 'path', required: true, ...split(s) });
  const filter: Record<string, JsonSchema> = {};
  for (const [name, s] of Object.entries(propertiesOf(route.querystring))) {
    const m = /^filter\[(.+)\]$/.exec(name);
    if (m) filter[m[1]] = s;
    else out.push({ name, in: 'query', required: false, ...split(s) });
  }
  if (Object.keys(filter).length > 0) {
    out.push({
      name: 'filter',
      in: 'query',
      required: false,
      style: 'deepObject',
      explode: true,
      description:
        'filter[attribute]=value, or filter[attribute:op]=value with op eq, lt, lte, gt or gte (any case) on numeric attributes; ' +
        'several values comma-separated or repeated match any of them; filter[:bool] AND (default) or OR combines the names.',
      schema: { type: 'object', properties: filter, additionalProperties: false },
    });
  }
  return out;
}

function operation(route: RegisteredRoute): JsonSchema {
  const s = route.schema;
  const op: JsonSchema = { operationId: s.operationId, summary: s.summary, description: s.description, tags: s.tags };
  const params = parameters(s);
  if (params.length > 0) op.parameters = params;
  if (s.body) op.requestBody = { required: true, content: { [JSONAPI]: { schema: s.body.schema } } };
  op.responses = Object.fromEntries(
    Object.entries(s.responses).map(([status, r]) => {
      const res: JsonSchema = { description: r.description };
      if (r.headers) res.headers = r.headers;
      if (r.content) res.content = Object.fromEntries(Object.entries(r.content).map(([type, schema]) => [type, { schema }]));
      return [status, res];
    }),
  );
  return op;
}

const built = new WeakMap<readonly RegisteredRoute[], JsonSchema>();

function build(routes: readonly RegisteredRoute[]): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const r of routes) (paths[openApiPath(r.path)] ??= {})[r.method.toLowerCase()] = operation(r);
  const doc = {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Webgauge API',
      version: '2.0',
      description:
        'Web page performance testing: start tests, read reports and pages, group pages with tags. ' +
        'Every endpoint takes HTTP Basic authentication with the API key as the user name and an empty password. ' +
        'Bodies are JSON:API (Content-Type application/vnd.api+json); every error answers {errors:[{status, code, title, detail}]}.',
    },
    security: [{ basicAuth: [] }],
    tags: API_TAGS,
    paths,
    components: {
      securitySchemes: { basicAuth: { type: 'http', scheme: 'basic', description: 'API key as the user name, empty password.' } },
      schemas: COMPONENT_SCHEMAS,
      headers: COMPONENT_HEADERS,
    },
  };
  // A plain copy: nothing shared with the live route schemas.
  return structuredClone(doc);
}

/** The document for a request from `origin` (the server URL is the request's own, as links are). */
export function openApiDocument(routes: readonly RegisteredRoute[], origin: string): JsonSchema {
  let doc = built.get(routes);
  if (!doc) {
    doc = build(routes);
    built.set(routes, doc);
  }
  const { openapi, info, ...rest } = doc;
  return { openapi, info, servers: [{ url: `${origin}${API_PREFIX}`, description: 'this server' }], ...rest };
}
