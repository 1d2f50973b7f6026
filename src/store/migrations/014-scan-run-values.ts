import type { Kysely, Migration } from 'kysely';

/**
 * What a comparison of two scans needs of each page besides its figures (core/scans/comparison-reader.ts), kept on the
 * page's row so that a comparison reads the two scans' rows only: the values of each figure over the kept runs when
 * the page's test loaded it more than once (JSON `{metric: number[]}`, for the significance test), and the Lighthouse
 * that made its report (grades compare only within one structure audit set). Null for pages finished before.
 */
export const m014ScanRunValues: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('scan_pages').addColumn('run_values', 'text').execute();
    await db.schema.alterTable('scan_pages').addColumn('lighthouse_version', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('scan_pages').dropColumn('lighthouse_version').execute();
    await db.schema.alterTable('scan_pages').dropColumn('run_values').execute();
  },
};
