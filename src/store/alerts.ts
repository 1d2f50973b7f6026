import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from './db.js';
import { engineOf } from './engine.js';
import { runListQuery, type ListPage, type ListQuery, type ListSpec } from './list-query.js';
import type { AlertConditionsTable, AlertEventsTable } from './schema.js';

export type AlertConditionRow = Selectable<AlertConditionsTable>;
export type AlertEventRow = Selectable<AlertEventsTable>;

export function listConditions(db: Db, accountId: string, pageId: string): Promise<AlertConditionRow[]> {
  return db.selectFrom('alert_conditions').selectAll().where('account_id', '=', accountId).where('page_id', '=', pageId)
    .orderBy('created').orderBy('id').execute();
}

export function enabledConditions(db: Db, pageId: string): Promise<AlertConditionRow[]> {
  return db.selectFrom('alert_conditions').selectAll().where('page_id', '=', pageId).where('enabled', '=', 1)
    .orderBy('created').orderBy('id').execute();
}

export function getCondition(db: Db, accountId: string, pageId: string, id: string): Promise<AlertConditionRow | undefined> {
  return db.selectFrom('alert_conditions').selectAll().where('id', '=', id).where('account_id', '=', accountId)
    .where('page_id', '=', pageId).executeTakeFirst();
}

export async function insertCondition(db: Db, row: Insertable<AlertConditionsTable>): Promise<void> {
  await db.insertInto('alert_conditions').values(row).execute();
}

export async function updateCondition(db: Db, id: string, set: Updateable<AlertConditionsTable>): Promise<void> {
  await db.updateTable('alert_conditions').set(set).where('id', '=', id).execute();
}

export async function deleteCondition(db: Db, id: string): Promise<void> {
  await db.deleteFrom('alert_conditions').where('id', '=', id).execute();
}

export async function insertAlertEvent(db: Db, row: Insertable<AlertEventsTable>): Promise<void> {
  await db.insertInto('alert_events').values(row).execute();
}

export function getAlertEvent(db: Db, id: string): Promise<AlertEventRow | undefined> {
  return db.selectFrom('alert_events').selectAll().where('id', '=', id).executeTakeFirst();
}

export function queryAlertEvents(db: Db, accountId: string, pageId: string, spec: ListSpec<'alert_events'>, q: ListQuery): Promise<ListPage<AlertEventRow>> {
  const scope = db.selectFrom('alert_events').selectAll('alert_events')
    .where('alert_events.account_id', '=', accountId).where('alert_events.page_id', '=', pageId);
  return runListQuery(scope, spec, q, engineOf(db));
}

/**
 * One metric of the page's valid reports created up to `upTo` (ms), newest first, at most `limit`; reports
 * where the metric is null (no Lighthouse run) are left out. `metric` must be a report column name (the
 * caller checks it against core/alerts' list; it reaches SQL as an identifier, never as text).
 */
export async function recentMetricValues(db: Db, pageId: string, metric: string, upTo: number, now: number, limit: number):
  Promise<{ id: string; value: number; lighthouse_version: string | null; device_cpu: string | null }[]> {
  const col = sql.ref(`reports.${metric}`);
  const rows = await db
    .selectFrom('reports')
    .select(['reports.id', sql<number>`${col}`.as('value'), 'reports.lighthouse_version', 'reports.device_cpu'])
    .where('reports.page_id', '=', pageId)
    .where('reports.created', '<=', upTo)
    .where('reports.expires', '>', now)
    .where(sql<boolean>`${col} is not null`)
    .orderBy('reports.created', 'desc')
    .orderBy('reports.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, value: Number(r.value), lighthouse_version: r.lighthouse_version, device_cpu: r.device_cpu }));
}
