import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../../src/core/errors.js';
import { assertAllowedTarget } from '../../../src/core/tests/targets.js';
import { isNonPublicAddress, nonPublicKind } from '../../../src/net/addresses.js';
import { TargetPolicy } from '../../../src/net/policy.js';
import { resolveHost } from '../../../src/net/resolve.js';
import { loadConfig, ConfigError } from '../../../src/config.js';

const PUBLIC_ONLY = new TargetPolicy({ allowAll: false, allowTargets: '' });
const ALLOW_ALL = new TargetPolicy({ allowAll: true, allowTargets: '' });
const assertPublicTarget = (url: string, allowAll: boolean, dns: string[] = []) =>
  assertAllowedTarget(url, allowAll ? ALLOW_ALL : PUBLIC_ONLY, dns);

async function refused(promise: Promise<void>, ...patterns: RegExp[]): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.code, 'E40004');
    for (const p of patterns) assert.match(e.detail ?? '', p);
    return true;
  });
}

describe('nonPublicKind', () => {
  const cases: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.254', 'shared (CGNAT)'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['2002:a00:1::1', '6to4'],
    ['2002:808:808::1', '6to4'],
    ['2001:db8::1', 'reserved'],
    // The blocks the POST check and the load used to disagree on: one table now.
    ['192.0.2.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['::7f00:1', 'IPv4-compatible'],
    ['::808:808', 'IPv4-compatible'],
    ['fec0::1', 'site-local'],
    ['64:ff9b:1::a00:1', 'NAT64 local-use'],
    ['::ffff:0:0', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:0:a00:1', 'IPv4-translated'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2001::1', 'Teredo'],
    ['3fff::1', 'reserved'],
    ['100::1', 'reserved'],
    ['5f00::1', 'non-global IPv6'],
    ['::2', 'IPv4-compatible'],
    ['192.88.99.1', 'reserved'],
  ];
  for (const [ip, kind] of cases) {
    test(`${ip} is a ${kind} address`, () => {
      assert.equal(isNonPublicAddress(ip), true);
      assert.equal(nonPublicKind(ip), kind);
    });
  }
  test('public addresses are not private', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '100.128.0.1', '11.0.0.1', '2606:4700::1111',
      '::ffff:8.8.8.8', '64:ff9b::808:808', '2a00:1450::1']) {
      assert.equal(isNonPublicAddress(ip), false, ip);
    }
  });
  test('a string that is not an IP address is never taken for a public one', () => {
    for (const s of ['localhost', 'example.com', '', '999.1.1.1']) assert.equal(nonPublicKind(s), 'not an IP address', s);
  });
});

describe('assertPublicTarget', () => {
  const optIn = /WEBGAUGE_ALLOW_TARGETS, or WEBGAUGE_ALLOW_PRIVATE_TARGETS=1/;
  test('a loopback IP url is refused with the address and the operator setting', async () => {
    await refused(assertPublicTarget('http://127.0.0.1:8080/', false), /loopback address \(127\.0\.0\.1\)/, optIn);
  });
  test('private, link-local, CGNAT, unspecified and IPv6 literals are refused', async () => {
    await refused(assertPublicTarget('http://10.0.0.5/', false), /private address \(10\.0\.0\.5\)/);
    await refused(assertPublicTarget('http://169.254.169.254/latest/meta-data/', false), /link-local/);
    await refused(assertPublicTarget('http://100.64.3.4/', false), /CGNAT/);
    await refused(assertPublicTarget('http://0.0.0.0/', false), /unspecified/);
    await refused(assertPublicTarget('http://[::1]/', false), /loopback address \(::1\)/);
    await refused(assertPublicTarget('http://[::ffff:192.168.0.1]/', false), /private/);
  });
  test('every spelling of a loopback address is refused (the URL parser and the resolver canonicalise)', async () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1/', 'http://127.000.000.001/',
      'http://[::ffff:7f00:1]/', 'http://[0:0:0:0:0:ffff:127.0.0.1]/', 'http://0/', 'http://LOCALHOST./']) {
      await refused(assertPublicTarget(url, false), /loopback|unspecified/);
    }
  });
  test('localhost and its subdomains are refused as loopback', async () => {
    await refused(assertPublicTarget('http://localhost:3000/', false), /host localhost resolves to a loopback address/, optIn);
    await refused(assertPublicTarget('http://app.localhost/', false), /loopback/);
  });
  test('a public IP literal is accepted', async () => {
    await assertPublicTarget('https://93.184.215.14/', false);
    await assertPublicTarget('https://[2606:4700::1111]/', false);
  });
  test('private targets are accepted when the operator allows them', async () => {
    await assertPublicTarget('http://127.0.0.1:8080/', true);
    await assertPublicTarget('http://localhost/', true);
    await assertPublicTarget('http://x.example:1/', true, ['x.example:10.0.0.1']);
  });
  test('a host that does not resolve gets "Could not resolve host"', async () => {
    await refused(assertPublicTarget('http://nothing.invalid/', false), /Could not resolve host nothing\.invalid/);
    await refused(assertPublicTarget('http://nothing.invalid/', true), /Could not resolve host/);
  });
  test('a dns override decides the address of its host', async () => {
    await assertPublicTarget('http://staging.invalid/', false, ['staging.invalid:93.184.215.14']);
    await assertPublicTarget('http://a.staging.invalid/', false, ['*.staging.invalid:2606:4700::1111']);
    await refused(assertPublicTarget('http://staging.invalid/', false, ['*.staging.invalid:93.184.215.14']), /Could not resolve/);
  });
  test('a dns override to a private address is refused', async () => {
    await refused(assertPublicTarget('http://93.184.215.14/', false, ['intranet.example:192.168.0.1']), /dns entry intranet\.example:192\.168\.0\.1 points to a private address/, optIn);
  });
  test('an invalid url is refused', async () => {
    await refused(assertPublicTarget('not a url', false), /not a valid/);
  });
});

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
  test('the POST check uses the same policy', async () => {
    const allowLoopback2 = new TargetPolicy({ allowAll: false, allowTargets: '127.0.0.2' });
    await assertAllowedTarget('http://127.0.0.2:8080/', allowLoopback2);
    await refused(assertAllowedTarget('http://127.0.0.1:8080/', allowLoopback2), /loopback/);
    await refused(assertAllowedTarget('http://x.invalid/', allowLoopback2, ['x.invalid:127.0.0.1']), /dns entry x\.invalid:127\.0\.0\.1 points to a loopback address/);
    await assertAllowedTarget('http://x.invalid/', allowLoopback2, ['x.invalid:127.0.0.2']);
  });
});

describe('resolveHost', () => {
  test('localhost is loopback without DNS; IP literals are themselves; overrides win', async () => {
    assert.deepEqual(await resolveHost('app.localhost'), { addresses: ['127.0.0.1', '::1'], source: 'dns' });
    assert.deepEqual(await resolveHost('[::1]'), { addresses: ['::1'], source: 'dns' });
    assert.deepEqual(await resolveHost('a.test', [{ host: '*.test', ip: '10.0.0.1' }]), { addresses: ['10.0.0.1'], source: 'override' });
    assert.deepEqual(await resolveHost('nothing.invalid'), { addresses: [], source: 'dns' });
  });
});
