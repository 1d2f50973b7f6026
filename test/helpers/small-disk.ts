/**
 * A real small filesystem (tmpfs of a given size) for tests of a full disk: writes past its size fail with ENOSPC,
 * as on a full volume. Mounting needs root; `smallDiskUnavailable()` says why it cannot be had, for the test's skip.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export function smallDiskUnavailable(): string | undefined {
  return process.getuid?.() === 0 ? undefined : 'mounting a small tmpfs for the full-disk test needs root';
}

export interface SmallDisk {
  dir: string;
  freeBytes(): Promise<number>;
  /** Fills the disk up to `leaveBytes` of free space with one file; returns a function that removes it. */
  fill(leaveBytes: number): Promise<() => Promise<void>>;
  unmount(): Promise<void>;
}

export async function mountSmallDisk(sizeMb: number): Promise<SmallDisk> {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-small-disk-'));
  await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir]);
  const freeBytes = async () => {
    const s = await statfs(dir);
    return s.bavail * s.bsize;
  };
  return {
    dir,
    freeBytes,
    async fill(leaveBytes) {
      const file = join(dir, 'filler');
      await writeFile(file, Buffer.alloc(Math.max(0, (await freeBytes()) - leaveBytes)));
      return () => rm(file, { force: true });
    },
    async unmount() {
      await run('umount', [dir]).catch(() => run('umount', ['-l', dir]));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
