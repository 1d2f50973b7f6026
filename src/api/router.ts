import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { ErrorObject } from 'ajv';
import { authenticateRequest } from './auth.js';
import type { AppContext } from '../context/app-context.js';
import { API_PREFIX, Links } from '../context/links.js';
import { routeKey, routeSchema, type Method, type RouteSchema } from './schemas/index.js';
import { requestValidationError } from './validation.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's key in the schema registry (body.ts finds the body schema with it). */
    routeKey?: string;
  }
}

export type Handler = (req: FastifyRequest, reply: FastifyReply, links: Links) => Promise<FastifyReply | unknown>;

export interface RegisteredRoute {
  method: Method;
  /** As registered, relative to /api/2.0, with `:name` parameters. */
  path: string;
  key: string;
  schema: RouteSchema;
}

/** What Fastify gets of a registry entry: the request schemas it validates, and the descriptive fields. */
function fastifySchema(s: RouteSchema): FastifySchema {
  const out: FastifySchema = { summary: s.summary, description: s.description, tags: s.tags, operationId: s.operationId } as FastifySchema;
  if (s.params) out.params = s.params;
  if (s.querystring) out.querystring = s.querystring;
  return out;
}

/**
 * Registers authenticated API routes under /api/2.0 and remembers each (method, path) so the not-found handler
 * can tell an unknown request (400 E40000) from a known path with the wrong method (405 E40500).
 *
 * Every route must have an entry in the schema registry (schemas/index.ts); registering one without throws.
 * Fastify validates params and querystring with it but only attaches the failure: the request is authenticated
 * first (401/403/429 come before any 400, as always), then a failure becomes the route's spec error. Bodies are
 * validated where the handler reads them (body.ts), so 404/403/415 checks keep their order.
 */
export class Router {
  private readonly known: { method: Method; pattern: RegExp }[] = [];
  private readonly registered: RegisteredRoute[] = [];

  constructor(
    private readonly app: FastifyInstance,
    private readonly ctx: AppContext,
  ) {}

  get(path: string, h: Handler) {
    this.add('GET', path, h);
  }
  post(path: string, h: Handler) {
    this.add('POST', path, h);
  }
  delete(path: string, h: Handler) {
    this.add('DELETE', path, h);
  }
  /** A partial update (Webgauge's own resources; the spec's update with POST). */
  patch(path: string, h: Handler) {
    this.add('PATCH', path, h);
  }

  private add(method: Method, path: string, handler: Handler) {
    const key = routeKey(method, path);
    const schema = routeSchema(key);
    if (!schema) {
      throw new Error(`Route "${key}" has no entry in the route schema registry (src/api/schemas): add its schema there to register it.`);
    }
    const pattern = new RegExp(`^${API_PREFIX.replace('.', '\\.')}${path.replace(/:[a-z_]+/gi, '[^/]+')}/?$`);
    this.known.push({ method, pattern });
    this.registered.push({ method, path, key, schema });
    const ctx = this.ctx;
    this.app.route({
      method,
      url: API_PREFIX + path,
      schema: fastifySchema(schema),
      attachValidation: true,
      config: { routeKey: key },
      async handler(req, reply) {
        await authenticateRequest(ctx, req, reply);
        if (req.validationError) {
          const err = req.validationError as Error & { validation?: ErrorObject[]; validationContext?: string };
          const part = err.validationContext;
          const data = part === 'params' ? req.params : req.query;
          // The route's own query parser explains a list query precisely (E40005-E40008); the schema's error otherwise.
          if (part === 'querystring') schema.explainQuery?.(data as Record<string, string | string[]>);
          throw requestValidationError(schema, part, err.validation ?? [], data);
        }
        return handler(req, reply, new Links(req, ctx.config));
      },
    });
  }

  /** Methods allowed on a path (empty when the path is unknown). */
  allowedMethods(path: string): Method[] {
    return this.known.filter((k) => k.pattern.test(path)).map((k) => k.method);
  }

  /** Every route registered so far, in registration order (the OpenAPI document is built from these). */
  routes(): readonly RegisteredRoute[] {
    return this.registered;
  }
}
