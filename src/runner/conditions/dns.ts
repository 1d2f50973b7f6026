import { isIP } from 'node:net';
import { RunError } from '../types.js';

/**
 * Parses `host:ip` overrides (the IP may be IPv6: everything after the first colon). A host may start with
 * `*.` for every subdomain of a name (not the name itself), as in Chromium's host resolver rules.
 */
export function parseDnsOverrides(entries: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of entries) {
    const i = entry.indexOf(':');
    const host = entry.slice(0, i).trim().toLowerCase();
    const ip = entry.slice(i + 1).trim().replace(/^\[(.*)\]$/, '$1');
    // Strict checks: the values end up inside one Chromium flag, where a comma would add a rule.
    if (i <= 0 || !/^(\*\.)?[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$/.test(host) || isIP(ip) === 0) {
      throw new RunError(`Invalid dns override "${entry}": expected host:ip_address`);
    }
    map.set(host, ip);
  }
  return map;
}

/** `--host-resolver-rules` value for Chromium, or undefined when there is nothing to map. */
export function hostResolverRules(overrides: Map<string, string>): string | undefined {
  if (overrides.size === 0) return undefined;
  return [...overrides].map(([host, ip]) => `MAP ${host} ${isIP(ip) === 6 ? `[${ip}]` : ip}`).join(', ');
}

/** The override for a host name: an exact entry, else the `*.` entry of its nearest parent domain. */
export function dnsOverrideFor(overrides: Map<string, string>, host: string): string | undefined {
  const exact = overrides.get(host);
  if (exact !== undefined) return exact;
  for (let dot = host.indexOf('.'); dot >= 0; dot = host.indexOf('.', dot + 1)) {
    const wildcard = overrides.get(`*${host.slice(dot)}`);
    if (wildcard !== undefined) return wildcard;
  }
  return undefined;
}
