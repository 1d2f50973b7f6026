/**
 * The connection guard in a thread of its own. The run's main thread is busy while the page loads (Lighthouse's
 * trace, screencast frames, CDP events) and stalls at times; a relay sharing that event loop would stall every
 * connection the browser opens with it. The main thread keeps the ledger of what the guard learns (addresses,
 * lookups, failures), fed by messages, and `settled()` waits until the ledger has caught up.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { TargetPolicy } from '../../net/policy.js';
import type { DnsOverride } from '../../net/resolve.js';
import { ConnectionGuard, GuardLedger, type GuardEvents, type RefusedConnection } from './connection-guard.js';

interface Start {
  allowAll: boolean;
  allowTargets: string;
  dns: DnsOverride[];
}

type Report =
  | { type: 'ready'; port: number }
  | { type: 'error'; message: string }
  | { type: 'failure'; failure: RefusedConnection; counted: boolean }
  | { type: 'connected'; host: string; address: string }
  | { type: 'lookup'; host: string; ms: number }
  | { type: 'settled'; id: number }
  | { type: 'closed' };

type Command = { type: 'seal' } | { type: 'settle'; id: number } | { type: 'close' };

/** The main thread's handle on a guard running in its own thread. */
export class GuardThread {
  /** What the guard learned, as far as its reports have arrived (see settled()). */
  readonly ledger = new GuardLedger();
  private readonly waiting = new Map<number, () => void>();
  private nextId = 0;
  private closed: Promise<void> | undefined;

  private constructor(private readonly worker: Worker, readonly port: number) {}

  static async start(policy: TargetPolicy, dns: readonly DnsOverride[]): Promise<GuardThread> {
    const start: Start = { allowAll: policy.allowAll, allowTargets: policy.entries.join(','), dns: [...dns] };
    // Run from the TypeScript sources (tests, benchmarks), the thread registers tsx (a dev dependency) first: a
    // worker does not inherit the loader hooks of `--import tsx`.
    const worker = import.meta.url.endsWith('.ts')
      ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`,
        { eval: true, workerData: start })
      : new Worker(new URL(import.meta.url), { workerData: start });
    worker.unref();
    const port = await new Promise<number>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', (m: Report) => (m.type === 'ready' ? resolve(m.port) : reject(new Error(
        m.type === 'error' ? m.message : `the connection guard did not start (${m.type})`))));
    });
    const guard = new GuardThread(worker, port);
    worker.on('message', (m: Report) => guard.onReport(m));
    worker.on('error', () => undefined); // a crashed guard refuses everything: the browser cannot connect at all
    return guard;
  }

  private onReport(m: Report): void {
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
        this.waiting.get(m.id)?.();
        this.waiting.delete(m.id);
        break;
    }
  }

  browserFlags(): string[] {
    return ConnectionGuard.browserFlagsFor(this.port);
  }

  /** Resolves once every report the guard sent before this call has reached the mirror. */
  settled(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const id = this.nextId++;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000); // a guard that stopped answering has nothing left to tell
      this.waiting.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.postMessage({ type: 'settle', id } satisfies Command);
    });
  }

  seal(): void {
    if (!this.closed) this.worker.postMessage({ type: 'seal' } satisfies Command);
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => void this.worker.terminate().then(done, done), 2000);
      this.worker.once('exit', done);
      this.worker.postMessage({ type: 'close' } satisfies Command);
    });
    return this.closed;
  }
}

// The thread itself.
if (!isMainThread && parentPort && (workerData as Start | undefined)?.dns !== undefined) {
  const port = parentPort;
  const start = workerData as Start;
  const report = (m: Report): void => port.postMessage(m);
  const events: GuardEvents = {
    failure: (failure, counted) => report({ type: 'failure', failure, counted }),
    connected: (host, address) => report({ type: 'connected', host, address }),
    lookup: (host, ms) => report({ type: 'lookup', host, ms }),
  };
  ConnectionGuard.start(new TargetPolicy({ allowAll: start.allowAll, allowTargets: start.allowTargets }), start.dns,
    undefined, events).then((guard) => {
    port.on('message', (c: Command) => {
      if (c.type === 'seal') guard.seal();
      else if (c.type === 'settle') report({ type: 'settled', id: c.id });
      else void guard.close().then(() => port.close());
    });
    report({ type: 'ready', port: guard.port });
  }, (err: unknown) => report({ type: 'error', message: (err as Error).message }));
}
