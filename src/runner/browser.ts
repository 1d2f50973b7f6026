/** Chromium launch for one test: a fresh browser and profile per test keeps tests independent (~0.25 s). */
import puppeteer, { type Browser } from 'puppeteer-core';

/** Flags Chromium needs to run as root in a container without a GPU, and to stay quiet on the network. */
export const BASE_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LaunchOptions {
  chromePath: string;
  userDataDir: string;
  /** `--host-resolver-rules` for the test's dns overrides. */
  hostResolverRules?: string;
  /**
   * Keep cross-site iframes in the page's process: the request interceptor then sees their requests
   * too (needed when private addresses must be refused).
   */
  sameProcessFrames?: boolean;
  protocolTimeoutMs: number;
}

export function chromeFlags(opts: LaunchOptions): string[] {
  const flags = [...BASE_FLAGS, `--user-data-dir=${opts.userDataDir}`];
  if (opts.hostResolverRules) flags.push(`--host-resolver-rules=${opts.hostResolverRules}`);
  if (opts.sameProcessFrames) {
    flags.push('--disable-site-isolation-trials', '--disable-features=IsolateOrigins,site-per-process');
  }
  return flags;
}

export async function launchBrowser(opts: LaunchOptions): Promise<Browser> {
  return puppeteer.launch({
    executablePath: opts.chromePath,
    headless: true,
    args: chromeFlags(opts),
    // Viewport, DPR and UA are emulated per test (run.ts); the window itself stays as Chromium makes it.
    defaultViewport: null,
    protocolTimeout: opts.protocolTimeoutMs,
    // The agent owns process signals; we always close in a finally block.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}

const closing = new WeakMap<Browser, Promise<void>>();

/** Closes the browser, killing it if it does not go within 5 s. Safe to call more than once. */
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
    })();
    closing.set(browser, done);
  }
  return done;
}
