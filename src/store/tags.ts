/** The tags repository: tags and their links to pages (migration 003). */
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Db } from './db.js';
import type { TagsTable } from './schema.js';

export type TagRow = Selectable<TagsTable>;

/** IN lists go in batches of this many IDs (engines limit a statement's parameters). */
const BATCH = 100;

export function listTags(db: Db, accountId: string): Promise<TagRow[]> {
  return db.selectFrom('tags').selectAll().where('account_id', '=', accountId).orderBy('created').orderBy('id').execute();
}

export function getTag(db: Db, accountId: string, id: string): Promise<TagRow | undefined> {
  return db.selectFrom('tags').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export async function tagNameTaken(db: Db, accountId: string, name: string): Promise<boolean> {
  const clash = await db.selectFrom('tags').select('id').where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
  return clash !== undefined;
}

export async function countTags(db: Db, accountId: string): Promise<number> {
  const n = await db.selectFrom('tags').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(n.n);
}

export async function insertTag(db: Db, tag: TagRow): Promise<void> {
  await db.insertInto('tags').values(tag).execute();
}

export async function updateTag(db: Db, id: string, fields: Pick<TagRow, 'name' | 'description' | 'color'>): Promise<void> {
  await db.updateTable('tags').set(fields).where('id', '=', id).execute();
}

/** Delete a tag and its links (run it in a transaction). */
export async function deleteTagWithLinks(db: Db, id: string): Promise<void> {
  await db.deleteFrom('page_tag_links').where('tag_id', '=', id).execute();
  await db.deleteFrom('tags').where('id', '=', id).execute();
}

/** How many live pages (with a valid report, as the pages list counts them) carry each of the account's tags. */
export async function countTaggedPages(db: Db, accountId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('tags')
    .innerJoin('page_tag_links', 'page_tag_links.tag_id', 'tags.id')
    .innerJoin('pages', 'pages.id', 'page_tag_links.page_id')
    .select(['tags.id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('tags.account_id', '=', accountId)
    .where('pages.report_count', '>', 0)
    .groupBy('tags.id')
    .execute();
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

/** The account's tag IDs among `ids`. */
export async function existingTagIds(db: Db, accountId: string, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const rows = await db.selectFrom('tags').select('id').where('account_id', '=', accountId).where('id', 'in', ids.slice(i, i + BATCH)).execute();
    for (const r of rows) found.add(r.id);
  }
  return found;
}

/** Attach a tag to pages of its account; pairs already attached stay as they are. */
export async function attachTag(db: Db, accountId: string, tagId: string, pageIds: string[]): Promise<void> {
  for (let i = 0; i < pageIds.length; i += BATCH) {
    await db
      .insertInto('page_tag_links')
      .values(pageIds.slice(i, i + BATCH).map((pageId) => ({ page_id: pageId, tag_id: tagId, account_id: accountId })))
      .onConflict((oc) => oc.columns(['page_id', 'tag_id']).doNothing())
      .execute();
  }
}

export async function detachTag(db: Db, tagId: string, pageIds: string[]): Promise<void> {
  for (let i = 0; i < pageIds.length; i += BATCH) {
    await db.deleteFrom('page_tag_links').where('tag_id', '=', tagId).where('page_id', 'in', pageIds.slice(i, i + BATCH)).execute();
  }
}

/** Tag IDs of each page (in tag creation order), for the `page_tags` attribute of pages and reports. */
export async function tagIdsOfPages(db: Db, pageIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(pageIds.map((id) => [id, []]));
  for (let i = 0; i < pageIds.length; i += 500) {
    const rows = await db
      .selectFrom('page_tag_links')
      .innerJoin('tags', 'tags.id', 'page_tag_links.tag_id')
      .select(['page_tag_links.page_id', TAG_IDS.as('tag_ids')])
      .where('page_tag_links.page_id', 'in', pageIds.slice(i, i + 500))
      .groupBy('page_tag_links.page_id')
      .execute();
    for (const r of rows) out.set(r.page_id, splitTagIds(r.tag_ids));
  }
  return out;
}

/**
 * The tag IDs of the linked pages, space-separated, oldest tag first: the one order of `page_tags` (SQLite 3.44+ and
 * PostgreSQL share this syntax). Aggregates `page_tag_links` joined to `tags`.
 */
const TAG_IDS = sql<string | null>`string_agg(page_tag_links.tag_id, ' ' order by tags.created, tags.id)`;

/** The tag IDs of the page in column `pageId` of the outer query, as `splitTagIds` reads them. */
export function pageTagIdsOf(pageId: string): RawBuilder<string | null> {
  return sql<string | null>`(select ${TAG_IDS} from page_tag_links inner join tags on tags.id = page_tag_links.tag_id
    where page_tag_links.page_id = ${sql.ref(pageId)})`;
}

export function splitTagIds(ids: string | null): string[] {
  return ids ? ids.split(' ') : [];
}

/** Drop a page's tag links; call wherever a page row is deleted (DELETE /pages, refreshPage, the sweep). */
export async function unlinkPage(db: Db, pageId: string): Promise<void> {
  await db.deleteFrom('page_tag_links').where('page_id', '=', pageId).execute();
}

/** Pages named by tag links whose page row is gone (deleted elsewhere), at most `limit` links' worth. */
export async function orphanLinkPageIds(db: Db, limit: number): Promise<string[]> {
  const orphans = await db
    .selectFrom('page_tag_links')
    .leftJoin('pages', 'pages.id', 'page_tag_links.page_id')
    .select('page_tag_links.page_id')
    .where('pages.id', 'is', null)
    .limit(limit)
    .execute();
  return orphans.map((o) => o.page_id);
}

export async function unlinkPages(db: Db, pageIds: string[]): Promise<void> {
  await db.deleteFrom('page_tag_links').where('page_id', 'in', pageIds).execute();
}
