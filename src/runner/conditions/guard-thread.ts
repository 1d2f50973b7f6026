/**
 * The connection guards in a thread of their own. The run's main thread is busy while the page loads (Lighthouse's
 * trace, screencast frames, CDP events) and stalls at times; a relay sharing that event loop would stall every
 * connection the browser opens with it. One thread per process serves the guards of all its loads, each load with
 * a guard of its own (its own port, pins, ledger and link): the thread is started once, not per load, and its code
 * is warm when a load's first connections arrive. The main thread keeps each load's ledger of what its guard
 * learns (addresses, lookups, failures), fed by messages, and `settled()` waits until the ledger has caught up.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { TargetPolicy } from '../../net/policy.js';
import type { DnsOverride } from '../../net/resolve.js';
import { ConnectionGuard, GuardLedger, type GuardEvents, type RefusedConnection } from './connection-guard.js';
import type { LinkShape } from './link.js';

interface Start {
  allowAll: boolean;
  allowTargets: string;
  dns: DnsOverride[];
  link?: LinkShape;
}

type Report = { guard: number } & (
  | { type: 'ready'; port: number }
  | { type: 'error'; message: string }
  | { type: 'failure'; failure: RefusedConnection; counted: boolean }
  | { type: 'connected'; host: string; address: string }
  | { type: 'lookup'; host: string; ms: number }
  | { type: 'settled'; token: number }
  | { type: 'closed' });

type Command = { guard: number } & (
  | { type: 'open'; start: Start }
  | { type: 'configure'; dns: DnsOverride[]; link?: LinkShape }
  | { type: 'seal' }
  | { type: 'settle'; token: number }
  | { type: 'close' });

/** Marks the worker as ours (a worker started by anything else must not start guards). */
const WORKER_MARK = 'webgauge-connection-guards';
/** How long the main thread waits for the thread's answer before it treats the guard as gone. */
const ANSWER_MS = 2000;

