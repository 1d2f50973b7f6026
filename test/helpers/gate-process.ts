/**
 * The gate as the tests run it: `webgauge test` as a CI job runs it, in a child process (the tests of the gate, journeys);
 * or `webgauge test` and `webgauge scan` in the test's own process with their output captured (gate/scan.test.ts,
 * scan-browser.test.ts).
 */
import { spawn } from 'node:child_process';
import type { GateIo } from '../../src/gate/cli.js';
import { webgaugeArgs } from './webgauge-command.js';

export interface Ran {
  code: number | null;
  out: string;
  err: string;
}

/** `webgauge test ARGS` in a child process (asynchronously: the service answers from this process). */
export function webgauge(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, webgaugeArgs(['test', ...args]), {
      // The pipeline's own environment only: no service configuration leaks in. Polled faster than the spec's 3 s.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', WEBGAUGE_POLL_MS: '200', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** What the gate is handed in this process (runGate, runScanGate): `env` as its environment, its output kept. */
export function capturedIo(env: Record<string, string>): GateIo & { out(): string; err(): string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env,
    out: () => out, err: () => err,
  };
}
