/**
 * The connection guard: every connection the test's browser opens goes through this SOCKS5 relay on
 * 127.0.0.1 (Chromium `--proxy-server=socks5://…` with `<-loopback>`, so loopback is not exempt). The relay,
 * not the browser, resolves each host (honouring the test's `dns` overrides), judges every address with the
 * operator's policy (net/policy.ts), and connects to exactly the address it judged. So:
 * - every channel is covered, whatever opens the connection: documents, subresources, fetch/XHR, iframes,
 *   redirects, workers of every kind, WebSocket, EventSource, beacons, popups, preconnects, CSS imports and
 *   fonts, media, and Lighthouse's or DevTools' own fetches: they are all connections of the browser;
 * - DNS rebinding cannot work: a host is resolved once per run and pinned; the address that was checked is
 *   the address that is connected to;
 * - the browser resolves no host itself (SOCKS5 hands the name to the relay), so address spellings are the
 *   resolver's business, and every answer is judged in canonical form.
 * SOCKS (not an HTTP proxy) keeps the load as it is: one browser connection is one upstream connection, bytes
 * relayed untouched (TLS end to end, HTTP/2, keep-alive), and the browser's connect time still contains the
 * real DNS lookup and TCP connect, because success is only answered once the upstream connection is open.
 * A throttled load's connections also cross the emulated link here (link.ts): the guard is the link.
 * Unthrottled, the guard costs a connection one local round trip: the answer to the greeting is sent as soon as
 * the browser connects, so the browser finds it waiting, and only the CONNECT request waits for an answer.
 */
import { createServer, connect, isIP, type Server, type Socket } from 'node:net';
import { normalHost, type TargetPolicy } from '../../net/policy.js';
import { resolveHost, type DnsOverride, type Resolution } from '../../net/resolve.js';
import { EmulatedLink, type LinkShape } from './link.js';

/** How the guard resolves a host: net/resolve.ts, or a stand-in DNS in tests (e.g. one that rebinds). */
export type Resolver = (host: string, dns: readonly DnsOverride[]) => Promise<Resolution>;

/** What the guard learns, as it learns it (guard-thread.ts sends it to the run's main thread). */
export interface GuardEvents {
  /** `counted`: a refusal of the policy (or after sealing), not a failed upstream connect. */
  failure(failure: RefusedConnection, counted: boolean): void;
  connected(host: string, address: string): void;
  lookup(host: string, ms: number): void;
}

/** Refused connections kept for the run's messages; a page that keeps trying must not grow this forever. */
const MAX_RECORDED_REFUSALS = 200;

/** The record of what a guard learned, by host, for the run's messages and its HAR. */
export class GuardLedger implements GuardEvents {
  readonly refused: RefusedConnection[] = [];
  /** How many connections were refused in all (the list above is capped). */
  refusedCount = 0;
  private readonly lastFailure = new Map<string, RefusedConnection>();
  private readonly connectedTo = new Map<string, string>();
  private readonly lookups = new Map<string, number>();

  failure(failure: RefusedConnection, counted: boolean): void {
    this.lastFailure.set(normalHost(failure.host), failure);
    if (!counted) return;
    this.refusedCount++;
    if (this.refused.length < MAX_RECORDED_REFUSALS) this.refused.push(failure);
  }

  connected(host: string, address: string): void {
    this.connectedTo.set(normalHost(host), address);
  }

  lookup(host: string, ms: number): void {
    this.lookups.set(normalHost(host), ms);
  }

  /** The address a host's connections went to (for the HAR), once one was made. */
  addressOf(host: string): string | undefined {
    return this.connectedTo.get(normalHost(host));
  }

  /** How long the guard's one DNS lookup of a host took (ms), if it looked it up. */
  lookupMs(host: string): number | undefined {
    return this.lookups.get(normalHost(host));
  }

  /** Why the last connection to a host failed in the guard, if one did. */
  failureOf(host: string): RefusedConnection | undefined {
    return this.lastFailure.get(normalHost(host));
  }
}

export interface RefusedConnection {
  host: string;
  port: number;
  /**
   * Why: a non-public address (its kind), a host without address, a connection after the load was over, or
   * (not a refusal, but the browser only sees "the proxy failed") the upstream connection could not be made.
   */
  reason: 'non-public' | 'unresolved' | 'sealed' | 'connect-failed';
  kind?: string;
  address?: string;
  /** For connect-failed: the system error code (ECONNREFUSED, ETIMEDOUT, …). */
  error?: string;
}

type Pin = { ok: true; addresses: string[] } | { ok: false; refusal: Omit<RefusedConnection, 'host' | 'port'> };

// SOCKS5 (RFC 1928) constants.
const VERSION = 5;
const NO_AUTH = 0;
const NO_ACCEPTABLE_METHOD = 0xff;
const GREETING_ANSWER = Buffer.from([VERSION, NO_AUTH]);
const CMD_CONNECT = 1;
const ATYP_IPV4 = 1;
const ATYP_DOMAIN = 3;
const ATYP_IPV6 = 4;
const REP = { success: 0, notAllowed: 2, hostUnreachable: 4, refused: 5, commandNotSupported: 7,
  addressTypeNotSupported: 8 } as const;
