/**
 * The connection guard on its own, spoken to as Chromium speaks to it (SOCKS5 over TCP), no browser needed:
 * the policy on every address spelling, DNS rebinding defeated by pinning, sealing after the load, and bad
 * input that must not bring it down. The browser side (every channel of a hostile page) is hostile.test.ts.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ConnectionGuard, type Resolver } from '../../src/runner/conditions/connection-guard.js';
import { TargetPolicy } from '../../src/net/policy.js';
import { resolveHost } from '../../src/net/resolve.js';

const ALLOW_2 = new TargetPolicy({ allowAll: false, allowTargets: '127.0.0.2' });

/** A TCP echo of who answered: "127.0.0.x" then closes. */
async function listener(host: string, port = 0): Promise<{ server: Server; port: number; hits: number }> {
  const state = { server: undefined as unknown as Server, port: 0, hits: 0 };
  state.server = createServer((s) => {
    state.hits++;
    s.end(host);
  });
  await new Promise<void>((resolve) => state.server.listen(port, host, resolve));
  state.port = (state.server.address() as { port: number }).port;
  return state;
}

/** SOCKS5 CONNECT to a domain name through the guard; resolves with the reply code and what the target sent. */
async function socksConnect(guard: ConnectionGuard, host: string, port: number, raw?: Buffer): Promise<{ rep: number; body: string }> {
  const socket: Socket = connect(guard.port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (d) => chunks.push(d));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const name = Buffer.from(host);
  const port2 = Buffer.alloc(2);
  port2.writeUInt16BE(port);
  socket.write(raw ?? Buffer.concat([Buffer.from([5, 1, 0, 5, 1, 0, 3, name.length]), name, port2]));
  await new Promise<void>((resolve) => { socket.once('close', resolve); socket.once('error', () => resolve()); });
  const all = Buffer.concat(chunks);
  // [5, 0] method choice, then [5, REP, 0, 1, addr(4), port(2)], then the target's bytes.
  return { rep: all.length >= 4 ? all[3]! : -1, body: all.subarray(12).toString() };
}

describe('the connection guard', () => {
  let a: Awaited<ReturnType<typeof listener>>;
  let b: Awaited<ReturnType<typeof listener>>;
  before(async () => {
    a = await listener('127.0.0.2');
    b = await listener('127.0.0.1', a.port).catch(() => listener('127.0.0.1'));
  });
  after(() => {
    a.server.close();
    b.server.close();
  });

  test('an allowed address is relayed; every spelling of a refused one is refused before any connection', async () => {
    const guard = await ConnectionGuard.start(ALLOW_2, []);
    try {
      assert.deepEqual(await socksConnect(guard, '127.0.0.2', a.port), { rep: 0, body: '127.0.0.2' });
      for (const host of ['127.0.0.1', 'localhost', 'sub.localhost', '2130706433', '0x7f.1', '0177.0.0.1', '127.1', '::1',
        '::ffff:127.0.0.1', '0.0.0.0', '0', '::', 'LOCALHOST.']) {
        const r = await socksConnect(guard, host, b.port);
        assert.equal(r.rep, 2, `${host} refused as "not allowed by ruleset"`);
      }
      assert.equal(b.hits, 0, 'the internal listener saw no connection');
      assert.equal(guard.events.failureOf('127.0.0.1')?.kind, 'loopback');
      assert.equal((await socksConnect(guard, 'nothing.invalid', 80)).rep, 4);
      assert.equal(guard.events.failureOf('nothing.invalid')?.reason, 'unresolved');
    } finally {
      await guard.close();
    }
  });

  test('DNS rebinding does not work: a host is resolved once, and connected to where it was checked', async () => {
    let lookups = 0;
    // A resolver under the attacker's control: allowed first, internal afterwards.
    const rebinding: Resolver = async (host, dns) => {
      if (host !== 'rebind.test') return resolveHost(host, dns);
      lookups++;
      return { addresses: [lookups === 1 ? '127.0.0.2' : '127.0.0.1'], source: 'dns' };
    };
    const guard = await ConnectionGuard.start(ALLOW_2, [], rebinding);
    try {
      for (let i = 0; i < 3; i++) assert.deepEqual(await socksConnect(guard, 'rebind.test', a.port), { rep: 0, body: '127.0.0.2' });
      assert.equal(lookups, 1);
      assert.equal(guard.events.addressOf('rebind.test'), '127.0.0.2');
      // And the other way round: refused once, refused for the whole run.
      lookups = 1;
      const guard2 = await ConnectionGuard.start(ALLOW_2, [], async () => ({ addresses: [lookups++ === 1 ? '127.0.0.1' : '127.0.0.2'], source: 'dns' }));
      assert.equal((await socksConnect(guard2, 'rebind.test', a.port)).rep, 2);
      assert.equal((await socksConnect(guard2, 'rebind.test', a.port)).rep, 2);
      await guard2.close();
    } finally {
      await guard.close();
    }
  });

  test('a host with one non-public address among public ones is refused (round robin must not pick it later)', async () => {
    const guard = await ConnectionGuard.start(ALLOW_2, [], async () => ({ addresses: ['127.0.0.2', '10.0.0.1'], source: 'dns' }));
    try {
      assert.equal((await socksConnect(guard, 'mixed.test', a.port)).rep, 2);
    } finally {
      await guard.close();
    }
  });

  test('a dns override cannot point an allowed host name at an address the policy refuses', async () => {
    const byName = new TargetPolicy({ allowAll: false, allowTargets: 'staging.internal' });
    const guard = await ConnectionGuard.start(byName, [{ host: 'staging.internal', ip: '127.0.0.1' }]);
    try {
      assert.equal((await socksConnect(guard, 'staging.internal', b.port)).rep, 2);
      assert.equal(b.hits, 0);
    } finally {
      await guard.close();
    }
  });

  test('once sealed (the load is over), nothing new connects and open connections are closed', async () => {
    const guard = await ConnectionGuard.start(ALLOW_2, []);
    try {
      const before = a.hits;
      guard.seal();
      const r = await socksConnect(guard, '127.0.0.2', a.port);
      assert.notEqual(r.rep, 0);
      assert.equal(a.hits, before);
    } finally {
      await guard.close();
    }
  });

  test('malformed or unsupported requests get a SOCKS error, and the guard keeps working', async () => {
    const guard = await ConnectionGuard.start(ALLOW_2, []);
    try {
      // BIND instead of CONNECT; an unknown address type; a wrong version; a truncated request.
      assert.equal((await socksConnect(guard, '', 0, Buffer.from([5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 2, 0, 80]))).rep, 7);
      assert.equal((await socksConnect(guard, '', 0, Buffer.from([5, 1, 0, 5, 1, 0, 9, 0, 0]))).rep, 8);
      const wrong = await socksConnect(guard, '', 0, Buffer.from([4, 1, 0, 80, 127, 0, 0, 1, 0]));
      assert.notEqual(wrong.rep, 0);
      const s = connect(guard.port, '127.0.0.1');
      s.resume();
      await new Promise<void>((resolve) => s.once('connect', resolve));
      s.end(Buffer.from([5, 1, 0, 5, 1, 0, 3, 200, 1, 2]));
      await new Promise<void>((resolve) => s.once('close', resolve));
      assert.deepEqual(await socksConnect(guard, '127.0.0.2', a.port), { rep: 0, body: '127.0.0.2' });
    } finally {
      await guard.close();
    }
  });
});
