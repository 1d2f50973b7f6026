/**
 * A copy of the artifact folder as it stands, taken beside a service that keeps writing and removing in it (a
 * backup; a restore copies it back the same way). Every file is whole: the store writes a file to a temporary name
 * and a report's folder to a staging folder, and renames each into place once complete (store.ts); those writes
 * in progress are left out. A file or folder that disappears while being copied (the expiry sweep, a deleted
 * report) is skipped and counted, not an error.
 */
import { constants, type Dirent } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isUnfinishedWrite } from './store.js';

export interface CopiedArtifacts {
  files: number;
  bytes: number;
  /** Files and folders removed by the service while the copy ran, left out. */
  vanished: number;
}

/** Files of one folder copied at once: enough to keep a disk (or NFS) busy, few enough for any file limit. */
const FILES_AT_ONCE = 16;

const isGone = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Copies `from` into `to` (created, mode 0700; files 0600: reports are the accounts' data). `to` must not hold
 * files of the same names. A missing `from` is an empty store (no report written yet).
 */
export async function copyArtifactTree(from: string, to: string): Promise<CopiedArtifacts> {
  const copied: CopiedArtifacts = { files: 0, bytes: 0, vanished: 0 };
  await mkdir(to, { recursive: true, mode: 0o700 });
  await chmod(to, 0o700);
  await copyFolder(from, to, copied, true);
  return copied;
}

async function copyFolder(from: string, to: string, copied: CopiedArtifacts, isRoot: boolean): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (err) {
    if (!isGone(err)) throw err;
    if (!isRoot) {
      copied.vanished += 1;
      await rm(to, { recursive: true, force: true });
    }
    return;
  }
  const wanted = entries.filter((e) => !isUnfinishedWrite(e.name));
  const files = wanted.filter((e) => e.isFile());
  for (let i = 0; i < files.length; i += FILES_AT_ONCE) {
    await Promise.all(files.slice(i, i + FILES_AT_ONCE).map((e) => copyOneFile(join(from, e.name), join(to, e.name), copied)));
  }
  // Anything else (a link, a socket) is none of the store's: it writes plain files and folders only.
  for (const dir of wanted.filter((e) => e.isDirectory())) {
    const target = join(to, dir.name);
    await mkdir(target, { mode: 0o700 });
    await copyFolder(join(from, dir.name), target, copied, false);
  }
}

async function copyOneFile(from: string, to: string, copied: CopiedArtifacts): Promise<void> {
  try {
    // COPYFILE_EXCL: never overwrite; the copy goes into a folder that was empty.
    await copyFile(from, to, constants.COPYFILE_EXCL);
  } catch (err) {
    if (!isGone(err)) throw err;
    copied.vanished += 1;
    return;
  }
  await chmod(to, 0o600);
  // Read the size first: `bytes += await …` would add to the total as it stood before the await, losing the sizes
  // that the folder's other copies added meanwhile.
  const { size } = await stat(to);
  copied.files += 1;
  copied.bytes += size;
}
