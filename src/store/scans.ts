/** The scans repository: a scan's record, its pages, and the discovery lease (docs/scans.md). */
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db, Engine } from './db.js';
import type { ScanPagesTable, ScansTable } from './schema.js';

export type ScanRow = Selectable<ScansTable>;
export type ScanPageRow = Selectable<ScanPagesTable>;

export async function insertScan(db: Db, scan: Insertable<ScansTable>): Promise<void> {
  await db.insertInto('scans').values(scan).execute();
}

/** The account's scan (any state) that has not expired at `now`. */
export function getScanRow(db: Db, accountId: string, id: string, now: number): Promise<ScanRow | undefined> {
  return db.selectFrom('scans').selectAll().where('id', '=', id).where('account_id', '=', accountId)
    .where('expires', '>', now).executeTakeFirst();
}

/** The account's unexpired scan that a test (a scan page's) belongs to, if any. */
export function scanOfTestRow(db: Db, accountId: string, testId: string, now: number): Promise<ScanRow | undefined> {
  return db.selectFrom('scan_pages').innerJoin('scans', 'scans.id', 'scan_pages.scan_id').selectAll('scans')
    .where('scan_pages.id', '=', testId).where('scan_pages.account_id', '=', accountId).where('scans.expires', '>', now).executeTakeFirst();
}

