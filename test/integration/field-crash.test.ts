// lane: alone
/**
 * Nothing acknowledged is lost (issue 50, point 3): the service, as an operator runs it, takes a stream of beacons
 * from 16 concurrent senders and is killed with SIGKILL in the middle of it; every beacon it answered 204 is in the
 * database afterwards, and the service started again on the same data counts them into its figures. Both engines.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openStore } from '../../src/store/db.js';
import { startChildService } from '../helpers/child-service.js';
import { call, engines, freshPgDatabase } from '../helpers/server.js';

const ORIGIN = 'https://shop.example';

for (const engine of engines()) {
  describe(`a kill -9 during a stream of beacons, on ${engine}`, () => {
    test('every beacon answered 204 is stored, and counted after a restart', async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'webgauge-field-crash-'));
      const pgdb = engine === 'postgres' ? await freshPgDatabase() : undefined;
      const env = { WEBGAUGE_AGENT_SLOTS: '0', WEBGAUGE_FIELD_CLIENT_RATE: '10000000', WEBGAUGE_FIELD_SITE_RATE: '10000000',
        ...(pgdb ? { WEBGAUGE_DATABASE_URL: pgdb.url } : {}) };
      let service = await startChildService(dataDir, env);
      try {
        const site = await call(service, 'POST', '/field_sites', { key: service.key,
          body: { data: { type: 'field_site', attributes: { name: 'Shop', origins: [ORIGIN] } } } });
        assert.equal(site.status, 201, site.text);
        const siteId: string = site.body.data.id;
        const beaconUrl = `${service.api.replace(/\/api\/2\.0$/, '')}/field/beacon/${siteId}`;
        const acknowledged: string[] = [];
        let sent = 0;
        let killed = false;
        // 16 senders, each sending beacons one after another (a unique path each) until the service is gone. It runs in
        // the alone lane: a stream as fast as the service takes it would starve a neighbour's timed load (hostile.test's
        // 60 s bound was missed beside it once).
        const sender = async () => {
          while (!killed) {
            const path = `/p/${sent++}`;
            try {
              const res = await fetch(beaconUrl, { method: 'POST', headers: { 'content-type': 'text/plain', origin: ORIGIN },
                body: JSON.stringify({ v: 1, url: ORIGIN + path, lcp: { v: 1000 + (sent % 500) }, ttfb: { v: 90 } }) });
              await res.arrayBuffer();
              if (res.status === 204) acknowledged.push(path);
            } catch {
              return; // the connection died with the service: not acknowledged
            }
          }
        };
        const senders = Array.from({ length: 16 }, sender);
        while (acknowledged.length < 800) await new Promise((r) => setTimeout(r, 5));
        service.proc.kill('SIGKILL');
        killed = true;
        await Promise.all(senders);
        await new Promise((resolve) => (service.proc.exitCode !== null || service.proc.signalCode !== null ? resolve(undefined) : service.proc.once('exit', resolve)));

        const store = await openStore({ dataDir, databaseUrl: pgdb?.url });
        const stored = new Set((await store.db.selectFrom('field_views').select('path').where('site_id', '=', siteId).execute()).map((r) => r.path));
        await store.close();
        const lost = acknowledged.filter((p) => !stored.has(p));
        assert.deepEqual(lost.slice(0, 10), [], `${lost.length} of ${acknowledged.length} acknowledged beacons lost (sent ${sent})`);
        assert.ok(acknowledged.length >= 800);

        service = await startChildService(dataDir, { ...env }, service.key);
        const deadline = Date.now() + 20_000;
        for (;;) {
          const summary = await call(service, 'GET', `/field_sites/${siteId}/summary?days=1`, { key: service.key });
          assert.equal(summary.status, 200, summary.text);
          if (summary.body.data.attributes.page_views >= acknowledged.length) break;
          if (Date.now() > deadline) assert.fail(`after a restart the figures count ${summary.body.data.attributes.page_views} of ${acknowledged.length} views`);
          await new Promise((r) => setTimeout(r, 250));
        }
      } finally {
        await service.stop();
        await pgdb?.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });
}
