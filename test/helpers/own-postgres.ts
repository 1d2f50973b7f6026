/**
 * A PostgreSQL server of the test's own (Debian's binaries, a fresh cluster in a temporary folder, trust auth on a
 * free port), so a test can stop and start it without disturbing the suite's shared server. It runs as the
 * `postgres` user (PostgreSQL refuses root); where that is not possible, `ownPostgresUnavailable()` says why and
 * the test skips with that message (README: "Two commands").
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort((a, b) => Number(a) - Number(b)).pop();
  return version && existsSync(join(root, version, 'bin', 'pg_ctl')) ? join(root, version, 'bin') : undefined;
}

/** Why this machine cannot start a PostgreSQL of the test's own, or undefined when it can. */
export function ownPostgresUnavailable(): string | undefined {
  if (!binDir()) return "Debian's PostgreSQL binaries (/usr/lib/postgresql/*/bin) are not installed";
  if (process.getuid?.() !== 0) return 'starting a PostgreSQL of its own needs root (to run it as the postgres user)';
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface OwnPostgres {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  destroy(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binDir()!;
  const folder = await mkdtemp(join(tmpdir(), 'webgauge-pg-'));
  await chmod(folder, 0o777);
  const data = join(folder, 'data');
  const port = await freePort();
  const asPostgres = (cmd: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { cwd: '/' });
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const start = () => asPostgres('pg_ctl', ['-D', data, '-w', '-l', join(folder, 'log'), '-o',
    `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']).then(() => undefined);
  const stop = () => asPostgres('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']).then(() => undefined);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    async destroy() {
      await stop().catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
