import { idListOf, tagBody } from '../resource-body.js';
import type { FastifyReply } from 'fastify';
import { expireDueReports } from '../../core/pages/pages.js';
import { assertOwnerRole } from '../../core/accounts/roles.js';
import { deleteTag, linkTags, listTags, parseIdList, parseTagInput, requireTag, saveTag, type TagRow } from '../../core/pages/tags.js';
import { principalOf } from '../auth.js';
import { jsonApiBody } from '../body.js';
import type { AppContext } from '../../context/app-context.js';
import { JSONAPI } from '../errors.js';
import type { Links } from '../../context/links.js';
import type { Router } from '../router.js';
import { requirePage, sendPage } from './page-response.js';

/** A tag body's resource into core's tag input (a create may name its ID in data.id; an update may not). */
function tagInput(body: unknown, mode: 'create' | 'patch') {
  const { id, attributes } = tagBody(body, mode);
  return parseTagInput(attributes, mode, id);
}

/**
 * Tags (spec 2.7, 4.4) and the page-side attach_tags/detach_tags (4.3). Check order on every write: the
 * resource in the path (404), then the role (403 E40301), then Content-Type (415), then the body (400), then the
 * IDs inside it (404). Nothing changes unless every check passes.
 */

export const tagLink = (links: Links, id: string) => `${links.api}/page_tags/${id}`;

export function tagResource(t: TagRow, links: Links) {
  const attributes: Record<string, unknown> = { name: t.name };
  if (t.description !== null) attributes.description = t.description;
  attributes.color = t.color;
  return { type: 'tag', id: t.id, attributes, links: { self: tagLink(links, t.id) } };
}

const sendTag = (reply: FastifyReply, links: Links, tag: TagRow, status = 200) => {
  const data = tagResource(tag, links);
  if (status === 201) reply.header('Location', data.links.self);
  return reply.code(status).type(JSONAPI).send({ data, links: { self: data.links.self } });
};

const idParam = (params: unknown) => (params as { id: string }).id;

export function registerTagRoutes(r: Router, ctx: AppContext): void {
  const { store } = ctx;

  r.get('/page_tags', async (req, reply, links) => {
    const tags = await listTags(store.db, principalOf(req).accountId);
    return reply.type(JSONAPI).send({ data: tags.map((t) => tagResource(t, links)), links: { self: `${links.api}/page_tags` } });
  });

  // Create, or update when data.id names an existing tag (then 200; omitted description/color keep their values).
  r.post('/page_tags', async (req, reply, links) => {
    const p = principalOf(req);
    assertOwnerRole(p, 'create or change tags');
    const input = jsonApiBody(req, (body) => tagInput(body, 'create'));
    const { tag, created } = await saveTag(store, p, input);
    return sendTag(reply, links, tag, created ? 201 : 200);
  });

  r.get('/page_tags/:id', async (req, reply, links) => {
    return sendTag(reply, links, await requireTag(store.db, principalOf(req).accountId, idParam(req.params)));
  });

  r.post('/page_tags/:id', async (req, reply, links) => {
    const p = principalOf(req);
    const tag = await requireTag(store.db, p.accountId, idParam(req.params));
    assertOwnerRole(p, 'change tags');
    const input = jsonApiBody(req, (body) => tagInput(body, 'patch'));
    return sendTag(reply, links, (await saveTag(store, p, input, tag.id)).tag);
  });

  r.delete('/page_tags/:id', async (req, reply) => {
    const p = principalOf(req);
    const tag = await requireTag(store.db, p.accountId, idParam(req.params));
    assertOwnerRole(p, 'delete tags');
    await deleteTag(store, p, tag.id);
    return reply.type(JSONAPI).send({ data: { type: 'tag', id: tag.id } });
  });

  for (const op of ['attach', 'detach'] as const) {
    r.post(`/page_tags/:id/${op}`, async (req, reply, links) => {
      const p = principalOf(req);
      const tag = await requireTag(store.db, p.accountId, idParam(req.params));
      assertOwnerRole(p, `${op} tags`);
      const pageIds = jsonApiBody(req, (body) => parseIdList(idListOf(body, 'page_ids'), 'page_ids'));
      await expireDueReports(store, ctx.artifacts, p.accountId); // pages whose last report expired are gone
      await linkTags(store, p, op, { pageIds, tagIds: [tag.id] });
      return sendTag(reply, links, tag);
    });

    r.post(`/pages/:id/${op}_tags`, async (req, reply, links) => {
      const p = principalOf(req);
      const pageId = (await requirePage(ctx, p.accountId, idParam(req.params))).id;
      assertOwnerRole(p, `${op} tags`);
      const tagIds = jsonApiBody(req, (body) => parseIdList(idListOf(body, 'page_tags'), 'page_tags'));
      await linkTags(store, p, op, { pageIds: [pageId], tagIds });
      return sendPage(ctx, reply, links, p.accountId, pageId);
    });
  }
}
