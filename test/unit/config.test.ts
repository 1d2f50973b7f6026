/**
 * The settings read at start (config.ts), each refused with a message naming its variable: WEBGAUGE_PUBLIC_URL,
 * WEBGAUGE_EXTRA_CA_CERTS, and the agent protocol's queue timeout, heartbeat and metrics token. A setting read for one
 * module is tested beside it: the plans file in core/accounts/plans.test.ts, the allowed targets in net/policy.test.ts,
 * the secret key in store/secret-box.test.ts.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { makePrivateCa } from '../helpers/certificates.js';

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

describe('WEBGAUGE_EXTRA_CA_CERTS', () => {
  let dir: string;
  let ca: ReturnType<typeof makePrivateCa>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'webgauge-ca-config-'));
    ca = makePrivateCa();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const refusal = (path: string): string => {
    try {
      loadConfig({ WEBGAUGE_EXTRA_CA_CERTS: path });
    } catch (err) {
      assert.ok(err instanceof ConfigError, String(err));
      return err.message;
    }
    throw new Error(`${path} was accepted`);
  };

  test('unset: no extra CA; a PEM file of CA certificates: each of them, in order', () => {
    assert.equal(loadConfig({}).extraCaCerts, undefined);
    const other = makePrivateCa('Second CA');
    const certs = loadConfig({ WEBGAUGE_EXTRA_CA_CERTS: file('two.pem', `# company CAs\n${ca.cert}\n${other.cert}`) }).extraCaCerts;
    assert.equal(certs?.length, 2);
    assert.equal(new X509Certificate(certs![1]!).subject.includes('CN=Second CA'), true);
  });

  test('an unreadable file, a file without a certificate, a damaged one or a server certificate stop the start', () => {
    assert.match(refusal(join(dir, 'missing.pem')), /^WEBGAUGE_EXTRA_CA_CERTS: cannot read the file .*missing\.pem \(ENOENT\)$/);
    assert.match(refusal(file('empty.pem', 'not a certificate\n')), /^WEBGAUGE_EXTRA_CA_CERTS .*empty\.pem holds no PEM certificate/);
    const damaged = ca.cert.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!');
    assert.match(refusal(file('damaged.pem', damaged)), /certificate 1 of 1 does not parse/);
    const leaf = ca.issue(['staging.example.test']).cert;
    assert.match(refusal(file('leaf.pem', `${ca.cert}${leaf}`)),
      /certificate 2 of 2 \(CN=staging\.example\.test\) is not a CA certificate \(basicConstraints CA:TRUE\)/);
  });
});

describe('the agent protocol\'s settings', () => {
  test('queue timeout, heartbeat and metrics token are checked at start', () => {
    const c = loadConfig({ WEBGAUGE_DATA_DIR: '/tmp/x' });
    assert.deepEqual([c.queueTimeoutMs, c.agentHeartbeatMs, c.metricsToken], [600_000, 10_000, undefined]);
    assert.equal(loadConfig({ WEBGAUGE_METRICS_TOKEN: 'a'.repeat(32) }).metricsToken, 'a'.repeat(32));
    assert.throws(() => loadConfig({ WEBGAUGE_METRICS_TOKEN: 'short' }), (e) => e instanceof ConfigError && /16 characters/.test(e.message));
    assert.throws(() => loadConfig({ WEBGAUGE_QUEUE_TIMEOUT_MS: '10' }), (e) => e instanceof ConfigError && /WEBGAUGE_QUEUE_TIMEOUT_MS/.test(e.message));
  });
});
