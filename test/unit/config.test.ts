import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

const publicUrl = (v: string) => loadConfig({ WEBGAUGE_PUBLIC_URL: v }).publicUrl;

describe('WEBGAUGE_PUBLIC_URL', () => {
  test('unset or empty: links follow the request', () => {
    assert.equal(loadConfig({}).publicUrl, undefined);
    assert.equal(publicUrl(''), undefined);
  });

  test('an absolute http(s) URL, kept without its trailing slash, with a path when given', () => {
    assert.equal(publicUrl('https://gauge.example.com'), 'https://gauge.example.com');
    assert.equal(publicUrl('https://gauge.example.com/'), 'https://gauge.example.com');
    assert.equal(publicUrl('http://gauge.example.com:8443/webgauge/'), 'http://gauge.example.com:8443/webgauge');
    assert.equal(publicUrl('HTTPS://Gauge.Example.com'), 'https://gauge.example.com');
  });

  test('anything else is refused at start with a message naming the variable', () => {
    for (const bad of ['gauge.example.com', '/webgauge', 'ftp://gauge.example.com', 'https://gauge.example.com/?a=1',
      'https://gauge.example.com/#top', 'https://gauge.example.com/?', 'https://user:pw@gauge.example.com', 'https://']) {
      assert.throws(() => publicUrl(bad), (err: Error) => err instanceof ConfigError && err.message.startsWith('WEBGAUGE_PUBLIC_URL'), bad);
    }
  });
});
