// lane: shared
/**
 * The OpenAPI 3.0.2 description (spec 1.7, 9): served without a key at /api/2.0/openapi.json, valid for a real
 * OpenAPI validator, listing exactly the routes the server answers, and describing what the server really sends:
 * real responses are validated against the document's own response schemas and headers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv, type ValidateFunction } from 'ajv';
import { ROUTE_SCHEMAS } from '../../src/api/schemas/index.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';
import { call, engines, errorOf, startServer, type Res, type TestServer } from '../helpers/server.js';

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  servers: { url: string }[];
  security: unknown[];
  paths: Record<string, Record<string, { operationId: string; parameters?: { name: string; in: string }[]; responses: Record<string, Response> }>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }> };
};
type Response = { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean; $ref?: string }> };

const PAGE = 'http://127.0.0.1:9/page.html';
const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

for (const engine of engines()) {
  describe(`${engine}: the OpenAPI document`, () => {
    let s: TestServer;
    let doc: Doc;
    let ajv: Ajv;

    before(async () => {
      s = await startServer({ engine });
      const res = await fetch(`${s.api}/openapi.json`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json\b/);
      doc = (await res.json()) as Doc;
      ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
      ajv.addSchema(doc as object, 'openapi.json');
    });
    after(async () => s.close());

    /** Validates a real response against the documented status, media type, schema and required headers. */
    function conforms(method: string, path: string, res: Res): void {
      const op = doc.paths[path]?.[method.toLowerCase()];
      assert.ok(op, `${method} ${path} is documented`);
      const documented = op.responses[String(res.status)];
      assert.ok(documented, `${method} ${path} documents status ${res.status} (body: ${res.text.slice(0, 200)})`);
      for (const [name, h] of Object.entries(documented.headers ?? {})) {
        if (h.required) assert.ok(res.headers.get(name), `${method} ${path} ${res.status} sends the required ${name} header`);
      }
      if (!documented.content) return;
      const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
      assert.ok(documented.content[type], `${method} ${path} ${res.status} documents ${type}`);
      const ref = `openapi.json#/paths/${pointer(path)}/${method.toLowerCase()}/responses/${res.status}/content/${pointer(type)}/schema`;
      const validate = (ajv.getSchema(ref) ?? ajv.compile({ $ref: ref })) as ValidateFunction;
      assert.ok(validate(res.body), `${method} ${path} ${res.status} body conforms: ${ajv.errorsText(validate.errors)}\n${res.text.slice(0, 400)}`);
    }

    test('is served without an API key, is OpenAPI 3.0.2 and valid for a real OpenAPI validator', async () => {
      assert.equal(doc.openapi, '3.0.2');
      assert.equal(doc.info.title, 'Webgauge API');
      assert.equal(doc.info.version, '2.0');
      assert.equal(doc.servers[0].url, s.api, 'the server URL is the request\'s own origin plus /api/2.0');
      assert.deepEqual(doc.components.securitySchemes.basicAuth, { ...doc.components.securitySchemes.basicAuth, type: 'http', scheme: 'basic' });
      assert.deepEqual(doc.security, [{ basicAuth: [] }]);
      // The validator dereferences in place: give it a copy.
      await SwaggerParser.validate(structuredClone(doc) as never);
    });

    test('documents exactly the routes of the router, with {name} path parameters', async () => {
      const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
      const registered = Object.keys(ROUTE_SCHEMAS).map((k) => k.replace(/:([a-z_]+)/gi, '{$1}'));
      assert.deepEqual([...documented].sort(), [...registered].sort());
      for (const [p, ops] of Object.entries(doc.paths)) {
        const names = [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        for (const op of Object.values(ops)) assert.deepEqual(op.parameters?.filter((x) => x.in === 'path').map((x) => x.name) ?? [], names, p);
      }
      // Every documented operation is served: none answers "unknown request" or "method not allowed".
      for (const key of documented) {
        const [method, p] = key.split(' ');
        const res = await call(s, method, p.replace(/\{\w+\}/g, 'AAAAAAAAAAAA'), { key: s.key, body: method === 'POST' ? {} : undefined });
        assert.ok(!['E40000', 'E40500'].includes(errorOf(res)?.code ?? ''), `${key} is served (got ${res.status} ${res.text.slice(0, 120)})`);
      }
    });

    test('POST /tests 202, GET /tests/{id} 200 and the test list conform', async () => {
      const started = await call(s, 'POST', '/tests', { key: s.key, body: { data: { type: 'test', attributes: { url: PAGE, adblock: '1', cookies: 'a=b' } } } });
      assert.equal(started.status, 202);
      conforms('POST', '/tests', started);
      const polled = await call(s, 'GET', `/tests/${started.body.data.id}`, { key: s.key });
      assert.equal(polled.status, 200);
      assert.equal(polled.headers.get('retry-after'), '3');
      conforms('GET', '/tests/{id}', polled);
      conforms('GET', '/tests', await call(s, 'GET', '/tests?filter[state]=queued&sort=-created', { key: s.key }));
    });

    test('status and reference data conform', async () => {
      for (const p of ['/status', '/locations', '/browsers', '/simulated-devices', '/locations/1', '/browsers/3']) {
        const res = await call(s, 'GET', p, { key: s.key });
        assert.equal(res.status, 200, p);
        conforms('GET', p.replace(/\/(1|3)$/, '/{id}'), res);
      }
      const devices = await call(s, 'GET', '/simulated-devices', { key: s.key });
      conforms('GET', '/simulated-devices/{id}', await call(s, 'GET', `/simulated-devices/${devices.body.data[0].id}`, { key: s.key }));
    });

    test('pages, reports and tags conform', async () => {
      const seeded = await seedPage(s.app.store, await accountIdOf(s.app.store, s.key));
      const created = await call(s, 'POST', '/page_tags', { key: s.key, body: { data: { type: 'tag', attributes: { name: 'Checkout', color: '#ff8800' } } } });
      assert.equal(created.status, 201);
      conforms('POST', '/page_tags', created);
      const attached = await call(s, 'POST', `/pages/${seeded.pageId}/attach_tags`, { key: s.key, body: { page_tags: [created.body.data.id] } });
      conforms('POST', '/pages/{id}/attach_tags', attached);
      conforms('GET', '/page_tags', await call(s, 'GET', '/page_tags', { key: s.key }));
      const pages = await call(s, 'GET', '/pages', { key: s.key });
      assert.equal(pages.body.data.length, 1);
      conforms('GET', '/pages', pages);
      conforms('GET', '/pages/{id}', await call(s, 'GET', `/pages/${seeded.pageId}`, { key: s.key }));
      conforms('GET', '/pages/{id}/reports', await call(s, 'GET', `/pages/${seeded.pageId}/reports?sort=-created`, { key: s.key }));
      conforms('GET', '/reports/{id}', await call(s, 'GET', `/reports/${seeded.reportId}`, { key: s.key }));
      const monitored = await call(s, 'POST', `/pages/${seeded.pageId}/performance_monitor`, {
        key: s.key,
        body: { data: { type: 'performance_monitor', attributes: { frequency: ' Daily ' } } },
      });
      assert.equal(monitored.status, 200, monitored.text);
      conforms('POST', '/pages/{id}/performance_monitor', monitored);
      conforms('POST', '/pages/{id}/retest', await call(s, 'POST', `/pages/${seeded.pageId}/retest`, { key: s.key }));
      conforms('DELETE', '/page_tags/{id}', await call(s, 'DELETE', `/page_tags/${created.body.data.id}`, { key: s.key }));
    });

    test('scan schedules and a scan\'s site history conform', async () => {
      const body = (attributes: Record<string, unknown>) => ({ data: { type: 'scan_schedule', attributes } });
      const created = await call(s, 'POST', '/scan_schedules', { key: s.key, body: body({ url: PAGE, source: 'list', urls: ['/'], max_pages: 1,
        report: 'none', frequency: 'weekly', include: ['/*'], devices: ['desktop', 'phone'] }) });
      assert.equal(created.status, 201, created.text);
      conforms('POST', '/scan_schedules', created);
      // A scan per device: the phone's scan links its desktop sibling (links sibling_<device>).
      const phone = await call(s, 'GET', `/scans/${created.body.meta.scans[1]}`, { key: s.key });
      assert.equal(phone.body.data.attributes.device_class, 'phone-mid');
      assert.ok(phone.body.data.links.sibling_desktop);
      conforms('GET', '/scans/{id}', phone);
      const both = await call(s, 'POST', '/scans', { key: s.key, body: { data: { type: 'scan', attributes: { url: PAGE, source: 'list', urls: ['/'],
        max_pages: 1, report: 'none', devices: ['desktop', 'phone-mid'] } } } });
      assert.equal(both.status, 202, both.text);
      assert.deepEqual(both.body.data.relationships.siblings.data, [{ type: 'scan', id: both.body.included[0].id }], 'included is linked');
      conforms('POST', '/scans', both);
      const id = created.body.data.id;
      conforms('GET', '/scan_schedules', await call(s, 'GET', '/scan_schedules', { key: s.key }));
      conforms('GET', '/scan_schedules/{id}', await call(s, 'GET', `/scan_schedules/${id}`, { key: s.key }));
      const paused = await call(s, 'PATCH', `/scan_schedules/${id}`, { key: s.key, body: body({ paused: true }) });
      assert.equal(paused.status, 200, paused.text);
      conforms('PATCH', '/scan_schedules/{id}', paused);
      conforms('PATCH', '/scan_schedules/{id}', await call(s, 'PATCH', `/scan_schedules/${id}`, { key: s.key, body: body({ frequency: 'yearly' }) }));
      conforms('GET', '/scans/{id}', await call(s, 'GET', `/scans/${created.body.meta.scan}`, { key: s.key }));
      conforms('GET', '/scans/{id}/history', await call(s, 'GET', `/scans/${created.body.meta.scan}/history`, { key: s.key }));
      conforms('DELETE', '/scan_schedules/{id}', await call(s, 'DELETE', `/scan_schedules/${id}`, { key: s.key }));
      conforms('GET', '/scan_schedules/{id}', await call(s, 'GET', `/scan_schedules/${id}`, { key: s.key }));
    });

    test('error responses conform, with their documented codes', async () => {
      const cases: [string, string, string, Parameters<typeof call>[3], number, string][] = [
        ['GET', '/tests/{id}', '/tests/AAAAAAAAAAAA', { key: s.key }, 404, 'E40400'],
        ['GET', '/tests/{id}', `/tests/${'x'.repeat(200)}`, { key: s.key }, 404, 'E40400'],
        ['GET', '/status', '/status', { key: null }, 401, 'E40100'],
        ['POST', '/tests', '/tests', { key: s.key, body: '{"data":' }, 400, 'E40002'],
        ['POST', '/tests', '/tests', { key: s.key, body: { data: { type: 'test', attributes: { url: PAGE, video: 'maybe' } } } }, 400, 'E40004'],
        ['POST', '/tests', '/tests', { key: s.key, body: { data: {} }, contentType: 'application/json' }, 415, 'E41500'],
        ['GET', '/tests', '/tests?page[size]=0', { key: s.key }, 400, 'E40008'],
        ['GET', '/pages', '/pages?filter[nope]=1', { key: s.key }, 400, 'E40005'],
        ['POST', '/page_tags/{id}/attach', '/page_tags/AAAAAAAAAAAA/attach', { key: s.key, body: { page_ids: [] } }, 404, 'E40417'],
        ['GET', '/reports/{id}/resources/{name}', '/reports/AAAAAAAAAAAA/resources/net.har', { key: s.key }, 404, 'E40401'],
      ];
      for (const [method, path, url, opts, status, code] of cases) {
        const res = await call(s, method, url, opts);
        assert.equal(res.status, status, `${method} ${url}: ${res.text.slice(0, 200)}`);
        assert.equal(errorOf(res).code, code, `${method} ${url}`);
        conforms(method, path, res);
        const documented = doc.paths[path][method.toLowerCase()].responses[String(status)] as { description: string };
        assert.match(documented.description, new RegExp(code), `${method} ${path} ${status} lists ${code}`);
      }
    });
  });
}
