import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';

/**
 * Field data (issue 50): what real visitors experienced, sent by the field snippet.
 * - `field_sites`: an account's site to collect for (its origins, sample rate, templates, settings).
 * - `field_views`: one row per page view taken (a raw view), kept for the site's raw retention for drill-down
 *   (attribution lists); `rolled` says whether the rollup job has counted it. No IP address, no user-agent string.
 * - `field_rollups`: mergeable distributions (core/field/sketch.ts), one per hour (and per day once the day is over)
 *   of a cut of the site's views: the whole site, a template, a path, a connection class, a browser family, or the
 *   full key (all of them at once), each per device class. Every figure is read from here, never from raw rows.
 * - `field_paths`: the site's paths kept as themselves (its most viewed, bounded); the rest count as their template.
 * - `field_counts`: per site and hour, how many beacons were taken and how many were refused, per reason.
 */
export const m019Field: Migration = {
  async up(db: Kysely<any>) {
    const postgres = isPostgres(db);
    const blob = postgres ? 'bytea' : 'blob';
    await db.schema.createTable('field_sites')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('origins', 'text', (c) => c.notNull())
      .addColumn('sample_rate', 'double precision', (c) => c.notNull())
      .addColumn('templates', 'text', (c) => c.notNull())
      .addColumn('keep_query', 'integer', (c) => c.notNull())
      .addColumn('honour_gpc', 'integer', (c) => c.notNull())
      .addColumn('raw_retention_days', 'integer', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('field_sites_account').on('field_sites').columns(['account_id', 'created']).execute();

    // Raw views are numbered by the engine (appended, never a random place in the index): their IDs are never shown.
    await db.schema.createTable('field_views')
      .addColumn('id', postgres ? 'bigserial' : 'integer', (c) => c.primaryKey())
      .addColumn('site_id', 'text', (c) => c.notNull())
      .addColumn('received', 'bigint', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('template', 'text')
      .addColumn('device', 'text', (c) => c.notNull())
      .addColumn('connection', 'text', (c) => c.notNull())
      .addColumn('browser', 'text', (c) => c.notNull())
      .addColumn('browser_major', 'integer')
      .addColumn('os', 'text', (c) => c.notNull())
      .addColumn('nav', 'text', (c) => c.notNull())
      .addColumn('lcp', 'double precision')
      .addColumn('inp', 'double precision')
      .addColumn('cls', 'double precision')
      .addColumn('fcp', 'double precision')
      .addColumn('ttfb', 'double precision')
      .addColumn('rtt', 'integer')
      .addColumn('vw', 'integer')
      .addColumn('vh', 'integer')
      .addColumn('attribution', 'text')
      .addColumn('rolled', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('field_views_site_received').on('field_views').columns(['site_id', 'received']).execute();
    await db.schema.createIndex('field_views_unrolled').on('field_views').column('id').where(sql.ref('rolled'), '=', 0).execute();

    await db.schema.createTable('field_rollups')
      .addColumn('site_id', 'text', (c) => c.notNull())
      .addColumn('cut', 'text', (c) => c.notNull())
      .addColumn('grain', 'text', (c) => c.notNull())
      .addColumn('start', 'bigint', (c) => c.notNull())
      .addColumn('device', 'text', (c) => c.notNull())
      .addColumn('template', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('connection', 'text', (c) => c.notNull())
      .addColumn('browser', 'text', (c) => c.notNull())
      .addColumn('views', 'integer', (c) => c.notNull())
      .addColumn('sketch', blob, (c) => c.notNull())
      .addPrimaryKeyConstraint('field_rollups_pk', ['site_id', 'cut', 'grain', 'start', 'device', 'template', 'path', 'connection', 'browser'])
      .execute();

    await db.schema.createTable('field_paths')
      .addColumn('site_id', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('views', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('field_paths_pk', ['site_id', 'path'])
      .execute();

    let counts = db.schema.createTable('field_counts')
      .addColumn('site_id', 'text', (c) => c.notNull())
      .addColumn('hour', 'bigint', (c) => c.notNull());
    for (const column of FIELD_COUNT_COLUMNS) counts = counts.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0));
    await counts.addPrimaryKeyConstraint('field_counts_pk', ['site_id', 'hour']).execute();
  },
  async down(db: Kysely<any>) {
    for (const t of ['field_counts', 'field_paths', 'field_rollups', 'field_views', 'field_sites']) await db.schema.dropTable(t).ifExists().execute();
  },
};

/** The columns of field_counts: beacons taken, then one per reason of refusal (core/field/refusals.ts names them). */
export const FIELD_COUNT_COLUMNS = ['accepted', 'foreign_origin', 'malformed', 'too_large', 'out_of_bounds', 'rate_limited', 'gpc'] as const;

/** A query that fails would end a PostgreSQL migration's transaction: the adapter says the engine. */
function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
