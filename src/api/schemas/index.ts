/**
 * The route schema registry: one entry per authenticated route, keyed `"<METHOD> <path as registered in the
 * router>"`. The router refuses a route without an entry; Fastify validates params and querystring with it;
 * body.ts validates the JSON:API body with it; openapi.ts builds the OpenAPI document from it.
 */
import { ALERT_ROUTES, ALERT_SCHEMAS } from './alerts.js';
import { COMMON_SCHEMAS, HEADERS, QUERY_SCHEMAS } from './common.js';
import { PAGE_ROUTES, PAGE_SCHEMAS } from './pages.js';
import { REFERENCE_ROUTES, REFERENCE_SCHEMAS } from './reference.js';
import { REPORT_ROUTES, REPORT_SCHEMAS } from './reports.js';
import { TAG_ROUTES, TAG_SCHEMAS } from './tags.js';
import { SCAN_ROUTES, SCAN_SCHEMAS } from './scans.js';
import { SCAN_SCHEDULE_ROUTES, SCAN_SCHEDULE_SCHEMAS } from './scan-schedules.js';
import { TEST_ROUTES, TEST_SCHEMAS } from './tests.js';
import { FIELD_ROUTES, FIELD_SCHEMAS } from './field.js';
import { LAB_FIELD_ROUTES, LAB_FIELD_SCHEMAS } from './lab-field.js';
import { FIELD_ALERT_ROUTES, FIELD_ALERT_SCHEMAS } from './field-alerts.js';
import type { JsonSchema, RouteSchema } from './types.js';

export type { BodySpec, JsonSchema, Method, ResponseDoc, RouteKey, RouteSchema } from './types.js';

export const ROUTE_SCHEMAS: Readonly<Record<string, RouteSchema>> = {
  ...TEST_ROUTES,
  ...REPORT_ROUTES,
  ...PAGE_ROUTES,
  ...TAG_ROUTES,
  ...REFERENCE_ROUTES,
  ...ALERT_ROUTES,
  ...SCAN_ROUTES,
  ...SCAN_SCHEDULE_ROUTES,
  ...FIELD_ROUTES,
  ...LAB_FIELD_ROUTES,
  ...FIELD_ALERT_ROUTES,
};

/** `components.schemas` of the document; `$ref`s in route schemas point here. */
export const COMPONENT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ...COMMON_SCHEMAS,
  ...QUERY_SCHEMAS,
  ...TEST_SCHEMAS,
  ...REPORT_SCHEMAS,
  ...PAGE_SCHEMAS,
  ...TAG_SCHEMAS,
  ...REFERENCE_SCHEMAS,
  ...ALERT_SCHEMAS,
  ...SCAN_SCHEMAS,
  ...SCAN_SCHEDULE_SCHEMAS,
  ...FIELD_SCHEMAS,
  ...LAB_FIELD_SCHEMAS,
  ...FIELD_ALERT_SCHEMAS,
};

export const COMPONENT_HEADERS: Readonly<Record<string, JsonSchema>> = HEADERS;

/** OpenAPI tags, in the order the document lists them. */
export const API_TAGS = [
  { name: 'Tests', description: 'Start tests and follow them (spec 4.1).' },
  { name: 'Reports', description: 'Reports and their downloadable resources (spec 4.2).' },
  { name: 'Pages', description: 'Pages: reports of one URL with the same options (spec 4.3).' },
  { name: 'Tags', description: 'Page tags (spec 4.4).' },
  { name: 'Scans', description: 'Site scans: a site\'s pages from its sitemap, a crawl or a list, each an ordinary test (Webgauge extension, docs/scans.md).' },
  { name: 'Field data', description: 'Real visitors\' figures collected by the field snippet (Webgauge extension, docs/field.md).' },
  { name: 'Alerts', description: 'Alert conditions and events of a page, webhooks and their deliveries.' },
  { name: 'Reference data', description: 'Locations, browsers and simulated devices (spec 4.5).' },
  { name: 'Account', description: 'Account status and credits.' },
];

export const routeKey = (method: string, path: string): string => `${method} ${path}`;

export function routeSchema(key: string): RouteSchema | undefined {
  return Object.prototype.hasOwnProperty.call(ROUTE_SCHEMAS, key) ? ROUTE_SCHEMAS[key] : undefined;
}
