import type { AnalysisOptions } from '../core/options/analysis-options.js';
import type { Catalog } from '../core/catalog/catalog.js';
import { deviceProfile, runnerBrowser } from '../core/catalog/catalog.js';
import { loadConditions, type LoadConditions } from '../core/options/conditions.js';
import type { RunsFile } from '../core/tests/runs.js';
import type { PhaseReport } from '../core/tests/phases.js';
import type { DeviceProfile, JourneyProgress, RunResult } from '../runner/types.js';

/** A unit of work as an agent sees it: no account, no credits. */
export interface Job {
  testId: string;
  options: AnalysisOptions;
  /** The load's conditions, parsed from the options by core. */
  conditions: LoadConditions;
  device?: DeviceProfile;
  /** The browser that loads the page. */
  browser: 'chrome' | 'firefox';
}

/** What an agent offers, announced at hello and in heartbeats. */
export interface AgentInfo {
  browsers: string[];
  slots: number;
}

/**
 * How an agent talks to the service: directly in the same process (InProcessTransport), or over HTTP from another
 * place (HttpTransport, docs/agent-protocol.md). The agent is the same either way.
 */
export interface AgentTransport {
  /** The agent is alive; called at start and every heartbeat. */
  heartbeat(agentId: string, info: AgentInfo): Promise<void>;
  /**
   * A test of the agent's location in one of its browsers (those it announced), with a lease on it, or null when
   * there is none (a remote claim waits a while).
   */
  claim(agentId: string, location: string, leaseMs: number, browsers: readonly string[]): Promise<Job | null>;
  /**
   * false: the lease is lost, stop working on the test. `phase`: the phase the test entered (sent at once, with a
   * renewal): what its progress screen shows.
   */
  renew(agentId: string, testId: string, leaseMs: number, phase?: PhaseReport): Promise<boolean>;
  /** `runs`: every load of a test that loaded the page more than once; `result` is the median run. */
  complete(agentId: string, testId: string, result: RunResult, runs?: RunsFile): Promise<boolean>;
  /** `progress`: how far a journey got (its completed steps, the screen when it failed). */
  fail(agentId: string, testId: string, message: string, progress?: JourneyProgress): Promise<boolean>;
  /** Hand the test back to the queue (shutdown). */
  release(agentId: string, testId: string): Promise<void>;
}

/** A claimed test as the runner needs it: the load's conditions and device parsed from its options. */
export function jobFor(testId: string, options: AnalysisOptions, catalog: Catalog): Job {
  const device = options.simulate_device ? catalog.device(options.simulate_device) : undefined;
  const browser = catalog.browser(options.browser);
  return { testId, options, conditions: loadConditions(options, browser?.cpu_throttle ?? false), device: device ? deviceProfile(device) : undefined,
    browser: runnerBrowser(browser) };
}
