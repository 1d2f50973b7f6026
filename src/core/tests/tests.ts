import type { Store } from '../../store/db.js';
import { withRunsUpTo, type AnalysisOptions } from '../options/analysis-options.js';
import { adjustCredits, fromTenths, spendCredits, type Principal } from '../accounts/accounts.js';
import type { Db, Trx } from '../../store/db.js';
import { clock } from '../clock.js';
import { testsChanged } from './test-signal.js';
import { assertOwnerRole } from '../accounts/roles.js';
import { assertAllowedTest } from './targets.js';
import type { TargetPolicy } from '../../net/policy.js';
import { ApiError, STORAGE_RETRY_AFTER_S } from '../errors.js';
import { newId } from '../ids.js';
import { storedFingerprint, storeOptions } from '../options/stored-options.js';
import { testCostTenths } from '../accounts/pricing.js';
import { lockAccount } from '../../store/locks.js';
import { pageIdFor } from '../../store/pages.js';
import {
  claimQueuedTest, countActiveTests, failedTestsOfPage as failedTestsOfPageRows, countQueuedBefore, expiredLeases, queuedTestsByLocation, testsQueuedWithoutAgent, getRetainedTest, insertTest, markTestFailed, releaseHeldTest, renewTestLease,
  recentRunDurations, requeueExpiredTest, testCharge, type TestRow,
} from '../../store/tests.js';
import { ESTIMATE_TESTS, estimateOf, type Estimate, type PhaseReport } from './phases.js';
import { plural } from '../../lib/words.js';

export type { TestRow };
export type TestSource = 'api' | 'on-demand' | 'monitored' | 'scan';

/** Tests are kept (and served) for 24 hours. */
export const TEST_RETENTION_MS = 86_400_000;
/** A test whose lease ran out this many times is failed instead of requeued. */
export const MAX_ATTEMPTS = 2;

export interface StartedTest {
  test: TestRow;
  creditsLeft: number;
  creditsUsed: number;
}

/** Where tests are queued: the service's store, the operator's target policy, and the wake-up of the agents. */
export interface TestIntake {
  store: Store;
  policy: TargetPolicy;
  /** Tells the in-process agent and remote agents' waiting claims that a test was queued. */
  wake(): void;
}

/**
 * A test asked for by a person (API, web app): the role, then the target policy (a page that resolves to an
 * address the operator did not allow is refused before anything is charged), then startTest; the agents are woken.
 */
export async function requestTest(intake: TestIntake, principal: Principal, options: AnalysisOptions, source: TestSource):
  Promise<StartedTest> {
  assertOwnerRole(principal, 'start tests');
  await assertAllowedTest(options, intake.policy);
  const started = await startTest(intake.store, principal, options, source);
  intake.wake();
  return started;
}

/**
 * No test is started that could not be stored: below WEBGAUGE_MIN_FREE_MB of free space in the data directory, new
 * tests (the API's, the web app's, monitoring's) are refused with 503 until the operator frees space.
 */
export async function assertRoomForTests(store: Store): Promise<void> {
  const low = await store.health.roomForTests();
  if (low) {
    throw new ApiError('E50300', 'The service is low on storage and takes no new test until the operator frees space; ' +
      'nothing was charged. Try again later.', { 'Retry-After': String(STORAGE_RETRY_AFTER_S) });
  }
}

/**
 * Queue a test and charge its credits in one transaction, after the concurrency and credit checks.
 * PostgreSQL locks the account row so two concurrent starts cannot both pass the checks; SQLite has one writer.
 */
