/**
 * Chromium launch for one test (or one PDF): a fresh browser and profile each time keeps tests independent
 * (~1.1 s for Chromium 156 on 2 cores, so a test's is launched ahead: launch-ahead.ts). The browser runs with its
 * sandbox on. When the service runs as root, Chromium (which refuses to sandbox itself as root) runs as a dedicated
 * unprivileged user instead (WEBGAUGE_BROWSER_USER, created by scripts/install.sh), with an environment of its own
 * and a profile in a fresh temporary folder that only that user can read: the browser never sees the data directory
 * or the service's environment.
 * An operator who cannot have a sandbox (some containers forbid the namespaces it needs) sets
 * WEBGAUGE_BROWSER_SANDBOX=0 and gets `--no-sandbox`, with a warning at start.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, lchownSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser } from 'puppeteer-core';
import { installTrustStore, type TrustStore } from './trust-store.js';

/** Flags for a headless browser without a GPU that stays quiet on the network. */
export const BASE_FLAGS = [
  '--headless=new',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Chromium features every browser goes without. The omnibox popups are WebUI pages that a headless browser loads
 * anyway, a little after launch: two renderers of browser UI that use CPU beside the tested page, and whose
 * scripts (4 MB of sources) fill every load's trace, which Lighthouse then reads and parses (about 0.2 s a load).
 * RenderDocument (a new frame host for every navigation) is off as Lighthouse's own launcher has it (chrome-launcher's
 * default flags, Lighthouse #16363), so a load runs in the browser that the Lighthouse CLI and PageSpeed Insights run:
 * with it on, /paint's first paint came 8 ms later and /faulty's 2.5 ms (medians of 8 loads, interleaved).
 */
const DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'RenderDocument'];

/** Who the browser runs as and whether its sandbox is on. */
export interface BrowserSandbox {
  /** false only when the operator opted out (WEBGAUGE_BROWSER_SANDBOX=0). */
  enabled: boolean;
  /** The unprivileged user the browser runs as when the service is root. */
  user?: { name: string; uid: number; gid: number };
  /**
   * Names this service's temporary profiles (`webgauge-browser-<tag>-<pid>-…`), so that a restart finds the
   * ones a killed process left behind (removeOrphanedBrowsers) and leaves other services' alone.
   */
  tag: string;
}

export class BrowserSetupError extends Error {}

/** Reads a user from /etc/passwd (no spawn, no dependency). */
function systemUser(name: string): { name: string; uid: number; gid: number } | undefined {
  let passwd: string;
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined) return { name, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

/**
 * The sandbox settings for this process. Throws BrowserSetupError with what to do when the service runs as
 * root, wants a sandbox, and the browser user does not exist.
 */
export function browserSandbox(o: { enabled: boolean; userName: string; tag: string }): BrowserSandbox {
  if (!o.enabled || process.getuid?.() !== 0) return { enabled: o.enabled, tag: o.tag };
  const user = systemUser(o.userName);
  if (!user) {
    throw new BrowserSetupError(`The service runs as root, so Chromium must run as an unprivileged user with its ` +
      `sandbox, and the user "${o.userName}" does not exist. Run scripts/install.sh (it creates it), or ` +
      `\`useradd --system --no-create-home ${o.userName}\`, or name another user in WEBGAUGE_BROWSER_USER.`);
  }
  if (user.uid === 0) throw new BrowserSetupError(`WEBGAUGE_BROWSER_USER "${o.userName}" is root; name an unprivileged user`);
  if (!canSwitchUser()) throw new BrowserSetupError('setpriv (util-linux) is needed to run the browser as another user');
  return { enabled: true, user, tag: o.tag };
}

/** A short, stable name for a data directory, for the names of its processes' temporary folders. */
export function dataDirTag(dataDir: string): string {
  return createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 10);
}

