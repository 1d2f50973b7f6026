/**
 * Which addresses are not public, and of what kind (net/addresses.ts nonPublicKind).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isNonPublicAddress, nonPublicKind } from '../../../src/net/addresses.js';

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

