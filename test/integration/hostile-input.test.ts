// lane: shared
/**
 * Inputs that used to end in 500 E50000 (issue: "no 5xx from any input"), each with the spec error it gets now,
 * on both engines: deep JSON bodies, NUL bytes where PostgreSQL cannot store them, numeric filters out of the
 * columns' range, thousands of filter values, damaged artifact files, and the answers Fastify and Node's HTTP
 * parser give before a route runs. test/integration/fuzz.test.ts throws generated inputs at every route.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { FileArtifactStore } from '../../src/artifacts/store.js';
import { ARTIFACT, artifactKey } from '../../src/core/reports/reports.js';
import { join } from 'node:path';
import { call, engines, startServer, type TestServer } from '../helpers/server.js';
import { accountIdOf, seedPage, type Seeded } from '../helpers/seed.js';
import { assertError } from '../helpers/assertions.js';

/** A raw HTTP exchange (fetch refuses to send some of these), the body parsed when it is JSON. */
function raw(base: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; type: string; body: any }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

for (const engine of engines()) {
  describe(engine, () => {
    let s: TestServer;
    let seeded: Seeded;
    before(async () => {
      s = await startServer({ engine, agentSlots: 0 });
      seeded = await seedPage(s.app.store, await accountIdOf(s.app.store, s.key));
    });
    after(async () => {
      await s?.close();
    });
    const get = (path: string) => call(s, 'GET', path, { key: s.key });
    const post = (path: string, body: unknown) => call(s, 'POST', path, { key: s.key, body });

    describe('deeply nested JSON bodies', () => {
      test('POST /tests with 100 000 nested arrays is 400 E40002 naming the depth limit', async () => {
        const e = assertError(await post('/tests', deep(100_000)), 400, 'E40002');
        assert.match(e.detail!, /nested deeper than \d+ levels/);
      });
      test('nesting inside the attributes of a tag is refused the same way', async () => {
        assertError(await post('/page_tags', `{"data":{"type":"tag","attributes":{"name":${deep(50_000)}}}}`), 400, 'E40002');
      });
      test('a body at the limit is still validated as usual', async () => {
        const e = assertError(await post('/page_tags', { data: { type: 'tag', attributes: { name: [[[[1]]]] } } }), 400, 'E40009');
        assert.doesNotMatch(e.detail!, /nested/);
      });
    });

    describe('NUL bytes (PostgreSQL text cannot hold them)', () => {
      for (const [path, code] of [
        ['/tests/ab%00c', 'E40400'],
        ['/reports/ab%00c', 'E40401'],
        ['/reports/ab%00c/resources/filmstrip.json', 'E40401'],
        ['/pages/ab%00c', 'E40402'],
        ['/pages/ab%00c/reports', 'E40402'],
        ['/page_tags/ab%00c', 'E40417'],
      ] as const) {
        test(`a path ID with NUL, GET ${path}, is the route's not-found ${code}`, async () => {
          assertError(await get(path), 404, code);
        });
      }
      for (const q of ['/tests?filter[browser]=a%00b', '/pages?filter[url]=a%00b', '/pages?filter[page_tag]=a%00b', '/pages?filter[location]=1,%00']) {
        test(`a filter value with NUL, GET ${q}, is 400 E40006`, async () => {
          const e = assertError(await get(q), 400, 'E40006');
          assert.match(e.detail!, /control character/);
        });
      }
      test('a tag name or description with NUL is 400 E40009', async () => {
        assertError(await post('/page_tags', { data: { type: 'tag', attributes: { name: 'a\u0000b' } } }), 400, 'E40009');
        assertError(await post('/page_tags', { data: { type: 'tag', attributes: { name: 'ok', description: 'x\u0000' } } }), 400, 'E40009');
      });
      test('a tag ID with NUL in data.id, page_tags or page_ids is refused with the route\'s body code', async () => {
        assertError(await post('/page_tags', { data: { type: 'tag', id: 'a\u0000b', attributes: { name: 'ab' } } }), 400, 'E4001');
        assertError(await post(`/pages/${seeded.pageId}/attach_tags`, { page_tags: ['a\u0000b'] }), 400, 'E4001');
        const tag = await post('/page_tags', { data: { type: 'tag', attributes: { name: 'nul-check' } } });
        assertError(await post(`/page_tags/${tag.body.data.id}/attach`, { page_ids: ['\u0000'] }), 400, 'E4001');
      });
      test('a test URL with NUL is 400 E40004', async () => {
        const e = assertError(await post('/tests', { data: { type: 'test', attributes: { url: 'http://example.com/\u0000' } } }), 400, 'E40004');
        assert.match(e.detail!, /url/);
      });
    });

    describe('numeric filters: decimals and values past the column range', () => {
      // The seeded report has every byte and time metric 0 and a null cumulative_layout_shift.
      const reportIds = async (q: string) => {
        const res = await get(`/pages/${seeded.pageId}/reports?${q}`);
        assert.equal(res.status, 200, `${q}: ${res.text.slice(0, 300)}`);
        return res.body.data.map((r: { id: string }) => r.id);
      };
      test('a decimal on an integer attribute compares as a number: 0 < 0.5, 0 != 0.5', async () => {
        assert.deepEqual(await reportIds('filter[page_bytes:lt]=0.5'), [seeded.reportId]);
        assert.deepEqual(await reportIds('filter[page_bytes:gt]=-0.5'), [seeded.reportId]);
        assert.deepEqual(await reportIds('filter[page_bytes]=0.5'), []);
        assert.deepEqual(await reportIds('filter[page_bytes]=0.0'), [seeded.reportId]);
      });
      test('values past the integer range compare as numbers too', async () => {
        assert.deepEqual(await reportIds('filter[page_bytes:lt]=99999999999999999999'), [seeded.reportId]);
        assert.deepEqual(await reportIds('filter[page_bytes:gt]=-99999999999999999999'), [seeded.reportId]);
        assert.deepEqual(await reportIds('filter[page_bytes]=2147483648'), []);
        for (const q of ['filter[report_count]=1.5', 'filter[report_count:gt]=99999999999999999999']) {
          assert.equal((await get(`/pages?${q}`)).status, 200, q);
        }
      });
      for (const q of [
        '/pages?filter[created]=99999999999999999999',
        '/tests?filter[created:lt]=-99999999999999999999',
        '/pages?filter[latest_report_time]=8640000000001',
        `/pages/SEEDED/reports?filter[cumulative_layout_shift]=${'9'.repeat(400)}`,
      ]) {
        test(`GET ${q.slice(0, 70)} is 400 E40006 saying what is accepted`, async () => {
          const e = assertError(await get(q.replace('SEEDED', seeded.pageId)), 400, 'E40006');
          assert.match(e.detail!, /from -8640000000000 to 8640000000000|finite/);
        });
      }
      test('the largest time accepted is answered', async () => {
        assert.equal((await get('/pages?filter[created:lte]=8640000000000')).status, 200);
      });
    });

    describe('many filter values', () => {
      const ids = (n: number) => Array.from({ length: n }, (_, i) => `b${i}`).join(',');
      test('500 values of one filter are answered, on SQLite too', async () => {
        assert.equal((await get(`/tests?filter[browser]=${ids(500)}`)).status, 200);
        assert.equal((await get(`/pages?filter[url]=${ids(500)}`)).status, 200);
        assert.equal((await get(`/tests?filter[created]=${Array.from({ length: 500 }, (_, i) => i).join(',')}`)).status, 200);
      });
      test('500 values in each of three filters joined by OR are answered', async () => {
        const res = await get(`/tests?filter[browser]=${ids(500)}&filter[location]=${ids(500)}&filter[:bool]=OR`);
        assert.equal(res.status, 200, res.text.slice(0, 300));
      });
      test('1500 copies of one value count once: answered as the value given once', async () => {
        const copies = (v: string, n = 1500) => Array.from({ length: n }, () => v);
        const cases: [path: string, once: string, query: string][] = [
          ['/tests', 'filter[state]=completed', `filter[state]=${copies('completed').join(',')}`],
          ['/tests', 'filter[state]=completed', `filter[state]=${[...copies('Completed', 1499), 'completed'].join(',')}`],
          ['/tests', 'filter[state]=error', copies('filter[state]=error', 600).join('&')], // 1500 would pass the 16 KiB of a request line
          ['/pages', 'filter[url]=example', `filter[url]=${copies('example').join(',')}`],
        ];
        for (const [path, once, query] of cases) {
          const res = await get(`${path}?${query}`);
          assert.equal(res.status, 200, `${path}?${query.slice(0, 60)}…: ${res.text.slice(0, 200)}`);
          assert.deepEqual(res.body.data, (await get(`${path}?${once}`)).body.data);
        }
      });
      test('2000 comma-separated values are 400 E40005 naming the limit of 500', async () => {
        const e = assertError(await get(`/tests?filter[browser]=${ids(2000)}`), 400, 'E40005');
        assert.match(e.detail!, /at most 500/);
      });
      test('more than 1000 values in all filters together are 400 E40005', async () => {
        const q = ['browser', 'location', 'created'].map((a) => `filter[${a}]=${Array.from({ length: 400 }, (_, i) => i).join(',')}`).join('&');
        const e = assertError(await get(`/tests?${q}`), 400, 'E40005');
        assert.match(e.detail!, /1000/);
      });
    });

    describe('damaged artifact files', () => {
      let report: string;
      before(async () => {
        const page = await seedPage(s.app.store, await accountIdOf(s.app.store, s.key));
        report = page.reportId;
        await s.app.store.db.updateTable('reports').set({ resources: JSON.stringify([ARTIFACT.filmstrip, ARTIFACT.har, ARTIFACT.resourceSummary]) })
          .where('id', '=', report).execute();
        const artifacts = new FileArtifactStore(join(s.config.dataDir, 'artifacts'));
        await artifacts.put(artifactKey(report, ARTIFACT.filmstrip), '{"frames":[{"id":0,"timest');
        await artifacts.put(artifactKey(report, ARTIFACT.har), '{"log":{"entries":[');
        await artifacts.put(artifactKey(report, ARTIFACT.resourceSummary), '{"frames": 3}');
      });
      test('a truncated filmstrip.json is 404 E40409 saying the stored filmstrip is damaged', async () => {
        const e = assertError(await get(`/reports/${report}/resources/filmstrip.json`), 404, 'E40409');
        assert.match(e.detail!, /damaged/);
      });
      test('the report page leaves the damaged parts out and still renders', async () => {
        const res = await fetch(`${s.base}/reports/${report}`);
        assert.equal(res.status, 200);
        assert.match(await res.text(), /<html/i);
      });
    });

    describe('answers given before a route runs carry the spec body', () => {
      test('a body over 1 MiB is 413 E41300', async () => {
        assertError(await post('/tests', 'x'.repeat(1024 * 1024 + 10)), 413, 'E41300');
      });
      test('headers over the limit are 431 E43100 with the spec body', async () => {
        const res = await raw(s.base, '/api/2.0/status', { 'x-big': 'a'.repeat(20_000) });
        assert.equal(res.status, 431);
        assert.match(res.type, /application\/vnd\.api\+json/);
        assert.equal(res.body?.errors?.[0]?.code, 'E43100');
        assert.equal(res.body?.errors?.[0]?.status, '431');
        assert.ok(res.body?.errors?.[0]?.detail);
      });
      test('a request the HTTP parser cannot read is 400 E40000 with the spec body', async () => {
        const res = await raw(s.base, '/api/2.0/status', { 'content-length': '1', 'transfer-encoding': 'chunked' }, 'x');
        assert.equal(res.status, 400);
        assert.equal(res.body?.errors?.[0]?.code, 'E40000');
      });
    });
  });
}
