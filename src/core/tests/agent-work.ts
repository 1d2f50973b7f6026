/**
 * What the service does for an agent, whichever way the agent reaches it (in the same process, or over HTTP from
 * another place: api/routes/agent-protocol.ts): hand out a queued test of its location with a lease, renew the
 * lease, take the result or the failure, take a test back.
 */
import { testsChanged } from './test-signal.js';
import type { ArtifactStore } from '../../artifacts/store.js';
import type { Store } from '../../store/db.js';
import { SecretKeyError } from '../../store/secret-box.js';
import { outageOf } from '../../store/health.js';
import { findTest } from '../../store/tests.js';
import type { AnalysisOptions } from '../options/analysis-options.js';
import { completeTest } from '../reports/reports.js';
import type { RunsFile } from './runs.js';
import { readOptions } from '../options/stored-options.js';
import { claimTest, failTest } from './tests.js';
import { failurePrefix, storeFailure, type JourneyProgress } from './journey-failure.js';
import type { RunResult } from '../../runner/types.js';

/** A claimed test as an agent gets it: its ID and options, secrets included (the load needs them). */
export interface Work {
  testId: string;
  options: AnalysisOptions;
}

/** The oldest queued test of the location (in one of `browsers`, when given), leased to the agent; null when there is none. */
export async function claimWork(store: Store, location: string, agentId: string, leaseMs: number, browsers?: readonly string[]):
Promise<Work | null> {
  for (;;) {
    const test = await claimTest(store, location, agentId, leaseMs, browsers);
    if (!test) return null;
    testsChanged.notify();
    try {
      return { testId: test.id, options: readOptions(store.box, test.options) };
    } catch (err) {
      // Its secrets were sealed under another key: no run can use them; fail now (refunded), not after two leases.
      if (!(err instanceof SecretKeyError)) throw err;
      await failTest(store, test.id, agentId, `The test's cookies or HTTP auth password cannot be read by this ` +
        `server (${err.message}); the operator must restore the service's secret key.`);
    }
  }
}

/** What the user reads of a test whose result the disk had no room for. */
export const OUT_OF_STORAGE_MESSAGE = 'The test ran, but its results could not be stored: the service is out of storage. ' +
  'The credits were refunded; the operator has been told. Try again later.';

/**
 * What became of a result: stored; lost (the agent no longer held the test: its lease ran out and the test went
 * elsewhere); or out of storage (the disk had no room for it: the test ended in error, refunded).
 */
export type Completion = 'stored' | 'lost' | 'out_of_storage';

/**
 * Store the result of a test the agent holds. Idempotent: an agent that sends the same result again (its first
 * upload timed out after it landed) is told it was stored, and no second report is made.
 */
export async function completeWork(store: Store, artifacts: ArtifactStore, testId: string, agentId: string,
  result: RunResult, runs?: RunsFile): Promise<Completion> {
  const before = await findTest(store.db, testId);
  if (before?.state === 'completed') return 'stored';
  if (!before || before.state !== 'started' || before.lease_owner !== agentId) return 'lost';
  try {
    if (await completeTest(store, artifacts, testId, agentId, result, runs)) {
      testsChanged.notify();
      return 'stored';
    }
  } catch (err) {
    // A full disk is said once in the operator's log (with the path); the user reads that the service is out of storage.
    if (outageOf(err)?.kind !== 'storage') throw err;
    store.health.noticed(err);
    if (!(await failTest(store, testId, agentId, OUT_OF_STORAGE_MESSAGE))) return 'lost';
    testsChanged.notify();
    return 'out_of_storage';
  }
  // A concurrent upload of the same result may have landed first.
  return (await findTest(store.db, testId))?.state === 'completed' ? 'stored' : 'lost';
}

/**
 * Fail a test the agent holds (refunded, core/tests/tests.ts failTest); a journey's progress (the steps that
 * completed, the screen when it failed) is kept beside the test for its progress screen. Returns false when the agent
 * had lost the test.
 */
export async function failWork(store: Store, artifacts: ArtifactStore, testId: string, agentId: string, message: string,
  progress?: JourneyProgress): Promise<boolean> {
  // A full disk keeps the failure without its screenshot rather than not at all.
  if (progress) {
    progress = await storeFailure(store, artifacts, testId, progress).then(() => progress, (err: unknown) => {
      if (outageOf(err)?.kind !== 'storage') throw err;
      store.health.noticed(err);
      return undefined;
    });
  }
  const held = await failTest(store, testId, agentId, message);
  if (!held && progress) await artifacts.removePrefix(failurePrefix(testId));
  return held;
}
