/**
 * Tells waiting claimers of this process that a test was queued (an idle remote agent's long-poll claim answers at
 * once instead of at its next database poll). Tests queued by another node are found by the poll.
 */
export class QueueSignal {
  private waiters = new Set<() => void>();

  notify(): void {
    const waiting = this.waiters;
    this.waiters = new Set();
    for (const wake of waiting) wake();
  }

  /** Resolves at the next notify(), after `ms`, or when `signal` aborts, whichever comes first. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
