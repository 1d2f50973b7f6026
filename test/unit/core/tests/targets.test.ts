/**
 * The check of a test's target before it is queued (core/tests/targets.ts): a URL whose host is, or resolves to, an
 * address that is not public is refused with E40004 saying which and how the operator allows it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../../../src/core/errors.js';
import { assertAllowedTarget } from '../../../../src/core/tests/targets.js';
import { TargetPolicy } from '../../../../src/net/policy.js';
import { ALLOW_ALL, PUBLIC_ONLY } from '../../../helpers/run-spec.js';

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
  test('the POST check uses the same policy', async () => {
    const allowLoopback2 = new TargetPolicy({ allowAll: false, allowTargets: '127.0.0.2' });
    await assertAllowedTarget('http://127.0.0.2:8080/', allowLoopback2);
    await refused(assertAllowedTarget('http://127.0.0.1:8080/', allowLoopback2), /loopback/);
    await refused(assertAllowedTarget('http://x.invalid/', allowLoopback2, ['x.invalid:127.0.0.1']), /dns entry x\.invalid:127\.0\.0\.1 points to a loopback address/);
    await assertAllowedTarget('http://x.invalid/', allowLoopback2, ['x.invalid:127.0.0.2']);
  });
});
