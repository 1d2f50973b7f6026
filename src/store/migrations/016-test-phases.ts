import type { Kysely, Migration } from 'kysely';

/**
 * Every wait shows where it is (issue 48): a started test's phase, as its agent reports it (core/tests/phases.ts:
 * launching, loading, auditing, storing), and which of its loads it is in (`phase_run`, from 1; a test may load its
 * page several times). Null for a queued test and for one no agent has said anything of yet. The estimate of a
 * test's duration reads the location's recently completed tests: one index on (location, state, finished).
 */
export const m016TestPhases: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('tests').addColumn('phase', 'text').execute();
    await db.schema.alterTable('tests').addColumn('phase_run', 'integer').execute();
    await db.schema.createIndex('tests_location_finished').on('tests').columns(['location', 'state', 'finished']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('tests_location_finished').execute();
    await db.schema.alterTable('tests').dropColumn('phase_run').execute();
    await db.schema.alterTable('tests').dropColumn('phase').execute();
  },
};
