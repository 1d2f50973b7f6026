import type { Kysely, Migration } from 'kysely';

/** An account may have a password (scrypt, core/accounts/passwords.ts) for signing in to the web app; null: API key only. */
export const m009AccountPasswords: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('accounts').addColumn('password_hash', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('accounts').dropColumn('password_hash').execute();
  },
};
