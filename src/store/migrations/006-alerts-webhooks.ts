import type { Kysely, Migration } from 'kysely';

/**
 * Alerts and notifications (issue 12): alert conditions of a page and the events they raised, the account's
 * webhooks, and the outbox of deliveries (webhook POSTs and alert e-mails) that the dispatcher sends and
 * retries, so that a delivery survives a restart. `tests.events_pending` marks a finished test whose
 * follow-ups (alert checks, test.* webhooks) have not run yet: set when the test completes or fails, cleared
 * by the job that runs them, so a crash in between loses nothing.
 */
export const m006AlertsWebhooks: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('alert_conditions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('page_id', 'text', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('operator', 'text', (c) => c.notNull())
      .addColumn('value', 'double precision', (c) => c.notNull())
      .addColumn('consecutive', 'integer', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      // 'ok' or 'triggered': what the last check found, so that only a change raises an event.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('alert_conditions_page').on('alert_conditions').columns(['page_id', 'created']).execute();

    await db.schema
      .createTable('alert_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('page_id', 'text', (c) => c.notNull())
      .addColumn('condition_id', 'text', (c) => c.notNull())
      .addColumn('report_id', 'text', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('value', 'double precision', (c) => c.notNull())
      .addColumn('threshold', 'double precision', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('alert_events_page').on('alert_events').columns(['page_id', 'created']).execute();

    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      // JSON array of event names.
      .addColumn('events', 'text', (c) => c.notNull())
      // The signing secret, sealed with the store's secret box (it must be read back to sign).
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhooks_account').on('webhooks').columns(['account_id', 'created']).execute();

    await db.schema
      .createTable('deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      // 'webhook' or 'email'.
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('webhook_id', 'text')
      .addColumn('event', 'text', (c) => c.notNull())
      // Webhook: the exact body POSTed on every attempt. E-mail: JSON {to, subject, text, html}.
      .addColumn('body', 'text', (c) => c.notNull())
      // 'pending', 'delivered' or 'failed' (gave up after the retry period).
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      // When the next attempt is due (ms); a sender moves it forward while it works (its lease). Null once done.
      .addColumn('next_attempt', 'bigint')
      // JSON array of attempts: {at, ok, duration_ms, response_code, error}.
      .addColumn('attempts', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('deliveries_due').on('deliveries').columns(['state', 'next_attempt']).execute();
    await db.schema.createIndex('deliveries_webhook').on('deliveries').columns(['webhook_id', 'created']).execute();

    await db.schema.alterTable('tests').addColumn('events_pending', 'integer').execute();
    await db.schema.createIndex('tests_events_pending').on('tests').columns(['events_pending']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('tests_events_pending').execute();
    await db.schema.alterTable('tests').dropColumn('events_pending').execute();
    for (const t of ['deliveries', 'webhooks', 'alert_events', 'alert_conditions']) await db.schema.dropTable(t).execute();
  },
};
