// lane: shared
/**
 * The agent protocol through HTTP, request by request, on both engines (no browser: the result is a stub, the
 * protocol is what is tested): the version gate, tokens per location, hello before work, long-poll claims woken
 * by a POST, a damaged upload refused with nothing stored, an upload stored once however often it is sent, a
 * test of another location out of reach, hand-back. Then the health checks of the service and of an agent-only node.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bundleChecksum, encodeBundle } from '../../src/agent/result-bundle.js';
import { AGENT_PROTOCOL } from '../../src/agent/protocol.js';
import { readFailure, failureScreenshotKey } from '../../src/core/tests/journey-failure.js';
import { addLocation, createAgentToken } from '../../src/core/catalog/locations.js';
import { call, engines, startServer, type TestServer } from '../helpers/server.js';
import { stubResult } from '../helpers/stub-result.js';
import { startRemoteAgent } from '../../src/agent/remote.js';
import { loadConfig } from '../../src/config.js';

for (const engine of engines()) {
  describe(`agent protocol (${engine})`, () => {
    let s: TestServer;
    let location: string;
    let token: string;
    let otherToken: string;
    const agentId = `agent-proto-${engine}`;

    const agent = async (path: string, body: unknown, o: { token?: string; protocol?: string; raw?: Buffer; headers?: Record<string, string> } = {}) => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${o.token ?? token}`, 'webgauge-agent-protocol': o.protocol ?? String(AGENT_PROTOCOL),
        'content-type': o.raw ? 'application/octet-stream' : 'application/json', ...o.headers,
      };
      const res = await fetch(`${s.base}/agent/v1${path}`, {
        method: path.endsWith('/result') ? 'PUT' : 'POST', headers,
        body: o.raw ? new Uint8Array(o.raw.buffer as ArrayBuffer, o.raw.byteOffset, o.raw.length) : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const post = () => call(s, 'POST', '/tests', { key: s.key, body: { data: { type: 'test', attributes: { url: 'http://127.0.0.1:9/', location, report: 'none' } } } });
    const reportsOf = async (id: string) => (await s.app.store.db.selectFrom('reports').select('id').where('test_id', '=', id).execute()).length;
    const hello = (id = agentId, t = token) => agent('/hello', { agent_id: id, version: 'test', hostname: 'here', browsers: ['3'], slots: 1 }, { token: t });

    before(async () => {
      s = await startServer({ engine, agentSlots: 0 });
      location = (await addLocation(s.app.store, { name: 'Protocol lab', region: 'Test' })).id;
      const other = (await addLocation(s.app.store, { name: 'Elsewhere', region: 'Test' })).id;
      token = (await createAgentToken(s.app.store, location)).token;
      otherToken = (await createAgentToken(s.app.store, other)).token;
    });
    after(async () => s?.close());

    test('the version comes first, then the token; an agent must say hello before it works', async () => {
      const old = await agent('/hello', {}, { protocol: '0' });
      assert.equal(old.status, 426);
      assert.equal(old.body.error.code, 'protocol');
      assert.match(old.body.error.message, new RegExp(`speaks agent protocol ${AGENT_PROTOCOL}`));
      const bad = await agent('/hello', {}, { token: 'wgat_wrong' });
      assert.deepEqual([bad.status, bad.body.error.code], [401, 'token']);
      const unknown = await agent('/claim', { agent_id: 'agent-never-said-hello', wait_ms: 0 });
      assert.deepEqual([unknown.status, unknown.body.error.code], [404, 'unknown_agent']);
      const missing = await agent('/hello', { agent_id: agentId });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error.message, /version/);
      const ok = await hello();
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.body.location, { id: location, name: 'Protocol lab', region: 'Test' });
      assert.equal(ok.body.protocol, AGENT_PROTOCOL);
    });

    test('an idle claim is answered as soon as a test is queued; a damaged upload stores nothing; an upload lands once', async () => {
      const t0 = Date.now();
      const waiting = agent('/claim', { agent_id: agentId, wait_ms: 10_000 });
      setTimeout(() => void post(), 300);
      const claimed = await waiting;
      assert.equal(claimed.status, 200);
      assert.ok(Date.now() - t0 < 3_000, `claimed after ${Date.now() - t0} ms`);
      const id = claimed.body.test_id as string;
      assert.equal(claimed.body.options.url, 'http://127.0.0.1:9/');
      assert.equal((await agent(`/tests/${id}/renew`, { agent_id: agentId })).body.held, true);
      // A renewal tells the test's phase: the progress screen shows it; a phase the protocol does not know is refused.
      assert.equal((await agent(`/tests/${id}/renew`, { agent_id: agentId, phase: 'auditing', run: 1 })).body.held, true);
      const phased = await s.app.store.db.selectFrom('tests').select(['phase', 'phase_run']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual([phased.phase, Number(phased.phase_run)], ['auditing', 1]);
      for (const bad of [{ phase: 'dancing', run: 1 }, { phase: 'loading' }, { phase: 'loading', run: 0 }]) {
        const refused = await agent(`/tests/${id}/renew`, { agent_id: agentId, ...bad });
        assert.deepEqual([refused.status, refused.body.error.code], [400, 'input'], JSON.stringify(bad));
      }

      const bundle = encodeBundle({ result: stubResult('http://127.0.0.1:9/') });
      const damaged = Buffer.from(bundle);
      damaged[damaged.length - 1] ^= 0xff;
      const refused = await agent(`/tests/${id}/result`, undefined, { raw: damaged, headers: { 'webgauge-agent-id': agentId, 'webgauge-content-sha256': bundleChecksum(bundle) } });
      assert.deepEqual([refused.status, refused.body.error.code], [400, 'checksum']);
      assert.equal(await reportsOf(id), 0);
      assert.equal((await call(s, 'GET', `/tests/${id}`, { key: s.key })).body.data.attributes.state, 'started');

      const headers = { 'webgauge-agent-id': agentId, 'webgauge-content-sha256': bundleChecksum(bundle) };
      const first = await agent(`/tests/${id}/result`, undefined, { raw: bundle, headers });
      assert.deepEqual([first.status, first.body], [200, { stored: true }]);
      // The agent's first answer was lost on the way: it sends the same result again, twice at once.
      const again = await Promise.all([1, 2].map(() => agent(`/tests/${id}/result`, undefined, { raw: bundle, headers })));
      assert.deepEqual(again.map((r) => r.status), [200, 200]);
      assert.equal(await reportsOf(id), 1);
      const report = await call(s, 'GET', `/reports/${id}`, { key: s.key });
      assert.equal(report.status, 200);
      const shot = await call(s, 'GET', `/reports/${id}/resources/screenshot.jpg`, { key: s.key });
      assert.equal(shot.status, 200, 'the files of the first upload are still there');
      assert.equal((await agent(`/tests/${id}/renew`, { agent_id: agentId })).body.held, false);
    });

    test('an agent of another location cannot touch the test; a released test goes back to the queue', async () => {
      const queued = await post();
      const claimed = await agent('/claim', { agent_id: agentId, wait_ms: 5_000 });
      assert.equal(claimed.body.test_id, queued.body.data.id);
      const id = claimed.body.test_id as string;
      const stranger = 'agent-stranger';
      assert.equal((await hello(stranger, otherToken)).status, 200);
      // Its own location's queue is empty; this test's location is not its own.
      assert.equal((await agent('/claim', { agent_id: stranger, wait_ms: 0 }, { token: otherToken })).status, 204);
      assert.equal((await agent(`/tests/${id}/renew`, { agent_id: stranger }, { token: otherToken })).body.held, false);
      // An agent ID said hello with another location's token is unknown to this one.
      assert.equal((await agent(`/tests/${id}/renew`, { agent_id: stranger })).status, 404);
      const bundle = encodeBundle({ result: stubResult('http://127.0.0.1:9/') });
      const stolen = await agent(`/tests/${id}/result`, undefined, {
        token: otherToken, raw: bundle, headers: { 'webgauge-agent-id': stranger, 'webgauge-content-sha256': bundleChecksum(bundle) },
      });
      assert.deepEqual([stolen.status, stolen.body.error.code], [409, 'lease_lost']);
      assert.equal(await reportsOf(id), 0);
      assert.equal((await agent(`/tests/${id}/release`, { agent_id: agentId })).status, 200);
      assert.equal((await call(s, 'GET', `/tests/${id}`, { key: s.key })).body.data.attributes.state, 'queued');
      const failed = await agent('/claim', { agent_id: agentId, wait_ms: 5_000 });
      assert.equal(failed.body.test_id, id);
      // A journey's progress travels with its failure: checked, then kept beside the test.
      const malformed = await agent(`/tests/${id}/fail`, { agent_id: agentId, message: 'x', progress: { completed: 'all' } });
      assert.deepEqual([malformed.status, malformed.body.error.code], [400, 'input']);
      const completed = [{ index: 1, steps: [1], name: 'Shop: navigate http://127.0.0.1:9/', mode: 'navigation', duration: 120 }];
      const jpeg = stubResult('x').screenshot;
      const failedJourney = await agent(`/tests/${id}/fail`, { agent_id: agentId, message: 'The page crashed the browser.',
        progress: { completed, screenshot: jpeg.toString('base64') } });
      assert.equal(failedJourney.body.held, true);
      const t = await call(s, 'GET', `/tests/${id}`, { key: s.key });
      assert.deepEqual([t.body.data.attributes.state, t.body.data.attributes.error], ['error', 'The page crashed the browser.']);
      assert.deepEqual((await readFailure(s.app.artifacts, id))?.completed, completed);
      assert.deepEqual(await s.app.artifacts.get(failureScreenshotKey(id)), jpeg);
    });
  });
}

describe('health checks', () => {
  test('the service: /healthz and /readyz answer without a key, say nothing else, and are not logged at info', async () => {
    const s = await startServer({ engine: 'sqlite', agentSlots: 0 });
    try {
      for (const [path, body] of [['/healthz', { status: 'ok' }], ['/readyz', { status: 'ready' }]] as const) {
        const res = await fetch(s.base + path);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.deepEqual(await res.json(), body, path);
        assert.equal((await fetch(s.base + path, { method: 'HEAD' })).status, 200, `HEAD ${path}`);
      }
    } finally {
      await s.close();
    }
  });

  test('an agent-only node (--health-port): ready while it reaches its server, 503 once it cannot', async () => {
    const s = await startServer({ engine: 'sqlite', agentSlots: 0, env: { WEBGAUGE_AGENT_HEARTBEAT_MS: '200' } });
    let stopAgent: (() => Promise<void>) | undefined;
    try {
      const location = (await addLocation(s.app.store, { name: 'Health lab', region: 'Test' })).id;
      const { token } = await createAgentToken(s.app.store, location);
      const started = await startRemoteAgent({
        server: s.base, token, slots: 1, healthPort: 0, config: loadConfig({ WEBGAUGE_DATA_DIR: s.config.dataDir, WEBGAUGE_LOG_LEVEL: 'silent' }),
        run: async (spec) => stubResult(spec.options.url),
      });
      stopAgent = started.stop;
      const readyz = async () => {
        const res = await fetch(`${started.healthUrl}/readyz`);
        return { status: res.status, body: await res.json() };
      };
      assert.deepEqual(await readyz(), { status: 200, body: { status: 'ready' } });
      assert.equal((await fetch(`${started.healthUrl}/healthz`)).status, 200);
      await s.close();
      const deadline = Date.now() + 5000;
      let last = await readyz();
      while (last.status === 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        last = await readyz();
      }
      assert.deepEqual(last, { status: 503, body: { status: 'unavailable', reasons: ['the agent cannot reach its server'] } });
      assert.equal((await fetch(`${started.healthUrl}/healthz`)).status, 200, 'still alive');
    } finally {
      await stopAgent?.();
      await s.close();
    }
  });
});
