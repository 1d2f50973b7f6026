// lane: shared
/**
 * Encryption at rest of a test's secrets, on both engines, through HTTP (no browser): new tests are stored with
 * the password and cookies sealed; rows from before encryption are sealed when the service starts; both kinds
 * give the secrets back to `analysis-options` and to retests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../../src/app.js';
import { optionsFingerprint } from '../../src/core/options/options.js';
import { readOptions, storedFingerprint } from '../../src/core/options/stored-options.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';
import { call, engines, errorOf, startServer, type TestServer } from '../helpers/server.js';
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../src/store/secret-box.js';
import { storeOptions } from '../../src/core/options/stored-options.js';
import { InProcessTransport } from '../../src/agent/in-process-transport.js';
import { FileArtifactStore } from '../../src/artifacts/store.js';
import { createCatalog } from '../../src/core/catalog/catalog.js';
import { join } from 'node:path';

const password = 'at-rest-pw';
const cookies = ['ck=at-rest-cookie', 'short=z'];

for (const engine of engines()) {
  describe(`secrets at rest (${engine})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer({ engine });
    });
    after(async () => {
      await s?.close();
    });

    const clear = (text: string) => [password, ...cookies].filter((secret) => text.includes(secret));

    test('a new test is stored with its password and cookies encrypted', async () => {
      const res = await call(s, 'POST', '/tests', { key: s.key, body: { data: { type: 'test', attributes: {
        url: 'http://127.0.0.1:9/', report: 'none', httpauth_username: 'u', httpauth_password: password, cookies,
      } } } });
      assert.equal(res.status, 202, res.text);
      const row = await s.app.store.db.selectFrom('tests').select('options').where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
      assert.deepEqual(clear(row.options), []);
      assert.match(row.options, /"sealed":"v1\./);
      const options = readOptions(s.app.store.box, row.options);
      assert.equal(options.httpauth_password, password);
      assert.deepEqual(options.cookies, cookies);
      const { fingerprint } = await s.app.store.db.selectFrom('tests').select('fingerprint').where('id', '=', res.body.data.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(fingerprint, optionsFingerprint(options), 'no plain hash to try cookie values against');
      assert.equal(fingerprint, storedFingerprint(s.app.store.box, options));
    });

    test('rows from before encryption are sealed at start; analysis-options and retest still get the secrets', async () => {
      const accountId = await accountIdOf(s.app.store, s.key);
      const seeded = await seedPage(s.app.store, accountId);
      const legacy = JSON.stringify({ ...seeded.options, httpauth_username: 'u', httpauth_password: password, cookies });
      await s.app.store.db.updateTable('reports').set({ options: legacy }).where('id', '=', seeded.reportId).execute();
      await s.app.store.db.updateTable('pages').set({ options: legacy }).where('id', '=', seeded.pageId).execute();

      const restarted = await createApp(s.config); // what the next start of the service does
      await restarted.close();
      for (const table of ['reports', 'pages'] as const) {
        const id = table === 'reports' ? seeded.reportId : seeded.pageId;
        const row = await s.app.store.db.selectFrom(table).select('options').where('id', '=', id).executeTakeFirstOrThrow();
        assert.deepEqual(clear(row.options), [], `${table} row`);
        assert.match(row.options, /"sealed":/);
      }

      const opts = await call(s, 'GET', `/reports/${seeded.reportId}/resources/analysis-options`, { key: s.key });
      assert.equal(opts.status, 200, opts.text);
      assert.equal(opts.body.httpauth_password, password);
      assert.deepEqual(opts.body.cookies, cookies);

      const retest = await call(s, 'POST', `/reports/${seeded.reportId}/retest`, { key: s.key });
      assert.equal(retest.status, 202, retest.text);
      const row = await s.app.store.db.selectFrom('tests').select(['options', 'fingerprint', 'page_id'])
        .where('id', '=', retest.body.data.id).executeTakeFirstOrThrow();
      assert.deepEqual(clear(row.options), []);
      assert.deepEqual(readOptions(s.app.store.box, row.options).cookies, cookies);
      const page = await s.app.store.db.selectFrom('pages').select('fingerprint').where('id', '=', seeded.pageId).executeTakeFirstOrThrow();
      assert.equal(row.fingerprint, page.fingerprint, 'the re-fingerprinted page is still the retest\'s page');
      assert.equal(row.page_id, seeded.pageId);
    });

    test('secrets sealed under another key: a spec error that says so, and a queued test fails at once', async () => {
      const accountId = await accountIdOf(s.app.store, s.key);
      const seeded = await seedPage(s.app.store, accountId);
      const foreign = storeOptions(new SecretBox(randomBytes(32)), { ...seeded.options, httpauth_username: 'u', httpauth_password: password, cookies });
      await s.app.store.db.updateTable('reports').set({ options: foreign }).where('id', '=', seeded.reportId).execute();
      const res = await call(s, 'GET', `/reports/${seeded.reportId}/resources/analysis-options`, { key: s.key });
      assert.equal(res.status, 500);
      assert.equal(errorOf(res).code, 'E50000');
      assert.match(errorOf(res).detail!, /cannot decrypt.*secret key/);

      const queued = await call(s, 'POST', '/tests', { key: s.key, body: { data: { type: 'test', attributes: { url: 'http://127.0.0.1:9/', report: 'none' } } } });
      assert.equal(queued.status, 202, queued.text);
      await s.app.store.db.updateTable('tests').set({ options: foreign }).where('id', '=', queued.body.data.id).execute();
      const transport = new InProcessTransport(s.app.store, new FileArtifactStore(join(s.config.dataDir, 'artifacts')),
        createCatalog({ locationName: 'Local', locationRegion: 'Local' }));
      // Claim everything queued (earlier tests of this file too): the foreign one is never handed out.
      for (let job = await transport.claim('agent-test', '1', 30_000, ['3']); job; job = await transport.claim('agent-test', '1', 30_000, ['3'])) {
        assert.notEqual(job.testId, queued.body.data.id);
      }
      const t = await call(s, 'GET', `/tests/${queued.body.data.id}`, { key: s.key });
      assert.equal(t.body.data.attributes.state, 'error');
      assert.match(t.body.data.attributes.error, /secret key/);
    });
  });
}
