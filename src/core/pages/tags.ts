/**
 * Page tags (spec 2.7, 4.4): per-account labels attached to pages. Rules: name unique in the account (exact
 * match after trimming), 1-45 characters; description up to 255, absent when not set; colour six hex digits,
 * upper case, default FFFFFF; at most `plan.maxTags` tags per account.
 */
import type { Store } from '../../store/db.js';
import type { Principal } from '../accounts/accounts.js';
import type { Db } from '../../store/db.js';
import { clock } from '../clock.js';
import { ApiError, show } from '../errors.js';
import { hasControlCharacter, newId } from '../ids.js';
import { assertOwnerRole } from '../accounts/roles.js';
import { lockAccount } from '../../store/locks.js';
import { livePageIds } from '../../store/pages.js';
import {
  attachTag, countTaggedPages, countTags, deleteTagWithLinks, detachTag, existingTagIds, getTag, insertTag, listTags, tagNameTaken, updateTag, type TagRow,
} from '../../store/tags.js';

export type { TagRow };
export { listTags };

/** Tag ID → how many of the account's live pages carry it (call expireDueReports first for an exact count). */
export function taggedPageCounts(db: Db, accountId: string): Promise<Map<string, number>> {
  return countTaggedPages(db, accountId);
}

export const TAG_NAME_MAX = 45;
export const TAG_DESCRIPTION_MAX = 255;
export const DEFAULT_COLOR = 'FFFFFF';
/** Items in `page_ids` and `page_tags` (spec 8). */
export const ID_LIST_MAX = 500;

/** What a tag body asks for; `undefined` leaves a field alone, `null` description clears it. */
export interface TagInput {
  id?: string;
  name?: string;
  description?: string | null;
  color?: string;
}

const chars = (s: string) => [...s].length;

/**
 * A tag's attributes as a client gave them (`name?`, `description?`, `color?`; the API's body or the app's form).
 * `create` requires a name and may name the tag's ID (`id`, a client-chosen `data.id`); `patch` (POST
 * /page_tags/{id}) refuses one. Unknown attributes are ignored, as on POST /tests.
 */
