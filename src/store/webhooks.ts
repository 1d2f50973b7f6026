import type { Insertable, Selectable } from 'kysely';
import type { Db } from './db.js';
import { engineOf } from './engine.js';
import { runListQuery, type ListPage, type ListQuery, type ListSpec } from './list-query.js';
import type { DeliveriesTable, WebhooksTable } from './schema.js';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<DeliveriesTable>;

export async function insertWebhook(db: Db, row: Insertable<WebhooksTable>): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export function listWebhooks(db: Db, accountId: string): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('account_id', '=', accountId).orderBy('created').orderBy('id').execute();
}

export function countWebhooks(db: Db, accountId: string): Promise<number> {
  return db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId)
    .executeTakeFirstOrThrow().then((r) => Number(r.n));
}

export function getWebhook(db: Db, accountId: string, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export function webhookById(db: Db, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A webhook and its deliveries (pending ones are never sent). */
export async function deleteWebhookRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('deliveries').where('webhook_id', '=', id).execute();
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

export async function insertDelivery(db: Db, row: Insertable<DeliveriesTable>): Promise<void> {
  await db.insertInto('deliveries').values(row).execute();
}

/** A page of a webhook's deliveries (the list query of GET /webhooks/{id}/deliveries). */
export function queryDeliveries(db: Db, webhookId: string, spec: ListSpec<'deliveries'>, q: ListQuery): Promise<ListPage<DeliveryRow>> {
  return runListQuery(db.selectFrom('deliveries').selectAll('deliveries').where('deliveries.webhook_id', '=', webhookId), spec, q, engineOf(db));
}

/** Pending deliveries whose attempt is due, oldest due first. */
export function dueDeliveries(db: Db, now: number, limit: number): Promise<DeliveryRow[]> {
  return db.selectFrom('deliveries').selectAll().where('state', '=', 'pending').where('next_attempt', '<=', now)
    .orderBy('next_attempt').orderBy('id').limit(limit).execute();
}

/**
 * Take a due delivery for `leaseUntil`: only the sender whose update finds `next_attempt` as it read it gets
 * it, so two dispatchers (processes) never send one attempt twice; a sender that dies leaves it due again.
 */
export async function leaseDelivery(db: Db, id: string, seen: number, leaseUntil: number): Promise<boolean> {
  const res = await db.updateTable('deliveries').set({ next_attempt: leaseUntil }).where('id', '=', id)
    .where('state', '=', 'pending').where('next_attempt', '=', seen).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function recordAttempt(db: Db, id: string, set: Pick<DeliveryRow, 'state' | 'next_attempt' | 'attempts'>): Promise<void> {
  await db.updateTable('deliveries').set(set).where('id', '=', id).execute();
}

/** Finished deliveries older than `before` (the expiry sweep keeps the table small). */
export async function deleteOldDeliveries(db: Db, before: number): Promise<void> {
  await db.deleteFrom('deliveries').where('state', '!=', 'pending').where('created', '<', before).execute();
}
