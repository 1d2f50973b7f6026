/**
 * The run's deadline: spec.timeoutMs and spec.signal, whichever comes first, reject the load's race with a RunError
 * and close the browser, which makes every pending protocol call of the load fail fast. (Not to be confused with the
 * agent's host-quality check, agent/host-check.ts, or the connection guard, conditions/connection-guard.ts.)
 */
import { RunError } from '../types.js';
import { closeGuarded, type GuardedBrowser } from '../launch-ahead.js';

export class RunDeadline {
  launched: GuardedBrowser | undefined;
  error: RunError | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly aborted: Promise<never>;
  private reject: (err: RunError) => void = () => undefined;
  private readonly onAbort = (): void => this.stop(new RunError('The test was cancelled'));

  constructor(private readonly signal: AbortSignal | undefined, timeoutMs: number) {
    this.aborted = new Promise<never>((_, reject) => (this.reject = reject));
    this.aborted.catch(() => undefined);
    this.timer = setTimeout(
      () => this.stop(new RunError(`The test did not finish within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    if (signal?.aborted) this.onAbort();
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Registers the browser; if the run was already stopped it is closed straight away. */
  adopt(launched: GuardedBrowser): void {
    this.launched = launched;
    if (this.error) {
      void closeGuarded(launched);
      throw this.error;
    }
  }

  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.aborted]);
  }

  private stop(error: RunError): void {
    if (this.error) return;
    this.error = error;
    this.reject(error);
    void closeGuarded(this.launched);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}
