import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile, rename } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

/** Blobs by key (`<reportId>/<name>`). The filesystem implementation is the embedded default. */
export interface ArtifactStore {
  put(key: string, data: Buffer | string): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  size(key: string): Promise<number | null>;
  /** Byte range [start, end] inclusive, for Range requests. */
  stream(key: string, range?: { start: number; end: number }): ReadStream;
  /** Remove every blob under a prefix (a report's folder). */
  removePrefix(prefix: string): Promise<void>;
}

export class FileArtifactStore implements ArtifactStore {
  private readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    const p = resolve(this.root, key);
    // Keys are built from our own IDs, but never let one escape the root.
    if (!p.startsWith(this.root + sep)) throw new Error(`artifact key outside the store: ${key}`);
    return p;
  }

  async put(key: string, data: Buffer | string): Promise<void> {
    const p = this.path(key);
    await mkdir(dirname(p), { recursive: true });
    // Write then rename: a reader never sees half a file.
    const tmp = `${p}.tmp-${process.pid}-${Date.now()}`;
    await writeFile(tmp, data);
    await rename(tmp, p);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.path(key))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  stream(key: string, range?: { start: number; end: number }): ReadStream {
    return createReadStream(this.path(key), range);
  }

  async removePrefix(prefix: string): Promise<void> {
    await rm(join(this.root, prefix), { recursive: true, force: true });
  }
}
