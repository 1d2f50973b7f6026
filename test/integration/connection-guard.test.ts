// lane: shared
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
    const guard = await ConnectionGuard.start({ policy: ALLOW_2, dns: [] });
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
    const guard = await ConnectionGuard.start({ policy: ALLOW_2, dns: [], resolve: rebinding });
    try {
      for (let i = 0; i < 3; i++) assert.deepEqual(await socksConnect(guard, 'rebind.test', a.port), { rep: 0, body: '127.0.0.2' });
      assert.equal(lookups, 1);
      assert.equal(guard.events.addressOf('rebind.test'), '127.0.0.2');
      // And the other way round: refused once, refused for the whole run.
      lookups = 1;
      const guard2 = await ConnectionGuard.start({ policy: ALLOW_2, dns: [],
        resolve: async () => ({ addresses: [lookups++ === 1 ? '127.0.0.1' : '127.0.0.2'], source: 'dns' }) });
      assert.equal((await socksConnect(guard2, 'rebind.test', a.port)).rep, 2);
      assert.equal((await socksConnect(guard2, 'rebind.test', a.port)).rep, 2);
      await guard2.close();
    } finally {
      await guard.close();
    }
  });

  test('a host with one non-public address among public ones is refused (round robin must not pick it later)', async () => {
    const guard = await ConnectionGuard.start({ policy: ALLOW_2, dns: [],
      resolve: async () => ({ addresses: ['127.0.0.2', '10.0.0.1'], source: 'dns' }) });
    try {
      assert.equal((await socksConnect(guard, 'mixed.test', a.port)).rep, 2);
    } finally {
      await guard.close();
    }
  });

  test('a dns override cannot point an allowed host name at an address the policy refuses', async () => {
    const byName = new TargetPolicy({ allowAll: false, allowTargets: 'staging.internal' });
    const guard = await ConnectionGuard.start({ policy: byName, dns: [{ host: 'staging.internal', ip: '127.0.0.1' }] });
    try {
      assert.equal((await socksConnect(guard, 'staging.internal', b.port)).rep, 2);
      assert.equal(b.hits, 0);
    } finally {
      await guard.close();
    }
  });

  test('once sealed (the load is over), nothing new connects and open connections are closed', async () => {
    const guard = await ConnectionGuard.start({ policy: ALLOW_2, dns: [] });
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
    const guard = await ConnectionGuard.start({ policy: ALLOW_2, dns: [] });
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

/**
 * The throttle's link (link.ts), spoken to as the browser speaks to the guard: what each connection pays is held
 * against the link's physics, with the measured time at least the truth and at most a margin above it (timers
 * fire late, never early). The fidelity benchmark holds a real browser's HAR against the same truths.
 */
describe('a throttled guard is the emulated link', () => {
  const RTT = 200;
  const link = { downloadKbps: 1600, uploadKbps: 800, latencyMs: RTT }; // 200 and 100 bytes per ms
  const MARGIN = 150;
  const ALLOW_ALL = new TargetPolicy({ allowAll: true, allowTargets: '' });
  /** A server that sends `bytes` on each connection, then closes; it records what it received and when. */
  let server: Server;
  let port: number;
  const received: { bytes: number; firstAt: number; lastAt: number }[] = [];
  let sendBytes = 0;
  before(async () => {
    server = createServer((s) => {
      const r = { bytes: 0, firstAt: 0, lastAt: 0 };
      received.push(r);
      s.on('data', (d) => {
        r.firstAt ||= performance.now();
        r.lastAt = performance.now();
        r.bytes += d.length;
      });
      s.on('error', () => undefined);
      if (sendBytes > 0) s.end(Buffer.alloc(sendBytes, 7));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(() => server.close());

  interface Opened {
    socket: Socket;
    asked: number;
    openedAt: number;
    /** Everything the server sent on the connection, and when its last byte arrived. */
    drained: Promise<{ bytes: number; at: number }>;
  }
  /** Opens a connection through the guard to `host`: the socket once the guard answered, and when it did. */
  async function open(guard: ConnectionGuard, host: string): Promise<Opened> {
    const socket = connect(guard.port, '127.0.0.1');
    socket.setNoDelay(true);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const name = Buffer.from(host);
    const p = Buffer.alloc(2);
    p.writeUInt16BE(port);
    const asked = performance.now();
    // The greeting's answer (2 bytes) and the request's (10), then the server's bytes.
    let answer = Buffer.alloc(0);
    let bytes = 0;
    let answered: () => void = () => undefined;
    const gotAnswer = new Promise<void>((resolve) => (answered = resolve));
    socket.on('data', (d: Buffer) => {
      if (answer.length < 12) {
        answer = Buffer.concat([answer, d]);
        if (answer.length < 12) return;
        bytes += answer.length - 12;
        answered();
      } else {
        bytes += d.length;
      }
    });
    const drained = new Promise<{ bytes: number; at: number }>((resolve) => socket.once('end', () => resolve({ bytes, at: performance.now() })));
    socket.write(Buffer.concat([Buffer.from([5, 1, 0, 5, 1, 0, 3, name.length]), name, p]));
    await gotAnswer;
    assert.equal(answer[3], 0, 'connected');
    return { socket, asked, openedAt: performance.now(), drained };
  }
  const within = (measured: number, truth: number, what: string): void =>
    assert.ok(measured >= truth - 2 && measured <= truth + MARGIN, `${what}: ${measured.toFixed(0)} ms, truth ${truth.toFixed(0)} ms`);

  test('a name is looked up in one round trip, a connection opens in one more, an address needs no lookup', async () => {
    sendBytes = 0;
    const guard = await ConnectionGuard.start({ policy: ALLOW_ALL, dns: [{ host: 'link.test', ip: '127.0.0.1' }], link });
    try {
      const first = await open(guard, 'link.test');
      within(first.openedAt - first.asked, 2 * RTT, 'lookup and connect');
      assert.ok(guard.events.lookupMs('link.test')! >= RTT, 'the lookup is the DNS phase');
      first.socket.destroy();
      const again = await open(guard, 'link.test');
      within(again.openedAt - again.asked, RTT, 'a second connection: the name is known');
      again.socket.destroy();
      const literal = await open(guard, '127.0.0.1');
      within(literal.openedAt - literal.asked, RTT, 'an address');
      literal.socket.destroy();
    } finally {
      await guard.close();
    }
  });

  test('bytes arrive half a round trip after they left, at the link\'s speed, the end after the last byte', async () => {
    sendBytes = 40_000;
    const guard = await ConnectionGuard.start({ policy: ALLOW_ALL, dns: [], link });
    try {
      const c = await open(guard, '127.0.0.1');
      const got = await c.drained;
      assert.equal(got.bytes, sendBytes, 'every byte, then the end');
      // The server sent at once when the connection opened (real time: a round trip before the browser heard).
      within(got.at - (c.openedAt - RTT / 2), RTT / 2 + sendBytes / 200, 'download');
    } finally {
      await guard.close();
    }
  });

  test('two connections share one download budget: together they take what their sum takes', async () => {
    sendBytes = 40_000;
    const guard = await ConnectionGuard.start({ policy: ALLOW_ALL, dns: [], link });
    try {
      const [a, b] = await Promise.all([open(guard, '127.0.0.1'), open(guard, '127.0.0.1')]);
      const [ga, gb] = await Promise.all([a.drained, b.drained]);
      const start = Math.min(a.openedAt, b.openedAt) - RTT / 2;
      within(Math.max(ga.at, gb.at) - start, RTT / 2 + (2 * sendBytes) / 200, 'both downloads');
    } finally {
      await guard.close();
    }
  });

  test('an upload leaves at the upload speed and arrives half a round trip later', async () => {
    sendBytes = 0;
    received.length = 0;
    const guard = await ConnectionGuard.start({ policy: ALLOW_ALL, dns: [], link });
    try {
      const c = await open(guard, '127.0.0.1');
      const sent = performance.now();
      c.socket.write(Buffer.alloc(20_000, 1));
      await new Promise<void>((resolve) => {
        const check = (): void => void (received[0] && received[0].bytes >= 20_000 ? resolve() : setTimeout(check, 10));
        check();
      });
      within(received[0]!.lastAt - sent, RTT / 2 + 20_000 / 100, 'upload');
      c.socket.destroy();
    } finally {
      await guard.close();
    }
  });

  test('without a throttle the guard adds no delay', async () => {
    sendBytes = 200_000;
    const guard = await ConnectionGuard.start({ policy: ALLOW_ALL, dns: [{ host: 'fast.test', ip: '127.0.0.1' }] });
    try {
      const c = await open(guard, 'fast.test');
      const got = await c.drained;
      assert.equal(got.bytes, sendBytes);
      assert.ok(c.openedAt - c.asked < 50 && got.at - c.openedAt < 50, `${c.openedAt - c.asked} ms, ${got.at - c.openedAt} ms`);
    } finally {
      await guard.close();
    }
  });
});
