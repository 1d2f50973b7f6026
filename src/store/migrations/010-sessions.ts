import type { Kysely, Migration } from 'kysely';

/**
 * Web app sessions: the cookie carries a random token, the table its SHA-256 (a stolen database signs no one in).
 * `account_id` is the account that signed in (a team member's own account; its principal finds the team owner).
 */
export const m010Sessions: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('sessions')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addColumn('expires', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();
    await db.schema.createIndex('sessions_expires').on('sessions').column('expires').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('sessions').execute();
  },
};
