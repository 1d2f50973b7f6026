/**
 * The conditions of one page load, parsed once from a test's stored analysis options: what the runner applies
 * to the browser (throttle, cookies, DNS overrides, request filters, HTTP auth, where the load ends). The
 * options were validated when the test was accepted (options.ts); this reads them with the same rules and
 * the runner re-parses nothing. Plain data, so it can travel to an agent on another machine as JSON.
 */
import type { AnalysisOptions } from './analysis-options.js';
import { parseCookie, throttleFigures, type ThrottleFigures } from './options.js';
import { dnsOverride, type DnsOverride } from '../net/resolve.js';

/** A cookie set in the browser before the load, host-only for the tested URL (README: cookies). */
export interface TestCookie {
  name: string;
  value: string;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

export interface LoadConditions {
  url: string;
  throttle?: ThrottleFigures;
  cookies: TestCookie[];
  dns: DnsOverride[];
  allowUrl: string[];
  blockUrl: string[];
  adblock: boolean;
  auth?: { username: string; password: string };
  /** The load ends at the end of onload instead of at fully loaded. */
  stopOnload: boolean;
}

export function loadConditions(o: AnalysisOptions): LoadConditions {
  const throttle = o.throttle === undefined ? undefined : throttleFigures(o.throttle);
  if (o.throttle !== undefined && !throttle) throw new Error(`stored throttle ${JSON.stringify(o.throttle)} is not down/up/latency`);
  return {
    url: o.url,
    throttle,
    cookies: o.cookies.map((raw) => {
      // A Domain attribute is not applied on purpose: test cookies go to the tested host only; expiry
      // attributes neither (the browser lives for one load).
      const c = parseCookie(raw);
      return { name: c.name, value: c.value, path: c.path ?? '/', secure: c.secure ?? false,
        httpOnly: c.httpOnly ?? false, ...(c.sameSite ? { sameSite: c.sameSite } : {}) };
    }),
    dns: o.dns.map(dnsOverride),
    allowUrl: o.allow_url,
    blockUrl: o.block_url,
    adblock: o.adblock === 1,
    auth: o.httpauth_username !== undefined
      ? { username: o.httpauth_username, password: o.httpauth_password ?? '' }
      : undefined,
    stopOnload: o.stop_onload === 1,
  };
}
