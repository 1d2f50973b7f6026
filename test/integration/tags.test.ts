// lane: shared
/**
 * Tags (spec 2.7, 4.4) and attach_tags/detach_tags (4.3) over HTTP, on both engines: shapes, limits, every
 * error code. Pages are seeded straight into the store (test/helpers/seed.ts): a page with one valid report,
 * as a completed test leaves it; no browser runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, engines, errorOf, startServer, type Res, type TestServer } from '../helpers/server.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';
import { assertError, assertData } from '../helpers/assertions.js';

const UNKNOWN = 'AAAAAAAAAAAA';

const tagBody = (attributes: Record<string, unknown>, id?: string) => ({ data: { type: 'tag', ...(id ? { id } : {}), attributes } });

for (const engine of engines()) {
  describe(engine, () => {
    let s: TestServer;
    let key: string;
    let accountId: string;
    const ownerEmail = `owner-${Date.now()}@example.test`;
    before(async () => {
      s = await startServer({ engine, agentSlots: 0 });
      key = await s.account({ plan: 'pro', email: ownerEmail });
      accountId = await accountIdOf(s.app.store, key);
    });
    after(async () => {
      await s?.close();
    });

    const create = async (attributes: Record<string, unknown>, k = key) => assertData(await call(s, 'POST', '/page_tags', { key: k, body: tagBody(attributes) }), 201);
    const page = async () => (await seedPage(s.app.store, accountId)).pageId;

    describe('creating and reading', () => {
      test('POST /page_tags creates a tag: 201, Location, default colour, no description', async () => {
        const res = await call(s, 'POST', '/page_tags', { key, body: tagBody({ name: 'checkout' }) });
        const data = assertData(res, 201);
        assert.equal(data.type, 'tag');
        assert.equal(typeof data.id, 'string');
        assert.deepEqual(data.attributes, { name: 'checkout', color: 'FFFFFF' });
        assert.equal(data.links.self, `${s.api}/page_tags/${data.id}`);
        assert.equal(res.headers.get('location'), data.links.self);
        assert.deepEqual(assertData(await call(s, 'GET', `/page_tags/${data.id}`, { key })), data);
      });

      test('description and colour are kept; colour is normalised to upper case without "#"', async () => {
        const data = await create({ name: '  landing  ', description: 'Landing pages', color: '#a1b2c3' });
        assert.deepEqual(data.attributes, { name: 'landing', description: 'Landing pages', color: 'A1B2C3' });
        assert.equal((await create({ name: 'lower', color: 'ff00aa' })).attributes.color, 'FF00AA');
      });

      test('GET /page_tags lists the account\'s tags in creation order, not other accounts\'', async () => {
        const other = await s.account({ plan: 'pro' });
        await create({ name: 'someone else' }, other);
        const mine = assertData(await call(s, 'GET', '/page_tags', { key }));
        assert.ok(Array.isArray(mine));
        assert.deepEqual(mine.slice(0, 3).map((t: any) => t.attributes.name), ['checkout', 'landing', 'lower']);
        assert.ok(!mine.some((t: any) => t.attributes.name === 'someone else'));
        assert.deepEqual(assertData(await call(s, 'GET', '/page_tags', { key: await s.account({ plan: 'basic' }) })), []);
      });

      test('45 and 255 characters are accepted; 46 and 256 are E40009', async () => {
        const name = 'n'.repeat(45);
        const description = 'd'.repeat(255);
        assert.deepEqual((await create({ name, description })).attributes, { name, description, color: 'FFFFFF' });
        assertError(await call(s, 'POST', '/page_tags', { key, body: tagBody({ name: 'x'.repeat(46) }) }), 400, 'E40009');
        assertError(await call(s, 'POST', '/page_tags', { key, body: tagBody({ name: 'ok', description: 'd'.repeat(256) }) }), 400, 'E40009');
      });

      test('a missing, empty or non-string name or a non-string description is E40009', async () => {
        for (const attributes of [{}, { name: '' }, { name: '   ' }, { name: 7 }, { name: 'ok2', description: 5 }]) {
          assertError(await call(s, 'POST', '/page_tags', { key, body: tagBody(attributes) }), 400, 'E40009');
        }
      });

      test('a name already used in the account is E40009; another account may use it', async () => {
        assertError(await call(s, 'POST', '/page_tags', { key, body: tagBody({ name: 'checkout' }) }), 400, 'E40009');
        assertError(await call(s, 'POST', '/page_tags', { key, body: tagBody({ name: ' checkout ' }) }), 400, 'E40009');
        await create({ name: 'checkout' }, await s.account({ plan: 'pro' }));
      });

      test('malformed bodies are E4001: colour, data, type, attributes, data.id', async () => {
        const bodies: unknown[] = [
          tagBody({ name: 'c1', color: 'FFF' }),
          tagBody({ name: 'c2', color: 'GGGGGG' }),
          tagBody({ name: 'c3', color: 123456 }),
          { name: 'c4' },
          { data: [] },
          { data: { type: 'page', attributes: { name: 'c5' } } },
          { data: { type: 'tag', attributes: 'c6' } },
          { data: { type: 'tag', id: 5, attributes: { name: 'c7' } } },
          [],
        ];
        for (const body of bodies) assertError(await call(s, 'POST', '/page_tags', { key, body }), 400, 'E4001');
      });

      test('Content-Type other than application/vnd.api+json is 415 E41500; bad JSON is E40002', async () => {
        assertError(await call(s, 'POST', '/page_tags', { key, body: tagBody({ name: 'ct' }), contentType: 'application/json' }), 415, 'E41500');
        assertError(await call(s, 'POST', '/page_tags', { key, body: tagBody({ name: 'ct' }), contentType: null }), 415, 'E41500');
        assertError(await call(s, 'POST', '/page_tags', { key, body: '{"data":' }), 400, 'E40002');
      });

      test('an unknown or another account\'s tag is 404 E40417', async () => {
        assertError(await call(s, 'GET', `/page_tags/${UNKNOWN}`, { key }), 404, 'E40417');
        const theirs = await create({ name: 'private' }, await s.account({ plan: 'pro' }));
        assertError(await call(s, 'GET', `/page_tags/${theirs.id}`, { key }), 404, 'E40417');
      });

      test('PUT /page_tags is 405 with Allow', async () => {
        const res = await call(s, 'PUT', '/page_tags', { key, body: tagBody({ name: 'x' }) });
        assertError(res, 405, 'E40500');
        assert.match(res.headers.get('allow') ?? '', /GET/);
      });
    });

    describe('updating and deleting', () => {
      test('POST /page_tags with data.id updates that tag: 200, same ID', async () => {
        const t = await create({ name: 'upd-a', description: 'keep me', color: '00FF00' });
        const data = assertData(await call(s, 'POST', '/page_tags', { key, body: tagBody({ name: 'upd-b' }, t.id) }));
        assert.equal(data.id, t.id);
        assert.deepEqual(data.attributes, { name: 'upd-b', description: 'keep me', color: '00FF00' });
        assertError(await call(s, 'POST', '/page_tags', { key, body: tagBody({ name: 'zz' }, UNKNOWN) }), 404, 'E40417');
      });

      test('POST /page_tags/{id} changes only what is given; empty description removes it', async () => {
        const t = await create({ name: 'patch-me', description: 'about', color: '123456' });
        let data = assertData(await call(s, 'POST', `/page_tags/${t.id}`, { key, body: tagBody({ color: 'abcdef' }) }));
        assert.deepEqual(data.attributes, { name: 'patch-me', description: 'about', color: 'ABCDEF' });
        data = assertData(await call(s, 'POST', `/page_tags/${t.id}`, { key, body: tagBody({ description: '' }) }));
        assert.deepEqual(data.attributes, { name: 'patch-me', color: 'ABCDEF' });
        data = assertData(await call(s, 'POST', `/page_tags/${t.id}`, { key, body: tagBody({ name: 'patch-me' }) }));
        assert.equal(data.attributes.name, 'patch-me', 'renaming to its own name is not a clash');
        assert.deepEqual(assertData(await call(s, 'GET', `/page_tags/${t.id}`, { key })), data);
      });

      test('POST /page_tags/{id}: data.id is E4001, a taken name E40009, a long name E40009, unknown tag E40417', async () => {
        const t = await create({ name: 'patch-errors' });
        assertError(await call(s, 'POST', `/page_tags/${t.id}`, { key, body: tagBody({ color: '000000' }, t.id) }), 400, 'E4001');
        assertError(await call(s, 'POST', `/page_tags/${t.id}`, { key, body: tagBody({ color: 'nope' }) }), 400, 'E4001');
        assertError(await call(s, 'POST', `/page_tags/${t.id}`, { key, body: tagBody({ name: 'checkout' }) }), 400, 'E40009');
        assertError(await call(s, 'POST', `/page_tags/${t.id}`, { key, body: tagBody({ name: 'y'.repeat(46) }) }), 400, 'E40009');
        assertError(await call(s, 'POST', `/page_tags/${UNKNOWN}`, { key, body: tagBody({ color: '000000' }) }), 404, 'E40417');
        assertError(await call(s, 'POST', `/page_tags/${t.id}`, { key, body: tagBody({ color: '000000' }), contentType: 'text/plain' }), 415, 'E41500');
      });

      test('DELETE /page_tags/{id} answers {type, id}, detaches it from every page, and is then 404', async () => {
        const t = await create({ name: 'doomed' });
        const keep = await create({ name: 'kept' });
        const [p1, p2] = [await page(), await page()];
        assertData(await call(s, 'POST', `/page_tags/${t.id}/attach`, { key, body: { page_ids: [p1, p2] } }));
        assertData(await call(s, 'POST', `/page_tags/${keep.id}/attach`, { key, body: { page_ids: [p1] } }));
        assert.deepEqual(assertData(await call(s, 'DELETE', `/page_tags/${t.id}`, { key })), { type: 'tag', id: t.id });
        assertError(await call(s, 'GET', `/page_tags/${t.id}`, { key }), 404, 'E40417');
        assertError(await call(s, 'DELETE', `/page_tags/${t.id}`, { key }), 404, 'E40417');
        assert.deepEqual(assertData(await call(s, 'GET', `/pages/${p1}`, { key })).attributes.page_tags, [keep.id]);
        assert.deepEqual(assertData(await call(s, 'GET', `/pages/${p2}`, { key })).attributes.page_tags, []);
        const links = await s.app.store.db.selectFrom('page_tag_links').selectAll().where('tag_id', '=', t.id).execute();
        assert.equal(links.length, 0);
      });
    });

    describe('attaching', () => {
      test('attach/detach by tag: 200 with the tag; attaching twice changes nothing; pages show page_tags', async () => {
        const t = await create({ name: 'att-1' });
        const [p1, p2] = [await page(), await page()];
        const data = assertData(await call(s, 'POST', `/page_tags/${t.id}/attach`, { key, body: { page_ids: [p1, p2, p1] } }));
        assert.equal(data.type, 'tag');
        assert.equal(data.id, t.id);
        assertData(await call(s, 'POST', `/page_tags/${t.id}/attach`, { key, body: { page_ids: [p1] } }));
        assert.deepEqual(assertData(await call(s, 'GET', `/pages/${p1}`, { key })).attributes.page_tags, [t.id]);
        assertData(await call(s, 'POST', `/page_tags/${t.id}/detach`, { key, body: { page_ids: [p1] } }));
        assert.deepEqual(assertData(await call(s, 'GET', `/pages/${p1}`, { key })).attributes.page_tags, []);
        assert.deepEqual(assertData(await call(s, 'GET', `/pages/${p2}`, { key })).attributes.page_tags, [t.id]);
      });

      test('attach with an unknown or foreign page is E40402 and attaches nothing', async () => {
        const t = await create({ name: 'att-2' });
        const mine = await page();
        const theirs = (await seedPage(s.app.store, await accountIdOf(s.app.store, await s.account({ plan: 'pro' })))).pageId;
        for (const bad of [UNKNOWN, theirs]) {
          assertError(await call(s, 'POST', `/page_tags/${t.id}/attach`, { key, body: { page_ids: [mine, bad] } }), 404, 'E40402');
        }
        assert.deepEqual(assertData(await call(s, 'GET', `/pages/${mine}`, { key })).attributes.page_tags, []);
        assertError(await call(s, 'POST', `/page_tags/${UNKNOWN}/attach`, { key, body: { page_ids: [mine] } }), 404, 'E40417');
        assertError(await call(s, 'POST', `/page_tags/${UNKNOWN}/detach`, { key, body: { page_ids: [mine] } }), 404, 'E40417');
      });

      test('page_ids must hold 1 to 500 ID strings (E4001); 500 is accepted', async () => {
        const t = await create({ name: 'att-3' });
        const p = await page();
        const bodies: unknown[] = [{}, { page_ids: [] }, { page_ids: p }, { page_ids: [p, 7] }, { page_ids: [''] }, { page_ids: Array(501).fill(p) }];
        for (const body of bodies) assertError(await call(s, 'POST', `/page_tags/${t.id}/attach`, { key, body }), 400, 'E4001');
        assertError(await call(s, 'POST', `/page_tags/${t.id}/detach`, { key, body: { page_ids: [] } }), 400, 'E4001');
        assertData(await call(s, 'POST', `/page_tags/${t.id}/attach`, { key, body: { page_ids: Array(500).fill(p) } }));
        assertError(await call(s, 'POST', `/page_tags/${t.id}/attach`, { key, body: { page_ids: [p] }, contentType: 'application/json' }), 415, 'E41500');
      });

      test('attach_tags/detach_tags by page answer the updated page with page_tags in tag creation order', async () => {
        const [a, b] = [await create({ name: 'pt-a' }), await create({ name: 'pt-b' })];
        const p = await page();
        let data = assertData(await call(s, 'POST', `/pages/${p}/attach_tags`, { key, body: { page_tags: [b.id, a.id] } }));
        assert.equal(data.type, 'page');
        assert.equal(data.id, p);
        assert.deepEqual(data.attributes.page_tags, [a.id, b.id]);
        data = assertData(await call(s, 'POST', `/pages/${p}/attach_tags`, { key, body: { page_tags: [a.id] } }));
        assert.deepEqual(data.attributes.page_tags, [a.id, b.id], 'already attached: unaffected');
        data = assertData(await call(s, 'POST', `/pages/${p}/detach_tags`, { key, body: { page_tags: [a.id] } }));
        assert.deepEqual(data.attributes.page_tags, [b.id]);
      });

      test('attach_tags errors: unknown tag E40417 (nothing attached), unknown page E40402, bad list E4001, 415', async () => {
        const a = await create({ name: 'pt-err' });
        const p = await page();
        const foreign = await create({ name: 'foreign' }, await s.account({ plan: 'pro' }));
        for (const op of ['attach_tags', 'detach_tags']) {
          assertError(await call(s, 'POST', `/pages/${p}/${op}`, { key, body: { page_tags: [a.id, UNKNOWN] } }), 404, 'E40417');
          assertError(await call(s, 'POST', `/pages/${p}/${op}`, { key, body: { page_tags: [foreign.id] } }), 404, 'E40417');
          assertError(await call(s, 'POST', `/pages/${UNKNOWN}/${op}`, { key, body: { page_tags: [a.id] } }), 404, 'E40402');
          assertError(await call(s, 'POST', `/pages/${p}/${op}`, { key, body: { page_tags: [] } }), 400, 'E4001');
          assertError(await call(s, 'POST', `/pages/${p}/${op}`, { key, body: { page_tags: Array(501).fill(a.id) } }), 400, 'E4001');
          assertError(await call(s, 'POST', `/pages/${p}/${op}`, { key, body: { page_tags: [a.id] }, contentType: null }), 415, 'E41500');
        }
        assert.deepEqual(assertData(await call(s, 'GET', `/pages/${p}`, { key })).attributes.page_tags, []);
      });

      test('a report carries the page_tags of its page', async () => {
        const t = await create({ name: 'on-report' });
        const seeded = await seedPage(s.app.store, accountId);
        assertData(await call(s, 'POST', `/pages/${seeded.pageId}/attach_tags`, { key, body: { page_tags: [t.id] } }));
        assert.deepEqual(assertData(await call(s, 'GET', `/reports/${seeded.reportId}`, { key })).attributes.page_tags, [t.id]);
      });
    });

    describe('plan and role', () => {
      test('a basic account may hold 10 tags; the 11th is 403 E40303; after a delete there is room again', async () => {
        const basic = await s.account({ plan: 'basic' });
        const ids: string[] = [];
        for (let i = 0; i < 10; i++) ids.push((await create({ name: `b${i}` }, basic)).id);
        assertError(await call(s, 'POST', '/page_tags', { key: basic, body: tagBody({ name: 'b10' }) }), 403, 'E40303');
        // Updating an existing tag is not a new one.
        assertData(await call(s, 'POST', '/page_tags', { key: basic, body: tagBody({ name: 'b0-renamed' }, ids[0]) }));
        assertData(await call(s, 'DELETE', `/page_tags/${ids[1]}`, { key: basic }));
        await create({ name: 'b10' }, basic);
      });

      test('a Viewer reads tags but every change is 403 E40301 and changes nothing', async () => {
        const viewer = await s.account({ plan: 'pro', role: 'viewer', teamOf: ownerEmail });
        const t = await create({ name: 'viewer-sees' });
        const p = await page();
        assert.ok(assertData(await call(s, 'GET', '/page_tags', { key: viewer })).some((x: any) => x.id === t.id));
        assert.equal(assertData(await call(s, 'GET', `/page_tags/${t.id}`, { key: viewer })).id, t.id);
        const writes: [string, string, unknown][] = [
          ['POST', '/page_tags', tagBody({ name: 'by-viewer' })],
          ['POST', '/page_tags', tagBody({ name: 'by-viewer' }, t.id)],
          ['POST', `/page_tags/${t.id}`, tagBody({ color: '000000' })],
          ['DELETE', `/page_tags/${t.id}`, undefined],
          ['POST', `/page_tags/${t.id}/attach`, { page_ids: [p] }],
          ['POST', `/page_tags/${t.id}/detach`, { page_ids: [p] }],
          ['POST', `/pages/${p}/attach_tags`, { page_tags: [t.id] }],
          ['POST', `/pages/${p}/detach_tags`, { page_tags: [t.id] }],
        ];
        for (const [method, path, body] of writes) assertError(await call(s, method, path, { key: viewer, body }), 403, 'E40301');
        const after = assertData(await call(s, 'GET', `/page_tags/${t.id}`, { key }));
        assert.deepEqual(after.attributes, { name: 'viewer-sees', color: 'FFFFFF' });
        assert.deepEqual(assertData(await call(s, 'GET', `/pages/${p}`, { key })).attributes.page_tags, []);
      });
    });
  });
}
