import type { Kysely, Migration } from 'kysely';

/**
 * Tags (spec 2.7, 4.4) and their links to pages (the page serializer and the page_tag filter read
 * `page_tag_links`), the monitoring schedule of a page (spec 3, 4.3) and the index the expiry sweep scans.
 * Monitoring state lives on the page row so that claiming a slot is one conditional UPDATE of that row.
 */
export const m003TagsMonitoring: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('tags')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('color', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('tags_account_name', ['account_id', 'name'])
      .execute();
    await db.schema
      .createTable('page_tag_links')
      .addColumn('page_id', 'text', (c) => c.notNull())
      .addColumn('tag_id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('page_tag_links_pk', ['page_id', 'tag_id'])
      .execute();
    await db.schema.createIndex('page_tag_links_tag').on('page_tag_links').columns(['tag_id']).execute();

    // When the next monitored test of the page is due (ms; null when not monitored). The scheduler claims a
    // slot with `update ... where monitor_next_run = <the value it read>`, so each slot runs once.
    await db.schema.alterTable('pages').addColumn('monitor_next_run', 'bigint').execute();
    // Origin of the slot grid (ms): slots fall at anchor + k × interval, so a retried slot does not shift the rest.
    await db.schema.alterTable('pages').addColumn('monitor_anchor', 'bigint').execute();
    // The last slot that was skipped and why (credits short, target refused), for the operator and the user.
    await db.schema.alterTable('pages').addColumn('monitor_skipped_at', 'bigint').execute();
    await db.schema.alterTable('pages').addColumn('monitor_skip_reason', 'text').execute();
    await db.schema.createIndex('pages_monitor_due').on('pages').columns(['monitor_next_run']).execute();

    // The expiry sweep deletes tests by age across accounts.
    await db.schema.createIndex('tests_created').on('tests').columns(['created']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('tests_created').execute();
    await db.schema.dropIndex('pages_monitor_due').execute();
    for (const c of ['monitor_skip_reason', 'monitor_skipped_at', 'monitor_anchor', 'monitor_next_run']) {
      await db.schema.alterTable('pages').dropColumn(c).execute();
    }
    await db.schema.dropTable('page_tag_links').execute();
    await db.schema.dropTable('tags').execute();
  },
};
