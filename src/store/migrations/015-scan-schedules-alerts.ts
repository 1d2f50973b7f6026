import type { Kysely, Migration } from 'kysely';

/**
 * A site over time (issue 42): scans that repeat, and alerts on a site's figures.
 * - `scan_schedules`: what to scan (the request of POST /scans, stored like a scan's: options sealed, settings JSON)
 *   and when (a frequency of monitoring's table on a slot grid from `anchor`; `next_run` the next due slot, null when
 *   paused). The scheduler claims a slot by moving `next_run` off the value it read, in the transaction that stores
 *   the scan (exactly once across processes, as monitoring does). A slot that cannot run says why in `skip_reason`.
 * - `scans.schedule_id`: the schedule that started the scan (null: started by hand).
 * - `scans.alerts`: the verdicts of the scan's alert conditions (its settings' `alert_conditions`) once it
 *   completed, JSON; a change of verdict from the site's previous scan is what `scan.alert` announces.
 * - The site's completed scans newest first (history, "last"): one index on (account, site, state, created).
 */
export const m015ScanSchedulesAlerts: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('scan_schedules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('options', 'text', (c) => c.notNull())
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('location', 'text', (c) => c.notNull())
      .addColumn('browser', 'text', (c) => c.notNull())
      .addColumn('frequency', 'text', (c) => c.notNull())
      .addColumn('anchor', 'bigint', (c) => c.notNull())
      .addColumn('next_run', 'bigint')
      .addColumn('skipped_at', 'bigint')
      .addColumn('skip_reason', 'text')
      .addColumn('last_scan_id', 'text')
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('scan_schedules_due').on('scan_schedules').columns(['next_run']).execute();
    await db.schema.createIndex('scan_schedules_account').on('scan_schedules').columns(['account_id', 'created']).execute();

    await db.schema.alterTable('scans').addColumn('schedule_id', 'text').execute();
    await db.schema.alterTable('scans').addColumn('alerts', 'text').execute();
    await db.schema.createIndex('scans_site_history').on('scans').columns(['account_id', 'site', 'state', 'created']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('scans_site_history').execute();
    await db.schema.alterTable('scans').dropColumn('alerts').execute();
    await db.schema.alterTable('scans').dropColumn('schedule_id').execute();
    await db.schema.dropTable('scan_schedules').execute();
  },
};
