// lane: pairs 60
/**
 * The PDF service's bookkeeping on both engines: the parallel limit and joining across two API processes sharing
 * one database (real Chromium renders), a dead process's slot that expires, and, with a renderer that fails on
 * purpose, a refund that does not go through is logged with the account and amount.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { FileArtifactStore } from '../../src/artifacts/store.js';
import { authenticate } from '../../src/core/accounts/accounts.js';
import { getReportById } from '../../src/core/reports/reports.js';
import { clock } from '../../src/core/clock.js';
import { PdfService, SLOT_TTL_MS } from '../../src/core/reports/pdf.js';
import { call, engines, errorOf, startServer, type Res, type TestServer } from '../helpers/server.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';

for (const engine of engines()) {
  describe(engine, () => {
    let server: TestServer;
    let scratch: string;
    before(async () => {
      server = await startServer({ engine, env: { WEBGAUGE_PDF_WAIT_MS: '30000' } });
      scratch = await mkdtemp(join(tmpdir(), 'webgauge-pdf-service-'));
    });
    after(async () => {
      await server.close();
      await rm(scratch, { recursive: true, force: true });
    });

    /** Follows the 302s of a PDF request; the final answer. */
    async function getPdf(on: TestServer, key: string, reportId: string): Promise<Res> {
      let res = await call(on, 'GET', `/reports/${reportId}/resources/report.pdf`, { key });
      while (res.status === 302) res = await call(on, 'GET', res.headers.get('location')!, { key });
      return res;
    }
    const credits = async (key: string) => (await call(server, 'GET', '/status', { key })).body.data.attributes.api_credits;

    test('two API processes on one database: an account gets exactly its parallel PDFs, the rest 429 E42903', async () => {
      const other = await startServer({ engine, sharing: server, env: { WEBGAUGE_PDF_WAIT_MS: '30000' } });
      try {
        const key = await server.account({ plan: 'pro' }); // 2 PDFs at a time
        const accountId = await accountIdOf(server.app.store, key);
        const reports = await Promise.all(Array.from({ length: 6 }, () => seedPage(server.app.store, accountId)));
        const before = await credits(key);
        const answers = await Promise.all(reports.map((r, i) => getPdf(i % 2 ? other : server, key, r.reportId)));
        const made = answers.filter((a) => a.status === 200);
        const refused = answers.filter((a) => a.status === 429);
        assert.equal(made.length, 2, answers.map((a) => a.status).join(' '));
        assert.equal(refused.length, 4);
        for (const r of refused) assert.equal(errorOf(r).code, 'E42903');
        assert.equal(await credits(key), Math.round((before - 0.4) * 10) / 10, 'two PDFs charged');
      } finally {
        await other.close();
      }
    });

    test('two API processes asked for the same PDF at once make it once: the second joins, uncharged', async () => {
      const other = await startServer({ engine, sharing: server, env: { WEBGAUGE_PDF_WAIT_MS: '30000' } });
      try {
        const key = await server.account({ plan: 'basic' }); // 1 PDF at a time
        const seeded = await seedPage(server.app.store, await accountIdOf(server.app.store, key));
        const before = await credits(key);
        const [a, b] = await Promise.all([getPdf(server, key, seeded.reportId), getPdf(other, key, seeded.reportId)]);
        assert.equal(a.status, 200, a.text);
        assert.equal(b.status, 200, b.text);
        assert.equal(a.text, b.text);
        assert.equal(await credits(key), Math.round((before - 0.2) * 10) / 10, 'one PDF charged');
      } finally {
        await other.close();
      }
    });

    test('the slot of a process that died stops counting after SLOT_TTL_MS', async () => {
      const key = await server.account({ plan: 'basic' });
      const accountId = await accountIdOf(server.app.store, key);
      const seeded = await seedPage(server.app.store, accountId);
      // What a process killed in the middle of a generation leaves behind.
      await server.app.store.db.insertInto('pdf_generations')
        .values({ pdf_key: 'dead/report.pdf', account_id: accountId, token: 'dead', expires: clock.now() + SLOT_TTL_MS }).execute();
      const refused = await call(server, 'GET', `/reports/${seeded.reportId}/resources/report.pdf`, { key });
      assert.equal(refused.status, 429);
      assert.equal(errorOf(refused).code, 'E42903');
      clock.advance(SLOT_TTL_MS);
      try {
        assert.equal((await getPdf(server, key, seeded.reportId)).status, 200);
      } finally {
        clock.reset();
      }
    });

    test('a refund that fails after a failed generation is logged with the account and the amount', async () => {
      const { db } = server.app.store;
      const accountId = await accountIdOf(server.app.store, server.key);
      const principal = (await authenticate(db, server.config.plans, server.key))!;
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
