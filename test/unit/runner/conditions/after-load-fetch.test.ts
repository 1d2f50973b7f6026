/**
 * Lighthouse's fetch after the load (runner/conditions/after-load-fetch.ts): only a source map the load named, only
 * where the target policy allows, to the address it judged.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { afterLoadFetcher } from '../../../../src/runner/conditions/after-load-fetch.js';
import { dnsOverride } from '../../../../src/net/resolve.js';
import { ALLOW_ALL, PUBLIC_ONLY } from '../../../helpers/run-spec.js';

describe('Lighthouse\'s fetch after the load (source maps)', () => {
  test('fetches only a source map the load named, only where the policy allows, to the address it judged', async () => {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(`${req.headers.host} ${req.url}`);
      res.writeHead(req.url === '/gone.js.map' ? 404 : 200, { 'content-type': 'application/json' });
      res.end('{"version":3}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const named = new Set([`http://127.0.0.1:${port}/app.js.map`, `http://maps.test:${port}/app.js.map`,
        `http://127.0.0.1:${port}/gone.js.map`]);
      const allowed = afterLoadFetcher({ policy: ALLOW_ALL, dns: [dnsOverride('maps.test:127.0.0.1')], named: (u) => named.has(u) });
      assert.deepEqual(await allowed(`http://127.0.0.1:${port}/app.js.map`).then((r) => [r.status, r.content]), [200, '{"version":3}']);
      assert.equal((await allowed(`http://maps.test:${port}/app.js.map`)).content, '{"version":3}', 'the test\'s dns entries apply');
      assert.deepEqual(await allowed(`http://127.0.0.1:${port}/gone.js.map`).then((r) => [r.status, r.content]), [404, null]);
      assert.equal((await allowed(`http://127.0.0.1:${port}/other.js`)).status, null, 'a URL no script named is not fetched');
      assert.equal((await allowed('file:///etc/passwd')).status, null);
      const publicOnly = afterLoadFetcher({ policy: PUBLIC_ONLY, dns: [dnsOverride('maps.test:127.0.0.1')], named: (u) => named.has(u) });
      assert.equal((await publicOnly(`http://127.0.0.1:${port}/app.js.map`)).status, null, 'a private address is refused');
      assert.equal((await publicOnly(`http://maps.test:${port}/app.js.map`)).status, null, 'and a name mapped onto one');
      assert.deepEqual(asked, [`127.0.0.1:${port} /app.js.map`, `maps.test:${port} /app.js.map`, `127.0.0.1:${port} /gone.js.map`]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
