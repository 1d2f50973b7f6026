/** The in-process agent's way to the service: direct calls into core, in the server's own process. */
import { hostname } from 'node:os';
import type { ArtifactStore } from '../artifacts/store.js';
import { claimWork, completeWork, failWork } from '../core/tests/agent-work.js';
import type { JourneyProgress } from '../core/tests/journey-failure.js';
import type { Catalog } from '../core/catalog/catalog.js';
import { announceAgent, LOCAL_LOCATION_ID } from '../core/catalog/locations.js';
import type { RunsFile } from '../core/tests/runs.js';
import type { PhaseReport } from '../core/tests/phases.js';
import { releaseTest, renewLease } from '../core/tests/tests.js';
import type { Store } from '../store/db.js';
import type { RunResult } from '../runner/types.js';
import { AGENT_VERSION } from './protocol.js';
import { jobFor, type AgentInfo, type AgentTransport, type Job } from './transport.js';

export class InProcessTransport implements AgentTransport {
  constructor(
    private readonly store: Store,
    private readonly artifacts: ArtifactStore,
    private readonly catalog: Catalog,
    /** Told when a test completed or failed here (its follow-ups, alert checks and webhooks, can run now). */
    private readonly finished: () => void = () => undefined,
    /** Where the agent runs: this service's own location. */
    private readonly location = LOCAL_LOCATION_ID,
  ) {}

  heartbeat(agentId: string, info: AgentInfo): Promise<void> {
    return announceAgent(this.store.db, {
      agentId, location: this.location, tokenId: null, version: AGENT_VERSION, hostname: hostname(), ...info,
    });
  }

  async claim(agentId: string, location: string, leaseMs: number, browsers: readonly string[]): Promise<Job | null> {
    const work = await claimWork(this.store, location, agentId, leaseMs, browsers);
    return work && jobFor(work.testId, work.options, this.catalog);
  }

  renew(agentId: string, testId: string, leaseMs: number, phase?: PhaseReport): Promise<boolean> {
    return renewLease(this.store.db, testId, agentId, leaseMs, phase);
  }

  async complete(agentId: string, testId: string, result: RunResult, runs?: RunsFile): Promise<boolean> {
    const done = await completeWork(this.store, this.artifacts, testId, agentId, result, runs);
    if (done !== 'lost') this.finished();
    return done === 'stored';
  }

  async fail(agentId: string, testId: string, message: string, progress?: JourneyProgress): Promise<boolean> {
    const ok = await failWork(this.store, this.artifacts, testId, agentId, message, progress);
    if (ok) this.finished();
    return ok;
  }

  release(agentId: string, testId: string): Promise<void> {
    return releaseTest(this.store.db, testId, agentId);
  }
}
