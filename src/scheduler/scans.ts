/**
 * The scans' work loops in every API process (core/scans/scan-work.ts lists the stages): discovery of the scans
 * waiting for it, one at a time per process under a lease (any process takes up a crashed one's) and then queueing of
 * their pages (core/scans/discovery-run.ts), and the following of running scans' pages until their site figures are
 * made (core/scans/following.ts, completion.ts).
 */
import { randomUUID } from 'node:crypto';
import { discoverNextScan } from '../core/scans/discovery-run.js';
import { followScans } from '../core/scans/following.js';
import type { FollowContext, ScanWorkContext } from '../core/scans/scan-work.js';
import { PeriodicJob } from '../lib/periodic-job.js';

export class ScanDiscoveryJob extends PeriodicJob<number> {
  private readonly stopping = new AbortController();
  constructor(private readonly ctx: ScanWorkContext, intervalMs = 5_000) {
    super({ intervalMs, log: ctx.log as never, failure: 'scan discovery failed', outages: ctx.store.health });
  }

  protected async runOnce(): Promise<number> {
    let n = 0;
    while (!this.stopping.signal.aborted && (await discoverNextScan(this.ctx, this.stopping.signal))) n += 1;
    return n;
  }

  override async stop(): Promise<void> {
    this.stopping.abort();
    await super.stop();
  }
}

export class ScanFollowJob extends PeriodicJob<number> {
  constructor(private readonly ctx: FollowContext, intervalMs = 2_000) {
    super({ intervalMs, log: ctx.log as never, failure: 'following scans failed', outages: ctx.store.health });
  }

  protected runOnce(): Promise<number> {
    return followScans(this.ctx);
  }

  /** Follow now, and once more after the run in progress (a wake-up during a run must not be lost). */
  drain(): Promise<number> {
    return this.run();
  }
}

/** This process's name as a discovery lease's holder. */
export const processOwner = (): string => `scan-${process.pid}-${randomUUID().slice(0, 8)}`;
