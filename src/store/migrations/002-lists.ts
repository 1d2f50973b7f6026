import type { Kysely, Migration } from 'kysely';

/**
 * Lists (spec 4.1, 4.3): the report-list lock and the indexes that keep the list queries of one account with
 * 100k reports fast on both engines (plans checked with bench/lists.bench.ts). Indexes end with `id` because
 * every list sorts by `id` last as a tiebreaker: the index then gives the whole order and the LIMIT stops early.
 */
export const m002Lists: Migration = {
  async up(db: Kysely<any>) {
    // One filtered or sorted report-list query per account at a time, across processes (429 E42902).
    // A row is the lock; `token` lets only its holder release it; a row past `expires` is stale and taken over.
    await db.schema
      .createTable('report_list_locks')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('expires', 'bigint', (c) => c.notNull())
      .execute();

    // A page's reports newest first (the report list default), replacing the (page_id, created) index.
    await db.schema.dropIndex('reports_page_created').execute();
    await db.schema.createIndex('reports_page_created_id').on('reports').columns(['page_id', 'created', 'id']).execute();
    // An account's reports that are past `expires` (lazy expiry before page reads).
    await db.schema.createIndex('reports_account_expires').on('reports').columns(['account_id', 'expires']).execute();

    // The page list by created (default) or latest_report_time, replacing the (account_id, created) index.
    await db.schema.dropIndex('pages_account_created').execute();
    await db.schema.createIndex('pages_account_created_id').on('pages').columns(['account_id', 'created', 'id']).execute();
    await db.schema
      .createIndex('pages_account_latest_id')
      .on('pages')
      .columns(['account_id', 'latest_report_time', 'id'])
      .execute();

    // The test list: an account's tests in creation order.
    await db.schema.dropIndex('tests_account_created').execute();
    await db.schema.createIndex('tests_account_created_id').on('tests').columns(['account_id', 'created', 'id']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('tests_account_created_id').execute();
    await db.schema.createIndex('tests_account_created').on('tests').columns(['account_id', 'created']).execute();
    await db.schema.dropIndex('pages_account_latest_id').execute();
    await db.schema.dropIndex('pages_account_created_id').execute();
    await db.schema.createIndex('pages_account_created').on('pages').columns(['account_id', 'created']).execute();
    await db.schema.dropIndex('reports_account_expires').execute();
    await db.schema.dropIndex('reports_page_created_id').execute();
    await db.schema.createIndex('reports_page_created').on('reports').columns(['page_id', 'created']).execute();
    await db.schema.dropTable('report_list_locks').execute();
  },
};