export async function startTest(
  store: Store,
  principal: Principal,
  options: AnalysisOptions,
  source: TestSource,
  /** Runs first in the transaction (the monitor claims its slot here, so claim and test commit together); throw to abort. */
  before?: (trx: Trx) => Promise<void>,
): Promise<StartedTest> {
  assertOwnerRole(principal, 'start tests');
  await assertRoomForTests(store);
  options = withRunsUpTo(options, principal.plan.maxRuns);
  const cost = testCostTenths(options);
  const fingerprint = storedFingerprint(store.box, options);
  return store.db.transaction().execute(async (trx) => {
    await before?.(trx);
    await lockAccount(trx, store.engine, principal.accountId);
    const active = await countActiveTests(trx, { account_id: principal.accountId });
    if (active >= principal.plan.concurrentTests) {
      throw new ApiError(
        'E42900',
        `This account already has ${active} tests queued or running, the limit of the ${principal.plan.name} plan; retry after one of them completes.`,
      );
    }
    const credits = await spendCredits(trx, principal, cost, 'This test');
    const pageId = await pageIdFor(trx, principal.accountId, options.url, fingerprint);
    // What was charged (an unlimited plan pays nothing), so that a failure refunds exactly that.
    const test = newTestRow(store, principal.accountId, options, fingerprint, source, credits.chargedTenths, pageId ?? null);
    await insertTest(trx, test);
    // credits_used is the test's price even when the plan does not pay it (the client sees what it costs).
    return { test, creditsLeft: fromTenths(credits.leftTenths), creditsUsed: fromTenths(cost) };
  });
}

/** A queued test's row, as every way of queueing one stores it. */
export function newTestRow(store: Store, accountId: string, options: AnalysisOptions, fingerprint: string, source: TestSource,
  chargedTenths: number, pageId: string | null, scan?: { id: string; position: number }): TestRow {
  const now = clock.now();
  return {
    id: newId(),
    account_id: accountId,
    url: options.url,
    options: storeOptions(store.box, options),
    fingerprint,
    source,
    state: 'queued',
    error: null,
    browser: options.browser,
    location: options.location,
    created: now,
    queued_at: now,
    started: null,
    finished: null,
    lease_owner: null,
    lease_expires: null,
    attempts: 0,
    credits_tenths: chargedTenths,
    report_id: null,
    page_id: pageId,
    events_pending: null,
    scan_id: scan?.id ?? null,
    scan_position: scan?.position ?? null,
    phase: null,
    phase_run: null,
  };
}

/** A test of this account, if it exists and is within its 24 h retention. */
export async function getTest(db: Db, accountId: string, id: string): Promise<TestRow | undefined> {
  return getRetainedTest(db, accountId, id, clock.now() - TEST_RETENTION_MS);
}

/**
 * The page's tests that failed within the tests' 24 h retention, newest first: a monitored journey that broke is
 * there with the error naming its step (a failure makes no report, so the page's reports do not show it).
 */
export function failedTestsOfPage(db: Db, accountId: string, pageId: string, limit = 10): Promise<TestRow[]> {
  return failedTestsOfPageRows(db, accountId, pageId, clock.now() - TEST_RETENTION_MS, limit);
}

/** 404 for a test this account does not have (any more). */
export function testNotFound(id: string): ApiError {
  return new ApiError('E40400', `No test with ID ${id} in this account (tests are kept for 24 hours).`);
}

/** How many tests of its location are ahead of a queued test (0: it is next). */
export function queuePosition(db: Db, test: Pick<TestRow, 'location' | 'queued_at' | 'created' | 'scan_id'>): Promise<number> {
  return countQueuedBefore(db, test.location, test.queued_at ?? test.created, Boolean(test.scan_id));
}

/** Atomically take the oldest queued test of a location and give the agent a lease on it. */
export async function claimTest(store: Store, location: string, agentId: string, leaseMs: number, browsers?: readonly string[]):
Promise<TestRow | undefined> {
  const now = clock.now();
  return claimQueuedTest(store.db, store.engine, location, agentId, now, now + leaseMs, browsers);
}

/**
 * Extend the lease, and store the phase the agent reports with it (its followers are woken); false when the agent no
 * longer holds the test (the reaper requeued or failed the test).
 */
export async function renewLease(db: Db, testId: string, agentId: string, leaseMs: number, phase?: PhaseReport): Promise<boolean> {
  const held = await renewTestLease(db, testId, agentId, clock.now() + leaseMs, phase);
  if (held && phase) testsChanged.notify();
  return held;
}