let embeddedSandbox: BrowserSandbox | undefined;
/** What an embedded caller (tests, benchmarks, the PDF renderer without a config) gets; worked out once. */
export const defaultSandbox = (): BrowserSandbox =>
  (embeddedSandbox ??= browserSandbox({ enabled: true, userName: process.env.WEBGAUGE_BROWSER_USER || 'webgauge-browser',
    tag: 'default' }));

export interface LaunchOptions {
  chromePath: string;
  sandbox?: BrowserSandbox;
  /** More flags (the connection guard's proxy flags). */
  flags?: string[];
  /**
   * Keep cross-site iframes in the page's process: the request interceptor then sees their requests too
   * (needed for allow/block lists, adblock, latency and HTTP auth).
   */
  sameProcessFrames?: boolean;
  protocolTimeoutMs: number;
  /** The operator's extra CAs (trust-store.ts), trusted by this browser on top of its own root store. */
  trustStore?: TrustStore;
}

/**
 * Runs a program as the browser user, keeping its pipes (scripts/chromium-as-user.sh: setpriv, then exec): Chromium,
 * Firefox, and Firefox's display and its recorder (firefox/display.ts).
 */
export const AS_USER = fileURLToPath(new URL('../../scripts/chromium-as-user.sh', import.meta.url));

const profiles = new WeakMap<Browser, string>();

/** The browser's profile folder, removed when closeBrowser closes it (Firefox's launch, firefox/launch.ts, too). */
export function rememberProfile(browser: Browser, profile: string): void {
  profiles.set(browser, profile);
}

/**
 * The profile's preferences: no network prediction. Chromium otherwise preconnects to a page's origin the moment
 * its navigation starts, so the document's request finds its connection open: its DNS and connect phases would be
 * missing from the HAR (and spent before navigation start), and the tested site would see a connection that no
 * request of the page asked for.
 */
const PREFERENCES = JSON.stringify({ net: { network_prediction_options: 2 } });

/** Fills a fresh profile (which is also the browser's home) before launch; its user owns what is written. */
function prepareProfile(profile: string, o: LaunchOptions, user: BrowserSandbox['user']): void {
  const own = (path: string): void => (user ? chownSync(path, user.uid, user.gid) : undefined);
  const defaultDir = join(profile, 'Default');
  mkdirSync(defaultDir, { mode: 0o700 });
  own(defaultDir);
  writeFileSync(join(defaultDir, 'Preferences'), PREFERENCES, { mode: 0o600 });
  own(join(defaultDir, 'Preferences'));
  if (o.trustStore) installTrustStore(o.trustStore, profile, user);
}

export function chromeFlags(o: LaunchOptions, userDataDir: string): string[] {
  const flags = [...BASE_FLAGS, `--user-data-dir=${userDataDir}`, ...(o.flags ?? [])];
  if (o.sandbox?.enabled === false) flags.push('--no-sandbox');
  // One --disable-features flag: Chromium reads only the last one given.
  const disabled = [...DISABLED_FEATURES];
  if (o.sameProcessFrames) {
    flags.push('--disable-site-isolation-trials');
    disabled.push('IsolateOrigins', 'site-per-process');
  }
  flags.push(`--disable-features=${disabled.join(',')}`);
  return flags;
}

/** A browser's own start: its fresh profile folder, the program to run, and its environment. */
export interface BrowserStart {
  profile: string;
  /** The browser itself, or AS_USER running it as the sandbox's user. */
  executablePath: string;
  env: Record<string, string>;
}

/**
 * A fresh profile folder (named so that removeOrphanedBrowsers finds what a killed process left), which is also the
 * browser's home, and an environment of the browser's own: no database URL, no keys of the service. Chromium's and
 * Firefox's (firefox/launch.ts); the caller removes the folder if the launch fails.
 */
