// lane: shared
/**
 * Absolute links (COMPAT: every link is absolute) come from WEBGAUGE_PUBLIC_URL when it is set, whatever Host a
 * request claims; without it they follow the request, but nothing kept across requests (the stored PDF) carries
 * a request's Host. Requests here are sent with node:http so that they can forge the Host header.
 * On the first engine only: links are built from the configuration and the request, and the PDF is a file of the
 * artifact store; no engine decides any of it (what the store does for PDFs, charges and slots, is
 * pdf-service.test.ts's, on both engines).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { ARTIFACT, artifactKey } from '../../src/core/reports/reports.js';
import { engines, startServer, type TestServer } from '../helpers/server.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';

const FORGED = 'forged.example:666';
const PUBLIC = 'https://gauge.example.com/webgauge';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request as a client with a forged Host would send it. */
function send(server: TestServer, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const url = new URL(server.base + path);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers: {
      authorization: `Basic ${Buffer.from(`${server.key}:`).toString('base64')}`,
      ...(body ? { 'content-type': 'application/vnd.api+json' } : {}),
      ...headers,
    } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = (a: Answer) => JSON.parse(a.body.toString('utf8'));

/** A PDF's bytes with its Flate streams inflated, so that text in compressed streams is searchable too. */
function pdfText(pdf: Buffer): string {
  let text = pdf.toString('latin1');
  for (const m of text.matchAll(/stream\r?\n/g)) {
    const start = m.index! + m[0].length;
    const end = pdf.indexOf('endstream', start);
    try {
      text += inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      // Not a Flate stream (or a picture): nothing to read in it.
    }
  }
  return text;
}

/** Follows the 302s of report.pdf, each request with the given Host. */
async function getPdf(server: TestServer, reportId: string, host: string): Promise<Answer> {
  for (let i = 0; i < 200; i++) {
    const res = await send(server, 'GET', `/api/2.0/reports/${reportId}/resources/report.pdf`, { host });
    if (res.status !== 302) return res;
  }
  throw new Error('redirected forever');
}

// Links and PDFs are the same whichever engine stores the rows behind them: once, on the first engine.
for (const engine of engines().slice(0, 1)) {
  describe(`${engine}: WEBGAUGE_PUBLIC_URL set`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ engine, env: { WEBGAUGE_PUBLIC_URL: `${PUBLIC}/`, WEBGAUGE_TRUST_PROXY: '1', WEBGAUGE_PDF_WAIT_MS: '20000' } });
    });
    after(() => server.close());

    test('test links, Location, the 303 to the report and list links use it, not the Host or X-Forwarded-Host', async () => {
      const forged = { host: FORGED, 'x-forwarded-host': 'proxy-forged.example', 'x-forwarded-proto': 'http' };
      const created = await send(server, 'POST', '/api/2.0/tests', forged,
        JSON.stringify({ data: { type: 'test', attributes: { url: 'http://127.0.0.1:9/' } } }));
      assert.equal(created.status, 202, created.body.toString());
      const id = json(created).data.id as string;
      assert.equal(created.headers.location, `${PUBLIC}/api/2.0/tests/${id}`);
      assert.equal(json(created).links.self, `${PUBLIC}/api/2.0/tests/${id}`);

      const seeded = await seedPage(server.app.store, await accountIdOf(server.app.store, server.key));
      await server.app.store.db.updateTable('tests').set({ state: 'completed', report_id: seeded.reportId }).where('id', '=', id).execute();
      const done = await send(server, 'GET', `/api/2.0/tests/${id}`, forged);
      assert.equal(done.status, 303);
      assert.equal(done.headers.location, `${PUBLIC}/api/2.0/reports/${seeded.reportId}`);

      const report = json(await send(server, 'GET', `/api/2.0/reports/${seeded.reportId}`, forged));
      assert.equal(report.data.links.report_url, `${PUBLIC}/reports/${seeded.reportId}`);
      for (const link of Object.values(report.data.links as Record<string, string>)) assert.ok(link.startsWith(PUBLIC), link);

      const list = json(await send(server, 'GET', '/api/2.0/tests?page[size]=1', forged));
      assert.ok((list.links.self as string).startsWith(`${PUBLIC}/api/2.0/tests`), list.links.self);
    });

    test('the OpenAPI servers entry uses it', async () => {
      const doc = json(await send(server, 'GET', '/api/2.0/openapi.json', { host: FORGED }));
      assert.deepEqual(doc.servers.map((s: { url: string }) => s.url), [`${PUBLIC}/api/2.0`]);
    });

    test('the PDF links to the report page under it, even when asked for with a forged Host', async () => {
      const seeded = await seedPage(server.app.store, await accountIdOf(server.app.store, server.key));
      const pdf = await getPdf(server, seeded.reportId, FORGED);
      assert.equal(pdf.status, 200, pdf.body.toString());
      const text = pdfText(pdf.body);
      assert.ok(text.includes(`/URI (${PUBLIC}/reports/${seeded.reportId})`), 'the footer links to the public report page');
      assert.ok(!text.includes('forged.example'));
    });
  });

  describe(`${engine}: WEBGAUGE_PUBLIC_URL unset`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ engine, env: { WEBGAUGE_PDF_WAIT_MS: '20000' } });
    });
    after(() => server.close());

    test('links follow the request\'s Host; X-Forwarded-Host only with WEBGAUGE_TRUST_PROXY', async () => {
      const seeded = await seedPage(server.app.store, await accountIdOf(server.app.store, server.key));
      const report = json(await send(server, 'GET', `/api/2.0/reports/${seeded.reportId}`, { host: 'api.example:8080', 'x-forwarded-host': 'proxy.example' }));
      assert.equal(report.data.links.report_url, `http://api.example:8080/reports/${seeded.reportId}`);
    });

    test('a PDF first asked for with a forged Host is stored, and served to the next request, without that host', async () => {
      const seeded = await seedPage(server.app.store, await accountIdOf(server.app.store, server.key));
      const first = await getPdf(server, seeded.reportId, FORGED);
      assert.equal(first.status, 200, first.body.toString());
      const stored = await server.app.artifacts.get(artifactKey(seeded.reportId, ARTIFACT.pdf(false)));
      assert.ok(stored, 'the PDF is kept with the report');
      const later = await getPdf(server, seeded.reportId, new URL(server.base).host);
      assert.equal(later.status, 200);
      assert.deepEqual(later.body, stored, 'the later request gets the kept file');
      for (const pdf of [first.body, stored]) {
        const text = pdfText(pdf);
        assert.ok(text.startsWith('%PDF-'));
        assert.ok(!text.includes('forged.example'), 'no forged host in the PDF');
        assert.ok(!text.includes(`/reports/${seeded.reportId})`), 'no link to the report page on a host a request chose');
      }
    });
  });
}
