import type { Kysely, Migration } from 'kysely';

/**
 * The history of field alert conditions (issue 51): one row per change a judgement told (triggered, resolved), written
 * in the transaction that changed the condition's state and queued its webhook and e-mail, so the list and the
 * notifications never disagree. The condition's words are kept with the event: a condition changed or deleted later
 * leaves its history as it was. Listed by GET /field_sites/{id}/alert_events, like a page's alert events.
 */
export const m023FieldAlertEvents: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createTable('field_alert_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('site_id', 'text', (c) => c.notNull())
      .addColumn('condition_id', 'text', (c) => c.notNull())
      // triggered | resolved
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('figure', 'text', (c) => c.notNull())
      .addColumn('operator', 'text', (c) => c.notNull())
      .addColumn('threshold', 'double precision', (c) => c.notNull())
      .addColumn('measured', 'double precision', (c) => c.notNull())
      .addColumn('views', 'integer', (c) => c.notNull())
      .addColumn('device', 'text', (c) => c.notNull())
      .addColumn('template', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('window_days', 'integer', (c) => c.notNull())
      .addColumn('min_views', 'integer', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('field_alert_events_site').on('field_alert_events').columns(['site_id', 'created']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('field_alert_events').ifExists().execute();
  },
};
