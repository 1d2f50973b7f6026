import type { Kysely, Migration } from 'kysely';

/** A journey's report keeps its steps and their figures (core/reports/journey-summary.ts) next to the report step's. */
export const m011ReportJourneys: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('reports').addColumn('journey', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('reports').dropColumn('journey').execute();
  },
};
