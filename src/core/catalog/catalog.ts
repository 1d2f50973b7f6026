/**
 * Reference data (spec 2.4-2.6): the test locations, browsers and simulated devices this server offers.
 * Two browsers: Chrome (the Chromium the runner drives over CDP, with Lighthouse) and Firefox (Desktop) (Firefox ESR
 * over WebDriver BiDi, runner/firefox/): a location offers those its online agents find. The device list is
 * puppeteer-core's KnownDevices, so every device we list is one the runner can emulate faithfully.
 */
import { KnownDevices } from 'puppeteer-core';
import type { DeviceProfile } from '../../runner/types.js';

export interface Location {
  id: string;
  name: string;
  region: string;
  default: boolean;
  /** IDs of the browsers this location runs (what its online agents offer). */
  browsers: string[];
  /** Agents of the location heard from within three heartbeats (core/catalog/locations.ts); absent for a static catalog. */
  agentsOnline?: number;
}

/** Where a catalog's locations come from when they live in the database (core/catalog/locations.ts LocationDirectory). */
export interface LocationSource {
  locations(): Location[];
  readonly defaultLocation: string;
}

export interface Browser {
  id: string;
  name: string;
  browser: string;
  platform: 'desktop' | 'android';
  /** `phone` or `tablet` for mobile browsers; empty string for desktop. */
  device: '' | 'phone' | 'tablet';
  default: boolean;
  adblock: boolean;
  lighthouse: boolean;
  cookies: boolean;
  filtering: boolean;
  http_auth: boolean;
  throttle: boolean;
  video: boolean;
  dns: boolean;
  user_agent: boolean;
  resolution: boolean;
  /** Webgauge extension: the CPU is slowed to a calibrated phone's (device_class, vocabulary/device-classes.ts). */
  cpu_throttle: boolean;
}

/** The browser capability flags, the attributes of a Browser that say what it supports. */
export type BrowserCapability = Exclude<keyof Browser, 'id' | 'name' | 'browser' | 'platform' | 'device' | 'default'>;

export interface SimulatedDevice {
  id: string;
  category: 'phone' | 'tablet';
  name: string;
  manufacturer: string;
  user_agent: string;
  /** Portrait viewport in CSS pixels. */
  width: number;
  height: number;
  dppx: number;
}

export interface Catalog {
  locations(): Location[];
  location(id: string): Location | undefined;
  browsers(): Browser[];
  browser(id: string): Browser | undefined;
  devices(): SimulatedDevice[];
  device(id: string): SimulatedDevice | undefined;
  defaultLocation: string;
  defaultBrowser: string;
}

export interface CatalogConfig {
  locationName: string;
  locationRegion: string;
}

const LOCATION_ID = '1';
const BROWSER_ID = '3';
/** GTmetrix's own ID of Firefox (Desktop). */
const FIREFOX_ID = '1';

/**
 * URL-safe, lower-case ID from a device name: "iPhone 13 Pro" → "iphone-13-pro", "Galaxy S9+" → "galaxy-s9-plus",
 * "iPad (gen 6)" → "ipad-gen-6". Also used to look up a device given by name.
 */
