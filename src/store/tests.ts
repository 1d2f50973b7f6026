/** The tests repository: the queue, agents' leases, and the 24 h retention. */
import { sql, type Selectable } from 'kysely';
import type { Db, Engine } from './db.js';
import type { TestsTable } from './schema.js';

/** A test's row; its phase may be left out where a test is written (a new test has none). */
export type TestRow = Omit<Selectable<TestsTable>, 'phase' | 'phase_run'> & { phase?: string | null; phase_run?: number | null };

export async function insertTest(db: Db, test: TestRow): Promise<void> {
  await db.insertInto('tests').values(test).execute();
}

/** Any test by ID. */
export function findTest(db: Db, id: string): Promise<TestRow | undefined> {
  return db.selectFrom('tests').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The account's test if it was created after `createdAfter` (its retention). */
export function getRetainedTest(db: Db, accountId: string, id: string, createdAfter: number): Promise<TestRow | undefined> {
  return db
    .selectFrom('tests')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('created', '>', createdAfter)
    .executeTakeFirst();
}

/** The page's tests that ended in error, created after `createdAfter` (their retention), newest first. */
export function failedTestsOfPage(db: Db, accountId: string, pageId: string, createdAfter: number, limit: number): Promise<TestRow[]> {
  return db.selectFrom('tests').selectAll().where('account_id', '=', accountId).where('page_id', '=', pageId)
    .where('state', '=', 'error').where('created', '>', createdAfter).orderBy('created', 'desc').limit(limit).execute();
}

/** Tests queued at a location before this moment (the ones ahead of a test queued then). */
export async function countQueuedBefore(db: Db, location: string, queuedAt: number, scanTest = false): Promise<number> {
  // A test that is no scan's waits only for the others that are not either (the claim's order).
  let q = db.selectFrom('tests').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'queued').where('location', '=', location).where('queued_at', '<', queuedAt);
  if (!scanTest) q = q.where('scan_id', 'is', null);
  const row = await q.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Tests queued or running, of an account or at a location. An account's count leaves out its scans' tests: a scan
 * queues its pages at once and they wait behind every other test, so they must not use up the account's own.
 */
export async function countActiveTests(db: Db, of: { account_id: string } | { location: string }): Promise<number> {
  const [column, value] = 'account_id' in of ? (['account_id', of.account_id] as const) : (['location', of.location] as const);
  let q = db
    .selectFrom('tests')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(column, '=', value)
    .where('state', 'in', ['queued', 'started']);
  if ('account_id' in of) q = q.where('scan_id', 'is', null);
  const active = await q.executeTakeFirstOrThrow();
  return Number(active.n);
}

/**
 * Atomically take the next queued test of a location (in one of `browsers`, when given: those the agent offers)
 * and give the agent a lease on it until `leaseExpires` (PostgreSQL skips rows another claimer has locked; SQLite
 * has one writer). Next: the oldest test that is no scan's, else the scans' tests in turns (every scan's first
 * page, then every scan's second…), so a test posted while a scan runs waits only for the test loading now.
 */
export async function claimQueuedTest(db: Db, engine: Engine, location: string, agentId: string, now: number, leaseExpires: number,
  browsers?: readonly string[]): Promise<TestRow | undefined> {
  if (browsers?.length === 0) return undefined;
  const ofBrowsers = browsers ? sql`and browser in (${sql.join([...browsers])})` : sql``;
  const lock = engine === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<TestRow>`
    update tests set state = 'started', started = ${now}, lease_owner = ${agentId},
      lease_expires = ${leaseExpires}, attempts = attempts + 1, phase = null, phase_run = null
    where id = (
      select id from tests where state = 'queued' and location = ${location} ${ofBrowsers}
      order by (case when scan_id is null then 0 else 1 end), coalesce(scan_position, 0), created, id limit 1 ${lock}
    ) and state = 'queued'
    returning *`.execute(db);
  return result.rows[0];
}

/** Extend the agent's lease (and store the phase it reports, when it does); false when the agent no longer holds the test. */
export async function renewTestLease(db: Db, testId: string, agentId: string, leaseExpires: number,
  phase?: { phase: string; run: number }): Promise<boolean> {
  const res = await db
    .updateTable('tests')
    .set({ lease_expires: leaseExpires, ...(phase ? { phase: phase.phase, phase_run: phase.run } : {}) })
    .where('id', '=', testId)
    .where('state', '=', 'started')
    .where('lease_owner', '=', agentId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Mark a queued or running test failed (only if `agentId` holds it, when given; only if still queued, with
 * `onlyIfQueued`); false when nothing changed.
 */
export async function markTestFailed(db: Db, testId: string, agentId: string | null, message: string, now: number, onlyIfQueued = false):
  Promise<boolean> {
  let q = db
    .updateTable('tests')
    .set({ state: 'error', error: message, finished: now, lease_owner: null, lease_expires: null, events_pending: 1 })
    .where('id', '=', testId)
    .where('state', 'in', onlyIfQueued ? ['queued'] : ['queued', 'started']);
  if (agentId !== null) q = q.where('lease_owner', '=', agentId);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Mark a test the agent holds completed with its report; false when the agent had lost it. */
export async function markTestCompleted(db: Db, testId: string, agentId: string, reportId: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('tests')
    .set({ state: 'completed', finished: now, lease_owner: null, lease_expires: null, report_id: reportId, events_pending: 1 })
    .where('id', '=', testId)
    .where('state', '=', 'started')
    .where('lease_owner', '=', agentId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function setTestPage(db: Db, testId: string, pageId: string): Promise<void> {
  await db.updateTable('tests').set({ page_id: pageId }).where('id', '=', testId).execute();
}

/** Who paid for a test, and how much. */
export function testCharge(db: Db, testId: string): Promise<Pick<TestRow, 'account_id' | 'credits_tenths'>> {
  return db.selectFrom('tests').select(['account_id', 'credits_tenths']).where('id', '=', testId).executeTakeFirstOrThrow();
}

/** Give a test the agent holds back to the queue without counting the attempt. */
export async function releaseHeldTest(db: Db, testId: string, agentId: string, now: number): Promise<void> {
  await db
    .updateTable('tests')
    .set((eb) => ({ state: 'queued', started: null, lease_owner: null, lease_expires: null, attempts: eb('attempts', '-', 1), queued_at: now,
      phase: null, phase_run: null }))
    .where('id', '=', testId)
    .where('state', '=', 'started')
    .where('lease_owner', '=', agentId)
    .execute();
}

/** Running tests whose lease ran out before `now`. */
export function expiredLeases(db: Db, now: number): Promise<Pick<TestRow, 'id' | 'attempts'>[]> {
  return db.selectFrom('tests').select(['id', 'attempts']).where('state', '=', 'started').where('lease_expires', '<', now).execute();
}

/** Requeue a test if its lease is still expired at `now`; returns 1 when it was, 0 otherwise. */
export async function requeueExpiredTest(db: Db, testId: string, now: number): Promise<number> {
  const res = await db
    .updateTable('tests')
    .set({ state: 'queued', started: null, lease_owner: null, lease_expires: null, queued_at: now, phase: null, phase_run: null })
    .where('id', '=', testId)
    .where('state', '=', 'started')
    .where('lease_expires', '<', now)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * Tests waiting in the queue since `queuedBy` or earlier at a location none of whose agents was heard from since
 * `agentSeenSince` (the agents table, so every node sees every node's agents), with their location.
 */
export function testsQueuedWithoutAgent(db: Db, queuedBy: number, agentSeenSince: number, limit: number):
  Promise<Pick<TestRow, 'id' | 'location'>[]> {
  return db
    .selectFrom('tests')
    .select(['tests.id', 'tests.location'])
    .where('tests.state', '=', 'queued')
    .where('tests.queued_at', '<=', queuedBy)
    // No agent of the location that offers the test's browser (agents.browsers is a JSON array of IDs).
    .where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('agents').select('agents.id').whereRef('agents.location', '=', 'tests.location').where('agents.last_seen', '>=', agentSeenSince),
    )))
    .limit(limit)
    .execute();
}

/** Queued tests created before `createdBefore` (no agent took them). */
export async function staleQueuedTestIds(db: Db, createdBefore: number, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('tests').select('id').where('state', '=', 'queued').where('created', '<', createdBefore).limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Finished (completed or failed) tests created before `createdBefore`, oldest first. */
export async function finishedTestIdsBefore(db: Db, createdBefore: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('tests')
    .select('id')
    .where('created', '<', createdBefore)
    .where('state', 'in', ['completed', 'error'])
    .orderBy('created')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export async function deleteTests(db: Db, ids: string[]): Promise<void> {
  await db.deleteFrom('tests').where('id', 'in', ids).execute();
}

/** Finished tests whose follow-ups (alert checks, test.* webhooks) have not run, oldest first. */
export async function testsWithPendingEvents(db: Db, limit: number): Promise<TestRow[]> {
  return db.selectFrom('tests').selectAll().where('events_pending', '=', 1).orderBy('finished').orderBy('id').limit(limit).execute();
}

/** Take a finished test's follow-ups: true for the one caller that cleared the mark (in its transaction). */
export async function takePendingEvents(db: Db, testId: string): Promise<boolean> {
  const res = await db.updateTable('tests').set({ events_pending: null }).where('id', '=', testId).where('events_pending', '=', 1).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Queued tests per location. */
export async function queuedTestsByLocation(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('tests')
    .select(['location', (eb) => eb.fn.countAll<number>().as('n')])
    .where('state', '=', 'queued')
    .groupBy('location')
    .execute();
  return new Map(rows.map((r) => [r.location, Number(r.n)]));
}

/**
 * An account's tests created after `since` (one indexed read): how many, and the credits they were charged. A
 * failed test was refunded (core/tests/tests.ts failTest), so its charge does not count.
 */
export async function testUsageSince(db: Db, accountId: string, since: number): Promise<{ tests: number; chargedTenths: number }> {
  const row = await db
    .selectFrom('tests')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number | string | null>(eb.case().when('state', '<>', 'error').then(eb.ref('credits_tenths')).else(0).end()).as('charged'),
    ])
    .where('account_id', '=', accountId)
    .where('created', '>', since)
    .executeTakeFirstOrThrow();
  return { tests: Number(row.n), chargedTenths: Number(row.charged ?? 0) };
}

/**
 * How long the location's latest completed tests ran (finished − started, ms), newest first, at most `limit`, of those
 * that finished after `since`: what the estimate of a test's duration is made of (core/tests/phases.ts).
 */
export async function recentRunDurations(db: Db, location: string, since: number, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('tests').select(['started', 'finished'])
    .where('location', '=', location).where('state', '=', 'completed').where('finished', '>', since)
    .where('started', 'is not', null)
    .orderBy('finished', 'desc').limit(limit).execute();
  return rows.map((r) => Number(r.finished) - Number(r.started)).filter((d) => Number.isFinite(d) && d >= 0);
}
