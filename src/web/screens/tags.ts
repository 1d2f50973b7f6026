/**
 * Tags: the account's tags with how many pages carry each, a form to create one, and a tag's own screen to edit
 * or delete it. The forms are turned into the API's JSON body and handed to the API's parser and the core's rules
 * (parseTagInput, saveTag, deleteTag), so the checks and messages are the API's own. Tags are attached to pages on
 * a page's view. The Viewer role sees the list only.
 */
import type { FastifyReply } from 'fastify';
import { expireDueReports } from '../../core/pages/pages.js';
import {
  deleteTag, listTags, parseTagInput, requireTag, saveTag, TAG_DESCRIPTION_MAX, TAG_NAME_MAX, taggedPageCounts,
  tagNotFound, type TagInput, type TagRow,
} from '../../core/pages/tags.js';
import { couldBeId } from '../../core/ids.js';
import { assertOwnerRole } from '../../core/accounts/roles.js';
import type { FormFields, Visitor } from '../session.js';
import { actionButton, csrfField, errorBox, esc, formField, formRefusal, seeOther, shell, type WebKit } from '../kit.js';

/** The colour a new tag starts with in the form (the API's own default, white, is there to keep). */
export const FORM_DEFAULT_COLOR = '2456D6';

/** The form's fields as a tag's attributes: what POST /page_tags (or /page_tags/{id}) would carry. */
export function tagAttributesFromForm(form: FormFields): Record<string, string> {
  const attributes: Record<string, string> = {
    name: form.get('name') ?? '',
    // <input type=color> sends "#rrggbb"; the API writes "RRGGBB".
    color: (form.get('color') ?? '').trim().replace(/^#/, '').toUpperCase(),
    description: form.get('description') ?? '',
  };
  return attributes;
}

/** An <input type=color> value: "#" and six lower-case hex digits (anything else: the form's default). */
export function colorInputValue(color: string | undefined): string {
  const c = (color ?? '').trim().replace(/^#/, '');
  return /^[0-9a-fA-F]{6}$/.test(c) ? `#${c.toLowerCase()}` : `#${FORM_DEFAULT_COLOR.toLowerCase()}`;
}

const swatch = (color: string) => `<span class="tag-swatch" style="background:#${esc(color)}" aria-hidden="true"></span>`;
const pagesLabel = (n: number) => `${n} page${n === 1 ? '' : 's'}`;

interface FormValues {
  name: string;
  color: string;
  description: string;
}

const valuesOf = (form: FormFields): FormValues => ({
  name: form.get('name') ?? '', color: form.get('color') ?? '', description: form.get('description') ?? '',
});

function tagFields(prefix: string, f: FormValues): string {
  return `<div class="row">${formField(`${prefix}-name`, 'Name', (d) => `<input id="${prefix}-name" name="name" type="text" value="${esc(f.name)}" autocomplete="off"${d}>`,
    `up to ${TAG_NAME_MAX} characters, unique in the account`)}` +
    formField(`${prefix}-color`, 'Colour', (d) => `<input id="${prefix}-color" name="color" type="color" value="${esc(colorInputValue(f.color))}"${d}>`,
      'shown on the pages list', 'field tag-colour') + '</div>' +
    formField(`${prefix}-description`, 'Description', (d) => `<input id="${prefix}-description" name="description" type="text" value="${esc(f.description)}" autocomplete="off"${d}>`,
      `optional, up to ${TAG_DESCRIPTION_MAX} characters`);
}

function tagList(tags: TagRow[], counts: Map<string, number>, canEdit: boolean): string {
  if (tags.length === 0) {
    return `<div class="card"><p class="muted">No tags yet.${canEdit ? ' Create one below, then attach it to pages on a page’s view.' : ''}</p></div>`;
  }
  const rows = tags.map((t) => {
    const n = counts.get(t.id) ?? 0;
    const pages = n > 0
      ? `<a href="/pages?tag=${encodeURIComponent(t.id)}" aria-label="${esc(`${pagesLabel(n)} tagged ${t.name}`)}">${pagesLabel(n)}</a>`
      : '<span class="muted">no pages</span>';
    return `<tr id="tag-${esc(t.id)}"><td class="tag-cell"><span class="tag-name">${swatch(t.color)}<b>${esc(t.name)}</b><span class="tag-hex">#${esc(t.color)}</span></span>` +
      `${t.description !== null ? `<span class="tag-desc">${esc(t.description)}</span>` : ''}</td>` +
      `<td class="num">${pages}</td>` +
      `${canEdit ? `<td class="num"><a href="/tags/${esc(t.id)}" aria-label="${esc(`Edit tag ${t.name}`)}">Edit</a></td>` : ''}</tr>`;
  }).join('');
  return `<div class="card tablewrap"><table class="tag-table"><thead><tr><th scope="col">Tag</th><th scope="col" class="num">Pages</th>` +
    `${canEdit ? '<th scope="col" class="num"><span class="tag-sr">Actions</span></th>' : ''}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** ?created=ID, ?saved=ID, ?deleted=1: what the last form did. */
function notice(query: Record<string, unknown>, tags: TagRow[]): string {
  const named = (id: unknown) => tags.find((t) => t.id === id)?.name;
  const say = (text: string) => `<div class="ok" role="status">${esc(text)}</div>`;
  if (typeof query.created === 'string' && named(query.created) !== undefined) return say(`Created the tag “${named(query.created)}”.`);
  if (typeof query.saved === 'string' && named(query.saved) !== undefined) return say(`Saved the tag “${named(query.saved)}”.`);
  if (query.deleted === '1') return say('Deleted the tag; it was removed from every page that carried it.');
  return '';
}

export function registerTagScreens(kit: WebKit): void {
  const { ctx } = kit;
  const { store } = ctx;

  async function listScreen(v: Visitor, nonce: string, query: Record<string, unknown>, form?: FormValues, error?: string): Promise<string> {
    const p = v.principal;
    await expireDueReports(store, ctx.artifacts, p.accountId); // pages whose last report expired are gone
    const [tags, counts] = await Promise.all([listTags(store.db, p.accountId), taggedPageCounts(store.db, p.accountId)]);
    const canEdit = p.role !== 'viewer';
    const create = canEdit
      ? `<section class="tag-new" aria-labelledby="new-tag"><h2 id="new-tag">New tag</h2>
<form method="post" action="/tags" class="card">${csrfField(v)}${errorBox(error)}
${tagFields('new', form ?? { name: '', color: FORM_DEFAULT_COLOR, description: '' })}
<button type="submit" class="btn">Create tag</button></form></section>`
      : '<p class="muted">The Viewer role can see tags but not change them.</p>';
    const body = `<h1>Tags</h1>${notice(query, tags)}
<p class="muted">${tags.length} of ${p.plan.maxTags} tags of the ${esc(p.plan.name)} plan. Attach tags to pages on a page’s view; ` +
      `the pages list filters by tag.</p>
${tagList(tags, counts, canEdit)}
${create}`;
    return shell(v, nonce, { title: 'Tags', active: 'tags', body });
  }

  async function editScreen(v: Visitor, nonce: string, tag: TagRow, form?: FormValues, error?: string): Promise<string> {
    await expireDueReports(store, ctx.artifacts, v.principal.accountId);
    const n = (await taggedPageCounts(store.db, v.principal.accountId)).get(tag.id) ?? 0;
    const values = form ?? { name: tag.name, color: tag.color, description: tag.description ?? '' };
    const carried = n > 0
      ? `<a href="/pages?tag=${encodeURIComponent(tag.id)}">${pagesLabel(n)}</a> ${n === 1 ? 'carries' : 'carry'} this tag.`
      : 'No page carries this tag yet; attach it on a page’s view.';
    const body = `<p class="tag-back"><a href="/tags">All tags</a></p>
<h1><span class="tag-name">${swatch(tag.color)}<span>Edit tag ${esc(tag.name)}</span></span></h1>
<p class="muted">${carried}</p>
<form method="post" action="/tags/${esc(tag.id)}" class="card tag-edit">${csrfField(v)}${errorBox(error)}
${tagFields('edit', values)}
<button type="submit" class="btn">Save</button></form>
<section class="tag-delete" aria-labelledby="delete-tag"><h2 id="delete-tag">Delete</h2>
<p class="muted">Deleting the tag removes it from every page that carries it; the pages and their reports stay.</p>
${actionButton(v, `/tags/${tag.id}/delete`, 'Delete tag', { style: 'danger', confirm: `Delete the tag “${tag.name}”? It is removed from every page that carries it.` })}</section>`;
    return shell(v, nonce, { title: `Edit tag ${tag.name}`, active: 'tags', body });
  }

  /** The account's tag named in the path (404 for any other ID), then the role check, as the API orders them. */
  async function ownedTag(v: Visitor, id: string, what: string): Promise<TagRow> {
    if (!couldBeId(id)) throw tagNotFound(id);
    const tag = await requireTag(store.db, v.principal.accountId, id);
    assertOwnerRole(v.principal, what);
    return tag;
  }

  /** Run a save; an ApiError (the API's message) shows the form again with it. */
  async function attempt(reply: FastifyReply, run: () => Promise<FastifyReply>, again: (message: string) => Promise<string>): Promise<FastifyReply | string> {
    try {
      return await run();
    } catch (err) {
      // Not allowed at all (the Viewer role): the kit's error screen says so.
      const refused = formRefusal(reply, err);
      return again(refused.detail ?? refused.title);
    }
  }

  kit.screen('/tags', async (req, _reply, v, nonce) => listScreen(v, nonce, req.query as Record<string, unknown>));

  kit.action('/tags', async (_req, reply, v, form, nonce) => {
    assertOwnerRole(v.principal, 'create or change tags');
    return attempt(reply, async () => {
      const input: TagInput = parseTagInput(tagAttributesFromForm(form), 'create');
      const { tag } = await saveTag(store, v.principal, input);
      return seeOther(reply, `/tags?created=${encodeURIComponent(tag.id)}#tag-${encodeURIComponent(tag.id)}`);
    }, (message) => listScreen(v, nonce, {}, valuesOf(form), message));
  });

  kit.screen('/tags/:id', async (req, _reply, v, nonce) => {
    const tag = await ownedTag(v, (req.params as { id: string }).id, 'change tags');
    return editScreen(v, nonce, tag);
  });

  kit.action('/tags/:id', async (req, reply, v, form, nonce) => {
    const tag = await ownedTag(v, (req.params as { id: string }).id, 'change tags');
    return attempt(reply, async () => {
      const input = parseTagInput(tagAttributesFromForm(form), 'patch');
      await saveTag(store, v.principal, input, tag.id);
      return seeOther(reply, `/tags?saved=${encodeURIComponent(tag.id)}#tag-${encodeURIComponent(tag.id)}`);
    }, (message) => editScreen(v, nonce, tag, valuesOf(form), message));
  });

  kit.action('/tags/:id/delete', async (req, reply, v) => {
    const tag = await ownedTag(v, (req.params as { id: string }).id, 'delete tags');
    await deleteTag(store, v.principal, tag.id);
    return seeOther(reply, '/tags?deleted=1');
  });
}

