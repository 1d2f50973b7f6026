/**
 * Firefox launch for one load, as browser.ts launches Chromium: a fresh profile in a temporary folder named like
 * Chromium's (so removeOrphanedBrowsers finds what a killed process left), holding nothing of any page, only
 * Firefox's own state from a first start (ENGINE_STATE, below), run as the unprivileged browser user
 * (scripts/chromium-as-user.sh: setpriv, then exec) with an environment of its own, and every connection through
 * the load's connection guard (prefs.ts). puppeteer-core drives it over WebDriver BiDi; its Remote Agent listens on
 * a loopback port, which Firefox guards itself against web pages (it refuses requests that carry an Origin).
 * Firefox has its own sandbox (content processes), which needs no root: WEBGAUGE_BROWSER_SANDBOX=0 turns it off.
 * It draws on a display of its own (display.ts: Xvfb, filmed by screen-recording.ts), in kiosk mode (no toolbar: the
 * page's viewport starts at the screen's top-left corner), its window as large as the screen.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { cp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { browserStart, defaultSandbox, ownProfile, rememberProfile, type BrowserSandbox } from '../browser.js';
import type { TrustStore } from '../trust-store.js';
import { firefoxPrefs } from './prefs.js';
import { SCREEN, startDisplay, xvfbWorks, type VirtualDisplay } from './display.js';

/** Debian's Firefox ESR (WEBGAUGE_FIREFOX_PATH overrides it). */
export const DEFAULT_FIREFOX_PATH = '/usr/bin/firefox-esr';

export interface FirefoxLaunch {
  firefoxPath: string;
  sandbox?: BrowserSandbox;
  /** The port of the load's connection guard on 127.0.0.1. */
  guardPort: number;
  protocolTimeoutMs: number;
  /** The operator's extra CAs: the NSS database becomes the profile's own (Firefox keeps it in the profile). */
  trustStore?: TrustStore;
}

