// lane: alone
/**
 * A staging-like site through the real service: the page on three origins (FIXTURE.origins: the
 * document and its stylesheet on two HTTP origins, a 200 KB photo over HTTP/2 on an HTTPS origin whose certificate
 * comes from a CA made here), tested with `throttle` by a service that trusts that CA (WEBGAUGE_EXTRA_CA_CERTS).
 * The report must say what a person on that link would have seen: HTTP/2 in the HAR, each new connection's DNS,
 * TCP and TLS phases a round trip each, every wait a round trip plus the server's time, the photo's bytes at the
 * link's speed, onload no less than the page's critical path allows, and exactly the requests the site saw.
 * The site runs in a process of its own, so its server times are its own. One throttled load, on the first engine:
 * every check is of the load (the link, TLS, HTTP/2, the requests the site saw), none of what the store engine does
 * with it (flow.test.ts checks that on both engines).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FIXTURE, ORIGINS } from '../fixtures/site/server.js';
import { startFixtureSiteProcess, type FixtureSiteProcess } from '../fixtures/site/process.js';
import { makePrivateCa } from '../helpers/certificates.js';
import { originsFidelity, withinGoal, type HandshakeBytes } from '../helpers/link-physics.js';
import { call, engines, startServer, waitForTest, type TestServer } from '../helpers/server.js';
import { throttleFigures } from '../../src/core/options/options.js';
import type { HarEntry } from '../../src/runner/capture/har.js';

const THROTTLE = '5000/1000/150';
const link = throttleFigures(THROTTLE)!;

let site: FixtureSiteProcess;
let caDir: string;
let caFile: string;

before(async () => {
  const ca = makePrivateCa();
  site = await startFixtureSiteProcess({ tls: ca.issue([ORIGINS.secure]) });
  caDir = await mkdtemp(join(tmpdir(), 'webgauge-ca-'));
  caFile = join(caDir, 'company-ca.pem');
  await writeFile(caFile, ca.cert);
});

after(async () => {
  await site?.close();
  await rm(caDir, { recursive: true, force: true });
});

// The link's figures are the same whichever engine stores them: once, on the first engine.
for (const engine of engines().slice(0, 1)) {
  describe(`a throttled test of an HTTPS staging site with the company's CA (${engine})`, () => {
    let server: TestServer;
    let attributes: Record<string, number | string>;
    let entries: HarEntry[];
    let seen: { method: string; path: string }[];
    let handshakes: HandshakeBytes[];

    before(async () => {
      server = await startServer({ engine, agentSlots: 1, env: { WEBGAUGE_EXTRA_CA_CERTS: caFile } });
      const seenBefore = (await (await fetch(site.url('/_fixture/requests'))).json() as unknown[]).length;
      const res = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes: {
        url: `http://${ORIGINS.page}:${site.port}${FIXTURE.origins.path}`, throttle: THROTTLE,
        dns: Object.values(ORIGINS).map((host) => `${host}:127.0.0.1`),
      } } } });
      assert.equal(res.status, 202, res.text);
      const done = await waitForTest(server, server.key, res.body.data.id, 120_000);
      assert.equal(done.status, 303, done.text);
      const report = await call(server, 'GET', `/reports/${res.body.data.id}`, { key: server.key });
      attributes = report.body.data.attributes;
      entries = (await call(server, 'GET', `/reports/${res.body.data.id}/resources/net.har`, { key: server.key })).body.log.entries;
      seen = ((await (await fetch(site.url('/_fixture/requests'))).json()) as typeof seen).slice(seenBefore);
      handshakes = await (await fetch(site.url('/_fixture/tls-handshakes'))).json() as HandshakeBytes[];
    });
    after(async () => {
      await server?.close();
    });

    test('the report counts exactly the requests the site saw', () => {
      assert.equal(seen.length, FIXTURE.origins.requests, JSON.stringify(seen));
      assert.equal(attributes.page_requests, seen.length);
      assert.equal(entries.length, seen.length);
    });

    test('the photo came over HTTP/2 on a TLS connection of its own, with its ssl phase', () => {
      const photo = entries.find((e) => e.request.url.startsWith(`https://${ORIGINS.secure}:`))!;
      assert.equal((photo.response as { httpVersion?: string }).httpVersion, 'h2');
      assert.ok(photo.timings.ssl! > 0, JSON.stringify(photo.timings));
    });

    // One load on a 2-core machine whose browser, guard thread and site share the cores: a phase was seen up to 46 ms
    // over its truth when a process was scheduled late (4 of 8 loads of one sitting had one such phase). The test
    // allows a third of a round trip, so a round trip too many or too few still fails it; the goal of 15 ms is the
    // fidelity bench's, over many loads.
    test('every phase is what the link\'s round trips and bytes require (within 10 % + 50 ms in one load)', () => {
      const { checks } = originsFidelity(entries, link, Number(attributes.onload_time), handshakes.at(-1)!);
      const off = checks.filter((c) => !withinGoal(c, 50));
      assert.deepEqual(off.map((c) => `${c.what}: ${c.measured.toFixed(0)} ms, truth ${c.truth.toFixed(0)} ms`), []);
    });

    test('onload is no less than the critical path allows, and not a quarter more', () => {
      const { onload } = originsFidelity(entries, link, Number(attributes.onload_time), handshakes.at(-1)!);
      const ratio = onload.measured / onload.lowerBound;
      assert.ok(ratio >= 1 && ratio <= 1.25, `onload ${onload.measured} ms, lower bound ${onload.lowerBound.toFixed(0)} ms`);
    });
  });
}
