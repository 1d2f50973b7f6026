/** The monitoring repository: the schedule columns of the pages table (migration 003). */
import type { Db } from './db.js';
import type { PagesTable } from './schema.js';

export type DuePage = Pick<PagesTable, 'id' | 'account_id' | 'options' | 'monitored' | 'monitor_next_run' | 'monitor_anchor'>;
export type MonitorSchedule = Pick<PagesTable, 'monitored' | 'monitor_next_run' | 'monitor_anchor'>;
export type SlotMove = Partial<Pick<PagesTable, 'monitor_next_run' | 'monitor_skipped_at' | 'monitor_skip_reason'>>;

/** Monitored pages whose slot is due at `now`, earliest first, leaving out `exclude` (at most 500 of them). */
export function duePages(db: Db, now: number, limit: number, exclude: string[]): Promise<DuePage[]> {
  let q = db
    .selectFrom('pages')
    .select(['id', 'account_id', 'options', 'monitored', 'monitor_next_run', 'monitor_anchor'])
    .where('monitored', '<>', 'no')
    .where('monitor_next_run', '<=', now)
    .orderBy('monitor_next_run')
    .orderBy('id')
    .limit(limit);
  if (exclude.length > 0) q = q.where('id', 'not in', exclude.slice(0, 500));
  return q.execute();
}

/**
 * Move a page's schedule only if it is still the one read (slot `due` at frequency `monitored`): of two
 * schedulers only one can. True when it moved.
 */
export async function moveSlotIfUnchanged(db: Db, pageId: string, due: number, monitored: string, set: SlotMove): Promise<boolean> {
  const res = await db
    .updateTable('pages')
    .set(set)
    .where('id', '=', pageId)
    .where('monitor_next_run', '=', due)
    .where('monitored', '=', monitored)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function setSchedule(db: Db, pageId: string, schedule: MonitorSchedule): Promise<void> {
  await db.updateTable('pages').set(schedule).where('id', '=', pageId).execute();
}

/** How many of the account's pages are monitored (the plan's monitoring slots in use). */
export async function countMonitoredPages(db: Db, accountId: string): Promise<number> {
  const used = await db
    .selectFrom('pages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('monitored', '<>', 'no')
    .executeTakeFirstOrThrow();
  return Number(used.n);
}