export function deviceSlug(name: string): string {
  return name
    .toLowerCase()
    .replace(/\+/g, ' plus ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

// Brand names where the model name does not start with the maker's name.
const MAKERS: [RegExp, string][] = [
  [/^(iphone|ipad)/i, 'Apple'],
  [/^(pixel|nexus)/i, 'Google'],
  [/^galaxy/i, 'Samsung'],
  [/^blackberry/i, 'BlackBerry'],
  [/^kindle/i, 'Amazon'],
  [/^moto/i, 'Motorola'],
  [/^jio/i, 'Jio'],
];

function manufacturerOf(name: string): string {
  for (const [re, maker] of MAKERS) if (re.test(name)) return maker;
  return name.split(/\s+/)[0] ?? name;
}

const TABLET_NAME = /ipad|\btab\b|nexus 7|nexus 10|kindle|galaxy tab|tablet/i;

function buildDevices(): SimulatedDevice[] {
  const out: SimulatedDevice[] = [];
  const seen = new Set<string>();
  for (const [name, d] of Object.entries(KnownDevices)) {
    const vp = d.viewport;
    // Landscape entries duplicate their portrait twin; browser_rotate gives the landscape view.
    if (vp.isLandscape || / landscape$/i.test(name)) continue;
    const id = deviceSlug(name);
    if (!id || seen.has(id)) continue;
    seen.add(id);
    // A few entries list a landscape viewport without the flag; the catalogue always gives portrait.
    const width = Math.min(vp.width, vp.height);
    const height = Math.max(vp.width, vp.height);
    const dppx = Math.min(5, Math.max(1, vp.deviceScaleFactor ?? 1));
    out.push({
      id,
      category: TABLET_NAME.test(name) || width >= 600 ? 'tablet' : 'phone',
      name,
      manufacturer: manufacturerOf(name),
      user_agent: d.userAgent,
      width,
      height,
      dppx,
    });
  }
  return out;
}

// Built once: KnownDevices is static data.
let deviceCache: readonly SimulatedDevice[] | undefined;
function allDevices(): readonly SimulatedDevice[] {
  deviceCache ??= Object.freeze(buildDevices().map((d) => Object.freeze(d)));
  return deviceCache;
}

export function createCatalog(cfg: CatalogConfig, source?: LocationSource): Catalog {
  const location: Location = {
    id: LOCATION_ID,
    name: cfg.locationName,
    region: cfg.locationRegion,
    default: true,
    browsers: [BROWSER_ID],
  };
  // Capabilities are honest: each is implemented by the runner's conditions/.
  const chrome: Browser = {
    id: BROWSER_ID,
    name: 'Chrome (Desktop)',
    browser: 'chrome',
    platform: 'desktop',
    device: '',
    default: true,
    adblock: true,
    lighthouse: true,
    cookies: true,
    filtering: true,
    http_auth: true,
    throttle: true,
    video: true,
    dns: true,
    user_agent: true,
    resolution: true,
    cpu_throttle: true,
  };
  // Firefox runs no Lighthouse (no CDP). Its film (filmstrip and video) is a recording of the display it draws on
  // (runner/firefox/display.ts, screen-recording.ts): WebDriver BiDi has no screencast. Every option acts on its load
  // and is proven by test/integration/firefox.test.ts.
  const firefox: Browser = {
    ...chrome,
    id: FIREFOX_ID,
    name: 'Firefox (Desktop)',
    browser: 'firefox',
    default: false,
    lighthouse: false,
    // WebDriver BiDi has no CPU throttling: a Firefox test runs on the host's CPU (device_class "desktop").
    cpu_throttle: false,
  };
  const browsers = [chrome, firefox];
  const devices = allDevices();
  const byId = new Map(devices.map((d) => [d.id, d]));
  // Hand out copies so a caller (a serializer, say) cannot alter the reference data.
  const copyLocation = (l: Location): Location => ({ ...l, browsers: [...l.browsers] });
  const locations = source ? () => source.locations() : () => [copyLocation(location)];
  return {
    locations,
    location: (id) => locations().find((l) => l.id === id),
    browsers: () => browsers.map((b) => ({ ...b })),
    browser: (id) => {
      const b = browsers.find((x) => x.id === id);
      return b ? { ...b } : undefined;
    },
    devices: () => devices.map((d) => ({ ...d })),
    device: (id) => {
      const d = byId.get(id);
      return d ? { ...d } : undefined;
    },
    get defaultLocation() {
      return source ? source.defaultLocation : LOCATION_ID;
    },
    defaultBrowser: BROWSER_ID,
  };
}

/**
 * Whether tests at this location may ask for this browser: one its online agents offer; when none is online, any
 * browser of the catalogue (the test waits in the queue for an agent, up to the queue timeout).
 */
export function locationOffers(catalog: Catalog, location: Location, browserId: string): boolean {
  return catalog.browser(browserId) !== undefined && (location.browsers.length === 0 || location.browsers.includes(browserId));
}

/**
 * The browsers an agent of this code offers (it announces them at hello and in heartbeats): Chrome, and Firefox when
 * it found a working one (runner/firefox/launch.ts firefoxVersion).
 */
export function agentBrowsers(o: { firefox: boolean }): string[] {
  return o.firefox ? [BROWSER_ID, FIREFOX_ID] : [BROWSER_ID];
}

/**
 * Whether a report of this browser keeps its filmstrip without Lighthouse. The filmstrip is a Lighthouse report's
 * resource (the spec's "L"); a browser that cannot run Lighthouse (Firefox) keeps the film of its recorded screen with
 * every report, as its only record of what the screen showed over time.
 */
export function keepsFilmWithoutLighthouse(browserId: string): boolean {
  return browserId === FIREFOX_ID;
}

/** The runner's name of a catalog browser (RunSpec.browser). */
export function runnerBrowser(browser: Browser | undefined): 'chrome' | 'firefox' {
  return browser?.browser === 'firefox' ? 'firefox' : 'chrome';
}

/** What the runner needs to emulate a device (portrait; browser_rotate swaps it later). */
export function deviceProfile(device: SimulatedDevice): DeviceProfile {
  return {
    id: device.id,
    width: device.width,
    height: device.height,
    dppx: device.dppx,
    userAgent: device.user_agent,
    mobile: true,
  };
}
