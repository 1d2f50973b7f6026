/**
 * Request validation with the route schema registry (src/api/schemas) and its mapping to spec errors: every
 * route needs an entry; schema failures get the route's code with a useful detail; and, the API being lenient on
 * purpose, the schemas never refuse what the domain parsers accept (checked over generated inputs).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyRequest } from 'fastify';
import type { ValidateFunction } from 'ajv';
import { jsonApiBody } from '../../../src/api/body.js';
import type { AppContext } from '../../../src/context/app-context.js';
import { Router } from '../../../src/api/router.js';
import { ROUTE_SCHEMAS } from '../../../src/api/schemas/index.js';
import { parseQuery } from '../../../src/api/server.js';
import { checkBody, compileRequestSchema, requestValidationError } from '../../../src/api/validation.js';
import { createCatalog } from '../../../src/core/catalog/catalog.js';
import { ApiError } from '../../../src/core/errors.js';
import { parseFrequency } from '../../../src/core/pages/monitoring.js';
import { parseTestOptions } from '../../../src/core/options/options.js';
import { PLANS } from '../../../src/core/accounts/plans.js';
import { parseIdList, parseTagInput } from '../../../src/core/pages/tags.js';
import { idListOf, tagBody } from '../../../src/api/resource-body.js';
import { parseListQuery } from '../../../src/api/query.js';
import type { ListSpec } from '../../../src/store/list-query.js';
import { PAGES_LIST, REPORTS_LIST, TESTS_LIST } from '../../../src/core/vocabulary/lists.js';
import { testAttributes } from '../../../src/api/resource-body.js';

/** What POST /page_tags(/id) does with a body: the API unwraps it, core parses the tag. */
const parseTagBody = (b: unknown, mode: 'create' | 'patch') => {
  const { id, attributes } = tagBody(b, mode);
  return parseTagInput(attributes, mode, id);
};

/** What POST /tests does with a body: the API unwraps it, core parses the options. */
const parseTestAttributes = (b: unknown, c: Parameters<typeof parseTestOptions>[1]) => parseTestOptions(testAttributes(b), c);

const catalog = createCatalog({ locationName: 'Test machine', locationRegion: 'Local' });
const optionsCtx = { plan: PLANS.pro, catalog, defaultLocation: '1', defaultBrowser: '3' };

/** A deterministic generator (mulberry32), so a failure is reproducible. */
function rng(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}

const accepts = (fn: () => unknown) => {
  try {
    fn();
    return true;
  } catch (e) {
    if (e instanceof ApiError) return false;
    throw e;
  }
};

/** What jsonApiBody sees of a request. */
const request = (routeKey: string, body: unknown) =>
  ({ headers: { 'content-type': 'application/vnd.api+json' }, body: JSON.stringify(body), routeOptions: { config: { routeKey } } }) as unknown as FastifyRequest;

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  assert.fail('expected a refusal');
}

