/** The load's HAR (runner/capture/har.ts): the fix-up from the connection guard's ledger. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyGuardConnections, type Har, type HarEntry, type GuardLookups } from '../../../../src/runner/capture/har.js';

describe('applyGuardConnections: the HAR names what the connection guard did', () => {
  const entry = (url: string, timings: HarEntry['timings'], serverIPAddress = '127.0.0.1'): HarEntry => ({
    startedDateTime: '2024-01-01T00:00:00.000Z', time: 100, serverIPAddress,
    request: { url, headers: [] },
    response: { status: 200, headers: [], bodySize: 10, headersSize: 10, content: { size: 10 } },
    timings,
  });
  const ledger = (addresses: Record<string, string>, lookups: Record<string, number>): GuardLookups => ({
    addressOf: (host) => addresses[host],
    lookupMs: (host) => lookups[host],
  });

  test('the guard\'s address replaces the browser\'s (the guard itself); a host it never reached has none', () => {
    const har: Har = { log: { version: '1.2', pages: [], entries: [
      entry('https://www.example.com/', { dns: -1, connect: 40 }),
      entry('https://cdn.example.net/app.js', { dns: -1, connect: -1 }),
    ] } };
    applyGuardConnections(har, ledger({ 'www.example.com': '93.184.215.14' }, {}));
    assert.equal(har.log.entries[0].serverIPAddress, '93.184.215.14');
    assert.equal('serverIPAddress' in har.log.entries[1], false);
  });

  test('the guard\'s DNS lookup is taken out of the first connect to its host, rounded; later connects keep theirs', () => {
    const har: Har = { log: { version: '1.2', pages: [], entries: [
      entry('https://WWW.Example.com/', { dns: -1, connect: 50 }),
      entry('https://www.example.com/style.css', { dns: -1, connect: 30 }),
      entry('https://img.example.org/a.png', { dns: -1, connect: -1 }), // a reused connection: no connect
      entry('https://img.example.org/b.png', { dns: -1, connect: 25 }),
      entry('https://slow-dns.example/', { dns: -1, connect: 20 }), // a lookup longer than the connect is left alone
    ] } };
    applyGuardConnections(har, ledger(
      { 'www.example.com': '192.0.2.1', 'img.example.org': '192.0.2.2', 'slow-dns.example': '192.0.2.3' },
      { 'www.example.com': 12.4, 'img.example.org': 7.6, 'slow-dns.example': 21 }));
    const t = har.log.entries.map((e) => e.timings);
    assert.deepEqual(t[0], { dns: 12, connect: 38 });
    assert.deepEqual(t[1], { dns: -1, connect: 30 });
    assert.deepEqual(t[2], { dns: -1, connect: -1 });
    assert.deepEqual(t[3], { dns: 8, connect: 17 });
    assert.deepEqual(t[4], { dns: -1, connect: 20 });
    assert.deepEqual(har.log.entries.map((e) => e.serverIPAddress),
      ['192.0.2.1', '192.0.2.1', '192.0.2.2', '192.0.2.2', '192.0.2.3']);
  });
});
