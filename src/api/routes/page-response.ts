import type { FastifyReply } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { getPage, requirePage as requireAccountPage, type PageRow } from '../../core/pages/pages.js';
import { tagIdsForPages } from '../../core/pages/page-tags-lookup.js';
import type { AppContext } from '../../context/app-context.js';
import { JSONAPI } from '../errors.js';
import { pageResource } from '../jsonapi.js';
import type { Links } from '../../context/links.js';

/** The page in the path of attach_tags, detach_tags and performance_monitor, loaded as GET /pages/{id} does. */
export function requirePage(ctx: AppContext, accountId: string, id: string): Promise<PageRow> {
  return requireAccountPage(ctx.store, ctx.artifacts, accountId, id);
}

/** 200 with the page as it is now (spec: those endpoints answer the updated page). */
export async function sendPage(ctx: AppContext, reply: FastifyReply, links: Links, accountId: string, id: string): Promise<FastifyReply> {
  const page = await getPage(ctx.store.db, accountId, id);
  if (!page) throw new ApiError('E40402', `No page with ID ${id} in this account.`);
  const tags = (await tagIdsForPages(ctx.store.db, [id])).get(id) ?? [];
  const data = pageResource(page, links, tags);
  return reply.code(200).type(JSONAPI).send({ data, links: { self: data.links.self } });
}
