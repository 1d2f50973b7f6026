import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../src/core/errors.js';
import { assertPublicTarget, isPrivateAddress, privateAddressKind } from '../../src/core/targets.js';

async function refused(promise: Promise<void>, ...patterns: RegExp[]): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.code, 'E40004');
    for (const p of patterns) assert.match(e.detail ?? '', p);
    return true;
  });
}

describe('isPrivateAddress', () => {
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
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['2002:a00:1::1', 'private'],
    ['2001:db8::1', 'reserved'],
  ];
  for (const [ip, kind] of cases) {
    test(`${ip} is a ${kind} address`, () => {
      assert.equal(isPrivateAddress(ip), true);
      assert.equal(privateAddressKind(ip), kind);
    });
  }
  test('public addresses are not private', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '100.128.0.1', '11.0.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
      assert.equal(isPrivateAddress(ip), false, ip);
    }
  });
  test('a string that is not an IP address is not private', () => {
    for (const s of ['localhost', 'example.com', '', '999.1.1.1']) assert.equal(isPrivateAddress(s), false, s);
  });
});

describe('assertPublicTarget', () => {
  const optIn = /WEBGAUGE_ALLOW_PRIVATE_TARGETS=1/;
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
