import type { Kysely, Migration } from 'kysely';

/**
 * Alert conditions on real visitors' figures (issue 51, point 3): one field site's figure (a p75 or a poor share) over
 * a window, for a scope (the site, a template or a path) and a device, judged hourly on a minimum of page views. The
 * state is the condition's own row: a change of it is an atomic update, so each change notifies once across nodes.
 */
export const m022FieldAlerts: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createTable('field_alert_conditions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('site_id', 'text', (c) => c.notNull())
      .addColumn('figure', 'text', (c) => c.notNull())
      .addColumn('operator', 'text', (c) => c.notNull())
      .addColumn('value', 'double precision', (c) => c.notNull())
      .addColumn('device', 'text', (c) => c.notNull())
      .addColumn('template', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('window_days', 'integer', (c) => c.notNull())
      .addColumn('min_views', 'integer', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      // fine | triggered | not_judged (fewer page views than min_views), and since when; the last judgement's figures.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('state_since', 'bigint', (c) => c.notNull())
      .addColumn('judged', 'bigint')
      .addColumn('measured', 'double precision')
      .addColumn('views', 'integer')
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('field_alert_conditions_site').on('field_alert_conditions').columns(['site_id', 'created']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('field_alert_conditions').ifExists().execute();
  },
};