export async function launchFirefox(o: FirefoxLaunch): Promise<Browser> {
  const sandbox = o.sandbox ?? defaultSandbox();
  const engine = await engineState(o);
  const { profile, executablePath, env } = await browserStart(o.firefoxPath, sandbox, firefoxEnv(sandbox));
  let display: VirtualDisplay | undefined;
  try {
    // 19 MB: copied off the event loop (the service answers its API meanwhile).
    if (engine) await Promise.all(ENGINE_STATE.map((entry) => cp(join(engine, entry), join(profile, entry), { recursive: true })));
    if (o.trustStore) for (const file of readdirSync(o.trustStore.dir)) copyFileSync(join(o.trustStore.dir, file), join(profile, file));
    if (sandbox.user) ownProfile(profile, sandbox.user);
    display = await startDisplay(join(profile, '.Xauthority'), sandbox.user);
    Object.assign(env, { DISPLAY: display.name, XAUTHORITY: display.authority });
    const browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath,
      headless: false,
      args: ['--kiosk', '-width', String(SCREEN.width), '-height', String(SCREEN.height)],
      // The profile is ours (puppeteer writes its user.js there): it is removed when the browser closes.
      userDataDir: profile,
      extraPrefsFirefox: firefoxPrefs(o.guardPort),
      env,
      defaultViewport: null,
      protocolTimeout: o.protocolTimeoutMs,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    rememberProfile(browser, profile);
    const shown = display;
    displays.set(browser, shown);
    browser.once('disconnected', () => shown.close());
    return browser;
  } catch (err) {
    display?.close();
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
}

const displays = new WeakMap<Browser, VirtualDisplay>();

function firefoxEnv(sandbox: BrowserSandbox): Record<string, string> {
  return {
    // Lets the profile point remote settings at a data: URL (prefs.ts), which release builds otherwise ignore.
    MOZ_REMOTE_SETTINGS_DEVTOOLS: '1',
    MOZ_CRASHREPORTER_DISABLE: '1',
    ...(sandbox.enabled ? {} : { MOZ_DISABLE_CONTENT_SANDBOX: '1', MOZ_DISABLE_GMP_SANDBOX: '1', MOZ_DISABLE_RDD_SANDBOX: '1',
      MOZ_DISABLE_SOCKET_PROCESS_SANDBOX: '1' }),
  };
}

/**
 * What Firefox keeps of its own in a profile and builds on the first start of every new one: its add-on registry
 * (extensions.json, addonStartup.json.lz4, compatibility.ini: the built-in add-ons scanned) and its startup cache
 * (its own scripts compiled). Nothing of any page: no cache, cookie, storage, history or permission (those files are
 * not kept). On 2 cores a profile that has them starts in 2.4-3.0 s instead of 4.0-4.5 (headless; a Firefox test's
 * load through the runner 8.6-9.0 -> 6.6-7.1 s), and its load's figures are the same within their noise.
 */
const ENGINE_STATE = ['startupCache', 'extensions.json', 'addonStartup.json.lz4', 'compatibility.ini'];
const engineStates = new Map<string, Promise<string | undefined>>();

/**
 * Firefox's own state (ENGINE_STATE) from one start of a new profile that loads no page, made once per process and
 * browser set-up, copied into each load's fresh profile. Undefined when it could not be made: loads then start from
 * an empty profile, as before. Never rejects. Named like a profile, so a restart removes what a killed process left.
 */
function engineState(o: FirefoxLaunch): Promise<string | undefined> {
  const sandbox = o.sandbox ?? defaultSandbox();
  const key = [o.firefoxPath, sandbox.tag, sandbox.enabled, sandbox.user?.uid].join('\0');
  let state = engineStates.get(key);
  if (!state) engineStates.set(key, (state = makeEngineState(o, sandbox).catch(() => undefined)));
  return state;
}

async function makeEngineState(o: FirefoxLaunch, sandbox: BrowserSandbox): Promise<string | undefined> {
  const { profile, executablePath, env } = await browserStart(o.firefoxPath, sandbox, firefoxEnv(sandbox));
  // Its own traffic is off (prefs.ts), and whatever it tries reaches a relay that closes every connection at once.
  const nowhere = createServer((socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => nowhere.once('error', reject).listen(0, '127.0.0.1', resolve));
    if (sandbox.user) ownProfile(profile, sandbox.user);
    const browser = await puppeteer.launch({
      browser: 'firefox', executablePath, headless: true, userDataDir: profile, env,
      extraPrefsFirefox: firefoxPrefs((nowhere.address() as AddressInfo).port),
      protocolTimeout: o.protocolTimeoutMs, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
    });
    await browser.close();
    for (const entry of readdirSync(profile)) if (!ENGINE_STATE.includes(entry)) rmSync(join(profile, entry), { recursive: true, force: true });
    if (ENGINE_STATE.every((entry) => existsSync(join(profile, entry)))) {
      // The service's own from now on: no browser (the browser user) may change what the next loads start with.
      if (sandbox.user) ownProfile(profile, { uid: process.getuid!(), gid: process.getgid!() });
      process.once('exit', () => rmSync(profile, { recursive: true, force: true }));
      return profile;
    }
  } catch {
    // the loads start from empty profiles
  } finally {
    nowhere.close();
  }
  await rm(profile, { recursive: true, force: true });
  return undefined;
}

/** The display a Firefox of launchFirefox draws on. */
export function displayOf(browser: Browser): VirtualDisplay | undefined {
  return displays.get(browser);
}

/**
 * What an agent offers Firefox with: its version when Firefox answers at `path` and Xvfb is there to film its loads
 * on; otherwise what is missing.
 */
export async function findFirefox(path: string): Promise<{ version: string } | { missing: string }> {
  const [version, xvfb] = await Promise.all([firefoxVersion(path), xvfbWorks()]);
  if (!version) return { missing: `no working Firefox at ${path}` };
  if (!xvfb) return { missing: 'no Xvfb (package xvfb) to film Firefox\'s loads on' };
  return { version };
}

/**
 * The version of a working Firefox at `path` (`firefox --version` answers within 10 s), or undefined: an agent offers
 * Firefox only when it finds one.
 */
export function firefoxVersion(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { timeout: 10_000, env: { PATH: '/usr/bin:/bin', HOME: tmpdir() } }, (err, stdout) => {
      const version = /Firefox\s+([\d.]+\S*)/.exec(String(stdout))?.[1];
      resolve(err ? undefined : version);
    });
  });
}
