import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateRequest } from './auth.js';
import type { AppContext } from './context.js';
import { API_PREFIX, Links, requestOrigin } from './links.js';

export type Handler = (req: FastifyRequest, reply: FastifyReply, links: Links) => Promise<FastifyReply | unknown>;
type Method = 'GET' | 'POST' | 'DELETE';

/**
 * Registers authenticated API routes under /api/2.0 and remembers each (method, path) so the not-found handler
 * can tell an unknown request (400 E40000) from a known path with the wrong method (405 E40500).
 */
export class Router {
  private readonly known: { method: Method; pattern: RegExp }[] = [];

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

  private add(method: Method, path: string, handler: Handler) {
    const pattern = new RegExp(`^${API_PREFIX.replace('.', '\\.')}${path.replace(/:[a-z_]+/gi, '[^/]+')}/?$`);
    this.known.push({ method, pattern });
    const ctx = this.ctx;
    this.app.route({
      method,
      url: API_PREFIX + path,
      async handler(req, reply) {
        await authenticateRequest(ctx, req, reply);
        return handler(req, reply, new Links(requestOrigin(req, ctx.config.trustProxy)));
      },
    });
  }

  /** Methods allowed on a path (empty when the path is unknown). */
  allowedMethods(path: string): Method[] {
    return this.known.filter((k) => k.pattern.test(path)).map((k) => k.method);
  }
}
