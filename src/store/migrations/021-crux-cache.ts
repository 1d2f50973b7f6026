import type { Kysely, Migration } from 'kysely';

/**
 * Google's CrUX answers, kept (issue 51): at most one question a day per URL (or origin) and form factor, whatever the
 * number of reports, pages and scans that show it, and across restarts. `body` is the answer's record as JSON, or
 * null when CrUX had none (that is kept for the day too).
 */
export const m021CruxCache: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createTable('crux_cache')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('form_factor', 'text', (c) => c.notNull())
      .addColumn('day', 'bigint', (c) => c.notNull())
      .addColumn('body', 'text')
      .addColumn('fetched', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('crux_cache_pk', ['kind', 'key', 'form_factor'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('crux_cache').ifExists().execute();
  },
};
