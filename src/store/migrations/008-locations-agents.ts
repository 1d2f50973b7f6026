import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Locations the operator adds, the agents that run tests there and the tokens they sign in with (remote agents).
 * Location 1 is written at every start from WEBGAUGE_LOCATION_NAME/REGION (core/catalog/locations.ts). A test waits in the
 * queue since `queued_at` (its creation, or the moment it went back to the queue) for the queue timeout.
 */
export const m008LocationsAgents: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('locations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('region', 'text', (c) => c.notNull())
      .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('agent_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('location', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addColumn('revoked', 'bigint')
      .execute();
    await db.schema
      .createTable('agents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('location', 'text', (c) => c.notNull())
      .addColumn('token_id', 'text')
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('hostname', 'text', (c) => c.notNull())
      .addColumn('browsers', 'text', (c) => c.notNull())
      .addColumn('slots', 'integer', (c) => c.notNull())
      .addColumn('started', 'bigint', (c) => c.notNull())
      .addColumn('last_seen', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('agents_location_seen').on('agents').columns(['location', 'last_seen']).execute();
    await db.schema.alterTable('tests').addColumn('queued_at', 'bigint').execute();
    await sql`update tests set queued_at = created where state = 'queued'`.execute(db);
    await db.schema.createIndex('tests_queued_at').on('tests').columns(['state', 'queued_at']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('tests_queued_at').execute();
    await db.schema.alterTable('tests').dropColumn('queued_at').execute();
    await db.schema.dropTable('agents').execute();
    await db.schema.dropTable('agent_tokens').execute();
    await db.schema.dropTable('locations').execute();
  },
};
