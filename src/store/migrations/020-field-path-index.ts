import type { Kysely, Migration } from 'kysely';

/**
 * Lab beside field (issue 51): a report, a page and a scan read one path's day rollups. The primary key leads with the
 * cut and the day, so finding one path among a site's thousand tracked ones scanned every path row of the window; this
 * index goes to the path's rows directly (other cuts have the path '' and never match a real path).
 */
export const m020FieldPathIndex: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('field_rollups_path').on('field_rollups').columns(['site_id', 'path', 'grain', 'device', 'start']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('field_rollups_path').ifExists().execute();
  },
};
