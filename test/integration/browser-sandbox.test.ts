// lane: pairs 160
/**
 * The browser as launched for every test and PDF: sandboxed, as an unprivileged user when the service is root,
 * with an environment and a profile of its own, unable to read the data directory; and what a killed process
 * leaves behind is removed at the next start. Plain launches, no Lighthouse: a few seconds.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { tmpdir } from 'node:os';
import { closeBrowser, defaultSandbox, launchBrowser, removeOrphanedBrowsers } from '../../src/runner/browser.js';
import { startServer } from '../helpers/server.js';
import { CHROME } from '../helpers/run-spec.js';

const isRoot = process.getuid?.() === 0;

function status(pid: number | string, field: string): string | undefined {
  return new RegExp(`^${field}:\\s+(\\S+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
}

/** The browser's process and all its descendants. */
function processTree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const p of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      parent.set(Number(p), Number(status(p, 'PPid')));
    } catch {
      // exited meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parent) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

describe('the browser of a test', () => {
  test('runs sandboxed, not as root, with its own environment and a private profile that goes with it', async () => {
    process.env.WEBGAUGE_TEST_CANARY = 'must-not-reach-the-browser';
    const sandbox = defaultSandbox();
    const browser = await launchBrowser({ chromePath: CHROME, sandbox, protocolTimeoutMs: 30_000 });
    let profile = '';
    try {
      const pid = browser.process()!.pid!;
      const uid = Number(status(pid, 'Uid'));
      if (isRoot) {
        assert.ok(sandbox.user, 'as root, a browser user is required');
        assert.equal(uid, sandbox.user.uid, 'the browser runs as the browser user');
      } else {
        assert.equal(uid, process.getuid?.());
      }
      assert.notEqual(uid, 0);
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      assert.ok(!environ.some((e) => e.startsWith('WEBGAUGE_TEST_CANARY=')), 'the service environment is not inherited');
      profile = /--user-data-dir=(\S+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))![1]!;
      const st = statSync(profile);
      assert.equal(st.mode & 0o777, 0o700);
      assert.equal(st.uid, uid);

      const page = await browser.newPage();
      await page.goto('chrome://sandbox');
      const text = await page.evaluate(() => document.body.innerText);
      assert.match(text, /You are adequately sandboxed/, text);
      const renderers = processTree(pid).filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('--type=renderer');
        } catch {
          return false;
        }
      });
      assert.ok(renderers.length > 0);
      for (const r of renderers) assert.equal(status(r, 'Seccomp'), '2', `renderer ${r} runs under seccomp-bpf`);
    } finally {
      delete process.env.WEBGAUGE_TEST_CANARY;
      await closeBrowser(browser);
    }
    assert.equal(existsSync(profile), false, 'the profile is removed with the browser');
  });

  test('the browser user cannot read the data directory', { skip: !isRoot && 'only meaningful when the service runs as root' }, async () => {
    const server = await startServer({ engine: 'sqlite' });
    try {
      const dir = server.config.dataDir;
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      const user = defaultSandbox().user!;
      const result = await new Promise<{ code: number | null; err: string }>((resolve) => {
        execFile('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', 'ls', dir], (e, _o, err) =>
          resolve({ code: e ? (e as { code?: number }).code ?? 1 : 0, err }));
      });
      assert.notEqual(result.code, 0);
      assert.match(result.err, /Permission denied/);
    } finally {
      await server.close();
    }
  });
});

describe('after kill -9', () => {
  const tag = `orphan${process.pid}`;
  after(() => removeOrphanedBrowsers(tag));

  test('the next start removes the browsers and profiles a killed process left behind, and only those', async () => {
    // A process that launches a browser with its own tag and is then killed without any chance to clean up.
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      import { launchBrowser, defaultSandbox } from ${JSON.stringify(new URL('../../src/runner/browser.ts', import.meta.url).href)};
      const b = await launchBrowser({ chromePath: ${JSON.stringify(CHROME)}, sandbox: { ...defaultSandbox(), tag: ${JSON.stringify(tag)} },
        protocolTimeoutMs: 30000 });
      console.log(b.process().pid);
      setInterval(() => {}, 1000);
    `], { stdio: ['ignore', 'pipe', 'inherit'] });
    const browserPid = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      child.once('exit', () => reject(new Error('the child exited before launching')));
    });
    const mine = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`webgauge-browser-${tag}-${child.pid}-`));
    assert.equal(mine().length, 1);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    // Someone else's live profile with the same tag stays.
    const alive = await launchBrowser({ chromePath: CHROME, sandbox: { ...defaultSandbox(), tag }, protocolTimeoutMs: 30_000 });
    try {
      assert.ok(removeOrphanedBrowsers(tag) >= 1);
      assert.deepEqual(mine(), [], 'the dead process\'s profile is gone');
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(existsSync(`/proc/${browserPid}`) && status(browserPid, 'State') !== 'Z', false, 'its browser is gone');
      assert.ok(alive.connected, 'a live process\'s browser is left alone');
      assert.equal(readdirSync(tmpdir()).filter((n) => n.startsWith(`webgauge-browser-${tag}-${process.pid}-`)).length, 1);
    } finally {
      await closeBrowser(alive);
    }
  });
});
