/** `webgauge test` as a CI job runs it: the gate in a child process, for the tests of the gate (gate, journeys). */
import { spawn } from 'node:child_process';
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

