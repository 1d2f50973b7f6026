/** The artifact store (artifacts/store.ts): which names are writes under way, which a backup leaves out. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { FileArtifactStore, isUnfinishedWrite } from '../../../src/artifacts/store.js';

describe('writes under way in the artifact store', () => {
  const dirs: string[] = [];
  after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  test('the temporary file of put and the staging folder of putFolder are unfinished writes; artifact names are not', async () => {
    const root = await mkdtemp(join(tmpdir(), 'webgauge-unfinished-'));
    dirs.push(root);
    const written: string[] = [];
    class Watching extends FileArtifactStore {
      protected override async writeFile(path: string, data: Buffer | string): Promise<void> {
        written.push(path);
        await super.writeFile(path, data);
      }
    }
    const store = new Watching(root);
    await store.put('r1/report.pdf', 'pdf');
    await store.putFolder('r2', new Map([['filmstrip/0.jpg', 'jpeg']]));
    const tmpFile = basename(written[0]!);
    const stagingFolder = basename(written[1]!.split('/filmstrip/')[0]!);
    assert.match(tmpFile, /^report\.pdf\.tmp-/);
    assert.match(stagingFolder, /^r2\.staging-/);
    assert.ok(isUnfinishedWrite(tmpFile) && isUnfinishedWrite(stagingFolder));
    for (const name of ['report.pdf', 'r2', 'filmstrip', '0.jpg', 'images', 'optimized-images-webp.tar', 'index.json', 'notes.tmp-file']) {
      assert.equal(isUnfinishedWrite(name), false, name);
    }
  });
});
