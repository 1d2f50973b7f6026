// lane: shared
/**
 * The line between a page's reports on the agent's own CPU and those on a phone's calibrated CPU (issue 49, point 3),
 * on both engines and without a page load: a page tested with a simulated device before device classes keeps its
 * history, and from then on its figures come from a mid-tier phone's CPU and slow 4G. Its page view marks where, its
 * lines are not joined across, the newest-against-previous card does not compare across it, and a regression alert
 * does not read the change as a regression (the same values without the cut do); a threshold alert that the new
 * figures cross still triggers, saying what it left out.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkConditions, createCondition, regressionVerdict } from '../../src/core/alerts/alerts.js';
import { storedDeviceCpu } from '../../src/core/reports/device-cpu.js';
import { accountIdOf, addReport, seedPage } from '../helpers/seed.js';
import { call, engines, startServer } from '../helpers/server.js';
import { webSession } from '../helpers/web-session.js';

const PHONE_CPU = storedDeviceCpu({ deviceClass: 'phone-mid',
  cpu: { deviceClass: 'phone-mid', target: 1000, rate: 2.9, hostIndex: 2900, measured: 990, reachable: true } });

for (const engine of engines()) {
  describe(`a phone's CPU after the agent's own, on ${engine}`, () => {
    test('the page view marks the change, alerts compare only reports on the same CPU and say what they left out', async () => {
      const server = await startServer({ engine });
      try {
        const store = server.app.store;
        const accountId = await accountIdOf(store, server.key);
        const { pageId, reportId: first, options } = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/phone-line' });
        const principal = { accountId, role: 'owner' } as never;
        const slower = await createCondition(store.db, principal, pageId, { metric: 'largest_contentful_paint', operator: 'regression', value: 0.1 });
        const over = await createCondition(store.db, principal, pageId, { metric: 'largest_contentful_paint', operator: 'gt', value: 2500, consecutive: 2 });
        const t0 = Date.now() - 3_600_000;
        const made: { id: string; created: number }[] = [];
        // Ten reports made before device classes (the agent's CPU, no link), then five on a mid-tier phone's CPU over slow 4G.
        for (let i = 0; i < 15; i++) {
          const phone = i >= 10;
          const created = t0 + i * 60_000;
          const id = i === 0 ? first : await addReport(store, accountId, pageId, options, { created });
          await store.db.updateTable('reports').set({ created, device_cpu: phone ? PHONE_CPU : null,
            largest_contentful_paint: phone ? 2600 + (i % 3) * 20 : 1200 + (i % 3) * 10, performance_score: phone ? 70 : 95 })
            .where('id', '=', id).execute();
          made.push({ id, created });
        }
        const events: Awaited<ReturnType<typeof checkConditions>> = [];
        for (const r of made) events.push(...await checkConditions(store.db, { id: r.id, page_id: pageId, created: r.created }));
        const on = (c: { id: string }) => events.filter((e) => e.condition.id === c.id).map((e) => e.event);
        // Across the line the values read as a regression; within it there is none to see yet.
        assert.equal(regressionVerdict([2640, 2620, 2600, 2640, 2620, 1210, 1200, 1220, 1210, 1200, 1220, 1210], 'largest_contentful_paint', 0.1)?.holds, true);
        assert.deepEqual(on(slower), [], 'no regression from the change of CPU alone');
        const [crossed] = on(over);
        assert.equal(crossed?.state, 'triggered', 'the phone\'s LCP is over 2.5 s: that is true, and said');
        assert.equal(crossed?.report_id, made[11]!.id, 'after two phone reports (the one before them is another CPU\'s)');
        assert.match(crossed!.note ?? '', /ran on a mid-tier phone's CPU \(benchmark 1000\); the reports before ran on the test agent's own CPU/);
        const res = await call(server, 'GET', `/pages/${pageId}/performance_alert_events`, { key: server.key });
        assert.match(res.body.data[0].attributes.note, /do not compare/);

        const session = webSession(server);
        const view = await session.get(await session.signIn(server.key), `/pages/${pageId}`);
        assert.equal(view.status, 200);
        assert.match(view.html, /class="cpu-change" role="img" aria-label="CPU: a mid-tier phone&#39;s CPU \(benchmark 1000\) from [^"]*; before: the test agent&#39;s own CPU: the figures before and after do not compare"/);
        assert.match(view.html, /<text[^>]*>phone CPU<\/text>/);
        // Two segments per chart of a figure every report has: never one line across the change.
        const lcpChart = /<figure class="chart card"><figcaption><h3>Largest Contentful Paint[\s\S]*?<\/figure>/.exec(view.html)?.[0] ?? '';
        assert.equal((lcpChart.match(/<polyline/g) ?? []).length, 2, 'the LCP line is broken at the change');
      } finally {
        await server.close();
      }
    });

    test('the newest report against the one before says they do not compare when the CPU changed between them', async () => {
      const server = await startServer({ engine });
      try {
        const store = server.app.store;
        const accountId = await accountIdOf(store, server.key);
        const { pageId, options } = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/phone-pair', created: Date.now() - 120_000 });
        const id = await addReport(store, accountId, pageId, options, { created: Date.now() - 60_000 });
        await store.db.updateTable('reports').set({ device_cpu: PHONE_CPU, largest_contentful_paint: 2600 }).where('id', '=', id).execute();
        await store.db.updateTable('pages').set({ latest_report_id: id, report_count: 2 }).where('id', '=', pageId).execute();
        const session = webSession(server);
        const view = await session.get(await session.signIn(server.key), `/pages/${pageId}`);
        assert.match(view.html, /The newest report ran on a mid-tier phone&#39;s CPU \(benchmark 1000\), the one before on the test agent&#39;s own CPU: their figures do not compare\./);
      } finally {
        await server.close();
      }
    });
  });
}