export async function browserStart(browserPath: string, sandbox: BrowserSandbox, extraEnv: Record<string, string> = {}):
Promise<BrowserStart> {
  const profile = await mkdtemp(join(tmpdir(), `webgauge-browser-${sandbox.tag}-${process.pid}-`));
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin', HOME: profile, TMPDIR: profile, LANG: process.env.LANG ?? 'C.UTF-8',
    ...(process.env.TZ ? { TZ: process.env.TZ } : {}),
    ...(process.env.FONTCONFIG_PATH ? { FONTCONFIG_PATH: process.env.FONTCONFIG_PATH } : {}),
    ...extraEnv,
  };
  if (!sandbox.user) return { profile, executablePath: browserPath, env };
  Object.assign(env, { WEBGAUGE_BROWSER_UID: String(sandbox.user.uid), WEBGAUGE_BROWSER_GID: String(sandbox.user.gid),
    WEBGAUGE_CHROME: browserPath });
  return { profile, executablePath: AS_USER, env };
}

/** Hands a filled profile (a folder and all it holds) to `user`, and to no one else (0700). */
export function ownProfile(profile: string, user: { uid: number; gid: number }): void {
  chownTree(profile, user);
  chmodSync(profile, 0o700);
}

/** Chowns a folder and all it holds; a symbolic link itself, never what it points to. */
function chownTree(path: string, user: { uid: number; gid: number }): void {
  lchownSync(path, user.uid, user.gid);
  if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), user);
}

export async function launchBrowser(o: LaunchOptions): Promise<Browser> {
  const sandbox = o.sandbox ?? defaultSandbox();
  const { profile, executablePath, env } = await browserStart(o.chromePath, sandbox);
  try {
    prepareProfile(profile, o, sandbox.user);
    if (sandbox.user) ownProfile(profile, sandbox.user);
    const browser = await puppeteer.launch({
      executablePath,
      headless: true,
      args: chromeFlags({ ...o, sandbox }, profile),
      // The pipe, not a DevTools port on 127.0.0.1 that anything on the machine could connect to.
      pipe: true,
      env,
      // Chromium's popup blocker stays on: a page opens no window without a user's gesture (puppeteer turns it
      // off by default), so a page that opens popups in a loop opens none.
      ignoreDefaultArgs: ['--disable-popup-blocking'],
      // Viewport, DPR and UA are emulated per test (run.ts); the window itself stays as Chromium makes it.
      defaultViewport: null,
      protocolTimeout: o.protocolTimeoutMs,
      // The agent owns process signals; we always close in a finally block.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    rememberProfile(browser, profile);
    return browser;
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
}

const closing = new WeakMap<Browser, Promise<void>>();

/** Closes the browser, killing it if it does not go within 5 s, and removes its profile. Safe to call twice. */
export function closeBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser) return Promise.resolve();
  let done = closing.get(browser);
  if (!done) {
    done = (async () => {
      const proc = browser.process();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)));
      await Promise.race([browser.close().catch(() => undefined), timeout]);
      clearTimeout(timer);
      if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      const profile = profiles.get(browser);
      if (profile) await rm(profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    })();
    closing.set(browser, done);
  }
  return done;
}

/**
 * After a crash or kill -9: kills the browsers and removes the profiles (and run scratch folders) that
 * processes of this service (same tag) left behind. A folder whose process is still alive is left alone, so
 * two services on one machine do not disturb each other. Returns how many folders were removed.
 */
export function removeOrphanedBrowsers(tag: string): number {
  const dir = tmpdir();
  const pattern = new RegExp(`^webgauge-(?:browser|run)-${tag.replace(/[^\w-]/g, '')}-(\\d+)-`);
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const m = pattern.exec(name);
    if (!m || processAlive(Number(m[1]))) continue;
    const path = join(dir, name);
    killBrowsersUsing(path);
    try {
      if (statSync(path).isDirectory()) rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // gone meanwhile
    }
  }
  return removed;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGKILLs every process whose command line names `profile` (a browser and its helpers; Firefox: `--profile <dir>`). */
function killBrowsersUsing(profile: string): void {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(`--user-data-dir=${profile}`) || cmdline.includes(`--profile\0${profile}`)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
}

/** Whether `setpriv` is there for running the browser as another user (checked at start when root). */
function canSwitchUser(): boolean {
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
