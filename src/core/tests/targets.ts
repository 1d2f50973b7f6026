/**
 * Refusing non-public targets at POST time (and when a monitored slot queues a test). A test server that loads
 * any URL it is given is an open door into the network it sits in (cloud metadata at 169.254.169.254, admin
 * panels on 10.x, the service itself on 127.0.0.1), so unless the operator's policy allows the destination, a
 * test whose page resolves to a non-public address is refused before it is queued. This check is the early,
 * friendly one; during the load the runner's connection guard applies the same policy (net/) to every
 * connection the browser opens, and pins the address it checked.
 */
import { normalHost, TargetPolicy } from '../../net/policy.js';
import { dnsOverride, resolveHost } from '../../net/resolve.js';
import { ApiError } from '../errors.js';

/**
 * Throws E40004 when the page at `url` would be loaded from an address the policy refuses, when a `dns` entry
 * points a host at one, or when the url's host does not resolve. `dns` entries decide where the runner
 * connects, so a host they cover is not looked up.
 */
export async function assertAllowedTarget(url: string, policy: TargetPolicy, dns: readonly string[] = []): Promise<void> {
  let host: string;
  try {
    host = normalHost(new URL(url).hostname);
  } catch {
    throw new ApiError('E40004', `url ${JSON.stringify(url)} is not a valid absolute http(s) URL`);
  }
  if (!host) throw new ApiError('E40004', `url ${JSON.stringify(url)} has no host name`);

  const overrides = dns.map(dnsOverride);
  for (const [i, o] of overrides.entries()) {
    const verdict = policy.check(o.host, o.ip, 'override');
    if (!verdict.ok) {
      throw new ApiError('E40004', `dns entry ${dns[i]} points to a ${verdict.kind} address (${verdict.address}); ` +
        TargetPolicy.OPT_IN);
    }
  }

  const { addresses, source } = await resolveHost(host, overrides);
  if (addresses.length === 0) {
    throw new ApiError('E40004', `Could not resolve host ${host}; check the host name in url (it has no DNS address)`);
  }
  for (const address of addresses) {
    const verdict = policy.check(host, address, source);
    if (verdict.ok) continue;
    throw new ApiError('E40004',
      `url host ${host} resolves to a ${verdict.kind} address (${verdict.address}); ${TargetPolicy.OPT_IN}`);
  }
}

/**
 * The same check for every page a journey navigates to (each navigate step; where a click leads is checked by the
 * connection guard during the load), the refusal naming the step.
 */
export async function assertAllowedJourney(steps: readonly { type: string; url?: string }[], policy: TargetPolicy,
  dns: readonly string[] = []): Promise<void> {
  for (const [i, step] of steps.entries()) {
    if (step.type !== 'navigate' || step.url === undefined) continue;
    try {
      await assertAllowedTarget(step.url, policy, dns);
    } catch (err) {
      if (err instanceof ApiError) throw new ApiError(err.code, `journey.steps[${i}]: ${err.detail}`);
      throw err;
    }
  }
}

/**
 * The target policy of a test's options: its url, or for a journey each page it navigates to (its url is the first).
 * One rule for tests requested by a person and for monitored tests.
 */
export async function assertAllowedTest(options: { url: string; dns: readonly string[]; journey?: { steps: readonly { type: string; url?: string }[] } },
  policy: TargetPolicy): Promise<void> {
  if (options.journey) await assertAllowedJourney(options.journey.steps, policy, options.dns);
  else await assertAllowedTarget(options.url, policy, options.dns);
}