const CONNECT_TIMEOUT_MS = 30_000;
const HANDSHAKE_TIMEOUT_MS = 10_000;

export interface GuardOptions<E extends GuardEvents> {
  /** What the load may reach. */
  policy: TargetPolicy;
  /** The test's `dns` entries. */
  dns: readonly DnsOverride[];
  /** The throttle's link (link.ts): every connection crosses it. None: bytes are relayed as they come. */
  link?: LinkShape;
  /** How hosts are resolved: net/resolve.ts, or a stand-in DNS in tests (e.g. one that rebinds). */
  resolve?: Resolver;
  /** Where what the guard learns goes: by default a ledger of its own, read as `guard.events`. */
  events?: E;
}

export class ConnectionGuard {
  private readonly pins = new Map<string, Promise<Pin>>();
  private readonly open = new Set<Socket>();
  private sealed = false;

  private constructor(private readonly server: Server, readonly port: number, private readonly policy: TargetPolicy,
    private dns: readonly DnsOverride[], private readonly resolve: Resolver, readonly events: GuardEvents,
    private link: EmulatedLink | undefined) {}

  /**
   * Gives a guard started ahead of its load (the browser launched while the agent was idle: launch-ahead.ts) the
   * load's `dns` entries and link. Whatever it pinned before forgets, so every host of the load is resolved under
   * the load's own entries.
   */
  configure(dns: readonly DnsOverride[], link: LinkShape | undefined): void {
    this.dns = dns;
    this.link?.close();
    this.link = link ? new EmulatedLink(link) : undefined;
    this.pins.clear();
  }

