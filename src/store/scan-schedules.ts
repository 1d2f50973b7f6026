/** The scan schedules repository (migration 015): scans that repeat on a slot grid of a monitoring frequency. */
import type { Insertable, Selectable } from 'kysely';
import type { Db } from './db.js';
import type { ScanSchedulesTable } from './schema.js';

export type ScanScheduleRow = Selectable<ScanSchedulesTable>;
/** What the scheduler moves when it takes or skips a slot. */
export type ScheduleSlotMove = Partial<Pick<ScanSchedulesTable, 'next_run' | 'skipped_at' | 'skip_reason' | 'last_scan_id'>>;
/** What a change of the schedule by its owner sets. */
export type ScheduleChange = Partial<Pick<ScanSchedulesTable, 'frequency' | 'anchor' | 'next_run'>>;

export async function insertScanSchedule(db: Db, row: Insertable<ScanSchedulesTable>): Promise<void> {
  await db.insertInto('scan_schedules').values(row).execute();
}

export function getScanScheduleRow(db: Db, accountId: string, id: string): Promise<ScanScheduleRow | undefined> {
  return db.selectFrom('scan_schedules').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** The account's schedules, newest first (at most `limit`). */
export function accountScanSchedules(db: Db, accountId: string, limit: number): Promise<ScanScheduleRow[]> {
  return db.selectFrom('scan_schedules').selectAll().where('account_id', '=', accountId)
    .orderBy('created', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function countScanSchedules(db: Db, accountId: string): Promise<number> {
  const row = await db.selectFrom('scan_schedules').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Schedules whose slot is due at `now` (paused ones have none), earliest first, leaving out `exclude`. */
export function dueScanSchedules(db: Db, now: number, limit: number, exclude: readonly string[]): Promise<ScanScheduleRow[]> {
  let q = db.selectFrom('scan_schedules').selectAll().where('next_run', '<=', now).orderBy('next_run').orderBy('id').limit(limit);
  if (exclude.length > 0) q = q.where('id', 'not in', exclude.slice(0, 500));
  return q.execute();
}

/**
 * Move a schedule's slot only if it is still the one read (slot `due` at `frequency`): of two schedulers only one
 * can, and a change by the owner in between (pause, another frequency, delete) wins. True when it moved.
 */
export async function moveScheduleSlotIfUnchanged(db: Db, id: string, due: number, frequency: string, set: ScheduleSlotMove): Promise<boolean> {
  const res = await db.updateTable('scan_schedules').set(set).where('id', '=', id).where('next_run', '=', due)
    .where('frequency', '=', frequency).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function updateScanSchedule(db: Db, accountId: string, id: string, set: ScheduleChange): Promise<boolean> {
  const res = await db.updateTable('scan_schedules').set(set).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function deleteScanSchedule(db: Db, accountId: string, id: string): Promise<boolean> {
  const res = await db.deleteFrom('scan_schedules').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/** The states of these scans that are still kept at `now` (a schedule's last scan may have expired). */
export async function keptScanStates(db: Db, ids: readonly string[], now: number): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('scans').select(['id', 'state']).where('id', 'in', [...ids]).where('expires', '>', now).execute();
  return new Map(rows.map((r) => [r.id, r.state]));
}
