/** The operator's target policy (net/policy.ts, WEBGAUGE_ALLOW_TARGETS): which private addresses a test may reach. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TargetPolicy } from '../../../src/net/policy.js';
import { loadConfig, ConfigError } from '../../../src/config.js';
import { ALLOW_ALL, PUBLIC_ONLY } from '../../helpers/run-spec.js';

describe('TargetPolicy (WEBGAUGE_ALLOW_TARGETS)', () => {
  const policy = new TargetPolicy({ allowAll: false, allowTargets: '10.20.0.0/16, staging.internal,*.corp.example,fd00::/8,127.0.0.2' });
  test('CIDR ranges and single addresses allow those addresses, whatever the host name', () => {
    assert.deepEqual(policy.check('x.example', '10.20.3.4', 'dns'), { ok: true });
    assert.deepEqual(policy.check('x.example', '10.20.3.4', 'override'), { ok: true });
    assert.deepEqual(policy.check('127.0.0.2', '127.0.0.2', 'dns'), { ok: true });
    assert.deepEqual(policy.check('x', '::ffff:10.20.0.1', 'dns'), { ok: true }, 'IPv4-mapped is the IPv4 address');
    assert.deepEqual(policy.check('x', 'fd12::1', 'dns'), { ok: true });
    assert.deepEqual(policy.check('x.example', '10.21.0.1', 'dns'), { ok: false, kind: 'private', address: '10.21.0.1' });
    assert.deepEqual(policy.check('x', '127.0.0.1', 'dns'), { ok: false, kind: 'loopback', address: '127.0.0.1' });
  });
  test('host names allow what their own DNS gives them, never what a test\'s dns option gives them', () => {
    assert.deepEqual(policy.check('staging.internal', '192.168.1.5', 'dns'), { ok: true });
    assert.deepEqual(policy.check('STAGING.internal.', '192.168.1.5', 'dns'), { ok: true });
    assert.deepEqual(policy.check('a.b.corp.example', '172.16.0.9', 'dns'), { ok: true });
    assert.equal(policy.check('corp.example', '172.16.0.9', 'dns').ok, false, '*.suffix is for subdomains');
    assert.equal(policy.check('staging.internal', '127.0.0.1', 'override').ok, false);
    assert.equal(policy.check('notstaging.internal', '192.168.1.5', 'dns').ok, false);
  });
  test('public addresses always pass; allowAll passes everything', () => {
    assert.deepEqual(PUBLIC_ONLY.check('example.com', '93.184.215.14', 'dns'), { ok: true });
    assert.deepEqual(ALLOW_ALL.check('x', '127.0.0.1', 'override'), { ok: true });
  });
  test('a bad entry stops the start with a message naming it', () => {
    for (const bad of ['10.0.0.0/33', '10.0.0.0/x', 'bad host!', '*.', 'fd00::/129', 'a..b']) {
      assert.throws(() => loadConfig({ WEBGAUGE_ALLOW_TARGETS: bad }),
        (e: unknown) => e instanceof ConfigError && e.message.includes(`"${bad.trim()}"`) && /WEBGAUGE_ALLOW_TARGETS/.test(e.message), bad);
    }
    assert.equal(loadConfig({ WEBGAUGE_ALLOW_TARGETS: ' 10.0.0.0/8 , intranet ' }).targetPolicy.entries.length, 2);
  });
});
