import type { ArtifactStore } from '../artifacts/store.js';
import type { AnalysisOptions } from '../core/analysis-options.js';
import type { Catalog } from '../core/catalog.js';
import { deviceProfile } from '../core/catalog.js';
import { loadConditions, type LoadConditions } from '../core/conditions.js';
import { completeTest } from '../core/reports.js';
import type { RunsFile } from '../core/runs.js';
import { readOptions } from '../core/stored-options.js';
import { claimTest, failTest, releaseTest, renewLease } from '../core/tests.js';
import type { Store } from '../store/db.js';
import { SecretKeyError } from '../store/secret-box.js';
import type { DeviceProfile, RunResult } from '../runner/types.js';

/** A unit of work as an agent sees it: no account, no credits. */
export interface Job {
  testId: string;
  options: AnalysisOptions;
  /** The load's conditions, parsed from the options by core. */
  conditions: LoadConditions;
  device?: DeviceProfile;
}

/**
 * How an agent talks to the service. In-process today (direct calls into core); the same interface can be
 * carried over HTTP for remote agents without changing the agent.
 */
export interface AgentTransport {
  claim(agentId: string, location: string, leaseMs: number): Promise<Job | null>;
  /** false: the lease is lost, stop working on the test. */
  renew(agentId: string, testId: string, leaseMs: number): Promise<boolean>;
  /** `runs`: every load of a test that loaded the page more than once; `result` is the median run. */
  complete(agentId: string, testId: string, result: RunResult, runs?: RunsFile): Promise<boolean>;
  fail(agentId: string, testId: string, message: string): Promise<boolean>;
  /** Hand the test back to the queue (shutdown). */
  release(agentId: string, testId: string): Promise<void>;
}

export class InProcessTransport implements AgentTransport {
  constructor(
    private readonly store: Store,
    private readonly artifacts: ArtifactStore,
    private readonly catalog: Catalog,
    /** Told when a test completed or failed here (its follow-ups, alert checks and webhooks, can run now). */
    private readonly finished: () => void = () => undefined,
  ) {}

  async claim(agentId: string, location: string, leaseMs: number): Promise<Job | null> {
    const test = await claimTest(this.store, location, agentId, leaseMs);
    if (!test) return null;
    let options: AnalysisOptions;
    try {
      options = readOptions(this.store.box, test.options);
    } catch (err) {
      // Its secrets were sealed under another key: no run can use them; fail now (refunded), not after two leases.
      if (!(err instanceof SecretKeyError)) throw err;
      await failTest(this.store, test.id, agentId, `The test's cookies or HTTP auth password cannot be read by this ` +
        `server (${err.message}); the operator must restore the service's secret key.`);
      return this.claim(agentId, location, leaseMs);
    }
    const device = options.simulate_device ? this.catalog.device(options.simulate_device) : undefined;
    return { testId: test.id, options, conditions: loadConditions(options), device: device ? deviceProfile(device) : undefined };
  }

  renew(agentId: string, testId: string, leaseMs: number): Promise<boolean> {
    return renewLease(this.store.db, testId, agentId, leaseMs);
  }

  async complete(agentId: string, testId: string, result: RunResult, runs?: RunsFile): Promise<boolean> {
    const ok = await completeTest(this.store, this.artifacts, testId, agentId, result, runs);
    if (ok) this.finished();
    return ok;
  }

  async fail(agentId: string, testId: string, message: string): Promise<boolean> {
    const ok = await failTest(this.store, testId, agentId, message);
    if (ok) this.finished();
    return ok;
  }

  release(agentId: string, testId: string): Promise<void> {
    return releaseTest(this.store.db, testId, agentId);
  }
}
