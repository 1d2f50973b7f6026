import { randomUUID } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile, rename } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

/** Where a data directory keeps its artifact files (FileArtifactStore's root). */
export const artifactsRoot = (dataDir: string): string => join(dataDir, 'artifacts');

/**
 * Names of writes still under way: put's temporary file and putFolder's staging folder, each renamed into place
 * once whole. Whoever reads the folder behind the store's back (a backup) leaves them out.
 */
const unfinishedName = (path: string, kind: 'tmp' | 'staging'): string => `${path}.${kind}-${process.pid}-${randomUUID()}`;
const UNFINISHED = /\.(?:tmp|staging)-\d+-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isUnfinishedWrite = (name: string): boolean => UNFINISHED.test(name);

/** Blobs by key (`<reportId>/<name>`). The filesystem implementation is the embedded default. */
export interface ArtifactStore {
  put(key: string, data: Buffer | string): Promise<void>;
  /**
   * Write a whole folder (a report's files, by name under `prefix`) at once: it appears complete or not at all,
   * replacing any folder of that name. On failure nothing of it is left and the error is thrown.
   */
  putFolder(prefix: string, files: ReadonlyMap<string, Buffer | string>): Promise<void>;
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

  private path(key: string, root = this.root): string {
    const p = resolve(root, key);
    // Keys are built from our own IDs, but never let one escape the root.
    if (!p.startsWith(root + sep)) throw new Error(`artifact key outside the store: ${key}`);
    return p;
  }

  /** The one place bytes reach the disk. A failed write names its file (Node's write errors do not), for the operator's log. */
  protected async writeFile(path: string, data: Buffer | string): Promise<void> {
    await writeFile(path, data).catch((err: NodeJS.ErrnoException) => {
      err.path ??= path;
      throw err;
    });
  }

  async put(key: string, data: Buffer | string): Promise<void> {
    const p = this.path(key);
    await mkdir(dirname(p), { recursive: true });
    // Write then rename: a reader never sees half a file.
    const tmp = unfinishedName(p, 'tmp');
    try {
      await this.writeFile(tmp, data);
      await rename(tmp, p);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async putFolder(prefix: string, files: ReadonlyMap<string, Buffer | string>): Promise<void> {
    const target = this.path(prefix);
    // A sibling of the target, so that the rename stays on one filesystem.
    const staging = unfinishedName(target, 'staging');
    try {
      const paths = [...files.keys()].map((name) => this.path(name, staging));
      for (const dir of new Set(paths.map((p) => dirname(p)))) await mkdir(dir, { recursive: true });
      // Every write settles before the staging folder is removed, so no late write recreates part of it.
      const written = await Promise.allSettled([...files.values()].map((data, i) => this.writeFile(paths[i], data)));
      const failed = written.find((w): w is PromiseRejectedResult => w.status === 'rejected');
      if (failed) throw failed.reason;
      await rm(target, { recursive: true, force: true });
      await rename(staging, target);
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      throw err;
    }
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

/**
 * A stored JSON file, parsed: absent, damaged (a truncated write or a disk fault leaves text that does not parse,
 * or parses to something that is not the expected shape), or its value. Callers answer a clear error or leave
 * the part out; a damaged file never becomes a 500.
 */
export type StoredJson<T> = { state: 'ok'; value: T } | { state: 'missing' } | { state: 'damaged'; reason: string };

export async function readJsonArtifact<T>(store: ArtifactStore, key: string, isShape: (v: unknown) => v is T): Promise<StoredJson<T>> {
  const raw = await store.get(key);
  if (!raw) return { state: 'missing' };
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    return { state: 'damaged', reason: `${key} is not valid JSON (${(err as Error).message})` };
  }
  return isShape(value) ? { state: 'ok', value } : { state: 'damaged', reason: `${key} does not have the expected shape` };
}

/** A shape check for readJsonArtifact: an object whose `member` is an array. */
export const objectWithArray =
  <T>(member: string) =>
  (v: unknown): v is T =>
    typeof v === 'object' && v !== null && Array.isArray((v as Record<string, unknown>)[member]);

export const anyObject = <T>(v: unknown): v is T => typeof v === 'object' && v !== null && !Array.isArray(v);
