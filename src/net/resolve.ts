/**
 * Where a host name leads: a test's `dns` override, an IP literal, localhost, or the system resolver. Used by
 * the POST-time check and by the load's connection guard, so both see the same addresses for the same host.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { bareAddress } from './addresses.js';
import { normalHost } from './policy.js';
import type { AddressSource } from './policy.js';

/** One `dns` option entry: `host` (or `*.suffix`) → `ip`. */
export interface DnsOverride {
  host: string;
  ip: string;
}

/** Reads a stored `host:ip` entry (already validated when the test was accepted). */
export function dnsOverride(entry: string): DnsOverride {
  const at = entry.indexOf(':');
  return { host: normalHost(entry.slice(0, at)), ip: bareAddress(entry.slice(at + 1)) };
}

/** The override for a host name: an exact entry, else the `*.` entry of its nearest parent domain. */
export function overrideFor(overrides: readonly DnsOverride[], rawHost: string): string | undefined {
  const host = normalHost(rawHost);
  const exact = overrides.find((o) => o.host === host);
  if (exact) return exact.ip;
  for (let dot = host.indexOf('.'); dot >= 0; dot = host.indexOf('.', dot + 1)) {
    const wildcard = overrides.find((o) => o.host === `*${host.slice(dot)}`);
    if (wildcard) return wildcard.ip;
  }
  return undefined;
}

export interface Resolution {
  /** Empty when the host does not resolve. */
  addresses: string[];
  source: AddressSource;
}

const LOOKUP_TIMEOUT_MS = 10_000;

async function systemLookup(host: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), LOOKUP_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    return found.map((a) => a.address);
  } catch {
    return []; // NXDOMAIN, no resolver or a timeout all mean the same to the user: no address
  } finally {
    clearTimeout(timer);
  }
}

export async function resolveHost(rawHost: string, overrides: readonly DnsOverride[] = []): Promise<Resolution> {
  const host = normalHost(rawHost);
  if (isIP(host)) return { addresses: [host], source: 'dns' };
  const override = overrideFor(overrides, host);
  if (override !== undefined) return { addresses: [override], source: 'override' };
  // Browsers answer localhost and *.localhost themselves (loopback) without asking DNS.
  if (host === 'localhost' || host.endsWith('.localhost')) return { addresses: ['127.0.0.1', '::1'], source: 'dns' };
  return { addresses: await systemLookup(host), source: 'dns' };
}
