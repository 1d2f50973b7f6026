/**
 * Which addresses a public test may not reach (loopback, private, link-local, unique-local, unspecified and
 * other non-public ranges), and a per-run resolver that answers "may this host be requested?".
 */
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { dnsOverrideFor } from './dns.js';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['100::', 64], ['2001:db8::', 32],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** True for addresses a public test must not reach. Unknown input counts as private. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const version = isIP(ip);
  if (version === 4) return blocked.check(ip, 'ipv4');
  if (version !== 6) return true;
  // IPv4 embedded in IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96) is judged by its IPv4 part.
  const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (embedded) return blocked.check(embedded[1], 'ipv4');
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (hex) {
    const n = (parseInt(hex[1], 16) << 16) | parseInt(hex[2], 16);
    return blocked.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'), 'ipv4');
  }
  return blocked.check(ip, 'ipv6');
}

export type HostVerdict =
  | { ok: true }
  | { ok: false; reason: 'private'; address: string }
  | { ok: false; reason: 'unresolved' };

/**
 * Resolves hosts in Node (honouring the test's dns overrides) and caches the verdict for the run. A host
 * that Node cannot resolve is refused too, so the browser's own resolver cannot be the one that decides.
 */
export function privateHostChecker(dnsOverrides: Map<string, string>): (host: string) => Promise<HostVerdict> {
  const cache = new Map<string, Promise<HostVerdict>>();
  return (rawHost) => {
    const host = rawHost.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    let verdict = cache.get(host);
    if (!verdict) {
      verdict = (async (): Promise<HostVerdict> => {
        const override = dnsOverrideFor(dnsOverrides, host);
        const addresses = override
          ? [override]
          : isIP(host)
            ? [host]
            : (await lookup(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
        if (addresses.length === 0) return { ok: false, reason: 'unresolved' };
        // Any private address refuses the host: round-robin DNS must not pick one for us.
        const address = addresses.find(isPrivateAddress);
        return address === undefined ? { ok: true } : { ok: false, reason: 'private', address };
      })();
      cache.set(host, verdict);
    }
    return verdict;
  };
}