export function scanById(db: Db, id: string): Promise<ScanRow | undefined> {
  return db.selectFrom('scans').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Take the oldest scan waiting for discovery whose lease is free (never taken, or its owner stopped renewing: a
 * crashed process), for `owner` until `leaseExpires`.
 */
export async function claimDiscovery(db: Db, engine: Engine, owner: string, now: number, leaseExpires: number): Promise<ScanRow | undefined> {
  const lock = engine === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<ScanRow>`
    update scans set lease_owner = ${owner}, lease_expires = ${leaseExpires}, started = coalesce(started, ${now})
    where id = (
      select id from scans where state = 'discovering' and (lease_expires is null or lease_expires < ${now})
      order by created, id limit 1 ${lock}
    ) and state = 'discovering'
    returning *`.execute(db);
  return result.rows[0];
}

export async function renewDiscoveryLease(db: Db, id: string, owner: string, leaseExpires: number): Promise<boolean> {
  const res = await db.updateTable('scans').set({ lease_expires: leaseExpires }).where('id', '=', id)
    .where('state', '=', 'discovering').where('lease_owner', '=', owner).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Set what changed of a scan, only while it is in one of `states` (and held by `owner`, when given); false otherwise. */
export async function updateScan(db: Db, id: string, states: readonly string[], set: Updateable<ScansTable>, owner?: string): Promise<boolean> {
  let q = db.updateTable('scans').set(set).where('id', '=', id).where('state', 'in', [...states]);
  if (owner !== undefined) q = q.where('lease_owner', '=', owner);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function insertScanPages(db: Db, pages: Insertable<ScanPagesTable>[]): Promise<void> {
  // Chunks keep each statement under SQLite's bound-parameter limit.
  for (let i = 0; i < pages.length; i += 400) await db.insertInto('scan_pages').values(pages.slice(i, i + 400)).execute();
}

/** Scans whose pages may still change: running, or cancelled with a page still loading. */
export function activeScanIds(db: Db): Promise<{ id: string }[]> {
  return db.selectFrom('scans').select('id').where('state', 'in', ['running', 'cancelled']).where('figures', 'is', null).execute();
}

/** A scan's pages that have not finished, with their test's state now (null: the test is gone). */
export function unfinishedScanPages(db: Db, scanId: string) {
  return db.selectFrom('scan_pages').leftJoin('tests', 'tests.id', 'scan_pages.id')
    .select(['scan_pages.id', 'scan_pages.position', 'scan_pages.state', 'tests.state as test_state', 'tests.error as test_error',
      'tests.report_id as test_report_id'])
    .where('scan_pages.scan_id', '=', scanId).where('scan_pages.state', 'in', ['queued', 'started']).execute();
}

export async function updateScanPage(db: Db, id: string, set: Partial<ScanPagesTable>): Promise<void> {
  await db.updateTable('scan_pages').set(set).where('id', '=', id).execute();
}

/** When the first of a scan's tests started loading and when the last one finished (ms; null before any did): its pace. */
export async function scanTestTimes(db: Db, scanId: string): Promise<{ firstStarted: number | null; lastFinished: number | null }> {
  const row = await db.selectFrom('tests').select((eb) => [eb.fn.min('started').as('first'), eb.fn.max('finished').as('last')])
    .where('scan_id', '=', scanId).executeTakeFirst();
  const ms = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return { firstStarted: ms(row?.first), lastFinished: ms(row?.last) };
}

/** How many pages of a scan are in each state. */
export async function scanPageCounts(db: Db, scanId: string): Promise<Record<string, number>> {
  const rows = await db.selectFrom('scan_pages').select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('scan_id', '=', scanId).groupBy('state').execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

/** Every page of a scan, in test order. */
/** The templates of a scan's pages, in order. */
export async function scanTemplates(db: Db, scanId: string): Promise<string[]> {
  const rows = await db.selectFrom('scan_pages').select('template').distinct().where('scan_id', '=', scanId).orderBy('template').execute();
  return rows.map((r) => r.template);
}

export function allScanPages(db: Db, scanId: string): Promise<ScanPageRow[]> {
  return db.selectFrom('scan_pages').selectAll().where('scan_id', '=', scanId).orderBy('position').execute();
}

/**
 * The account's completed scans of `site` (its origin) as device `deviceClass` started before `before` (ms; ties broken by ID, below `beforeId`),
 * newest first, still kept at `now`; of one source only when `source` is given. A comparison's "last" is the first.
 */
export function completedScansOfSite(db: Db, accountId: string, o: SiteScans): Promise<ScanRow[]> {
  return siteScans(db, accountId, o).selectAll().execute();
}

interface SiteScans {
  site: string;
  /** A scan's device class: a site's scans are compared, charted and alerted on per device. */
  deviceClass: string;
  source?: string;
  before?: { created: number; id: string };
  now: number;
  limit: number;
}

function siteScans(db: Db, accountId: string, o: SiteScans) {
  let q = db.selectFrom('scans').where('account_id', '=', accountId).where('state', '=', 'completed')
    .where('site', '=', o.site).where('device_class', '=', o.deviceClass).where('expires', '>', o.now);
  if (o.source !== undefined) q = q.where('source', '=', o.source);
  const before = o.before;
  if (before) q = q.where((eb) => eb.or([eb('created', '<', before.created), eb.and([eb('created', '=', before.created), eb('id', '<', before.id)])]));
  return q.orderBy('created', 'desc').orderBy('id', 'desc').limit(o.limit);
}

/** The alert verdicts (JSON) of the same scans as completedScansOfSite, newest first: the only column a verdict's change reads. */
export function alertsOfSiteScans(db: Db, accountId: string, o: SiteScans): Promise<{ id: string; alerts: string | null }[]> {
  return siteScans(db, accountId, o).select(['id', 'alerts']).execute();
}

/** The other scans of a scan's set (one request's scans, one per device) still kept at `now`. */
export function siblingScanRows(db: Db, accountId: string, scan: Pick<ScanRow, 'id' | 'scan_set'>, now: number): Promise<ScanRow[]> {
  if (scan.scan_set === null) return Promise.resolve([]);
  return db.selectFrom('scans').selectAll().where('scan_set', '=', scan.scan_set).where('account_id', '=', accountId)
    .where('id', '!=', scan.id).where('expires', '>', now).orderBy('created').orderBy('id').execute();
}

/** The scan's queued tests (a cancel drops them). */
export async function queuedScanTestIds(db: Db, scanId: string): Promise<string[]> {
  const rows = await db.selectFrom('tests').select('id').where('scan_id', '=', scanId).where('state', '=', 'queued').execute();
  return rows.map((r) => r.id);
}

/** Scans expired before `now` (their reports' retention), oldest first. */
export async function expiredScanIds(db: Db, now: number, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('scans').select('id').where('expires', '<=', now).orderBy('expires').limit(limit).execute();
  return rows.map((r) => r.id);
}

export async function deleteScans(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('scan_pages').where('scan_id', 'in', ids).execute();
  await db.deleteFrom('scans').where('id', 'in', ids).execute();
}

/**
 * Of each of these scans, its failed pages and the Lighthouse versions of its completed pages (a site's history):
 * one grouped query over the scans' pages, no page row read.
 */
export async function scanPageSummaries(db: Db, scanIds: readonly string[]): Promise<Map<string, { failed: number; lighthouseVersions: string[] }>> {
  const out = new Map(scanIds.map((id) => [id, { failed: 0, lighthouseVersions: [] as string[] }]));
  if (scanIds.length === 0) return out;
  const rows = await db.selectFrom('scan_pages').select(['scan_id', 'state', 'lighthouse_version', (eb) => eb.fn.countAll<number>().as('n')])
    .where('scan_id', 'in', [...scanIds]).where('state', 'in', ['completed', 'failed'])
    .groupBy(['scan_id', 'state', 'lighthouse_version']).execute();
  for (const r of rows) {
    const s = out.get(r.scan_id)!;
    if (r.state === 'failed') s.failed += Number(r.n);
    else if (r.lighthouse_version !== null && !s.lighthouseVersions.includes(r.lighthouse_version)) s.lighthouseVersions.push(r.lighthouse_version);
  }
  for (const s of out.values()) s.lighthouseVersions.sort();
  return out;
}

/** Credits (tenths) the account's scans hold while they find their pages: paid, not yet spent on a page's test. */
export async function reservedTenthsOf(db: Db, accountId: string): Promise<number> {
  const row = await db.selectFrom('scans').select((eb) => eb.fn.sum<number | string | null>('reserved_tenths').as('held'))
    .where('account_id', '=', accountId).where('reserved_tenths', '>', 0).executeTakeFirstOrThrow();
  return Number(row.held ?? 0);
}

/** The completed pages' lab figures a scan's lab-against-field groups read (core/scans/scan-field.ts). */
export function scanPagesLabFigures(db: Db, scanId: string) {
  return db.selectFrom('scan_pages').select(['url', 'template', 'report_id', 'largest_contentful_paint', 'cumulative_layout_shift', 'total_blocking_time'])
    .where('scan_id', '=', scanId).where('state', '=', 'completed').orderBy('position').execute();
}
