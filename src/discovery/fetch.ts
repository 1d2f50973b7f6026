/**
 * Discovery's one way to fetch text from a site, held to the rules of a test's browser: each hop's host is resolved
 * (the test's `dns` entries included) and every address judged by the target policy, and the connection goes to the
 * address that was judged (no second lookup for DNS rebinding to answer). Redirects are followed by hand, at most
 * MAX_REDIRECTS, each hop judged again. A fetch ends after FETCH_TIMEOUT_MS, or with the discovery's own signal.
 * Bodies are decoded as they stream (Content-Encoding gzip, deflate, br; a body that starts as gzip is gunzipped
 * when asked, at most two gzip layers in all) and handed on chunk by chunk with a running count of decoded bytes:
 * nothing past the caller's limit is inflated, nothing is buffered whole. HTTP credentials go only to the origins
 * the caller names (the site's), only once that origin has challenged with a 401.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Readable, pipeline, type Transform } from 'node:stream';
import { rootCertificates } from 'node:tls';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { normalHost, TargetPolicy } from '../net/policy.js';
import { resolveHost, type DnsOverride } from '../net/resolve.js';

export const FETCH_TIMEOUT_MS = 15_000;
export const MAX_REDIRECTS = 5;
/** At most this many decoded bytes of a sitemap (the protocol's 50 MB). */
export const MAX_SITEMAP_BYTES = 52_428_800;

export type FetchFailure = 'refused' | 'unresolved' | 'network' | 'timeout' | 'stopped' | 'redirects' | 'too_large' | 'encoding';

/** A fetch that did not get an answer (or a body) to read: `message` says why, without the URL. */
export class FetchError extends Error {
  constructor(readonly kind: FetchFailure, message: string) {
    super(message);
  }
}

export interface ReadLimits {
  /** Decoded bytes at most. */
  maxBytes: number;
  /** Gunzip a body whose bytes start 1f 8b (a `.xml.gz` sitemap), within two gzip layers in all. */
  sniffGzip?: boolean;
  /** Past maxBytes, stop reading and keep what came (robots.txt, HTML), instead of a `too_large` error. */
  truncate?: boolean;
}

export interface FetchedResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The media type, lower case, without parameters ('' when absent). */
  contentType: string;
  /**
   * Hands the decoded body to `onChunk` as it arrives. Rejects with a FetchError for the body's own failures; an
   * error thrown by `onChunk` ends the read and is passed on unchanged.
   */
  read(limits: ReadLimits, onChunk: (chunk: Buffer) => void): Promise<{ bytes: number; truncated: boolean }>;
  /** Drops the body unread. */
  discard(): void;
}

