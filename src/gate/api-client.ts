/**
 * The gate's client of API 2.0 (the spec, and Webgauge's extensions where the server offers them): HTTP Basic with
 * the key, JSON:API bodies, the spec's errors turned into the API's own words. It knows nothing of Webgauge's
 * insides, so the gate works against any server of the API.
 */

/** The test could not be run: the server, the key, the URL or the test itself said no (exit code 2). */
export class GateError extends Error {}

export interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  links: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | undefined;
}

const JSON_API = 'application/vnd.api+json';

/** The API's root: a server's address alone gets the spec's prefix /api/2.0. */
export function apiRoot(server: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new GateError(`--server "${server}" is not a URL: give the service's address, e.g. https://webgauge.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new GateError(`--server "${server}" is not an http(s) URL`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = /\/api\/2\.0$/.test(path) ? path : `${path}/api/2.0`;
  url.search = '';
  url.hash = '';
  return url.toString();
}

/** "E40100 Invalid API key: detail" from an error body, or the status alone. */
export function apiErrorText(reply: Reply): string {
  const first = (reply.body?.errors as { code?: string; title?: string; detail?: string }[] | undefined)?.[0];
  if (!first) return `HTTP ${reply.status}`;
  return [`${reply.status} ${first.code ?? ''}`.trim(), first.title, first.detail].filter(Boolean).join(': ');
}

export function resourceOf(body: Record<string, unknown> | undefined): Resource {
  const data = body?.data as Partial<Resource> | undefined;
  if (!data || typeof data.id !== 'string') throw new GateError('the server answered without a JSON:API resource');
  return { id: data.id, type: String(data.type ?? ''), attributes: data.attributes ?? {}, links: data.links ?? {} };
}

export class ApiClient {
  readonly root: string;
  private readonly authorization: string;

  constructor(server: string, key: string) {
    this.root = apiRoot(server);
    if (!key) throw new GateError('no API key: give --key or set WEBGAUGE_KEY');
    this.authorization = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
  }

  /** One request; redirects are not followed (303 of a completed test is an answer). A network failure is a GateError. */
  async request(method: string, pathOrUrl: string, body?: unknown): Promise<Reply> {
    const url = /^https?:/.test(pathOrUrl) ? pathOrUrl : `${this.root}${pathOrUrl}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        redirect: 'manual',
        headers: { authorization: this.authorization, accept: JSON_API, ...(body === undefined ? {} : { 'content-type': JSON_API }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new GateError(`cannot reach ${this.root}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  /** A request that must succeed (2xx or 303); otherwise a GateError with the API's message. */
  async expect(method: string, pathOrUrl: string, body?: unknown): Promise<Reply> {
    const reply = await this.request(method, pathOrUrl, body);
    if (reply.status >= 400) {
      const hint = reply.status === 401 ? ' (check --key or WEBGAUGE_KEY)' : '';
      throw new GateError(`${method} ${pathOrUrl}: ${apiErrorText(reply)}${hint}`);
    }
    return reply;
  }

  /** A JSON resource of a report (`runs.json`...), or undefined when the server has none (404). */
  async reportResource(reportId: string, name: string): Promise<Record<string, unknown> | undefined> {
    const reply = await this.request('GET', `/reports/${encodeURIComponent(reportId)}/resources/${name}`);
    if (reply.status === 404) return undefined;
    if (reply.status >= 400) throw new GateError(`GET ${name}: ${apiErrorText(reply)}`);
    return reply.body;
  }
}
