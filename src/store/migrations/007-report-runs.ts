import type { Kysely, Migration } from 'kysely';

/** A multi-run test's report keeps the spread of its runs (its meta.runs, core/tests/runs.ts) next to its figures. */
export const m007ReportRuns: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('reports').addColumn('runs', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('reports').dropColumn('runs').execute();
  },
};