export interface FetcherOptions {
  policy: TargetPolicy;
  dns: readonly DnsOverride[];
  extraCaCerts?: readonly string[];
  userAgent: string;
  httpAuth?: { username: string; password: string };
  /** The whole discovery's signal (its time limit, a cancel). */
  signal: AbortSignal;
  timeoutMs?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class Fetcher {
  /** Whether HTTP credentials may go to an origin (set by discovery: the site's own). */
  mayAuthenticate: (origin: string) => boolean = () => false;
  private readonly challenged = new Set<string>();
  private readonly http = new HttpAgent({ keepAlive: true, maxSockets: 4 });
  private readonly https = new HttpsAgent({ keepAlive: true, maxSockets: 4 });
  private readonly ca: string[] | undefined;
  private readonly timeoutMs: number;

  constructor(private readonly o: FetcherOptions) {
    this.ca = o.extraCaCerts?.length ? [...rootCertificates, ...o.extraCaCerts] : undefined;
    this.timeoutMs = o.timeoutMs ?? FETCH_TIMEOUT_MS;
  }

  /** GET `url`, following redirects through the policy. Rejects with a FetchError when no answer came. */
  async get(url: string, accept: string): Promise<FetchedResponse> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = AbortSignal.any([this.o.signal, timeout]);
    let target = new URL(url);
    for (let hops = 0; ;) {
      const auth = this.o.httpAuth !== undefined && this.challenged.has(target.origin);
      let res: IncomingMessage;
      try {
        res = await this.hop(target, accept, signal, auth);
      } catch (err) {
        const failure = this.failure(err, signal, timeout);
        throw hops === 0 ? failure : new FetchError(failure.kind, `redirected to ${target.href}, which failed: ${failure.message}`);
      }
      const status = res.statusCode ?? 0;
      if (status === 401 && !auth && this.o.httpAuth && /\bbasic\b/i.test(String(res.headers['www-authenticate'] ?? '')) &&
        this.mayAuthenticate(target.origin)) {
        res.destroy();
        this.challenged.add(target.origin);
        continue;
      }
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location) {
        res.destroy();
        let next: URL;
        try {
          next = new URL(location, target);
        } catch {
          throw new FetchError('network', `answered ${status} with a Location that is not a URL (${location.slice(0, 100)})`);
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw new FetchError('network', `answered ${status} with a redirect to a ${next.protocol} URL`);
        }
        if (++hops > MAX_REDIRECTS) throw new FetchError('redirects', `more than ${MAX_REDIRECTS} redirects (the last to ${next.href})`);
        next.hash = '';
        target = next;
        continue;
      }
      return this.response(target.href, res, signal, timeout);
    }
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }

  private async hop(target: URL, accept: string, signal: AbortSignal, auth: boolean): Promise<IncomingMessage> {
    const host = normalHost(target.hostname);
    const { addresses, source } = await abortable(resolveHost(host, this.o.dns), signal);
    if (addresses.length === 0) throw new FetchError('unresolved', `${host} does not resolve`);
    // Every address must pass, as the browser's guard requires: round-robin DNS must not pick a refused one later.
    for (const address of addresses) {
      const verdict = this.o.policy.check(host, address, source);
      if (!verdict.ok) {
        throw new FetchError('refused', `refused: ${host} resolves to a ${verdict.kind} address (${verdict.address}); ` +
          TargetPolicy.OPT_IN);
      }
    }
    const address = addresses[0]!;
    const family = isIP(address);
    const secure = target.protocol === 'https:';
    const headers: Record<string, string> = {
      'user-agent': this.o.userAgent, accept, 'accept-encoding': 'gzip, deflate, br',
    };
    if (auth && this.o.httpAuth) {
      const { username, password } = this.o.httpAuth;
      headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    }
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)({
        protocol: target.protocol, hostname: host, port: target.port || undefined, path: target.pathname + target.search,
        method: 'GET', headers, signal, agent: secure ? this.https : this.http,
        ...(secure ? { ca: this.ca, servername: isIP(host) ? undefined : host } : {}),
        // Connect to the address judged above, whatever a second lookup would say (an IP literal needs no lookup).
        lookup: (_host, opts, callback) => (opts.all ? callback(null, [{ address, family }])
          : (callback as (err: null, address: string, family: number) => void)(null, address, family)),
      }, resolve);
      req.on('error', reject);
      req.end();
    });
  }

  private response(url: string, res: IncomingMessage, signal: AbortSignal, timeout: AbortSignal): FetchedResponse {
    const contentType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    return {
      url, status: res.statusCode ?? 0, headers: res.headers, contentType,
      discard: () => res.destroy(),
      read: async (limits, onChunk) => {
        const streams: { destroy(): void }[] = [res];
        let inSink = false;
        const onAbort = () => res.destroy(new Error('aborted'));
        signal.addEventListener('abort', onAbort, { once: true });
        try {
          if (signal.aborted) throw signal.reason;
          let bytes = 0;
          for await (const chunk of decoded(res, limits.sniffGzip === true, streams) as AsyncIterable<Buffer>) {
            if (bytes + chunk.length > limits.maxBytes) {
              if (!limits.truncate) throw new FetchError('too_large', `larger than ${size(limits.maxBytes)} decoded`);
              inSink = true;
              onChunk(chunk.subarray(0, limits.maxBytes - bytes));
              return { bytes: limits.maxBytes, truncated: true };
            }
            bytes += chunk.length;
            inSink = true;
            onChunk(chunk);
            inSink = false;
          }
          return { bytes, truncated: false };
        } catch (err) {
          if (inSink || err instanceof FetchError) throw err;
          throw this.failure(err, signal, timeout);
        } finally {
          signal.removeEventListener('abort', onAbort);
          for (const s of streams) s.destroy();
        }
      },
    };
  }

  private failure(err: unknown, signal: AbortSignal, timeout: AbortSignal): FetchError {
    if (err instanceof FetchError) return err;
    if (this.o.signal.aborted) return new FetchError('stopped', 'discovery ended before the answer was read');
    if (timeout.aborted || signal.aborted) return new FetchError('timeout', `no complete answer within ${this.timeoutMs / 1000} s`);
    const e = err as NodeJS.ErrnoException;
    if (e.code?.startsWith('Z_') || /header check|invalid (block|distance|code)|unexpected end of file|Decompression/i.test(e.message ?? '')) {
      return new FetchError('encoding', `its compressed body is broken (${e.message})`);
    }
    const code = e.code ? ` (${e.code})` : '';
    const what: Record<string, string> = {
      ECONNREFUSED: 'the connection was refused', ECONNRESET: 'the connection was reset', ETIMEDOUT: 'the connection timed out',
      EHOSTUNREACH: 'the host is unreachable', ENETUNREACH: 'the network is unreachable',
    };
    return new FetchError('network', `${(e.code && what[e.code]) ?? e.message ?? String(err)}${code}`);
  }
}

