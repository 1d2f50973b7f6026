/**
 * Refusing private targets. A test server that loads any URL it is given is an open door into the network it
 * sits in (cloud metadata at 169.254.169.254, admin panels on 10.x, the service itself on 127.0.0.1), so unless
 * the operator opts in, a test whose page resolves to a non-public address is refused before it is queued.
 * This check is the early, friendly one; the runner re-checks every request it makes (DNS can change between
 * here and the page load, and redirects can point anywhere), reusing isPrivateAddress.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ApiError } from './errors.js';

type Subnet = [network: string, prefix: number];

/** IPv4 special-purpose blocks (RFC 6890) by the name the error message uses; first match names the class. */
const V4: [kind: string, subnets: Subnet[]][] = [
  ['unspecified', [['0.0.0.0', 8]]],
  ['loopback', [['127.0.0.0', 8]]],
  ['private', [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]]],
  ['link-local', [['169.254.0.0', 16]]],
  ['shared (CGNAT)', [['100.64.0.0', 10]]],
  ['multicast', [['224.0.0.0', 4]]],
  // Protocol assignments, documentation, benchmarking, and 240/4 (which holds the broadcast address).
  [
    'reserved',
    [
      ['192.0.0.0', 24], ['192.0.2.0', 24], ['198.18.0.0', 15],
      ['198.51.100.0', 24], ['203.0.113.0', 24], ['240.0.0.0', 4],
    ],
  ],
];

const V6: [kind: string, subnets: Subnet[]][] = [
  ['unspecified', [['::', 128]]],
  ['loopback', [['::1', 128]]],
  ['private', [['fc00::', 7]]],
  ['link-local', [['fe80::', 10]]],
  ['multicast', [['ff00::', 8]]],
  // IPv4-compatible (deprecated), discard, documentation, old site-local.
  ['reserved', [['::', 96], ['100::', 64], ['2001:db8::', 32], ['fec0::', 10]]],
];

/** The two 16-bit words of an IPv4 address, as IPv6 text ("10.0.0.1" → "a00:1"). */
function v4Words(v4: string): string {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

interface AddressClass {
  kind: string;
  list: BlockList;
}

function buildClasses(): AddressClass[] {
  const classes = new Map<string, BlockList>();
  const listFor = (kind: string) => {
    let list = classes.get(kind);
    if (!list) classes.set(kind, (list = new BlockList()));
    return list;
  };
  for (const [kind, subnets] of V6) for (const [net, prefix] of subnets) listFor(kind).addSubnet(net, prefix, 'ipv6');
  for (const [kind, subnets] of V4) {
    const list = listFor(kind);
    for (const [net, prefix] of subnets) {
      list.addSubnet(net, prefix, 'ipv4');
      // The same IPv4 block reached through IPv6: IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96)
      // and 6to4 (2002::/16, the IPv4 address in bits 16-47).
      const words = v4Words(net);
      list.addSubnet(`::ffff:${words}`, 96 + prefix, 'ipv6');
      list.addSubnet(`64:ff9b::${words}`, 96 + prefix, 'ipv6');
      list.addSubnet(`2002:${words}::`, 16 + prefix, 'ipv6');
    }
  }
  // Order of the V4 table decides the name when blocks nest (e.g. ::1 is also inside ::/96).
  const order = [...new Set([...V4.map(([k]) => k), ...V6.map(([k]) => k)])];
  return order.map((kind) => ({ kind, list: classes.get(kind)! }));
}

const CLASSES = buildClasses();

/** Strips IPv6 brackets and a zone ID ("[fe80::1%eth0]" → "fe80::1"). */
function bareAddress(ip: string): string {
  return ip.trim().replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
}

/**
 * The kind of non-public address `ip` is ("loopback", "private", "link-local", "shared (CGNAT)",
 * "unspecified", "multicast", "reserved"), or undefined for a public address or a string that is not an IP.
 */
export function privateAddressKind(ip: string): string | undefined {
  const address = bareAddress(ip);
  const family = isIP(address);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return CLASSES.find((c) => c.list.check(address, type))?.kind;
}

/** True when `ip` is not a public unicast address. A string that is not an IP address gives false. */
export function isPrivateAddress(ip: string): boolean {
  return privateAddressKind(ip) !== undefined;
}

const OPT_IN =
  'this server refuses to test private addresses unless the operator sets WEBGAUGE_ALLOW_PRIVATE_TARGETS=1';
const LOOKUP_TIMEOUT_MS = 10_000;

/** The IP a `host:ip` override gives `host`, if any ("*.example.com:ip" covers subdomains, as in Chrome's rules). */
function overrideFor(host: string, dns: readonly string[]): string | undefined {
  for (const entry of dns) {
    const at = entry.indexOf(':');
    const pattern = entry.slice(0, at).toLowerCase();
    const matches = pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern;
    if (matches) return entry.slice(at + 1);
  }
  return undefined;
}

async function resolve(host: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), LOOKUP_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    if (found.length > 0) return found.map((a) => a.address);
  } catch {
    // Any failure (NXDOMAIN, no resolver, timeout) means the same thing to the user.
  } finally {
    clearTimeout(timer);
  }
  throw new ApiError('E40004', `Could not resolve host ${host}; check the host name in url (it has no DNS address)`);
}

/**
 * Throws E40004 when the page at `url` would be loaded from a non-public address, or when its host does not
 * resolve. `dnsOverrides` are the test's `host:ip` entries: they decide where the runner connects, so a host
 * they cover is not looked up, and with private targets refused, none of them may point at a private address.
 */
export async function assertPublicTarget(
  url: string,
  allowPrivate: boolean,
  dnsOverrides: readonly string[] = [],
): Promise<void> {
  let host: string;
  try {
    host = bareAddress(new URL(url).hostname).replace(/\.$/, '').toLowerCase();
  } catch {
    throw new ApiError('E40004', `url ${JSON.stringify(url)} is not a valid absolute http(s) URL`);
  }
  if (!host) throw new ApiError('E40004', `url ${JSON.stringify(url)} has no host name`);

  if (!allowPrivate) {
    for (const entry of dnsOverrides) {
      const ip = entry.slice(entry.indexOf(':') + 1);
      const kind = privateAddressKind(ip);
      if (kind) throw new ApiError('E40004', `dns entry ${entry} points to a ${kind} address (${ip}); ${OPT_IN}`);
    }
  }

  let addresses: string[];
  if (isIP(host)) addresses = [host];
  // Chrome answers localhost and *.localhost itself (loopback) without asking DNS.
  else if (host === 'localhost' || host.endsWith('.localhost')) addresses = ['127.0.0.1'];
  else {
    const override = overrideFor(host, dnsOverrides);
    addresses = override ? [override] : await resolve(host);
  }
  if (allowPrivate) return;

  for (const ip of addresses) {
    const kind = privateAddressKind(ip);
    if (!kind) continue;
    throw new ApiError('E40004', `url host ${host} resolves to a ${kind} address (${bareAddress(ip)}); ${OPT_IN}`);
  }
}