/** The thread and the guards it serves; made at the first load, made again if it ever dies. */
class GuardHost {
  private readonly handles = new Map<number, GuardThread>();
  private readonly starting = new Map<number, { resolve: (port: number) => void; reject: (err: Error) => void }>();
  private nextGuard = 0;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: Report) => this.onReport(m));
    this.keepAlive();
    // A dead thread refuses everything (browsers cannot connect at all); the next load starts a new one.
    const gone = (err: Error): void => {
      if (host === this) host = undefined;
      for (const s of this.starting.values()) s.reject(err);
      this.starting.clear();
      for (const h of this.handles.values()) h.threadGone();
      this.handles.clear();
    };
    worker.on('error', gone);
    worker.on('exit', () => gone(new Error('the connection guard thread stopped')));
  }

  static get(): GuardHost {
    if (!host) {
      // Run from the TypeScript sources (tests, benchmarks), the thread registers tsx (a dev dependency) first: a
      // worker does not inherit the loader hooks of `--import tsx`.
      const worker = import.meta.url.endsWith('.ts')
        ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`,
          { eval: true, workerData: WORKER_MARK })
        : new Worker(new URL(import.meta.url), { workerData: WORKER_MARK });
      host = new GuardHost(worker);
    }
    return host;
  }

  async open(start: Start): Promise<GuardThread> {
    const guard = this.nextGuard++;
    const port = await new Promise<number>((resolve, reject) => {
      this.starting.set(guard, { resolve, reject });
      this.keepAlive();
      this.send({ guard, type: 'open', start });
    });
    const handle = new GuardThread(this, guard, port);
    this.handles.set(guard, handle);
    this.keepAlive();
    return handle;
  }

  /** The thread keeps the process alive while a guard is open or starting (it belongs to a load), never idle. */
  private keepAlive(): void {
    if (this.handles.size + this.starting.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  send(c: Command): void {
    this.worker.postMessage(c);
  }

  forget(guard: number): void {
    this.handles.delete(guard);
    this.keepAlive();
  }

  private onReport(m: Report): void {
    if (m.type === 'ready' || m.type === 'error') {
      const s = this.starting.get(m.guard);
      this.starting.delete(m.guard);
      if (m.type === 'ready') s?.resolve(m.port);
      else s?.reject(new Error(m.message));
      this.keepAlive();
      return;
    }
    this.handles.get(m.guard)?.onReport(m);
  }
}

let host: GuardHost | undefined;

/** The main thread's handle on one load's guard, running in the guards' thread. */
export class GuardThread {
  /** What the guard learned, as far as its reports have arrived (see settled()). */
  ledger = new GuardLedger();
  private readonly waiting = new Map<number, () => void>();
  private nextToken = 0;
  private closed: Promise<void> | undefined;
  private whenClosed: (() => void) | undefined;
  private gone = false;

  constructor(private readonly host: GuardHost, private readonly guard: number, readonly port: number) {}

  /** `link`: the throttle's emulated link (link.ts), which every connection then crosses. */
  static start(policy: TargetPolicy, dns: readonly DnsOverride[], link?: LinkShape): Promise<GuardThread> {
    return GuardHost.get().open({ allowAll: policy.allowAll, allowTargets: policy.entries.join(','), dns: [...dns], link });
  }

  onReport(m: Report): void {
    switch (m.type) {
      case 'failure':
        this.ledger.failure(m.failure, m.counted);
        break;
      case 'connected':
        this.ledger.connected(m.host, m.address);
        break;
      case 'lookup':
        this.ledger.lookup(m.host, m.ms);
        break;
      case 'settled':
        this.waiting.get(m.token)?.();
        this.waiting.delete(m.token);
        break;
      case 'closed':
        this.whenClosed?.();
        break;
    }
  }

  /** The thread died: nothing more will come; nobody waits for it. */
  threadGone(): void {
    this.gone = true;
    for (const resolve of this.waiting.values()) resolve();
    this.waiting.clear();
    this.whenClosed?.();
  }

  browserFlags(): string[] {
    return ConnectionGuard.browserFlagsFor(this.port);
  }

  /** Resolves once every report the guard sent before this call has reached the ledger. */
  settled(): Promise<void> {
    if (this.closed || this.gone) return Promise.resolve();
    const token = this.nextToken++;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ANSWER_MS); // a guard that stopped answering has nothing left to tell
      this.waiting.set(token, () => {
        clearTimeout(timer);
        resolve();
      });
      this.host.send({ guard: this.guard, type: 'settle', token });
    });
  }

  /**
   * The load's `dns` entries and link, for a guard started before its load was known (launch-ahead.ts). What the
   * guard learned before is forgotten: the ledger describes the load alone.
   */
  async configure(dns: readonly DnsOverride[], link: LinkShape | undefined): Promise<void> {
    if (this.closed || this.gone) throw new Error('the connection guard is gone');
    this.host.send({ guard: this.guard, type: 'configure', dns: [...dns], link });
    await this.settled();
    this.ledger = new GuardLedger();
  }

  seal(): void {
    if (!this.closed && !this.gone) this.host.send({ guard: this.guard, type: 'seal' });
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.whenClosed?.(), ANSWER_MS);
      this.whenClosed = () => {
        clearTimeout(timer);
        this.host.forget(this.guard);
        resolve();
      };
      if (this.gone) this.whenClosed();
      else this.host.send({ guard: this.guard, type: 'close' });
    });
    return this.closed;
  }
}

// The thread itself: a guard per load, until the load closes it.
if (!isMainThread && parentPort && workerData === WORKER_MARK) {
  const port = parentPort;
  const guards = new Map<number, Promise<ConnectionGuard | undefined>>();
  const report = (m: Report): void => port.postMessage(m);
  port.on('message', (c: Command) => {
    if (c.type === 'open') {
      const id = c.guard;
      const events: GuardEvents = {
        failure: (failure, counted) => report({ guard: id, type: 'failure', failure, counted }),
        connected: (host, address) => report({ guard: id, type: 'connected', host, address }),
        lookup: (host, ms) => report({ guard: id, type: 'lookup', host, ms }),
      };
      const policy = new TargetPolicy({ allowAll: c.start.allowAll, allowTargets: c.start.allowTargets });
      guards.set(id, ConnectionGuard.start({ policy, dns: c.start.dns, link: c.start.link, events }).then((guard) => {
        report({ guard: id, type: 'ready', port: guard.port });
        return guard;
      }, (err: unknown) => {
        report({ guard: id, type: 'error', message: (err as Error).message });
        return undefined;
      }));
      return;
    }
    const guard = guards.get(c.guard);
    if (c.type === 'settle') {
      // Reports leave in order: this one arrives after every report sent before the request.
      void guard?.then(() => report({ guard: c.guard, type: 'settled', token: c.token }));
    } else if (c.type === 'configure') {
      void guard?.then((g) => g?.configure(c.dns, c.link));
    } else if (c.type === 'seal') {
      void guard?.then((g) => g?.seal());
    } else {
      guards.delete(c.guard);
      void (guard ?? Promise.resolve(undefined)).then((g) => g?.close()).then(() => report({ guard: c.guard, type: 'closed' }));
    }
  });
}
