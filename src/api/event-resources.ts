/**
 * The resources webhook payloads carry, built outside any request: the same serializers as the API answers,
 * with links from the service's public address (WEBGAUGE_PUBLIC_URL, else the address it listens on).
 */
import type { Config } from '../config.js';
import { clock } from '../core/clock.js';
import { accountPrincipal } from '../core/pages/monitoring.js';
import { tagIdsForPages } from '../core/pages/page-tags-lookup.js';
import type { EventResources } from '../scheduler/test-events.js';
import type { Store } from '../store/db.js';
import { reportResource, testResource } from './jsonapi.js';
import { Links } from '../context/links.js';
import { alertEventResource } from './routes/alerts.js';

export function eventResources(store: Store, config: Config, listenOrigin: () => string): EventResources {
  const links = () => new Links({ origin: config.publicUrl ?? listenOrigin() }, config);
  return {
    links,
    test: (t) => testResource(t, links()),
    alertEvent: (e) => alertEventResource(e, links()),
    async report(r) {
      const principal = await accountPrincipal(store.db, config.plans, r.account_id);
      const pageTags = (await tagIdsForPages(store.db, [r.page_id])).get(r.page_id) ?? [];
      const plan = { pdf: principal?.plan.pdf ?? false, fullPdf: principal?.plan.fullPdf ?? false };
      return reportResource(r, links(), { legacyBrandFields: config.legacyBrandFields, pageTags, now: clock.now(), plan });
    },
  };
}
