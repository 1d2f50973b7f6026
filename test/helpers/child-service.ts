/**
 * The service as an operator runs it (`webgauge serve`), in a child process whose every output byte is kept,
 * for tests that read its logs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { webgaugeArgs } from './webgauge-command.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ChildService {
  api: string;
  key: string;
  proc: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * `key`: the owner key of a data folder whose service started before (a restart prints no new key); with it,
 * WEBGAUGE_PORT in `env` restarts the service where it was.
 */
export async function startChildService(dataDir: string, env: Record<string, string> = {}, key?: string): Promise<ChildService> {
  const proc = spawn(process.execPath, webgaugeArgs(['serve']), {
    env: {
      ...process.env, WEBGAUGE_DATA_DIR: dataDir, WEBGAUGE_PORT: '0', WEBGAUGE_LOG_LEVEL: 'trace',
      WEBGAUGE_ALLOW_PRIVATE_TARGETS: '1', WEBGAUGE_AGENT_SLOTS: '1', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const owner = key ?? /API key \(shown once, keep it\): (\S+)/.exec(out)?.[1];
    const api = /listening on (http:\/\/\S+\/api\/2\.0)/.exec(out)?.[1];
    if (owner && api) {
      return {
        api, key: owner, proc, output: () => out,
        async stop() {
          if (proc.exitCode !== null) return;
          const exited = new Promise((resolve) => proc.once('exit', resolve));
          proc.kill('SIGTERM');
          // The 15 s bound is cleared once the service has exited: a pending timer would keep the test file's
          // process alive for the rest of it.
          let bound: NodeJS.Timeout | undefined;
          await Promise.race([exited, new Promise((resolve) => (bound = setTimeout(resolve, 15_000)))]);
          clearTimeout(bound);
          if (proc.exitCode === null) proc.kill('SIGKILL');
        },
      };
    }
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start:\n${out}`);
    await sleep(100);
  }
}
