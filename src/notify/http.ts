/**
 * One webhook POST. The URL's host is resolved and every address checked against the target policy at each
 * delivery (an allowed name may have moved to a private address since the webhook was made); the connection
 * goes to the address that was checked (no second lookup that DNS rebinding could answer differently).
 * Redirects are not followed: a 3xx is a failed attempt.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { normalHost, type TargetPolicy } from '../net/policy.js';
import { resolveHost } from '../net/resolve.js';

export interface PostOutcome {
  ok: boolean;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  durationMs: number;
  error?: string;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;
const RESPONSE_MAX_BYTES = 64 * 1024;

export async function postJson(url: string, body: string, headers: Record<string, string>, policy: TargetPolicy,
  timeoutMs = WEBHOOK_TIMEOUT_MS): Promise<PostOutcome> {
  const started = performance.now();
  const done = (o: Omit<PostOutcome, 'durationMs'>): PostOutcome => ({ ...o, durationMs: Math.round(performance.now() - started) });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return done({ ok: false, error: 'the webhook URL is not valid' });
  }
  const host = normalHost(target.hostname);
  const { addresses, source } = await resolveHost(host);
  if (addresses.length === 0) return done({ ok: false, error: `could not resolve ${host}` });
  for (const address of addresses) {
    const verdict = policy.check(host, address, source);
    if (!verdict.ok) return done({ ok: false, error: `refused: ${host} resolves to a ${verdict.kind} address (${verdict.address}), which the target policy does not allow` });
  }
  const address = addresses[0];
  const family = isIP(address) === 6 ? 6 : 4;
  const lookup: LookupFunction = (_h, opts, cb) => {
    if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else cb(null, address, family);
  };
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (o: Omit<PostOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(o));
    };
    const req = send(target, {
      method: 'POST',
      lookup,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Webgauge-Webhooks/1', ...headers },
    }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > RESPONSE_MAX_BYTES) res.destroy(); // the answer's body is not needed
      });
      const status = res.statusCode ?? 0;
      const end = () => finish({ ok: status >= 200 && status < 300, status, ...(status >= 200 && status < 300 ? {} : { error: `HTTP ${status}` }) });
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (err) => finish({ ok: false, error: err.message }));
    req.end(body);
  });
}
