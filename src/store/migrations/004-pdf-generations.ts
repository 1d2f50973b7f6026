import type { Kysely, Migration } from 'kysely';

/**
 * PDF generations running now (spec 7, 429 E42903), so that the parallel limit of an account holds across API
 * processes sharing the database. A row is one generation's slot: taken in the transaction that charges the
 * credits, renewed while Chromium works, deleted when it ends; a row past `expires` belongs to a process that
 * died and no longer counts.
 */
export const m004PdfGenerations: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('pdf_generations')
      // The PDF's artifact key (`<report id>/report.pdf`): one generation per file, which others join.
      .addColumn('pdf_key', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      // Lets only the generation that took the row renew or delete it.
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('expires', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('pdf_generations_account').on('pdf_generations').columns(['account_id', 'expires']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('pdf_generations').execute();
  },
};
