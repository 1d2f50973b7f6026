import { createHmac } from 'node:crypto';

/**
 * `Webgauge-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret>`.
 * The receiver recomputes it over the raw body and rejects an old `t` (replays).
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
