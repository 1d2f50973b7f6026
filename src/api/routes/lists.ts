import type { FastifyReply, FastifyRequest } from 'fastify';
import { clock } from '../../core/clock.js';
import { expireDueReports, listPageReports, listPages, listTests, requirePage, withReportListLock } from '../../core/pages/pages.js';
import { tagIdsForPages } from '../../core/pages/page-tags-lookup.js';
import { type ListQuery, type ListTable, type ListSpec } from '../../store/list-query.js';
import { PAGES_LIST, REPORTS_LIST, TESTS_LIST } from '../../core/vocabulary/lists.js';
import { principalOf } from '../auth.js';
import type { AppContext } from '../../context/app-context.js';
import { JSONAPI } from '../errors.js';
import { pageResource, reportResource, testResource } from '../jsonapi.js';
import type { Links } from '../../context/links.js';
import { listLinks, parseListQuery } from '../query.js';
import type { Router } from '../router.js';

/** The paginated lists of spec 4.1 and 4.3: GET /tests, GET /pages, GET /pages/{id}/reports. */

function queryOf<T extends ListTable>(req: FastifyRequest, spec: ListSpec<T>): ListQuery {
  return parseListQuery(spec, (req.query ?? {}) as Record<string, string | string[]>);
}

/** The list envelope: data, absolute self/prev/next keeping the query, and meta.curr_page as a string. */
export function sendList(reply: FastifyReply, req: FastifyRequest, links: Links, q: ListQuery, data: unknown[], hasNext: boolean) {
  return reply.type(JSONAPI).send({
    data,
    links: listLinks(links.origin, req.url, q.page.number, hasNext),
    meta: { curr_page: String(q.page.number) },
  });
}

export function registerListRoutes(r: Router, ctx: AppContext): void {
  r.get('/tests', async (req, reply, links) => {
    const q = queryOf(req, TESTS_LIST);
    const page = await listTests(ctx.store.db, principalOf(req).accountId, q);
    return sendList(reply, req, links, q, page.rows.map((t) => testResource(t, links)), page.hasNext);
  });

  r.get('/pages', async (req, reply, links) => {
    const q = queryOf(req, PAGES_LIST);
    const accountId = principalOf(req).accountId;
    await expireDueReports(ctx.store, ctx.artifacts, accountId);
    const page = await listPages(ctx.store.db, accountId, q);
    const tags = await tagIdsForPages(ctx.store.db, page.rows.map((p) => p.id));
    // Spec 2: in the page list each item is itself wrapped as {data: {...}}.
    const data = page.rows.map((p) => ({ data: pageResource(p, links, tags.get(p.id) ?? []) }));
    return sendList(reply, req, links, q, data, page.hasNext);
  });

  r.get('/pages/:id/reports', async (req, reply, links) => {
    const q = queryOf(req, REPORTS_LIST);
    const accountId = principalOf(req).accountId;
    const { id } = req.params as { id: string };
    await requirePage(ctx.store, ctx.artifacts, accountId, id);
    const run = () => listPageReports(ctx.store.db, accountId, id, q);
    // Only queries with a filter or a sort take the account's report-list lock (spec 4.3).
    const page = q.filteredOrSorted ? await withReportListLock(ctx.store.db, accountId, run) : await run();
    const pageTags = (await tagIdsForPages(ctx.store.db, [id])).get(id) ?? [];
    const view = { legacyBrandFields: ctx.config.legacyBrandFields, pageTags, now: clock.now(), plan: principalOf(req).plan };
    return sendList(reply, req, links, q, page.rows.map((rep) => reportResource(rep, links, view)), page.hasNext);
  });
}
