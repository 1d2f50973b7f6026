import type { Kysely, Migration } from 'kysely';

/**
 * Site scans (docs/scans.md): the scan's own record (what discovery found, skipped and why, the credits it
 * reserved, the site figures once its pages are done) and one row per page it tests. A page's test is an
 * ordinary test (tests.scan_id says whose); the page row keeps the test's outcome and figures after the test
 * itself has left the 24 h retention, so a scan's pages list is one indexed read of one table.
 */
export const m013Scans: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('scans')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('site', 'text')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('options', 'text', (c) => c.notNull())
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('location', 'text', (c) => c.notNull())
      .addColumn('browser', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addColumn('started', 'bigint')
      .addColumn('finished', 'bigint')
      .addColumn('expires', 'bigint', (c) => c.notNull())
      .addColumn('found', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('skipped', 'text', (c) => c.notNull())
      .addColumn('discovery_errors', 'text', (c) => c.notNull())
      .addColumn('cost_tenths', 'integer', (c) => c.notNull())
      .addColumn('reserved_tenths', 'integer', (c) => c.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('lease_expires', 'bigint')
      .addColumn('figures', 'text')
      .execute();
    await db.schema.createIndex('scans_account_created').on('scans').columns(['account_id', 'created']).execute();
    await db.schema.createIndex('scans_state').on('scans').columns(['state', 'lease_expires']).execute();

    await db.schema
      .createTable('scan_pages')
      // The page's test's ID: a page is one test.
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('scan_id', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('template', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('report_id', 'text')
      .addColumn('grade', 'text')
      .addColumn('performance_score', 'integer')
      .addColumn('structure_score', 'integer')
      .addColumn('largest_contentful_paint', 'integer')
      .addColumn('total_blocking_time', 'integer')
      .addColumn('cumulative_layout_shift', 'double precision')
      .addColumn('fully_loaded_time', 'integer')
      .addColumn('page_bytes', 'bigint')
      .addColumn('page_requests', 'integer')
      .execute();
    await db.schema.createIndex('scan_pages_position').on('scan_pages').columns(['scan_id', 'position']).unique().execute();
    await db.schema.createIndex('scan_pages_state').on('scan_pages').columns(['scan_id', 'state']).execute();

    // A scan's tests: ordinary tests that wait behind every other test (core/tests: the claim's order).
    await db.schema.alterTable('tests').addColumn('scan_id', 'text').execute();
    await db.schema.alterTable('tests').addColumn('scan_position', 'integer').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('tests').dropColumn('scan_position').execute();
    await db.schema.alterTable('tests').dropColumn('scan_id').execute();
    await db.schema.dropTable('scan_pages').execute();
    await db.schema.dropTable('scans').execute();
  },
};
