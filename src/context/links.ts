import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

export const API_PREFIX = '/api/2.0';

/**
 * The base of every absolute link (COMPAT: every link is absolute): the operator's WEBGAUGE_PUBLIC_URL when set,
 * else the request's own scheme, host and port. Forwarded headers count only when the operator trusts the proxy.
 */
export function linkOrigin(req: FastifyRequest, config: Pick<Config, 'publicUrl' | 'trustProxy'>): string {
  return config.publicUrl ?? requestOrigin(req, config.trustProxy);
}

function requestOrigin(req: FastifyRequest, trustProxy: boolean): string {
  const fwdProto = trustProxy ? firstHeader(req.headers['x-forwarded-proto']) : undefined;
  const fwdHost = trustProxy ? firstHeader(req.headers['x-forwarded-host']) : undefined;
  const proto = fwdProto ?? ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
  const host = fwdHost ?? req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`;
  return `${proto}://${host}`;
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  const first = s?.split(',')[0]?.trim();
  return first || undefined;
}

/** Link builder bound to one request (one per request: methods on the prototype, nothing built per instance). */
export class Links {
  readonly origin: string;
  readonly api: string;
  /** Whether the origin is the operator's (WEBGAUGE_PUBLIC_URL) rather than taken from the request. */
  private readonly fixed: boolean;
  /** From a request, or (`{origin}`) for what is built outside one: webhook payloads and e-mails. */
  constructor(req: FastifyRequest | { origin: string }, config: Pick<Config, 'publicUrl' | 'trustProxy'>) {
    this.origin = 'raw' in req ? linkOrigin(req, config) : req.origin;
    this.fixed = config.publicUrl !== undefined;
    this.api = this.origin + API_PREFIX;
  }
  test(id: string): string {
    return `${this.api}/tests/${id}`;
  }
  report(id: string): string {
    return `${this.api}/reports/${id}`;
  }
  resource(id: string, name: string): string {
    return `${this.api}/reports/${id}/resources/${name}`;
  }
  page(id: string): string {
    return `${this.api}/pages/${id}`;
  }
  location(id: string): string {
    return `${this.api}/locations/${id}`;
  }
  browser(id: string): string {
    return `${this.api}/browsers/${id}`;
  }
  reportPage(id: string): string {
    return `${this.origin}/reports/${id}`;
  }
  /**
   * The report page's URL for a body kept across requests (a stored PDF): absolute only when the origin is the
   * operator's; else the path alone, so that a forged Host never ends up in what another request is served.
   */
  keptReportPage(id: string): string {
    return this.fixed ? this.reportPage(id) : `/reports/${id}`;
  }
}
