/** The gate's client of the API (gate/api-client.ts): the address it is given. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiRoot } from '../../../src/gate/api-client.js';

test('--server takes the service address or the API root', () => {
  assert.equal(apiRoot('https://wg.example'), 'https://wg.example/api/2.0');
  assert.equal(apiRoot('https://wg.example/api/2.0/'), 'https://wg.example/api/2.0');
  assert.equal(apiRoot('http://127.0.0.1:8080/perf/'), 'http://127.0.0.1:8080/perf/api/2.0');
  assert.throws(() => apiRoot('wg.example'), /is not a URL/);
  assert.throws(() => apiRoot('ftp://wg.example'), /is not an http\(s\) URL/);
});
