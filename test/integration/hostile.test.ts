// lane: pairs 80
/**
 * A hostile page, tested through the API on a server that allows only the "public" site (127.0.0.2) and refuses
 * the rest of loopback: the page tries to reach an internal service (127.0.0.1, 127.0.0.3, ::1) through every
 * channel a page has (fixtures/site/hostile.ts), in every spelling of its address, and keeps trying in a loop.
 * Proven: the internal service sees no connection, the test still ends on time with a report, and the tested site
 * sees exactly the requests of the one load (none after it: no-store resources are not fetched again by DevTools or
 * Lighthouse). One browser run, plus a main document that redirects inside (fails fast, nothing reached) and the
 * POST-time refusals (no browser). On the first engine only: every check here is the connection guard's, the
 * browser's or the target policy's, none the store's (what the store does with a completed or failed test is
 * flow.test.ts's, on both engines).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { startInternalService, type InternalService } from '../fixtures/site/hostile.js';
import { call, engines, errorOf, startServer, waitForTest, type Res, type TestServer } from '../helpers/server.js';
import { runTest } from '../../src/runner/run.js';

// The guard and the policy are the same whichever engine stores the result: once, on the first engine.
for (const engine of engines().slice(0, 1)) {
  describe(`a hostile page on a server that allows only 127.0.0.2 (${engine})`, () => {
    let internal: InternalService;
    let site: FixtureSite;
    let server: TestServer;
    let done: Res;
    let report: Res;
    let har: { log: { entries: { request: { url: string }; response: { status: number }; serverIPAddress?: string }[] } };
    let turnaroundMs = 0;
    const loads: { phases: Record<string, number>; warnings: string[] }[] = [];

    before(async () => {
      internal = await startInternalService();
      site = await startFixtureSite({ host: '127.0.0.2', internalPort: internal.port });
      // The real runner, its phases and Lighthouse's warnings kept: where the time of a slow test went is said.
      server = await startServer({ engine, agentSlots: 1, allowPrivateTargets: false, env: { WEBGAUGE_ALLOW_TARGETS: '127.0.0.2' },
        overrides: { launchAhead: true, run: async (spec) => {
          const result = await runTest(spec);
          loads.push({ phases: result.phases, warnings: (result.lighthouse as { runWarnings?: string[] } | undefined)?.runWarnings ?? [] });
          return result;
        } } });
      const t0 = Date.now();
      const started = await call(server, 'POST', '/tests', {
        key: server.key, body: { data: { type: 'test', attributes: { url: site.url('/hostile') } } },
      });
      assert.equal(started.status, 202, started.text);
      done = await waitForTest(server, server.key, started.body.data.id);
      turnaroundMs = Date.now() - t0;
      report = await call(server, 'GET', `/reports/${started.body.data.id}`, { key: server.key });
      har = (await call(server, 'GET', `/reports/${started.body.data.id}/resources/net.har`, { key: server.key })).body;
      process.stderr.write(`[${engine}] hostile page: ${turnaroundMs} ms, ${internal.connections.length} internal connections; ` +
        `phases ${JSON.stringify(loads.map((l) => l.phases))}, Lighthouse's warnings ${JSON.stringify(loads.flatMap((l) => l.warnings))}\n`);
    });

    after(async () => {
      await server?.close();
      await site?.close();
      await internal?.close();
    });

    it('the internal service sees no connection at all, through any channel or spelling', () => {
      assert.deepEqual(internal.connections, []);
    });

    it('the test still completes with a report, within the normal load bounds', () => {
      assert.equal(done.status, 303, done.text);
      assert.equal(report.status, 200, report.text);
      const a = report.body.data.attributes;
      assert.ok(a.fully_loaded_time < 5000, `fully loaded at ${a.fully_loaded_time} ms: refused requests are not activity`);
      assert.ok(turnaroundMs < 60_000, `the test took ${turnaroundMs} ms; its loads' phases ${JSON.stringify(loads.map((l) => l.phases))}`);
      assert.equal(typeof a.performance_score, 'number');
    });

    it('the HAR shows only the public site, with the address the guard connected to', () => {
      const answered = har.log.entries.filter((e) => e.response.status > 0);
      assert.ok(answered.length >= 4, JSON.stringify(answered.map((e) => e.request.url)));
      for (const e of answered) {
        assert.equal(new URL(e.request.url).host, new URL(site.origin).host, e.request.url);
        assert.equal(e.serverIPAddress, '127.0.0.2');
      }
    });

    it('the tested site sees exactly the requests of the one load: nothing again after it', () => {
      const paths = site.requests.map((r) => r.path);
      assert.equal(paths.filter((p) => p === '/hostile/no-store.css').length, 1, paths.join(' '));
      assert.equal(paths.filter((p) => p === '/hostile/no-store.png').length, 1, paths.join(' '));
      // The workers' scripts are fetched by the workers' own targets, whenever the browser starts them (later on a busy
      // machine): neither in the HAR nor part of the page's load, and fetched once. Every request of the page itself
      // came during its load.
      const workerScripts = ['/hostile/shared-worker.js', '/hostile/sw.js'];
      for (const w of workerScripts) assert.ok(paths.filter((p) => p === w).length <= 1, `${w} fetched once: ${paths.join(' ')}`);
      const own = site.requests.filter((r) => !workerScripts.includes(r.path));
      const first = own[0]!.time;
      const last = own.at(-1)!.time;
      const fullyLoaded = report.body.data.attributes.fully_loaded_time as number;
      assert.ok(last - first <= fullyLoaded + 500,
        `the last request came ${last - first} ms after the document; the load was over at ${fullyLoaded} ms`);
      // Every request of the page's own target is in the HAR, and the HAR has no request the site did not see.
      const harPaths = har.log.entries.map((e) => new URL(e.request.url)).filter((u) => u.host === new URL(site.origin).host)
        .map((u) => u.pathname + u.search);
      assert.deepEqual([...paths].filter((p) => !workerScripts.includes(p)).sort(), harPaths.sort());
    });

    it('a main document that redirects inside fails with the reason, and reaches nothing', async () => {
      const before = internal.connections.length;
      const target = `http://127.0.0.1:${internal.port}/admin`;
      const started = await call(server, 'POST', '/tests', {
        key: server.key, body: { data: { type: 'test', attributes: { url: site.url(`/redirect?to=${encodeURIComponent(target)}`) } } },
      });
      assert.equal(started.status, 202, started.text);
      const failed = await waitForTest(server, server.key, started.body.data.id);
      const a = failed.body.data.attributes;
      assert.equal(a.state, 'error');
      assert.match(a.error, /url host 127\.0\.0\.1 resolves to a loopback address \(127\.0\.0\.1\).*WEBGAUGE_ALLOW_TARGETS/);
      assert.equal(internal.connections.length, before);
    });

    it('POST refuses what the policy refuses, in any spelling, and a dns entry into the network', async () => {
      for (const url of [`http://127.0.0.1:${internal.port}/`, `http://2130706433:${internal.port}/`, `http://[::1]:${internal.port}/`,
        `http://localhost:${internal.port}/`, `http://127.0.0.3:${internal.port}/`]) {
        const res = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: { url } } } });
        assert.equal(res.status, 400, url);
        assert.equal(errorOf(res).code, 'E40004');
        assert.match(errorOf(res).detail!, /loopback address/, url);
      }
      const res = await call(server, 'POST', '/tests', {
        key: server.key, body: { data: { type: 'test', attributes: { url: site.url('/'), dns: [`127.0.0.2.nip.test:127.0.0.1`] } } },
      });
      assert.equal(res.status, 400);
      assert.match(errorOf(res).detail!, /dns entry .* points to a loopback address/);
    });
  });
}
