import type { Kysely, Migration } from 'kysely';

/**
 * The device a report's load ran as (issue 49): its device class and, for a phone, the CPU it was slowed to (the
 * target benchmark, the calibrated rate, the host's benchmark and the one measured under the rate), as JSON
 * (core/reports/device-cpu.ts). Null for reports made before: they ran on the agent's own CPU, phones included.
 */
export const m017ReportDeviceCpu: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('reports').addColumn('device_cpu', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('reports').dropColumn('device_cpu').execute();
  },
};
