import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Which Lighthouse made a report's figures (reports.lighthouse_version: its `lighthouseVersion`, e.g. 13.5.0), so
 * that a structure score is compared only with scores of the same audits. Every Webgauge before this migration ran
 * Lighthouse 12.8.2 (pinned since the first commit), so the reports that have Lighthouse figures (a Lighthouse
 * result, a journey's steps, a performance score) were made by it; the others have none.
 */
export const m012ReportLighthouseVersion: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('reports').addColumn('lighthouse_version', 'text').execute();
    // What an alert event says besides its figures: that its condition compared only within one audit set.
    await db.schema.alterTable('alert_events').addColumn('note', 'text').execute();
    await db.updateTable('reports').set({ lighthouse_version: '12.8.2' })
      .where((eb) => eb.or([
        eb('performance_score', 'is not', null),
        eb('journey', 'is not', null),
        eb('resources', 'like', sql<string>`${'%"lighthouse.json"%'}`),
      ]))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('alert_events').dropColumn('note').execute();
    await db.schema.alterTable('reports').dropColumn('lighthouse_version').execute();
  },
};
