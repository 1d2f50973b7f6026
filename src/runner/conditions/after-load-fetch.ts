/**
 * Lighthouse's one fetch after the load, made by the runner instead of the browser: its SourceMaps gatherer reads the
 * source maps the page's scripts name (the duplicated modules of duplicated-javascript-insight, and which source a
 * script's time belongs to). The browser's connection guard is sealed once the load is over, so that nothing the
 * browser does afterwards (DevTools, the page's own polling) reaches anyone; these requests are the runner's own, and
 * they are held to the same rules: only the source maps the load's scripts named (interceptor.ts), only to addresses
 * the target policy allows for the host (the test's dns entries included), connected to exactly the address that
 * was judged, trusting the operator's CAs on top of Node's roots, within Lighthouse's time limit and a size limit.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { normalHost, type TargetPolicy } from '../../net/policy.js';
import { resolveHost, type DnsOverride } from '../../net/resolve.js';

/** What Lighthouse's fetcher answers (core/gather/fetcher.js FetchResponse). */
export interface FetchResponse {
  content: string | null;
  status: number | null;
  headers: Record<string, string> | null;
}

export interface AfterLoadFetchOptions {
  policy: TargetPolicy;
  dns: readonly DnsOverride[];
  /** The operator's CA certificates (PEM), trusted on top of Node's roots. */
  extraCertificates?: readonly string[];
  /** Whether the load's scripts named this URL as their source map. */
  named(url: string): boolean;
}

/** The largest source map read: a bigger one is left unread, as a failed fetch. */
const MAX_BYTES = 32 * 1024 * 1024;
const NOT_FETCHED: FetchResponse = { content: null, status: null, headers: null };

export function afterLoadFetcher(o: AfterLoadFetchOptions): (url: string, options?: { timeout: number }) => Promise<FetchResponse> {
  const ca = o.extraCertificates?.length ? [...rootCertificates, ...o.extraCertificates] : undefined;
  return async (url, options = { timeout: 2000 }) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return NOT_FETCHED;
    }
    if ((target.protocol !== 'http:' && target.protocol !== 'https:') || !o.named(url)) return NOT_FETCHED;
    const host = normalHost(target.hostname);
    const { addresses, source } = await resolveHost(host, o.dns);
    // Every address must pass, as the guard requires: round-robin DNS must not pick a private one.
    if (addresses.length === 0 || addresses.some((a) => !o.policy.check(host, a, source).ok)) return NOT_FETCHED;
    const address = addresses[0]!;
    const family = isIP(address);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<FetchResponse>((resolve) => {
      const req = request(target, {
        method: 'GET', signal: AbortSignal.timeout(options.timeout), ca, servername: isIP(host) ? undefined : host,
        headers: { accept: '*/*', 'user-agent': 'Webgauge (Lighthouse source maps)' },
        // Connect to the address judged above, whatever a second lookup would say.
        lookup: (_host, opts, callback) => (opts.all ? callback(null, [{ address, family }])
          : (callback as (err: null, address: string, family: number) => void)(null, address, family)),
      }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MAX_BYTES) return void req.destroy();
          chunks.push(chunk);
        });
        // As Lighthouse's own fetcher: the body of a 2xx answer, none of any other.
        const ok = res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode <= 299;
        res.on('end', () => resolve({
          content: ok ? Buffer.concat(chunks).toString('utf8') : null, status: res.statusCode ?? null,
          headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)])),
        }));
        res.on('error', () => resolve(NOT_FETCHED));
      });
      req.on('error', () => resolve(NOT_FETCHED));
      req.end();
    });
  };
}
