/**
 * A job that runs now and then every `intervalMs`, one run at a time: overlapping calls share the run in
 * progress, and `stop()` waits for it. The base of the monitor scheduler, the expiry sweeper, the test follow-ups
 * and the webhook dispatcher.
 */
export interface PeriodicJobSettings {
  intervalMs: number;
  /** Where a failed run is logged, and the message it is logged with. */
  log?: { error(obj: object, msg: string): void };
  failure: string;
  /** Errors already said elsewhere (the database away, the disk full: store/health.ts), not logged again each run. */
  outages?: { noticed(err: unknown): boolean };
}

export abstract class PeriodicJob<T> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<T>;
  protected readonly intervalMs: number;

  constructor(private readonly settings: PeriodicJobSettings) {
    this.intervalMs = settings.intervalMs;
  }

  protected abstract runOnce(): Promise<T>;

  protected onError(err: unknown): void {
    if (this.settings.outages?.noticed(err)) return;
    this.settings.log?.error({ err }, this.settings.failure);
  }

  start(): void {
    if (this.timer) return;
    // A run queued by setImmediate must not start after stop() (the store may be closed by then).
    const run = () => void (this.timer ? this.run() : Promise.resolve()).catch((err) => this.onError(err));
    this.timer = setInterval(run, this.intervalMs);
    this.timer.unref();
    setImmediate(run);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** Run now, if started, rather than at the next interval (new work just arrived); errors go to onError. */
  wake(): void {
    if (this.timer) void this.run().catch((err) => this.onError(err));
  }

  /** Run now, or join the run in progress. */
  protected run(): Promise<T> {
    if (!this.running) {
      this.running = this.runOnce().finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }
}
