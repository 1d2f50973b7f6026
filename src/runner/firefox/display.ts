/**
 * A real display for a Firefox load: WebDriver BiDi offers no screencast, so the film of a load is taken the way
 * WebPageTest and browsertime take it for such browsers: Firefox draws on an X server of its own (Debian's Xvfb) and
 * ffmpeg records that screen (screen-recording.ts). One display per browser, started with it and stopped with it.
 *
 * The display is closed to everyone but the load: Xvfb asks every client for a random cookie (MIT-MAGIC-COOKIE-1,
 * in an authority file inside the browser's profile, readable only by the browser user and the service), and
 * listens on no TCP port. The X server and its recorder parse what the browser sends them, so they run as the browser
 * user too (never as root), and die with the process that started them (setpriv --pdeathsig): a service killed
 * mid-load leaves no X server or ffmpeg behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { AS_USER } from '../browser.js';

/** Debian's Xvfb (package xvfb; scripts/install.sh installs it). */
export const XVFB_PATH = '/usr/bin/Xvfb';
/**
 * The screen of every display: a browser is launched before its load is known (launch-ahead.ts), so the screen must
 * hold any common viewport (desktops up to 2048 px, phones and tablets in either orientation). Firefox's window fills
 * it; a load's viewport is laid out from its top-left corner. A viewport beyond it has no film (load.ts says so).
 */
export const SCREEN = { width: 2048, height: 2048 } as const;
const X11_SOCKETS = '/tmp/.X11-unix';
/** How long Xvfb may take to start before the display is taken for broken. */
const START_MS = 10_000;

/** The user the browser runs as (browser.ts BrowserSandbox.user), when the service is root. */
export type BrowserUser = { uid: number; gid: number } | undefined;

/**
 * How to spawn a command that dies with this process (setpriv --pdeathsig), as the browser user when there is one:
 * through scripts/chromium-as-user.sh, which drops the privileges as for the browsers, then a second setpriv, which
 * sets the death signal after the change of user (a change of user clears it).
 */
export function asBrowserUser(user: BrowserUser, command: string, args: readonly string[]):
{ command: string; args: string[]; env: Record<string, string> } {
  const dying = ['--pdeathsig', 'KILL', '--', command, ...args];
  if (!user) return { command: 'setpriv', args: dying, env: {} };
  return { command: AS_USER, args: dying,
    env: { WEBGAUGE_BROWSER_UID: String(user.uid), WEBGAUGE_BROWSER_GID: String(user.gid), WEBGAUGE_CHROME: 'setpriv' } };
}

export interface VirtualDisplay {
  /** The X display name, as DISPLAY takes it (":N"). */
  name: string;
  /** The authority file clients need (XAUTHORITY). */
  authority: string;
  /** Whom the display runs as; its clients run as the same user. */
  user: BrowserUser;
  /** A folder of that user's (the browser's profile, so it goes with the browser) for what its clients write. */
  scratch: string;
  width: number;
  height: number;
  close(): void;
}

/**
 * An Xauthority file with one cookie for any display on this host (family Wild, no address, no display number):
 * the display number is only known once Xvfb has picked a free one. Xvfb reads the same file with -auth.
 */
async function writeAuthority(path: string, user: BrowserUser): Promise<void> {
  const field = (b: Buffer): Buffer => Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
  const FAMILY_WILD = Buffer.from([0xff, 0xff]);
  await writeFile(path, Buffer.concat([FAMILY_WILD, field(Buffer.alloc(0)), field(Buffer.alloc(0)),
    field(Buffer.from('MIT-MAGIC-COOKIE-1')), field(randomBytes(16))]), { mode: 0o600 });
  if (user) await chown(path, user.uid, user.gid);
}

/**
 * Starts Xvfb on a free display number, as `user`; `authority`: where its cookie file goes (in the profile, so it goes
 * with it).
 */
export async function startDisplay(authority: string, user: BrowserUser, xvfbPath = XVFB_PATH): Promise<VirtualDisplay> {
  // An X server that cannot read its -auth file starts all the same, open to every local client: the file's folder
  // must be the server's user's own.
  const owner = (await stat(dirname(authority))).uid;
  if (owner !== (user?.uid ?? process.getuid?.())) throw new Error(`the display's authority folder ${dirname(authority)} is not its user's`);
  await writeAuthority(authority, user);
  // The directory of X's sockets, which only root may create (an unprivileged X server listens without it, on an
  // abstract socket only).
  if (await mkdir(X11_SOCKETS).then(() => true, () => false)) await chmod(X11_SOCKETS, 0o1777);
  const { width, height } = SCREEN;
  const run = asBrowserUser(user, xvfbPath, ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`,
    '-nolisten', 'tcp', '-auth', authority, '-s', '0']);
  const xvfb: ChildProcess = spawn(run.command, run.args, { env: { ...process.env, ...run.env }, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let log = '';
  (xvfb.stdio[2] as Readable).on('data', (d: Buffer) => (log = (log + String(d)).slice(-2000)));
  try {
    const number = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`Xvfb did not start within ${START_MS / 1000} s`)), START_MS);
      (xvfb.stdio[3] as Readable).on('data', (d: Buffer) => {
        out += String(d);
        if (out.includes('\n')) {
          clearTimeout(timer);
          resolve(out.trim());
        }
      });
      xvfb.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      xvfb.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Xvfb exited (${code}): ${log.trim().split('\n').at(-1) ?? ''}`));
      });
    });
    return { name: `:${number}`, authority, user, scratch: dirname(authority), width, height,
      close: () => void xvfb.kill('SIGTERM') };
  } catch (err) {
    xvfb.kill('SIGKILL');
    throw err;
  }
}

/** Whether a display can be started here (Xvfb has no version flag): an agent offers Firefox only with one to film on. */
export async function xvfbWorks(xvfbPath = XVFB_PATH): Promise<boolean> {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-display-'));
  try {
    (await startDisplay(join(dir, '.Xauthority'), undefined, xvfbPath)).close();
    return true;
  } catch {
    return false;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