describe('the registry', () => {
  it('registering a route without a registry entry throws at startup', () => {
    const app = Fastify();
    const r = new Router(app, {} as AppContext);
    assert.throws(() => r.get('/nowhere', async () => undefined), /GET \/nowhere.*no entry in the route schema registry/);
    assert.throws(() => r.post('/tests/:id', async () => undefined), /POST \/tests\/:id/);
    r.get('/tests/:id', async () => undefined);
    assert.deepEqual(r.routes().map((x) => x.key), ['GET /tests/:id']);
  });

  it('every entry compiles: params, querystring and body schemas', () => {
    for (const [key, s] of Object.entries(ROUTE_SCHEMAS)) {
      if (s.params) compileRequestSchema({ schema: s.params });
      if (s.querystring) compileRequestSchema({ schema: s.querystring });
      assert.ok(s.operationId && s.summary && s.tags.length > 0, key);
      assert.ok(Object.keys(s.responses).some((c) => c.startsWith('2')), `${key} documents a success`);
      for (const p of Object.keys((s.params?.properties as object) ?? {})) assert.ok(key.includes(`:${p}`), `${key} has :${p}`);
    }
    const ids = Object.values(ROUTE_SCHEMAS).map((s) => s.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });
});

describe('params and querystring failures map to the route\'s spec code', () => {
  const fail = (key: string, part: 'params' | 'querystring', data: unknown) => {
    const s = ROUTE_SCHEMAS[key];
    const validate = compileRequestSchema({ schema: part === 'params' ? s.params : s.querystring }) as ValidateFunction;
    assert.equal(validate(data), false, `${key} ${part} refuses ${JSON.stringify(data).slice(0, 60)}`);
    return requestValidationError(s, part, validate.errors ?? [], data);
  };

  it('a path ID too long to exist is the route\'s not-found error', () => {
    const long = 'x'.repeat(129);
    const cases: [string, string][] = [
      ['GET /tests/:id', 'E40400'], ['GET /reports/:id', 'E40401'], ['GET /pages/:id', 'E40402'], ['POST /reports/:id/retest', 'E40402'],
      ['GET /page_tags/:id', 'E40417'], ['GET /locations/:id', 'E40404'], ['GET /browsers/:id', 'E40403'], ['GET /simulated-devices/:id', 'E40408'],
    ];
    for (const [key, code] of cases) {
      const e = fail(key, 'params', { id: long });
      assert.equal(e.code, code, key);
      assert.equal(e.status, 404);
      assert.match(e.detail!, /path parameter id must have at most 128 characters/i);
    }
  });

  it('a list query the schema refuses is E40005 with what is wrong; the route\'s parser explains it precisely', () => {
    const e = fail('GET /tests', 'querystring', { nope: '1' });
    assert.equal(e.code, 'E40005');
    assert.match(e.detail!, /unknown query parameter "nope"/i);
    const explained = refusal(() => ROUTE_SCHEMAS['GET /tests'].explainQuery!({ 'page[size]': 'abc' }));
    assert.equal(explained.code, 'E40008');
    assert.match(explained.detail!, /page\[size\] must be an integer from 1 to 500/);
  });

  it('resource requests use E40001', () => {
    assert.equal(ROUTE_SCHEMAS['GET /reports/:id/resources/:name'].validationErrorCode, 'E40001');
    const e = fail('GET /reports/:id/resources/:name', 'querystring', { id: { x: 1 } });
    assert.equal(e.code, 'E40001');
    // Repeated and unknown parameters stay accepted, as the handler takes them.
    const validate = compileRequestSchema({ schema: ROUTE_SCHEMAS['GET /reports/:id/resources/:name'].querystring }) as ValidateFunction;
    assert.ok(validate(parseQuery('id=1&id=2&base64=1&full=1&other=x')));
  });
});

describe('bodies: the schema refuses, the domain parser explains', () => {
  const startTest = (b: unknown) => jsonApiBody(request('POST /tests', b), (x) => parseTestAttributes(x, optionsCtx));

  it('a wrong envelope is E40002 with the precise detail of the parser', () => {
    const e = refusal(() => startTest({ data: { type: 'tset', attributes: { url: 'https://example.com/' } } }));
    assert.equal(e.code, 'E40002');
    assert.match(e.detail!, /data.type must be "test", got "tset"/);
    assert.equal(refusal(() => startTest([1])).code, 'E40002');
    assert.equal(refusal(() => startTest({ data: { type: 'test' } })).code, 'E40002');
  });

  it('a wrong attribute keeps the parser\'s code and order (location E40003 before a bad flag)', () => {
    const e = refusal(() => startTest({ data: { type: 'test', attributes: { url: 'https://example.com/', adblock: 'yes', location: '999' } } }));
    assert.equal(e.code, 'E40003');
    assert.match(e.detail!, /location "999" is not available/);
    assert.equal(refusal(() => startTest({ data: { type: 'test', attributes: { url: 'https://example.com/', adblock: 'yes' } } })).code, 'E40004');
  });

  it('should the parser let through what the schema refuses, the schema\'s error stands, with the route\'s codes', () => {
    const attr = checkBody('POST /tests', { data: { type: 'test', attributes: { url: 'https://example.com/', video: 'maybe' } } });
    assert.equal(attr?.code, 'E40004');
    assert.match(attr!.detail!, /^data\.attributes\.video does not accept "maybe": record a video.*0 or 1/);
    assert.match(attr!.detail!, /the body must be \{"data"/);
    const envelope = checkBody('POST /tests', { data: { type: 'test' } });
    assert.equal(envelope?.code, 'E40002');
    assert.match(envelope!.detail!, /^data\.attributes is required/);
    const ids = checkBody('POST /page_tags/:id/attach', { page_ids: [] });
    assert.equal(ids?.code, 'E4001');
    assert.match(ids!.detail!, /page_ids has 0 items; at least 1 are accepted; send \{"page_ids"/);
    const monitor = checkBody('POST /pages/:id/performance_monitor', { data: { attributes: { frequency: 'often' } } });
    assert.equal(monitor?.code, 'E4001');
    assert.equal(checkBody('POST /pages/:id/performance_monitor', { data: { attributes: { frequency: ' Daily ' } } }), undefined);
  });

  it('a route that reads a body without a body schema is a programming error, not a 400', () => {
    assert.throws(() => checkBody('GET /tests/:id', {}), /has no body schema/);
  });
});

/* ---------- never stricter than the domain: generated inputs ---------- */

const ANY = [
  undefined, null, '', '  ', 0, 1, 2, -1, 1.5, true, false, '0', '1', 'true', 'false', 'yes', ' 1 ', '01', 6, 12, 24, '6', ' 12 ', '006',
  [], ['a=b'], ['a=b', null, ''], 'a=b', ['x', 3], {}, '1366', ' 800 ', 1366, 0.5, 3.5, '2.5', ' 1.25 ', 'abc', 'Lighthouse', 'legacy, lighthouse',
  'none', 'example.com:1.2.3.4', ['*.example.com:2606:2800::1'], '5000/1000/30', ' 1 / 1 / 0 ', '1/1', 'iphone-13-pro', 'iPhone 13 Pro',
  '1'.repeat(11), 'x'.repeat(1100), Array(101).fill('a=b'),
];
const ATTRS = [
  'url', 'location', 'browser', 'report', 'retention', 'httpauth_username', 'httpauth_password', 'adblock', 'cookies', 'video', 'stop_onload',
  'throttle', 'allow_url', 'block_url', 'anonymize_user_agent', 'dns', 'simulate_device', 'user_agent', 'browser_width', 'browser_height',
  'browser_dppx', 'browser_rotate', 'unknown_attribute',
];
const URLS = ['https://example.com/', 'example.com', '//example.com/x', ' https://example.com/a?b=c ', 'ftp://x', 5, null, ''];
const FLAG = [0, 1, true, false, '0', '1', 'true', 'false', null, '', ' '];
const LIST = ['a=b', ['a=b'], ['a=b', null, ''], null, '', []];
/** Values each attribute accepts, mostly, so that enough generated bodies pass the parser. */
const GOOD: Record<string, unknown[]> = {
  location: ['1', 1, ' 1 ', null, ''],
  browser: ['3', 3, null, ''],
  report: ['lighthouse', 'Lighthouse', 'legacy, lighthouse', 'none', null, ''],
  retention: [1, 6, 12, 24, '6', ' 12 ', '006', null, ''],
  adblock: FLAG, video: FLAG, stop_onload: FLAG, anonymize_user_agent: FLAG, browser_rotate: FLAG,
  cookies: LIST, allow_url: ['*.png', ['a', 'b*'], null, ''], block_url: ['*.png', ['a', null], null, ''],
  dns: ['example.com:1.2.3.4', ['*.example.com:2606:2800::1'], null, ''],
  throttle: ['5000/1000/30', ' 1 / 1 / 0 ', null, ''],
  httpauth_username: ['user', ' u ', null, ''], httpauth_password: ['p', null, ''],
  simulate_device: ['iphone-13-pro', 'iPhone 13 Pro', null, ''], user_agent: ['UA/1', null, ''],
  browser_dppx: [1, 2.5, '2.5', ' 1.25 ', 5, null, ''],
  unknown_attribute: [1, 'x', null, {}],
};
const SIZES = [1366, '1366', ' 800 ', 1, 10_000];

describe('the schemas never refuse what the domain parsers accept', () => {
  it('POST /tests: 6000 generated bodies', () => {
    const r = rng(20240601);
    let accepted = 0;
    for (let i = 0; i < 6000; i++) {
      const attributes: Record<string, unknown> = { url: r.pick(URLS) };
      const n = 1 + Math.floor(r.next() * 3);
      for (let k = 0; k < n; k++) {
        const name = r.pick(ATTRS);
        attributes[name] = r.next() < 0.8 && GOOD[name] ? r.pick(GOOD[name]) : r.pick(ANY);
      }
      if (r.next() < 0.3) [attributes.browser_width, attributes.browser_height] = r.next() < 0.8 ? [r.pick(SIZES), r.pick(SIZES)] : [r.pick(ANY), r.pick(ANY)];
      const body = r.next() < 0.05 ? r.pick([null, [], 'x', {}, { data: { type: 'test', attributes: [] } }, { data: { attributes } }]) : { data: { type: 'test', attributes } };
      if (!accepts(() => parseTestAttributes(body, optionsCtx))) continue;
      accepted++;
      assert.equal(checkBody('POST /tests', body)?.detail, undefined, `schema refuses an accepted body: ${JSON.stringify(body).slice(0, 300)}`);
    }
    assert.ok(accepted > 1500, `enough accepted bodies to mean something (${accepted})`);
  });

  it('tags, attach/detach and monitoring bodies', () => {
    const r = rng(7);
    const names = [undefined, null, '', ' a ', 'x'.repeat(45), ` ${'x'.repeat(45)} `, 'x'.repeat(46), 5, 'Checkout'];
    const descriptions = [undefined, null, '', 'd', 'x'.repeat(300), 3, ' desc '];
    const colors = [undefined, null, '', '  ', '#ff8800', 'FF8800', ' abcdef ', 'xyz', 123456, '#FFF'];
    const tagIds = [undefined, null, '', ' ', 'abc', 5];
    const types = [undefined, 'tag', 'tags', null, 'performance_monitor'];
    const frequencies = [undefined, null, 'daily', ' Daily ', 'NONE', 'no', 'often', 5, 'hourly', 'Monthly'];
    const lists = [undefined, null, [], ['a'], ['a', 'a'], [' b '], [''], [' '], [3], 'a', Array(500).fill('x'), Array(501).fill('x')];
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const attributes: Record<string, unknown> = { name: r.pick(names), description: r.pick(descriptions), color: r.pick(colors) };
      for (const k of Object.keys(attributes)) if (attributes[k] === undefined || r.next() < 0.3) delete attributes[k];
      const data: Record<string, unknown> = { type: r.pick(types), id: r.pick(tagIds), attributes: r.next() < 0.1 ? r.pick([null, [], 'x']) : attributes };
      for (const k of ['type', 'id', 'attributes']) if (data[k] === undefined || r.next() < 0.2) delete data[k];
      const cases: [string, unknown, (b: unknown) => unknown][] = [
        ['POST /page_tags', { data }, (b) => parseTagBody(b, 'create')],
        ['POST /page_tags/:id', { data }, (b) => parseTagBody(b, 'patch')],
        ['POST /pages/:id/performance_monitor', { data: { ...data, attributes: { frequency: r.pick(frequencies) } } }, parseFrequency],
        ['POST /page_tags/:id/attach', { page_ids: r.pick(lists) }, (b) => parseIdList(idListOf(b, 'page_ids'), 'page_ids')],
        ['POST /pages/:id/detach_tags', { page_tags: r.pick(lists) }, (b) => parseIdList(idListOf(b, 'page_tags'), 'page_tags')],
      ];
      for (const [key, body, parse] of cases) {
        if (!accepts(() => parse(body))) continue;
        accepted++;
        assert.equal(checkBody(key, body)?.detail, undefined, `${key}: schema refuses an accepted body: ${JSON.stringify(body).slice(0, 300)}`);
      }
    }
    assert.ok(accepted > 2000, `enough accepted bodies (${accepted})`);
  });

  const KEYS = [
    'sort', 'page[size]', 'page[number]', 'filter[:bool]', 'filter[state]', 'filter[state:eq]', 'filter[state:EQ]', 'filter[state:lt]',
    'filter[created:gt]', 'filter[created:GTE]', 'filter[created:foo]', 'filter[created:]', 'filter[finished]', 'filter[source]',
    'filter[browser]', 'filter[url]', 'filter[url:eq]', 'filter[monitored]', 'filter[page_tag]', 'filter[report_count:lte]',
    'filter[service_grade]', 'filter[cumulative_layout_shift:Lt]', 'filter[performance_score]', 'filter[nope]', 'foo', 'filter',
    'filter[created:gt:lt]', 'page[size ]',
  ];
  const VALUES = [
    '', ' ', 'created', '-created', '- created', 'created,,-started', 'Created', 'created,created', 'latest_report_time', 'report_count',
    'expires,-performance_score', '10', ' 10 ', '0', '500', '501', '00000000001', 'abc', 'queued', 'QUEUED', 'queued, error', 'queued error',
    'none', 'No', 'AND', 'or', 'and,or', 'AND,and', '1.5', '-3', '1e3', 'A', 'a', 'x,', ',', 'on-demand', 'Monitored', '1700000000',
    '1, 2', 'example.com/%', 'tag1,tag2',
  ];

  for (const [key, spec] of [['GET /tests', TESTS_LIST], ['GET /pages', PAGES_LIST], ['GET /pages/:id/reports', REPORTS_LIST]] as [string, ListSpec][]) {
    it(`${key}: 6000 generated queries`, () => {
      const validate = compileRequestSchema({ schema: ROUTE_SCHEMAS[key].querystring }) as ValidateFunction;
      const r = rng(key.length);
      let accepted = 0;
      for (let i = 0; i < 6000; i++) {
        const pairs = Array.from({ length: Math.floor(r.next() * 4) }, () => `${encodeURIComponent(r.pick(KEYS))}=${encodeURIComponent(r.pick(VALUES))}`);
        const query = parseQuery(pairs.join('&'));
        if (!accepts(() => parseListQuery(spec, query))) {
          // And when the schema refuses, the route's parser is what explains it.
          continue;
        }
        accepted++;
        assert.ok(validate(query), `schema refuses an accepted query ${pairs.join('&')}: ${JSON.stringify(validate.errors?.at(-1)?.instancePath)}`);
      }
      assert.ok(accepted > 1000, `enough accepted queries (${accepted})`);
    });
  }
});