export function parseTagInput(a: Readonly<Record<string, unknown>>, mode: 'create' | 'patch', id?: unknown): TagInput {
  const out: TagInput = {};

  if (id !== undefined && id !== null) {
    if (mode === 'patch') throw new ApiError('E4001', 'data.id is not accepted here: the tag is the one in the path; remove data.id.');
    if (typeof id !== 'string' || id.trim() === '') throw new ApiError('E4001', `data.id must be a tag ID string, got ${show(id)}.`);
    out.id = id.trim();
  }

  if (a.name !== undefined) {
    if (typeof a.name !== 'string') throw new ApiError('E40009', `name must be a string, got ${show(a.name)}.`);
    const name = a.name.trim();
    if (name === '') throw new ApiError('E40009', 'name must not be empty.');
    if (chars(name) > TAG_NAME_MAX) throw new ApiError('E40009', `name is ${chars(name)} characters long; the maximum is ${TAG_NAME_MAX}.`);
    if (hasControlCharacter(name)) throw new ApiError('E40009', 'name must not contain control characters (NUL, tab, line breaks...).');
    out.name = name;
  } else if (mode === 'create') {
    throw new ApiError('E40009', `name is required: a string of 1-${TAG_NAME_MAX} characters, unique in the account.`);
  }

  if (a.description !== undefined) {
    if (a.description !== null && typeof a.description !== 'string') {
      throw new ApiError('E40009', `description must be a string, got ${show(a.description)}.`);
    }
    const d = a.description?.trim() ?? '';
    if (chars(d) > TAG_DESCRIPTION_MAX) {
      throw new ApiError('E40009', `description is ${chars(d)} characters long; the maximum is ${TAG_DESCRIPTION_MAX}.`);
    }
    if (d.includes('\u0000')) throw new ApiError('E40009', 'description must not contain a NUL character (\\u0000).');
    // An empty description is "not set": the attribute disappears from the tag.
    out.description = d === '' ? null : d;
  }

  if (a.color !== undefined && a.color !== null && a.color !== '') {
    // Lenient: a leading "#" and lower case are accepted; stored and answered as "RRGGBB" upper case.
    const c = typeof a.color === 'string' ? a.color.trim().replace(/^#/, '') : '';
    if (!/^[0-9a-fA-F]{6}$/.test(c)) throw new ApiError('E4001', `color must be 6 hex digits without "#", e.g. "FF8800"; got ${show(a.color)}.`);
    out.color = c.toUpperCase();
  } else if (a.color !== undefined) {
    out.color = DEFAULT_COLOR;
  }
  return out;
}

/** The `page_ids` / `page_tags` list of an attach or detach: 1-500 non-empty strings, duplicates dropped. */
export function parseIdList(list: unknown, key: 'page_ids' | 'page_tags'): string[] {
  const shape = `send {"${key}":["ID", ...]} with 1 to ${ID_LIST_MAX} IDs`;
  if (!Array.isArray(list)) throw new ApiError('E4001', `${key} is missing or not an array; ${shape}.`);
  if (list.length === 0 || list.length > ID_LIST_MAX) throw new ApiError('E4001', `${key} has ${list.length} items; ${shape}.`);
  const bad = list.find((v) => typeof v !== 'string' || v.trim() === '');
  if (bad !== undefined) throw new ApiError('E4001', `${key} must hold ID strings; got ${show(bad)}.`);
  return [...new Set((list as string[]).map((v) => v.trim()))];
}

export function tagNotFound(id: string): ApiError {
  return new ApiError('E40417', `No tag with ID ${show(id)} in this account; GET /page_tags lists them.`);
}

export async function requireTag(db: Db, accountId: string, id: string): Promise<TagRow> {
  const tag = await getTag(db, accountId, id);
  if (!tag) throw tagNotFound(id);
  return tag;
}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

const duplicateName = (name: string) => new ApiError('E40009', `A tag named "${name}" already exists in this account; tag names are unique.`);

/**
 * Create a tag (input without id) or update the one named by `input.id` / `existingId`. Returns the saved tag
 * and whether it was created. The account row is locked on PostgreSQL so the tag limit holds under concurrency.
 */
export async function saveTag(store: Store, p: Principal, input: TagInput, existingId?: string): Promise<{ tag: TagRow; created: boolean }> {
  assertOwnerRole(p, 'change tags');
  const targetId = existingId ?? input.id;
  try {
    return await store.db.transaction().execute(async (trx) => {
      await lockAccount(trx, store.engine, p.accountId);
      if (targetId !== undefined) {
        const tag = await requireTag(trx, p.accountId, targetId);
        if (input.name !== undefined && input.name !== tag.name) {
          if (await tagNameTaken(trx, p.accountId, input.name)) throw duplicateName(input.name);
        }
        const next: TagRow = {
          ...tag,
          name: input.name ?? tag.name,
          description: input.description === undefined ? tag.description : input.description,
          color: input.color ?? tag.color,
        };
        await updateTag(trx, tag.id, { name: next.name, description: next.description, color: next.color });
        return { tag: next, created: false };
      }
      const name = input.name!;
      if (await tagNameTaken(trx, p.accountId, name)) throw duplicateName(name);
      const n = await countTags(trx, p.accountId);
      if (n >= p.plan.maxTags) {
        throw new ApiError('E40303', `The ${p.plan.name} plan allows ${p.plan.maxTags} tags and this account has ${n}; delete one first.`);
      }
      const tag: TagRow = {
        id: newId(),
        account_id: p.accountId,
        name,
        description: input.description ?? null,
        color: input.color ?? DEFAULT_COLOR,
        created: clock.now(),
      };
      await insertTag(trx, tag);
      return { tag, created: true };
    });
  } catch (err) {
    // The checks above run under the account lock; the unique constraint is the backstop for any other race.
    if (isUniqueViolation(err) && input.name !== undefined) throw duplicateName(input.name);
    throw err;
  }
}

/** Delete a tag and detach it from every page. */
export async function deleteTag(store: Store, p: Principal, id: string): Promise<void> {
  assertOwnerRole(p, 'change tags');
  await store.db.transaction().execute(async (trx) => {
    await requireTag(trx, p.accountId, id);
    await deleteTagWithLinks(trx, id);
  });
}

/** The account's existing pages among `ids`; throws E40402 naming the first unknown one. */
async function requirePages(db: Db, accountId: string, ids: string[]): Promise<void> {
  const found = await livePageIds(db, accountId, ids);
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw new ApiError('E40402', `No page with ID ${show(missing)} in this account; nothing was changed.`);
}

/** The account's tags among `ids`; throws E40417 naming the first unknown one. */
async function requireTags(db: Db, accountId: string, ids: string[]): Promise<void> {
  const found = await existingTagIds(db, accountId, ids);
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw tagNotFound(missing);
}

/**
 * Attach or detach links between pages and tags of one account. Every ID is checked first (all or nothing);
 * attaching an attached pair and detaching an unattached one change nothing.
 */
export async function linkTags(
  store: Store,
  p: Principal,
  op: 'attach' | 'detach',
  pairs: { pageIds: string[]; tagIds: string[] },
): Promise<void> {
  assertOwnerRole(p, 'change tags');
  await store.db.transaction().execute(async (trx) => {
    await requireTags(trx, p.accountId, pairs.tagIds);
    await requirePages(trx, p.accountId, pairs.pageIds);
    for (const tagId of pairs.tagIds) {
      if (op === 'attach') await attachTag(trx, p.accountId, tagId, pairs.pageIds);
      else await detachTag(trx, tagId, pairs.pageIds);
    }
  });
}
