/**
 * What is not a public address: the one table both the POST-time check and the load's connection guard use.
 * Built from IANA's special-purpose address registries (RFC 6890 and successors). An address is public only
 * when it is ordinary global unicast: IPv4 outside every block below, IPv6 inside 2000::/3 and outside every
 * block below. Addresses that embed an IPv4 address are judged as follows:
 * - IPv4-mapped (::ffff:0:0/96) and the well-known NAT64 prefix (64:ff9b::/96) by the IPv4 address they carry
 *   (a socket connects to it, and DNS64 gives every IPv4-only site such an address on IPv6-only networks);
 * - 6to4 (2002::/16), Teredo (2001::/32), local-use NAT64 (64:ff9b:1::/48), IPv4-compatible (::/96) and
 *   IPv4-translated (::ffff:0:0:0/96) are refused whole: deprecated or local, no public site needs them, and
 *   where they lead depends on relays inside someone's network.
 */
import { BlockList, isIP } from 'node:net';

type Block = [network: string, prefix: number];

/** IPv4 blocks by the name error messages use; the first matching entry names the address. */
const V4: [kind: string, blocks: Block[]][] = [
  ['unspecified', [['0.0.0.0', 8]]],
  ['loopback', [['127.0.0.0', 8]]],
  ['private', [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]]],
  ['link-local', [['169.254.0.0', 16]]],
  ['shared (CGNAT)', [['100.64.0.0', 10]]],
  ['multicast', [['224.0.0.0', 4]]],
  // Protocol assignments, documentation (TEST-NET-1..3), 6to4 relay anycast, benchmarking, and 240/4 (which
  // holds the broadcast address).
  ['reserved', [
    ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['198.18.0.0', 15], ['198.51.100.0', 24],
    ['203.0.113.0', 24], ['240.0.0.0', 4],
  ]],
];

/** IPv6 blocks inside 2000::/3 (everything outside it is refused as "non-global IPv6" unless named here). */
const V6: [kind: string, blocks: Block[]][] = [
  ['unspecified', [['::', 128]]],
  ['loopback', [['::1', 128]]],
  ['IPv4-compatible', [['::', 96]]],
  ['IPv4-translated', [['::ffff:0:0:0', 96]]],
  ['NAT64 local-use', [['64:ff9b:1::', 48]]],
  ['unique-local', [['fc00::', 7]]],
  ['link-local', [['fe80::', 10]]],
  ['site-local', [['fec0::', 10]]],
  ['multicast', [['ff00::', 8]]],
  ['Teredo', [['2001::', 32]]],
  ['6to4', [['2002::', 16]]],
  // Discard-only, benchmarking, ORCHID, documentation (two ranges).
  ['reserved', [['100::', 64], ['2001:2::', 48], ['2001:10::', 28], ['2001:db8::', 32], ['3fff::', 20]]],
];

function blockList(blocks: Block[], type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of blocks) list.addSubnet(net, prefix, type);
  return list;
}

const V4_CLASSES = V4.map(([kind, blocks]) => ({ kind, list: blockList(blocks, 'ipv4') }));
const V6_CLASSES = V6.map(([kind, blocks]) => ({ kind, list: blockList(blocks, 'ipv6') }));
const GLOBAL_UNICAST_V6 = blockList([['2000::', 3]], 'ipv6');
const EMBEDDING_V6 = blockList([['::ffff:0:0', 96], ['64:ff9b::', 96]], 'ipv6');

/** Strips IPv6 brackets and a zone ID ("[fe80::1%eth0]" → "fe80::1"). */
export function bareAddress(ip: string): string {
  return ip.trim().replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
}

/** The 16 bytes of an IPv6 address (any textual form Node accepts, including a trailing dotted IPv4). */
function ipv6Bytes(ip: string): Uint8Array {
  let text = ip.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const words = (s: string) => (s ? s.split(':').map((w) => parseInt(w, 16)) : []);
  const h = words(head);
  const t = tail === undefined ? [] : words(tail);
  const all = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  const bytes = new Uint8Array(16);
  all.forEach((w, i) => { bytes[2 * i] = w >> 8; bytes[2 * i + 1] = w & 255; });
  return bytes;
}

/**
 * The kind of non-public address `ip` is ("loopback", "private", "link-local", "unique-local", "6to4", …), or
 * undefined for a public address. A string that is not an IP address gives "not an IP address": callers that
 * must fail closed can rely on it (use `isIP` first where a host name is expected).
 */
export function nonPublicKind(ip: string): string | undefined {
  const address = bareAddress(ip);
  const family = isIP(address);
  if (family === 4) return V4_CLASSES.find((c) => c.list.check(address, 'ipv4'))?.kind;
  if (family !== 6) return 'not an IP address';
  if (EMBEDDING_V6.check(address, 'ipv6')) {
    const b = ipv6Bytes(address);
    return nonPublicKind(`${b[12]}.${b[13]}.${b[14]}.${b[15]}`);
  }
  const named = V6_CLASSES.find((c) => c.list.check(address, 'ipv6'))?.kind;
  if (named) return named;
  return GLOBAL_UNICAST_V6.check(address, 'ipv6') ? undefined : 'non-global IPv6';
}

/** True unless `ip` is an ordinary public unicast address (a non-IP string counts as not public). */
export function isNonPublicAddress(ip: string): boolean {
  return nonPublicKind(ip) !== undefined;
}
