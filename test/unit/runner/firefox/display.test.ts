/**
 * firefox/display.ts: the display a Firefox load draws on is the load's alone: a client without its cookie is refused,
 * it listens on no TCP port, and it runs as the browser user when there is one (real Xvfb; ffmpeg as the client).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSandbox } from '../../../../src/runner/browser.js';
import { startDisplay } from '../../../../src/runner/firefox/display.js';

/** Whether an X client (ffmpeg grabbing one frame) gets a picture of the display with this environment. */
function grabs(display: string, env: Record<string, string>): Promise<boolean> {
  return new Promise((resolve) => execFile('ffmpeg', ['-v', 'error', '-f', 'x11grab', '-i', display, '-frames:v', '1', '-f', 'null', '-'],
    { env: { PATH: '/usr/bin:/bin', ...env }, timeout: 10_000 }, (err) => resolve(!err)));
}

const listening = (port: number): Promise<boolean> => new Promise((resolve) => {
  const socket = connect({ host: '127.0.0.1', port }, () => { socket.destroy(); resolve(true); });
  socket.on('error', () => resolve(false));
});

test('a display answers only clients with its cookie, on no TCP port, as the browser user', async () => {
  const user = defaultSandbox().user;
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-display-test-'));
  if (user) await chown(dir, user.uid, user.gid);
  const display = await startDisplay(join(dir, '.Xauthority'), user);
  try {
    assert.equal(await grabs(display.name, { XAUTHORITY: display.authority }), true, 'with the cookie');
    assert.equal(await grabs(display.name, {}), false, 'without a cookie');
    assert.equal(await grabs(display.name, { XAUTHORITY: '/dev/null' }), false, 'with no cookie of its own');
    assert.equal(await listening(6000 + Number(display.name.slice(1))), false, 'no TCP');
  } finally {
    display.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a display whose cookie its server could not read is not started (it would be open to everyone)', async (t) => {
  const user = defaultSandbox().user;
  if (!user) return t.skip('needs the browser user (the service runs as root)');
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-display-test-'));
  try {
    await assert.rejects(startDisplay(join(dir, '.Xauthority'), user), /is not its user's/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
