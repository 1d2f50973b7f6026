/**
 * The operator's target policy: which non-public destinations tests may reach anyway.
 * - `WEBGAUGE_ALLOW_PRIVATE_TARGETS=1`: everything.
 * - `WEBGAUGE_ALLOW_TARGETS`: comma-separated CIDR ranges or single addresses (`10.20.0.0/16`, `fd00::/8`,
 *   `127.0.0.1`) and host names, exact (`staging.internal`) or every subdomain (`*.corp.example`, not the name
 *   itself). A host name entry allows whatever address the host's own DNS gives it, but not an address a
 *   test's `dns` option gives it: a user must not be able to point an allowed name at another machine.
 * Everything else that is not a public address (addresses.ts) is refused. One policy object serves the
 * POST-time check and the connection guard of the load.
 */
import { BlockList, isIP } from 'node:net';
import { bareAddress, nonPublicKind } from './addresses.js';

export interface TargetPolicyInput {
  allowAll: boolean;
  /** The raw `WEBGAUGE_ALLOW_TARGETS` value (may be empty). */
  allowTargets: string;
}

export type TargetVerdict = { ok: true } | { ok: false; kind: string; address: string };

/** Where an address came from: the real DNS of the host (or an IP literal), or a test's `dns` override. */
export type AddressSource = 'dns' | 'override';

const HOST_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Lower case, no trailing dot, no brackets: the form host names are compared in. */
export function normalHost(host: string): string {
  return bareAddress(host).replace(/\.$/, '').toLowerCase();
}

export class TargetPolicy {
  readonly allowAll: boolean;
  /** The entries as given, for messages and for handing the policy to a remote agent. */
  readonly entries: readonly string[];
  private readonly ranges = new BlockList();
  private readonly exactHosts = new Set<string>();
  private readonly suffixes: string[] = [];

  /** Throws an Error naming the bad entry when `allowTargets` has one. */
  constructor(input: TargetPolicyInput) {
    this.allowAll = input.allowAll;
    this.entries = input.allowTargets.split(',').map((e) => e.trim()).filter(Boolean);
    for (const entry of this.entries) this.add(entry);
  }

  private add(entry: string): void {
    const bad = (why: string) =>
      new Error(`WEBGAUGE_ALLOW_TARGETS: "${entry}" ${why}; expected a CIDR range (10.20.0.0/16), an address, ` +
        'a host name (staging.internal) or *.suffix (*.corp.example), comma-separated');
    const slash = entry.indexOf('/');
    const ip = bareAddress(slash < 0 ? entry : entry.slice(0, slash));
    const family = isIP(ip);
    if (family !== 0) {
      const max = family === 4 ? 32 : 128;
      const prefix = slash < 0 ? max : Number(entry.slice(slash + 1));
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (slash >= 0 && !/^\d+$/.test(entry.slice(slash + 1)))) {
        throw bad(`has a prefix length outside 0-${max}`);
      }
      this.ranges.addSubnet(ip, prefix, family === 4 ? 'ipv4' : 'ipv6');
      return;
    }
    if (slash >= 0) throw bad('is not a valid CIDR range');
    const wildcard = entry.startsWith('*.');
    const host = normalHost(wildcard ? entry.slice(2) : entry);
    if (!host || host.length > 253 || !host.split('.').every((l) => HOST_LABEL.test(l))) throw bad('is not a host name');
    if (wildcard) this.suffixes.push(`.${host}`);
    else this.exactHosts.add(host);
  }

  /** Whether the operator allows some non-public destinations (or all of them). */
  get allowsAny(): boolean {
    return this.allowAll || this.entries.length > 0;
  }

  private hostAllowed(host: string): boolean {
    const h = normalHost(host);
    return this.exactHosts.has(h) || this.suffixes.some((s) => h.endsWith(s));
  }

  private addressAllowed(address: string): boolean {
    const ip = bareAddress(address);
    const family = isIP(ip);
    if (family === 0) return false;
    if (this.ranges.check(ip, family === 4 ? 'ipv4' : 'ipv6')) return true;
    // An IPv4-mapped address is the IPv4 address to an allow range written in IPv4.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    return mapped !== null && this.ranges.check(mapped[1]!, 'ipv4');
  }

  /**
   * Whether a connection for `host` may go to `address`. Public addresses always may; a non-public one only
   * when its range is allowed, or when the host name is allowed and the address came from the host's DNS.
   */
  check(host: string, address: string, source: AddressSource): TargetVerdict {
    const kind = nonPublicKind(address);
    if (kind === undefined || this.allowAll) return { ok: true };
    if (this.addressAllowed(address)) return { ok: true };
    if (source === 'dns' && isIP(normalHost(host)) === 0 && this.hostAllowed(host)) return { ok: true };
    return { ok: false, kind, address: bareAddress(address) };
  }

  /** The sentence telling a user how the operator could allow what was refused. */
  static readonly OPT_IN =
    'this server refuses private and local addresses unless the operator allows them ' +
    '(WEBGAUGE_ALLOW_TARGETS, or WEBGAUGE_ALLOW_PRIVATE_TARGETS=1 for all)';
}
