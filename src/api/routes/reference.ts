import { fromTenths, refilledCredits } from '../../core/accounts/accounts.js';
import { ApiError } from '../../core/errors.js';
import { principalOf } from '../auth.js';
import type { AppContext } from '../../context/app-context.js';
import { JSONAPI } from '../errors.js';
import type { Router } from '../router.js';

/** GET /status, locations, browsers and simulated devices. */
export function registerReferenceRoutes(r: Router, ctx: AppContext): void {
  const { catalog } = ctx;

  r.get('/status', async (req, reply) => {
    const p = principalOf(req);
    const credits = await refilledCredits(ctx.store.db, p.accountId, p.plan);
    return reply.type(JSONAPI).send({
      data: {
        type: 'user',
        id: p.apiKey,
        attributes: {
          api_credits: fromTenths(credits.tenths),
          api_refill: Math.floor(credits.nextRefill / 1000),
          api_refill_amount: p.plan.dailyCredits,
          // The spec's values are Basic and Pro; an operator's plan shows under its own name, capitalised alike.
          account_type: p.plan.name.charAt(0).toUpperCase() + p.plan.name.slice(1),
          account_pro_analysis_options_access: p.plan.proAnalysisOptions,
          account_pro_locations_access: p.plan.proLocations,
          account_whitelabel_pdf_access: p.plan.whitelabelPdf,
        },
      },
    });
  });

  const locationResource = (l: ReturnType<typeof catalog.locations>[number], links: { location(id: string): string }) => ({
    type: 'location',
    id: l.id,
    attributes: {
      name: l.name, region: l.region, default: l.default, account_has_access: true, browsers: l.browsers,
      ...(l.agentsOnline === undefined ? {} : { agents_online: l.agentsOnline }),
    },
    links: { self: links.location(l.id) },
  });

  r.get('/locations', async (_req, reply, links) => reply.type(JSONAPI).send({ data: catalog.locations().map((l) => locationResource(l, links)) }));
  r.get('/locations/:id', async (req, reply, links) => {
    const { id } = req.params as { id: string };
    const l = catalog.location(id);
    if (!l) throw new ApiError('E40404', `No location with ID ${id}; GET /locations lists them.`);
    return reply.type(JSONAPI).send({ data: locationResource(l, links) });
  });

  const browserResource = (b: ReturnType<typeof catalog.browsers>[number], links: { browser(id: string): string }) => {
    const { id, ...attributes } = b;
    return { type: 'browser', id, attributes, links: { self: links.browser(id) } };
  };
  r.get('/browsers', async (_req, reply, links) => reply.type(JSONAPI).send({ data: catalog.browsers().map((b) => browserResource(b, links)) }));
  r.get('/browsers/:id', async (req, reply, links) => {
    const { id } = req.params as { id: string };
    const b = catalog.browser(id);
    if (!b) throw new ApiError('E40403', `No browser with ID ${id}; GET /browsers lists them.`);
    return reply.type(JSONAPI).send({ data: browserResource(b, links) });
  });

  const deviceResource = (d: ReturnType<typeof catalog.devices>[number], api: string) => {
    const { id, ...attributes } = d;
    return { type: 'simulated_device', id, attributes, links: { self: `${api}/simulated-devices/${id}` } };
  };
  r.get('/simulated-devices', async (_req, reply, links) => reply.type(JSONAPI).send({ data: catalog.devices().map((d) => deviceResource(d, links.api)) }));
  r.get('/simulated-devices/:id', async (req, reply, links) => {
    const { id } = req.params as { id: string };
    const d = catalog.device(id);
    if (!d) throw new ApiError('E40408', `No simulated device with ID ${id}; GET /simulated-devices lists them.`);
    return reply.type(JSONAPI).send({ data: deviceResource(d, links.api) });
  });
}
