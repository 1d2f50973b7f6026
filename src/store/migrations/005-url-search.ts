import { sql, type Kysely, type Migration } from 'kysely';
import { engineOf } from '../engine.js';

/**
 * `filter[url]` (a case-insensitive substring) fast on an account of 10,000 pages (bench/lists.bench.ts, where a
 * scan of the pages cost 2 to 4 ms a request).
 * - SQLite: the page list's index also holds `url` and `report_count`, so the filter reads the index alone, and
 *   the filter compares with LIKE, which is case-insensitive there already (list-query.ts); it replaces the index
 *   (account_id, created, id), which it starts with.
 * - PostgreSQL: a trigram index (pg_trgm) on lower(url), which `lower(url) like '%…%'` uses. Where the extension
 *   cannot be created (a database user without the right), the filter still works, by a scan.
 */
export const m005UrlSearch: Migration = {
  async up(db: Kysely<any>) {
    if (engineOf(db) === 'sqlite') {
      await db.schema.createIndex('pages_account_created_url').on('pages').columns(['account_id', 'created', 'id', 'url', 'report_count']).execute();
      await db.schema.dropIndex('pages_account_created_id').execute();
      return;
    }
    await sql`do $$ begin
      create extension if not exists pg_trgm;
    exception when others then
      raise notice 'pg_trgm is unavailable (%): filter[url] scans the pages', sqlerrm;
    end $$`.execute(db);
    await sql`do $$ begin
      if exists (select 1 from pg_extension where extname = 'pg_trgm') then
        create index pages_url_trigram on pages using gin (lower(url) gin_trgm_ops);
      end if;
    end $$`.execute(db);
  },
  async down(db: Kysely<any>) {
    if (engineOf(db) === 'sqlite') {
      await db.schema.createIndex('pages_account_created_id').on('pages').columns(['account_id', 'created', 'id']).execute();
      await db.schema.dropIndex('pages_account_created_url').execute();
      return;
    }
    await db.schema.dropIndex('pages_url_trigram').ifExists().execute();
  },
};
