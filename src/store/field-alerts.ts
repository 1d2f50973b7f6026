/** Field alert conditions (migration 022) and their events (023): read and written by core/field/field-alerts.ts only. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from './db.js';
import { engineOf } from './engine.js';
import { runListQuery, type ListPage, type ListQuery, type ListSpec } from './list-query.js';
import type { FieldAlertConditionsTable, FieldAlertEventsTable } from './schema.js';

export type FieldAlertRow = Selectable<FieldAlertConditionsTable>;
export type FieldAlertEventRow = Selectable<FieldAlertEventsTable>;

export function fieldAlertsOfSite(db: Db, accountId: string, siteId: string): Promise<FieldAlertRow[]> {
  return db.selectFrom('field_alert_conditions').selectAll().where('account_id', '=', accountId).where('site_id', '=', siteId)
    .orderBy('created').orderBy('id').execute();
}

export function fieldAlert(db: Db, accountId: string, siteId: string, id: string): Promise<FieldAlertRow | undefined> {
  return db.selectFrom('field_alert_conditions').selectAll().where('id', '=', id).where('account_id', '=', accountId).where('site_id', '=', siteId)
    .executeTakeFirst();
}

export async function insertFieldAlert(db: Db, row: Insertable<FieldAlertConditionsTable>): Promise<void> {
  await db.insertInto('field_alert_conditions').values(row).execute();
}

export async function updateFieldAlert(db: Db, id: string, set: Updateable<FieldAlertConditionsTable>): Promise<void> {
  await db.updateTable('field_alert_conditions').set(set).where('id', '=', id).execute();
}

export async function deleteFieldAlert(db: Db, id: string): Promise<void> {
  await db.deleteFrom('field_alert_conditions').where('id', '=', id).execute();
}

export async function deleteFieldAlertsOfSite(db: Db, siteId: string): Promise<void> {
  await db.deleteFrom('field_alert_conditions').where('site_id', '=', siteId).execute();
}

export async function countFieldAlerts(db: Db, siteId: string): Promise<number> {
  const r = await db.selectFrom('field_alert_conditions').select((eb) => eb.fn.countAll<number>().as('n')).where('site_id', '=', siteId).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Every enabled condition (the hourly judgement). */
export function enabledFieldAlerts(db: Db): Promise<FieldAlertRow[]> {
  return db.selectFrom('field_alert_conditions').selectAll().where('enabled', '=', 1).orderBy('site_id').orderBy('id').execute();
}

/**
 * The condition's state becomes `to` unless it is already: true when this call changed it (so exactly one judge, of
 * however many nodes, notifies the change).
 */
export async function changeFieldAlertState(db: Db, id: string, to: string, at: number, measured: number | null, views: number): Promise<boolean> {
  const r = await db.updateTable('field_alert_conditions').set({ state: to, state_since: at, judged: at, measured, views })
    .where('id', '=', id).where('state', '<>', to).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function noteFieldAlertJudged(db: Db, id: string, at: number, measured: number | null, views: number): Promise<void> {
  await db.updateTable('field_alert_conditions').set({ judged: at, measured, views }).where('id', '=', id).execute();
}

export async function insertFieldAlertEvent(db: Db, row: Insertable<FieldAlertEventsTable>): Promise<void> {
  await db.insertInto('field_alert_events').values(row).execute();
}

/** A page of a site's alert events (the API's list query: filters, sort, cursor). */
export function queryFieldAlertEvents(db: Db, accountId: string, siteId: string, spec: ListSpec<'field_alert_events'>, q: ListQuery): Promise<ListPage<FieldAlertEventRow>> {
  const scope = db.selectFrom('field_alert_events').selectAll('field_alert_events')
    .where('field_alert_events.account_id', '=', accountId).where('field_alert_events.site_id', '=', siteId);
  return runListQuery(scope, spec, q, engineOf(db));
}

/** The site's latest events, newest first (the app's alerts screen). */
export function recentFieldAlertEvents(db: Db, accountId: string, siteId: string, limit: number): Promise<FieldAlertEventRow[]> {
  return db.selectFrom('field_alert_events').selectAll().where('account_id', '=', accountId).where('site_id', '=', siteId)
    .orderBy('created', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
