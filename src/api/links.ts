import type { FastifyRequest } from 'fastify';

export const API_PREFIX = '/api/2.0';

/**
 * Absolute origin of the request (COMPAT: every link is absolute, built from the request's own scheme, host
 * and port). Forwarded headers count only when the operator trusts the proxy.
 */
export function requestOrigin(req: FastifyRequest, trustProxy: boolean): string {
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

/** Link builder bound to one request. */
export class Links {
  readonly api: string;
  constructor(readonly origin: string) {
    this.api = origin + API_PREFIX;
  }
  test = (id: string) => `${this.api}/tests/${id}`;
  report = (id: string) => `${this.api}/reports/${id}`;
  resource = (id: string, name: string) => `${this.api}/reports/${id}/resources/${name}`;
  page = (id: string) => `${this.api}/pages/${id}`;
  location = (id: string) => `${this.api}/locations/${id}`;
  browser = (id: string) => `${this.api}/browsers/${id}`;
  reportPage = (id: string) => `${this.origin}/reports/${id}`;
}
