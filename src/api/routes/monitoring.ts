import { monitorFrequency } from '../resource-body.js';
import { parseFrequency, setMonitoring } from '../../core/pages/monitoring.js';
import { principalOf } from '../auth.js';
import { jsonApiBody } from '../body.js';
import type { AppContext } from '../../context/app-context.js';
import type { Router } from '../router.js';
import { requirePage, sendPage } from './page-response.js';
import { assertOwnerRole } from '../../core/accounts/roles.js';

/** POST /pages/{id}/performance_monitor (spec 3, 4.3): 404 page, 403 role, 415, 400 E4001, 403 E40303; 200 the page. */
export function registerMonitoringRoutes(r: Router, ctx: AppContext): void {
  r.post('/pages/:id/performance_monitor', async (req, reply, links) => {
    const p = principalOf(req);
    const pageId = (await requirePage(ctx, p.accountId, (req.params as { id: string }).id)).id;
    assertOwnerRole(p, 'change monitoring');
    const frequency = jsonApiBody(req, (body) => parseFrequency(monitorFrequency(body)));
    await setMonitoring(ctx.store, ctx.catalog, p, pageId, frequency);
    return sendPage(ctx, reply, links, p.accountId, pageId);
  });
}
