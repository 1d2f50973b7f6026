/**
 * The emulated link of a throttled load (the `throttle` option, `down/up/latency`), applied by the connection guard
 * to every connection of the browser, as packet-level shaping (WebPageTest's netem or dummynet, sitespeed.io's tc)
 * applies it to every packet, without root or NET_ADMIN:
 * - a new connection is open one round trip after the browser asked for it (the TCP handshake), on top of what the
 *   real connection took;
 * - the guard's DNS lookup of a new host costs one round trip;
 * - every byte, in each direction, arrives half a round trip after it left, on top of the real path;
 * - bytes leave at the link's speed: one budget per direction (down toward the browser, up toward the servers) that
 *   all the load's connections share, first come first served, as a bottleneck queue serves packets.
 * So TLS handshakes, redirects, connection reuse and HTTP/2 multiplexing cost what they cost on such a link, and
 * the browser's own timings (and so the HAR) show it. Without a throttle there is no link: bytes are relayed as
 * they come.
 */
import type { Socket } from 'node:net';

/** What a `throttle` names: Kbit/s down and up (1 Kbit = 1000 bit), and the round trip in ms. */
export interface LinkShape {
  downloadKbps: number;
  uploadKbps: number;
  latencyMs: number;
}

/** A packet's payload (a TCP segment of an Ethernet link): bytes are paced and delivered in pieces of this size. */
export const SEGMENT_BYTES = 1460;
/**
 * How far ahead of the wire a sender may be before it is paused (ms of the link's time): the bottleneck's queue.
 * The sender's own TCP then waits, as it waits for a full router queue, and memory stays bounded by the link's
 * speed times (this + the one-way delay).
 */
const MAX_QUEUE_MS = 250;

/**
 * Waits `ms` by the monotonic clock the link's figures are read on. A timer alone may fire up to a millisecond early
 * (Node counts it in whole milliseconds: 1 of 200 timers of 20 ms here took 19.2 ms), and a CI run saw a lookup on a
 * link take less than its round trip.
 */
async function sleep(ms: number): Promise<void> {
  const until = performance.now() + ms;
  for (let left = ms; left > 0; left = until - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
  }
}

type Delivery =
  | { at: number; to: Socket; data: Buffer }
  | { at: number; to: Socket; end: 'end' | 'destroy' };

/** One direction of the link: a first-come-first-served queue paced at its speed, delivered after its delay. */
export class LinkDirection {
  /** When the last byte queued so far has left (performance.now() ms). */
  private wireFreeAt = 0;
  private readonly queue: Delivery[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly paused = new Set<Socket>();
  private closed = false;

  constructor(private readonly bytesPerMs: number, private readonly delayMs: number) {}

  /** Queues `data` from `from` to `to`; pauses `from` while the link is too far behind. */
  send(from: Socket, to: Socket, data: Buffer): void {
    if (this.closed) return;
    let now = performance.now();
    for (let offset = 0; offset < data.length; offset += SEGMENT_BYTES) {
      const segment = data.subarray(offset, offset + SEGMENT_BYTES);
      this.wireFreeAt = Math.max(now, this.wireFreeAt) + segment.length / this.bytesPerMs;
      this.push({ at: this.wireFreeAt + this.delayMs, to, data: segment });
      now = performance.now();
    }
    if (this.wireFreeAt - now > MAX_QUEUE_MS && !this.paused.has(from)) {
      this.paused.add(from);
      from.pause();
    }
  }

  /** Queues the end (or reset) of `to`'s stream after every byte queued before it. */
  finish(to: Socket, how: 'end' | 'destroy'): void {
    if (this.closed) return;
    this.push({ at: Math.max(performance.now(), this.wireFreeAt) + this.delayMs, to, end: how });
  }

  /** Drops whatever is queued (the load is over). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.queue.length = 0;
    this.head = 0;
    this.paused.clear();
  }

  private push(d: Delivery): void {
    this.queue.push(d);
    if (this.queue.length - this.head === 1) this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const next = this.queue[this.head];
    if (next) this.timer = setTimeout(() => this.deliver(), Math.max(0, next.at - performance.now()));
  }

  private deliver(): void {
    // Timers fire on whole milliseconds: everything due within the next half of one goes now.
    const due = performance.now() + 0.5;
    const corked = new Set<Socket>();
    while (this.head < this.queue.length && this.queue[this.head]!.at <= due) {
      const d = this.queue[this.head++]!;
      if (d.to.destroyed) continue;
      if ('data' in d) {
        if (!corked.has(d.to)) {
          corked.add(d.to);
          d.to.cork();
        }
        d.to.write(d.data);
      } else if (d.end === 'end') {
        d.to.end();
      } else {
        d.to.destroy();
      }
    }
    for (const socket of corked) socket.uncork();
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    if (this.paused.size > 0 && this.wireFreeAt - performance.now() <= MAX_QUEUE_MS / 2) {
      for (const socket of this.paused) socket.resume();
      this.paused.clear();
    }
    this.schedule();
  }
}

/** The link of one load: both directions and the round trip, shared by all its connections. */
export class EmulatedLink {
  readonly down: LinkDirection;
  readonly up: LinkDirection;

  constructor(readonly shape: LinkShape) {
    const oneWay = shape.latencyMs / 2;
    this.down = new LinkDirection(bytesPerMs(shape.downloadKbps), oneWay);
    this.up = new LinkDirection(bytesPerMs(shape.uploadKbps), oneWay);
  }

  /** Waits one round trip: a TCP handshake, or a DNS query and its answer. */
  roundTrip(): Promise<void> {
    return this.shape.latencyMs > 0 ? sleep(this.shape.latencyMs) : Promise.resolve();
  }

  /** Relays an open connection over the link: browser → upstream on the way up, the answers on the way down. */
  relay(browser: Socket, upstream: Socket): void {
    carry(browser, upstream, this.up);
    carry(upstream, browser, this.down);
  }

  close(): void {
    this.down.close();
    this.up.close();
  }
}

/** Kbit/s (1000 bit) as bytes per ms. */
export const bytesPerMs = (kbps: number): number => (kbps * 1000) / 8 / 1000;

function carry(from: Socket, to: Socket, direction: LinkDirection): void {
  let ended = false;
  from.on('data', (chunk: Buffer) => direction.send(from, to, chunk));
  from.on('end', () => {
    ended = true;
    direction.finish(to, 'end');
  });
  // A reset (or a close without an end) travels the link like the bytes before it.
  from.on('close', () => ended || direction.finish(to, 'destroy'));
}
