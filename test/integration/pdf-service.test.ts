/**
 * The PDF service's bookkeeping on both engines, with a renderer that fails on purpose (the browser's own PDFs
 * are covered by resources.test.ts): a refund that does not go through is logged with the account and amount.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { FileArtifactStore } from '../../src/artifacts/store.js';
import { authenticate } from '../../src/core/accounts.js';
import { getReportById } from '../../src/core/reports.js';
import { PdfService } from '../../src/core/pdf.js';
import { engines, startServer, type TestServer } from '../helpers/server.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';

for (const engine of engines()) {
  describe(engine, () => {
    let server: TestServer;
    let scratch: string;
    before(async () => {
      server = await startServer({ engine });
      scratch = await mkdtemp(join(tmpdir(), 'webgauge-pdf-service-'));
    });
    after(async () => {
      await server.close();
      await rm(scratch, { recursive: true, force: true });
    });

    test('a refund that fails after a failed generation is logged with the account and the amount', async () => {
      const { db } = server.app.store;
      const accountId = await accountIdOf(server.app.store, server.key);
      const principal = (await authenticate(db, server.key))!;
      const report = (await getReportById(db, (await seedPage(server.app.store, accountId)).reportId))!;
      const logged: { obj: Record<string, unknown>; msg: string }[] = [];
      const log = { error: (obj: object, msg: string) => void logged.push({ obj: obj as Record<string, unknown>, msg }) };
      const service = new PdfService({
        store: server.app.store,
        artifacts: new FileArtifactStore(scratch),
        chromePath: '/bin/true',
        waitMs: 5000,
        // The generation fails while the accounts table is out of reach, so its refund fails too.
        render: async () => {
          await sql`alter table accounts rename to accounts_away`.execute(db);
          throw new Error('render failed');
        },
      });
      try {
        await assert.rejects(service.request(principal, report, false, '/reports/x', log), { code: 'E50001' });
        for (let i = 0; i < 50 && logged.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      } finally {
        await sql`alter table accounts_away rename to accounts`.execute(db);
      }
      assert.equal(logged.length, 1);
      assert.match(logged[0].msg, /refund/);
      assert.equal(logged[0].obj.account, accountId);
      assert.equal(logged[0].obj.credits, 0.2);
      assert.ok(logged[0].obj.err instanceof Error);
      assert.ok(!JSON.stringify(logged[0].obj).includes(server.key), 'no API key in the log');
    });
  });
}