/** The body as it is decoded, chunk by chunk; every stream made is pushed to `streams` (destroyed by the reader). */
function decoded(res: IncomingMessage, sniffGzip: boolean, streams: { destroy(): void }[]): AsyncIterable<Buffer> {
  const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  let body: AsyncIterable<Buffer> = res;
  let gzipLayers = 0;
  if (encoding && encoding !== 'identity') {
    if (encoding === 'gzip' || encoding === 'x-gzip') gzipLayers++;
    const z = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate()
      : encoding === 'br' ? createBrotliDecompress() : undefined;
    if (!z) throw new FetchError('encoding', `its Content-Encoding "${encoding.slice(0, 40)}" is not one Webgauge decodes (gzip, deflate, br)`);
    body = through(body, z, streams);
  }
  return sniffGzip ? sniffed(body, 2 - gzipLayers, streams) : body;
}

function through(source: AsyncIterable<Buffer>, z: Transform, streams: { destroy(): void }[]): AsyncIterable<Buffer> {
  const from = source instanceof Readable ? source : Readable.from(source, { objectMode: false });
  streams.push(from, z);
  pipeline(from, z, () => undefined); // an error destroys both; the reader sees it on z
  return z;
}

/** Gunzips the body while its bytes start 1f 8b, `layersLeft` times at most. */
async function* sniffed(source: AsyncIterable<Buffer>, layersLeft: number, streams: { destroy(): void }[]): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  let head: Buffer = Buffer.alloc(0);
  let ended = false;
  while (head.length < 2) {
    const r = await it.next();
    if (r.done) {
      ended = true;
      break;
    }
    head = head.length ? Buffer.concat([head, r.value]) : r.value;
  }
  async function* rest(): AsyncGenerator<Buffer> {
    try {
      if (head.length) yield head;
      while (!ended) {
        const r = await it.next();
        if (r.done) return;
        yield r.value;
      }
    } finally {
      await it.return?.();
    }
  }
  if (head[0] === 0x1f && head[1] === 0x8b) {
    if (layersLeft <= 0) throw new FetchError('encoding', 'it is gzipped more than twice');
    yield* sniffed(through(rest(), createGunzip(), streams), layersLeft - 1, streams);
  } else {
    yield* rest();
  }
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function size(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / 1024 / 1024)} MB`;
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KiB` : `${bytes} bytes`;
}