/** How long a test takes at this location once an agent has it: the median of its latest completed tests; none without any. */
export async function runEstimate(db: Db, location: string): Promise<Estimate | undefined> {
  return estimateOf(await recentRunDurations(db, location, clock.now() - TEST_RETENTION_MS, ESTIMATE_TESTS));
}

/**
 * Fail a test the agent holds (`agentId` null: whoever holds it, or nobody). Credits are refunded: the user got no
 * report for them. Returns false when the agent no longer held the test (or, with `onlyIfQueued`, it had left the
 * queue: an agent took it meanwhile).
 */
export async function failTest(store: Store, testId: string, agentId: string | null, message: string, opts: { onlyIfQueued?: boolean } = {}):
  Promise<boolean> {
  const failed = await store.db.transaction().execute(async (trx) => {
    if (!(await markTestFailed(trx, testId, agentId, message, clock.now(), opts.onlyIfQueued))) return false;
    const test = await testCharge(trx, testId);
    await adjustCredits(trx, test.account_id, test.credits_tenths);
    return true;
  });
  if (failed) testsChanged.notify();
  return failed;
}

/** Give a test back to the queue without counting the attempt (the server is stopping, not the test failing). */
export async function releaseTest(db: Db, testId: string, agentId: string): Promise<void> {
  await releaseHeldTest(db, testId, agentId, clock.now());
  testsChanged.notify();
}

/**
 * Tests whose lease ran out (agent killed, machine gone): requeue those that have attempts left, fail the
 * others with an error the user can read. Returns how many of each.
 */
export async function reapExpiredLeases(store: Store): Promise<{ requeued: number; failed: number }> {
  const now = clock.now();
  const expired = await expiredLeases(store.db, now);
  let requeued = 0;
  let failed = 0;
  for (const t of expired) {
    if (t.attempts < MAX_ATTEMPTS) {
      requeued += await requeueExpiredTest(store.db, t.id, now);
    } else if (
      await failTest(store, t.id, null, 'The test agent stopped responding while running this test, twice; the page may crash the browser or take longer than the run time limit.')
    ) {
      failed += 1;
    }
  }
  return { requeued, failed };
}

/**
 * The queue timeout (WEBGAUGE_QUEUE_TIMEOUT_MS): a queued test ends in error, its credits refunded, once it has
 * waited `queueTimeoutMs` and no agent of its location was online at any moment of that time, i.e. none was heard
 * from since `queueTimeoutMs + onlineWindowMs` ago (an agent counts as online for `onlineWindowMs` after it was
 * last heard from). Busy is not dead: behind online agents a test waits, however long its queue (the expiry
 * sweep still ends a test queued for 24 hours). Read from the agents table, so every node judges every node's
 * and remote agents alike. `location` names the location in the message. Returns how many tests it failed.
 */
export async function failQueuedPastTimeout(
  store: Store,
  limits: { queueTimeoutMs: number; onlineWindowMs: number },
  location: (id: string) => { name: string } | undefined,
): Promise<number> {
  const { queueTimeoutMs, onlineWindowMs } = limits;
  const within = queueTimeoutMs < 60_000 ? plural(Math.round(queueTimeoutMs / 1000), 'second')
    : plural(Math.round(queueTimeoutMs / 6_000) / 10, 'minute');
  const now = clock.now();
  let failed = 0;
  for (const t of await testsQueuedWithoutAgent(store.db, now - queueTimeoutMs, now - queueTimeoutMs - onlineWindowMs, 500)) {
    const where = `location "${location(t.location)?.name ?? t.location}" (ID ${t.location})`;
    const message = `No agent of ${where} was online to run this test within ${within}; its credits were refunded.`;
    // Only if still queued: an agent that came online meanwhile and took the test keeps it.
    if (await failTest(store, t.id, null, message, { onlyIfQueued: true })) failed += 1;
  }
  return failed;
}


/** Tests waiting for an agent, by location ID. */
export function queuedTestCounts(db: Db): Promise<Map<string, number>> {
  return queuedTestsByLocation(db);
}