  /** Runs in the calling thread (a test's load uses guard-thread.ts, which runs this in a thread of its own). */
  static async start<E extends GuardEvents = GuardLedger>(o: GuardOptions<E>): Promise<ConnectionGuard & { events: E }> {
    let guard: ConnectionGuard | undefined;
    const server = createServer({ noDelay: true }, (client) => guard?.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the connection guard has no port');
    const events = o.events ?? (new GuardLedger() as unknown as E);
    guard = new ConnectionGuard(server, address.port, o.policy, o.dns, o.resolve ?? resolveHost, events,
      o.link ? new EmulatedLink(o.link) : undefined);
    return guard as ConnectionGuard & { events: E };
  }

  /** Chromium flags that send every connection of the browser through the guard. */
  browserFlags(): string[] {
    return ConnectionGuard.browserFlagsFor(this.port);
  }

  static browserFlagsFor(port: number): string[] {
    return [
      `--proxy-server=socks5://127.0.0.1:${port}`,
      // Chromium sends loopback destinations direct even with a proxy unless told otherwise.
      '--proxy-bypass-list=<-loopback>',
      // WebRTC must not open UDP of its own around the proxy.
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      // Nothing is resolved by the browser (the guard resolves): prefetches and DNS-only probes go nowhere.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ];
  }

  /**
   * Resolves (once per run) and judges the host; every later connection to it goes to the same addresses. On a
   * throttled link the lookup of a name costs a round trip (an address needs none).
   */
  pin(rawHost: string): Promise<Pin> {
    const host = normalHost(rawHost);
    let pin = this.pins.get(host);
    if (!pin) {
      pin = (async (): Promise<Pin> => {
        const started = performance.now();
        const { addresses, source } = await this.resolve(host, this.dns);
        if (this.link && !isIP(host)) await this.link.roundTrip();
        this.events.lookup(host, performance.now() - started);
        if (addresses.length === 0) return { ok: false, refusal: { reason: 'unresolved' } };
        // Every address must pass: round-robin DNS must not pick a private one for us later.
        for (const address of addresses) {
          const verdict = this.policy.check(host, address, source);
          if (!verdict.ok) return { ok: false, refusal: { reason: 'non-public', kind: verdict.kind, address: verdict.address } };
        }
        return { ok: true, addresses };
      })();
      this.pins.set(host, pin);
    }
    return pin;
  }

  /**
   * After the load: no new connection reaches anyone, and the open ones are closed, so nothing the service
   * does afterwards (DevTools, Lighthouse's gatherers) can send the tested site another request.
   */
  seal(): void {
    this.sealed = true;
    this.link?.close();
    for (const socket of this.open) socket.destroy();
    this.open.clear();
  }

  async close(): Promise<void> {
    this.seal();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.sealed) return void client.destroy();
    this.open.add(client);
    client.on('close', () => this.open.delete(client));
    client.on('error', () => client.destroy());
    // The browser offers "no authentication" (Chromium always does): answered before it asks, it finds the answer
    // waiting and sends its request at once. A greeting without that method is refused below all the same.
    client.write(GREETING_ANSWER);
    let buffer = Buffer.alloc(0);
    let stage: 'greeting' | 'request' | 'busy' = 'greeting';
    const onData = (chunk: Buffer): void => {
      buffer = Buffer.concat([buffer, chunk]);
      if (stage === 'greeting') {
        if (buffer.length < 2) return;
        const n = buffer[1]!;
        if (buffer.length < 2 + n) return;
        if (buffer[0] !== VERSION || !buffer.subarray(2, 2 + n).includes(NO_AUTH)) {
          client.end(Buffer.from([VERSION, NO_ACCEPTABLE_METHOD]));
          return;
        }
        buffer = buffer.subarray(2 + n);
        stage = 'request';
      }
      if (stage === 'request') {
        const request = parseRequest(buffer);
        if (request === 'incomplete') return;
        stage = 'busy';
        client.setTimeout(0);
        client.off('data', onData);
        client.pause();
        if (request === 'bad-command') return reply(client, REP.commandNotSupported);
        if (request === 'bad-address') return reply(client, REP.addressTypeNotSupported);
        const rest = buffer.subarray(request.length);
        void this.relay(client, request.host, request.port, rest);
      }
    };
    client.on('data', onData);
    // A client that hangs up or stalls halfway through the handshake is dropped.
    client.once('end', () => stage !== 'busy' && client.destroy());
    client.setTimeout(HANDSHAKE_TIMEOUT_MS, () => stage !== 'busy' && client.destroy());
  }

  private async relay(client: Socket, rawHost: string, port: number, early: Buffer): Promise<void> {
    const host = normalHost(rawHost);
    const pin = await this.pin(host).catch((): Pin => ({ ok: false, refusal: { reason: 'unresolved' } }));
    if (this.sealed) {
      this.events.failure({ host, port, reason: 'sealed' }, true);
      return reply(client, REP.notAllowed);
    }
    if (!pin.ok) {
      this.events.failure({ host, port, ...pin.refusal }, true);
      return reply(client, pin.refusal.reason === 'unresolved' ? REP.hostUnreachable : REP.notAllowed);
    }
    let upstream: Socket | undefined;
    let address = pin.addresses[0]!;
    let error = 'ECONNREFUSED';
    for (const candidate of pin.addresses) {
      const attempt = await openUpstream(candidate, port);
      if (typeof attempt !== 'string') {
        [upstream, address] = [attempt, candidate];
        break;
      }
      error = attempt;
    }
    if (!upstream) {
      this.events.failure({ host, port, reason: 'connect-failed', address, error }, false);
      return reply(client, REP.refused);
    }
    this.open.add(upstream);
    upstream.on('close', () => this.open.delete(upstream));
    upstream.on('error', () => upstream.destroy());
    const link = this.link;
    // The link's TCP handshake: one round trip on top of the real connect.
    if (link) await link.roundTrip();
    if (client.destroyed || this.sealed) return void upstream.destroy();
    reply(client, REP.success, false);
    // Told after the browser has its answer: the connection waits for nothing of ours.
    this.events.connected(host, address);
    if (link) {
      if (early.length > 0) link.up.send(client, upstream, early);
      link.relay(client, upstream);
    } else {
      // A server's end reaches the browser through the pipe, after its last byte; a reset is passed on at once.
      upstream.on('close', (hadError) => hadError && client.destroy());
      client.on('close', () => upstream.destroy());
      if (early.length > 0) upstream.write(early);
      client.pipe(upstream);
      upstream.pipe(client);
    }
    client.resume();
  }
}

type Request = { host: string; port: number; length: number };

function parseRequest(b: Buffer): Request | 'incomplete' | 'bad-command' | 'bad-address' {
  if (b.length < 5) return 'incomplete';
  if (b[0] !== VERSION || b[1] !== CMD_CONNECT) return 'bad-command';
  const type = b[3];
  let host: string;
  let end: number;
  if (type === ATYP_IPV4) {
    end = 4 + 4;
    if (b.length < end + 2) return 'incomplete';
    host = [...b.subarray(4, end)].join('.');
  } else if (type === ATYP_DOMAIN) {
    end = 5 + b[4]!;
    if (b.length < end + 2) return 'incomplete';
    host = b.subarray(5, end).toString('latin1');
  } else if (type === ATYP_IPV6) {
    end = 4 + 16;
    if (b.length < end + 2) return 'incomplete';
    const words: string[] = [];
    for (let i = 4; i < end; i += 2) words.push(b.readUInt16BE(i).toString(16));
    host = words.join(':');
  } else {
    return 'bad-address';
  }
  return { host, port: b.readUInt16BE(end), length: end + 2 };
}

/** Reply to the SOCKS request; bound address 0.0.0.0:0 (the browser does not use it). */
function reply(client: Socket, code: number, close = true): void {
  const message = Buffer.from([VERSION, code, 0, ATYP_IPV4, 0, 0, 0, 0, 0, 0]);
  if (close) client.end(message);
  else client.write(message);
}

/** A connected socket, or the error code of the failed attempt. */
function openUpstream(address: string, port: number): Promise<Socket | string> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port, timeout: CONNECT_TIMEOUT_MS, noDelay: true });
    const fail = (err?: NodeJS.ErrnoException): void => {
      socket.destroy();
      resolve(err?.code ?? 'ETIMEDOUT');
    };
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.off('error', fail);
      socket.off('timeout', fail);
      resolve(socket);
    });
    socket.once('error', fail);
    socket.once('timeout', fail);
  });
}
