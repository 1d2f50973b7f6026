import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnalysisOptions } from '../../core/options/analysis-options.js';
import { parseTestOptions } from '../../core/options/options.js';
import { testAttributes } from '../resource-body.js';
import { getTest, queuePosition, requestTest, testNotFound, type TestSource } from '../../core/tests/tests.js';
import { principalOf } from '../auth.js';
import { jsonApiBody } from '../body.js';
import type { AppContext } from '../../context/app-context.js';
import { JSONAPI } from '../errors.js';
import { testResource } from '../jsonapi.js';
import type { Links } from '../../context/links.js';
import type { Router } from '../router.js';

/** Queue a test (POST /tests and every retest) and answer 202 exactly as the spec and COMPAT.md say. */
export async function queueAndRespond(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  links: Links,
  options: AnalysisOptions,
  source: TestSource,
): Promise<FastifyReply> {
  const started = await requestTest(ctx.intake, principalOf(req), options, source);
  const self = links.test(started.test.id);
  const data = testResource(started.test, links);
  return reply
    .code(202)
    .header('Location', self)
    .type(JSONAPI)
    .send({
      data: { type: data.type, id: data.id, attributes: data.attributes, links: data.links },
      meta: { credits_left: started.creditsLeft, credits_used: started.creditsUsed },
      links: { self },
    });
}

export function registerTestRoutes(r: Router, ctx: AppContext): void {
  r.post('/tests', async (req, reply, links) => {
    const principal = principalOf(req);
    const options = jsonApiBody(req, (body) =>
      parseTestOptions(testAttributes(body), {
        plan: principal.plan,
        catalog: ctx.catalog,
        defaultLocation: ctx.catalog.defaultLocation,
        defaultBrowser: ctx.catalog.defaultBrowser,
      }),
    );
    return queueAndRespond(ctx, req, reply, links, options, 'api');
  });

  r.get('/tests/:id', async (req, reply, links) => {
    const { id } = req.params as { id: string };
    const test = await getTest(ctx.store.db, principalOf(req).accountId, id);
    if (!test) throw testNotFound(id);
    // While it waits: how many tests of its location are ahead (the web app's progress screen says the same).
    const data = testResource(test, links, test.state === 'queued' ? { queuePosition: await queuePosition(ctx.store.db, test) } : {});
    if (test.state === 'completed' && test.report_id) {
      // COMPAT: the 303 body stands alone; several clients never follow the redirect.
      return reply.code(303).header('Location', links.report(test.report_id)).type(JSONAPI).send({ data, links: { self: data.links.self } });
    }
    if (test.state === 'queued' || test.state === 'started') reply.header('Retry-After', '3');
    return reply.code(200).type(JSONAPI).send({ data, links: { self: data.links.self } });
  });
}
