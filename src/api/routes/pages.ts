import { readOptions } from '../../core/options/stored-options.js';
import { ApiError } from '../../core/errors.js';
import { deletePage } from '../../core/pages/pages.js';
import { tagIdsForPages } from '../../core/pages/page-tags-lookup.js';
import { getReport } from '../../core/reports/reports.js';
import { principalOf } from '../auth.js';
import type { AppContext } from '../../context/app-context.js';
import { JSONAPI } from '../errors.js';
import { pageResource } from '../jsonapi.js';
import type { Router } from '../router.js';
import { requirePage } from './page-response.js';
import { sendReport } from './reports.js';
import { queueAndRespond } from './tests.js';

/** One page of spec 4.3 (the page list and a page's report list are in lists.ts). */
export function registerPageRoutes(r: Router, ctx: AppContext): void {
  const loadPage = (accountId: string, id: string) => requirePage(ctx, accountId, id);

  const tagsOf = async (pageId: string) => (await tagIdsForPages(ctx.store.db, [pageId])).get(pageId) ?? [];

  r.get('/pages/:id', async (req, reply, links) => {
    const page = await loadPage(principalOf(req).accountId, (req.params as { id: string }).id);
    const data = pageResource(page, links, await tagsOf(page.id));
    return reply.type(JSONAPI).send({ data, links: { self: data.links.self } });
  });

  r.delete('/pages/:id', async (req, reply) => {
    const principal = principalOf(req);
    const page = await loadPage(principal.accountId, (req.params as { id: string }).id);
    await deletePage(ctx.store, ctx.artifacts, principal, page);
    return reply.type(JSONAPI).send({ data: { type: 'page', id: page.id } });
  });

  r.post('/pages/:id/retest', async (req, reply, links) => {
    // The page's options are those of the last test that produced a report for it (kept by completeTest).
    const page = await loadPage(principalOf(req).accountId, (req.params as { id: string }).id);
    return queueAndRespond(ctx, req, reply, links, readOptions(ctx.store.box, page.options), 'api');
  });

  r.get('/pages/:id/latest-report', async (req, reply, links) => {
    const accountId = principalOf(req).accountId;
    const page = await loadPage(accountId, (req.params as { id: string }).id);
    const report = page.latest_report_id ? await getReport(ctx.store.db, accountId, page.latest_report_id) : undefined;
    if (!report) throw new ApiError('E40402', `Page ${page.id} has no valid report.`);
    return sendReport(req, reply, ctx, links, report);
  });
}
