import type { RunOptions } from './types.js';
import type { Protocol } from 'puppeteer-core';
import type { DeviceProfile } from '../types.js';

export interface Emulation {
  width: number;
  height: number;
  dppx: number;
  /** Mobile viewport semantics (meta viewport, touch). */
  mobile: boolean;
  /** Lighthouse form factor: picks the mobile or desktop scoring curves. */
  formFactor: 'desktop' | 'mobile';
  userAgent: string;
}

const DESKTOP = { width: 1366, height: 768, dppx: 1 };

/** Lighthouse's mobile screen (412 × 823 at 1.75, touch), for a phone class without a simulated device. */
export const PHONE_SCREEN = { width: 412, height: 823, dppx: 1.75 } as const;

/** A current mobile Chrome's user agent, as Lighthouse's mobile preset writes it, with this browser's major version. */
export function phoneUserAgent(chromeMajor: string | number): string {
  return `Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${chromeMajor}.0.0.0 ` +
    'Mobile Safari/537.36';
}

/** The screen a journey's recording set in its first step (setViewport). */
export interface RecordedScreen {
  width: number;
  height: number;
  dppx: number;
  mobile: boolean;
}

/**
 * The screen and user agent of the test. Precedence: explicit options over the device preset (or the screen a
 * journey recorded) over the desktop default; rotate swaps width and height last. Without user_agent or a device, the real browser's
 * UA is sent (minus the "Headless" marker), not Lighthouse's emulated old macOS Chrome.
 */
export function resolveEmulation(options: RunOptions, device: DeviceProfile | undefined,
  browserUserAgent: string, recorded?: RecordedScreen, phoneScreen = false): Emulation {
  // A phone class without a device of its own gets Lighthouse's mobile screen and a mobile Chrome's user agent.
  const phone = phoneScreen && !device && !recorded ? { ...PHONE_SCREEN, mobile: true,
    userAgent: phoneUserAgent(/(?:Chrome|Chromium)\/(\d+)/.exec(browserUserAgent)?.[1] ?? '140') } : undefined;
  device ??= phone && { id: 'phone', ...phone };
  const base = device ?? recorded;
  let width = options.browser_width ?? base?.width ?? DESKTOP.width;
  let height = options.browser_height ?? base?.height ?? DESKTOP.height;
  if (options.browser_rotate === 1) [width, height] = [height, width];
  const mobile = base?.mobile ?? false;
  return {
    width,
    height,
    dppx: options.browser_dppx ?? base?.dppx ?? DESKTOP.dppx,
    mobile,
    formFactor: mobile ? 'mobile' : 'desktop',
    userAgent: options.user_agent || device?.userAgent || browserUserAgent.replace('HeadlessChrome', 'Chrome'),
  };
}

/**
 * Client hints (Sec-CH-UA*) consistent with a Chrome-like UA string; none for other browsers' UAs,
 * which do not send them.
 */
export function userAgentMetadata(userAgent: string, mobile: boolean): Protocol.Emulation.UserAgentMetadata | undefined {
  const version = /(?:Chrome|CriOS)\/(\d+)[\d.]*/.exec(userAgent);
  if (!version) return undefined;
  const platform = /Android/.test(userAgent) ? 'Android'
    : /Windows/.test(userAgent) ? 'Windows'
    : /Mac OS X/.test(userAgent) ? 'macOS'
    : /CrOS/.test(userAgent) ? 'Chrome OS'
    : 'Linux';
  return {
    brands: [{ brand: 'Chromium', version: version[1] }, { brand: 'Not_A Brand', version: '24' }],
    platform,
    platformVersion: '',
    architecture: '',
    model: '',
    mobile: mobile || /Mobile/.test(userAgent),
  };
}
