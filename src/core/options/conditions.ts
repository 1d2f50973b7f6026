/**
 * The conditions of one page load, parsed once from a test's stored analysis options: what the runner applies
 * to the browser (throttle, cookies, DNS overrides, request filters, HTTP auth, where the load ends). The
 * options were validated when the test was accepted (options.ts); this reads them with the same rules and
 * the runner re-parses nothing. Plain data, so it can travel to an agent on another machine as JSON. The types
 * are the runner's own (runner/conditions/types.ts): core builds values of them.
 */
import type { AnalysisOptions } from './analysis-options.js';
import { parseCookie } from './cookies.js';
import { throttleFigures } from './options.js';
import { dnsOverride } from '../../net/resolve.js';
import { deviceClassOf, deviceClassSpec } from '../vocabulary/device-classes.js';
import { defaultMeasuredStep } from '../../runner/journey/recording.js';
import type { LoadConditions, TestCookie } from '../../runner/conditions/types.js';

export type { LoadConditions, TestCookie };

/** `cpuThrottle`: the test's browser can slow its CPU (catalog `cpu_throttle`), which decides the default device class. */
export function loadConditions(o: AnalysisOptions, cpuThrottle = true): LoadConditions {
  const deviceClass = deviceClassOf(o, cpuThrottle);
  const spec = deviceClassSpec(deviceClass);
  const link = o.throttle ?? spec.defaultThrottle;
  const throttle = link === undefined ? undefined : throttleFigures(link);
  if (link !== undefined && !throttle) throw new Error(`stored throttle ${JSON.stringify(link)} is not down/up/latency`);
  return {
    url: o.url,
    throttle,
    device: { deviceClass, ...(spec.cpuTarget ? { cpuTarget: spec.cpuTarget } : {}), phoneScreen: spec.phoneScreen === true },
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
    ...(o.journey ? { journey: { recording: o.journey, secrets: { ...o.journey_secrets }, measuredStep: o.journey_measured_step ?? defaultMeasuredStep(o.journey) } } : {}),
  };
}
