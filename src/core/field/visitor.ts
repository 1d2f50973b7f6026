/**
 * What a beacon's request tells of its visitor, read once and never stored: the browser family and major version,
 * the OS family and the device class, from the User-Agent header (bowser). The user-agent string itself, like the
 * sender's address, is not kept anywhere.
 */
import Bowser from 'bowser';
import { LRUCache } from 'lru-cache';
import type { FieldDevice } from './beacon.js';

export interface Visitor {
  browser: string;
  browserMajor: number | null;
  os: string;
  device: FieldDevice;
}

/** The browser families a site's figures are broken down by; every other browser is "Other". */
export const BROWSER_FAMILIES = ['Chrome', 'Edge', 'Safari', 'Firefox', 'Samsung Internet', 'Opera', 'Other'] as const;
const BOWSER_FAMILIES: Record<string, (typeof BROWSER_FAMILIES)[number]> = {
  Chrome: 'Chrome', Chromium: 'Chrome', 'Microsoft Edge': 'Edge', Safari: 'Safari', Firefox: 'Firefox',
  'Samsung Internet for Android': 'Samsung Internet', Opera: 'Opera',
};
export const OS_FAMILIES = ['Windows', 'macOS', 'iOS', 'Android', 'Linux', 'ChromeOS', 'Other'] as const;
const BOWSER_OS: Record<string, (typeof OS_FAMILIES)[number]> = {
  Windows: 'Windows', macOS: 'macOS', iOS: 'iOS', Android: 'Android', Linux: 'Linux', 'Chrome OS': 'ChromeOS',
};

/** Parsing a user agent costs tens of µs; a site's visitors share few of them. Bounded, so a flood of made-up ones costs memory only up to this. */
const cache = new LRUCache<string, Visitor>({ max: 2000 });
const MAX_UA = 512;

export function visitorOf(userAgent: string | undefined): Visitor {
  const ua = (userAgent ?? '').slice(0, MAX_UA);
  const hit = cache.get(ua);
  if (hit) return hit;
  const parsed = Bowser.parse(ua);
  const major = Number.parseInt(parsed.browser.version ?? '', 10);
  const type = parsed.platform.type;
  const visitor: Visitor = {
    browser: BOWSER_FAMILIES[parsed.browser.name ?? ''] ?? 'Other',
    browserMajor: Number.isFinite(major) && major >= 0 && major < 10_000 ? major : null,
    os: BOWSER_OS[parsed.os.name ?? ''] ?? 'Other',
    device: type === 'mobile' ? 'mobile' : type === 'tablet' ? 'tablet' : 'desktop',
  };
  cache.set(ua, visitor);
  return visitor;
}
