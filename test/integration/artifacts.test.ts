// lane: pairs 100
/**
 * Writes that fail leave nothing half-done, on the real filesystem: a report's folder appears whole or not at
 * all (the test then ends in error, refunded), and a PDF browser that does not start leaves no temporary folder.
 * Failures are forced by an artifact store whose writes fail after the first file (root ignores read-only
 * folders, so permissions cannot force them here). The report that cannot be written is of a real load, made on the
 * first engine and handed to the second engine's agent (test/helpers/replayed-loads.ts): the same files to write.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FileArtifactStore } from '../../src/artifacts/store.js';
import { htmlToPdf } from '../../src/report/pdf.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { call, engines, startServer, waitForTest } from '../helpers/server.js';
import { replayedLoads } from '../helpers/replayed-loads.js';

/** The filesystem store, except that every write after the first fails, as on a full disk. */
class DiskFullAfterFirstWrite extends FileArtifactStore {
  writes = 0;
  protected override async writeFile(path: string, data: Buffer | string): Promise<void> {
    if (++this.writes > 1) throw Object.assign(new Error('ENOSPC: no space left on device (forced by the test)'), { code: 'ENOSPC' });
    await super.writeFile(path, data);
  }
}

/** Every file and folder under a root, as paths relative to it. */
async function tree(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true }).catch(() => [])).map(String).sort();
}

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'webgauge-artifacts-test-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

describe('the artifact store', () => {
  test('putFolder writes the whole folder, replacing an older one of the same name', async () => {
    const root = join(scratch, 'whole');
    const store = new FileArtifactStore(root);
    await store.put('r1/old.json', 'old');
    await store.putFolder('r1', new Map<string, Buffer | string>([['a.json', '{}'], ['filmstrip/0.jpg', Buffer.from([1, 2])]]));
    assert.deepEqual(await tree(root), ['r1', 'r1/a.json', 'r1/filmstrip', 'r1/filmstrip/0.jpg']);
    assert.deepEqual(await store.get('r1/filmstrip/0.jpg'), Buffer.from([1, 2]));
  });

  test('a putFolder whose second write fails leaves no folder, no staging folder, and throws', async () => {
    const root = join(scratch, 'failing');
    const store = new DiskFullAfterFirstWrite(root);
    const files = new Map<string, string>(Array.from({ length: 20 }, (_, i) => [`filmstrip/${i}.jpg`, 'x'.repeat(10_000)]));
    await assert.rejects(store.putFolder('r1', files), /ENOSPC/);
    assert.equal(store.writes, 20, 'the first write went through');
    assert.deepEqual(await tree(root), []);
  });

  test('a put that fails leaves no temporary file', async () => {
    const root = join(scratch, 'put');
    const store = new DiskFullAfterFirstWrite(root);
    await store.put('r1/a.json', '{}');
    await assert.rejects(store.put('r1/b.json', '{}'), /ENOSPC/);
    assert.deepEqual(await tree(root), ['r1', 'r1/a.json']);
  });
});

describe('a test whose report cannot be written', () => {
  let site: FixtureSite;
  const loads = replayedLoads();
  before(async () => {
    site = await startFixtureSite();
  });
  after(async () => {
    await site.close();
    process.stderr.write(`[artifacts] page loads: ${loads.counts.real} real, ${loads.counts.replayed} replayed\n`);
  });

  for (const engine of engines()) {
    test(`${engine}: ends in error with its credits refunded, and leaves no report folder`, async () => {
      const root = join(scratch, `report-${engine}`);
      const artifacts = new DiskFullAfterFirstWrite(root);
      const server = await startServer({ engine, agentSlots: 1,
        overrides: { artifacts, run: loads.runFor(engine), launchAhead: loads.loadsOn(engine) } });
      try {
        const credits = async () => (await call(server, 'GET', '/status', { key: server.key })).body.data.attributes.api_credits;
        const before = await credits();
        const started = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: { url: site.url('/') } } } });
        assert.equal(started.status, 202, started.text);
        const done = await waitForTest(server, server.key, started.body.data.id);
        assert.equal(done.status, 200, done.text);
        assert.equal(done.body.data.attributes.state, 'error');
        assert.ok(done.body.data.attributes.error, 'the test says why');
        assert.ok(artifacts.writes > 1, 'the report folder was being written');
        assert.deepEqual(await tree(root), [], 'no partial report folder, no staging folder');
        assert.equal(await credits(), before, 'credits refunded');
      } finally {
        await server.close();
      }
    });
  }
});

describe('a PDF browser that does not start', () => {
  test('leaves no temporary folder', async () => {
    const tmp = await mkdtemp(join(scratch, 'tmpdir-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp; // os.tmpdir() reads it at each call: this test's own folder, free of other processes
    try {
      await assert.rejects(htmlToPdf('<p>hi</p>', { chromePath: '/bin/false', timeoutMs: 10_000 }));
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    assert.deepEqual(await tree(tmp), []);
  });
});
