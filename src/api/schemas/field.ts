/** Field data (issue 50): field sites, their figures from real visitors, and the downloads. docs/field.md says it in words. */
import { FIELD_FIGURE_NAMES } from '../../analysis/figures.js';
import { FIELD_DEVICES } from '../../core/field/beacon.js';
import { BREAKDOWNS, CONNECTION_CLASSES, DEFAULT_WINDOW_DAYS, parseBreakdown, parseFieldQuery } from '../../core/field/figures.js';
import { FIELD_SITE_NAME_MAX, MAX_ORIGINS, MAX_RAW_RETENTION_DAYS, MAX_TEMPLATES, MAX_WINDOW_DAYS } from '../../core/field/sites.js';
import { BROWSER_FAMILIES } from '../../core/field/visitor.js';
import { bool, document, errors, idParams, int, link, num, obj, ok, ref, resource, str, strings } from './common.js';
import type { JsonSchema, RouteSchema } from './types.js';

const HINT = 'send {"data":{"type":"field_site","attributes":{"name":"Shop","origins":["https://shop.example.com"]}}}';

const siteAttributes = (required: string[]) => obj({
  name: str(`1 to ${FIELD_SITE_NAME_MAX} characters`, { example: 'Shop' }),
  origins: strings(`1 to ${MAX_ORIGINS} origins the site's pages are served from (scheme, host, port): a beacon is taken only from a page of one of them`),
  sample_rate: num('the share of page views measured, in percent (above 0, at most 100; default 100): decided per page view before anything is measured'),
  templates: strings(`at most ${MAX_TEMPLATES} URL templates (path patterns: /blog/:slug, /docs/*), matched before the scans' own rules`),
  keep_query: bool('keep query strings in URLs (default false: dropped by the snippet and by the server)'),
  honour_gpc: bool('send nothing from a browser that sends Global Privacy Control (default true)'),
  raw_retention_days: int(`days raw page views are kept for the attribution lists, 1 to ${MAX_RAW_RETENTION_DAYS} (default 7); the figures are kept ${MAX_WINDOW_DAYS} days`),
}, required);

const metricFigures = obj({
  page_views: int('views that measured this metric'),
  p50: num('ms (CLS: unitless); null without views'), p75: num('the figure CrUX and Google judge by'), p90: num(),
  good: num('share 0-1 of views in the good band'), needs_improvement: num(), poor: num(),
  rating: str('the p75\'s band', { enum: ['good', 'needs_improvement', 'poor', null], nullable: true }),
});
const metrics = obj(Object.fromEntries(FIELD_FIGURE_NAMES.map((m) => [m, metricFigures])));
const windowSchema = obj({ days: int(), from: int('Unix seconds: the first day\'s start (UTC)'), to: int('Unix seconds: now') });

const query = (extra: Record<string, JsonSchema> = {}): JsonSchema => obj({
  days: str(`the window: the last 1 to ${MAX_WINDOW_DAYS} UTC days, today the last (default ${DEFAULT_WINDOW_DAYS})`, { pattern: '^\\d+$' }),
  device: str('mobile, tablet or desktop', { enum: [...FIELD_DEVICES] }),
  template: str('a URL template, e.g. /blog/:slug'),
  path: str('a path, e.g. /blog/hello (only a tracked path: the site\'s 1,000 most viewed)'),
  connection: str('effective connection type', { enum: [...CONNECTION_CLASSES] }),
  browser: str('browser family', { enum: [...BROWSER_FAMILIES] }),
  ...extra,
}, [], { additionalProperties: false });

export const FIELD_SCHEMAS: Record<string, JsonSchema> = {
  FieldSite: resource('field_site', obj({
    name: str(), origins: strings(), sample_rate: num(), templates: strings(), keep_query: bool(), honour_gpc: bool(),
    raw_retention_days: int(), created: int('Unix seconds'),
    snippet: str('the one <script> tag to paste into the site\'s pages (its settings carried as data- attributes)'),
    beacon_url: link('where the snippet sends its beacons'),
  }, ['name', 'origins', 'sample_rate', 'templates', 'keep_query', 'honour_gpc', 'raw_retention_days', 'created', 'snippet']),
    obj({ self: link(), alert_conditions: link('the site\'s alert conditions'), alert_events: link('when they triggered and resolved') }, ['self'])),
  FieldSiteDocument: document(ref('FieldSite')),
  FieldSiteList: obj({ data: { type: 'array', items: ref('FieldSite') }, links: ref('SelfLinks') }, ['data']),
  FieldSiteRequest: obj({ data: obj({ type: str('field_site (may be omitted)', { enum: ['field_site'] }), attributes: siteAttributes(['name', 'origins']) }, ['attributes']) }, ['data']),
  FieldSiteChangeRequest: obj({ data: obj({ type: str('field_site (may be omitted)', { enum: ['field_site'] }), attributes: siteAttributes([]) }, ['attributes']) }, ['data']),
  FieldSummary: document(resource('field_summary', obj({ window: windowSchema, filters: obj({}), page_views: int(), metrics }), obj({ self: link() }))),
  FieldBreakdown: obj({ data: { type: 'array', items: resource('field_breakdown_row', obj({ by: str(), value: str(), page_views: int(), metrics }), obj({})) },
    meta: obj({ window: windowSchema }) }, ['data']),
  FieldSeries: obj({ data: { type: 'array', items: resource('field_day', obj({ day: int('Unix seconds: the day\'s start (UTC)'), page_views: int(),
    p75: obj(Object.fromEntries(FIELD_FIGURE_NAMES.map((m) => [m, num()]))) }), obj({})) }, meta: obj({ window: windowSchema }) }, ['data']),
  FieldAttribution: document(resource('field_attribution', obj({ page_views_read: int('the newest raw views of the window read (at most 20,000)'), from: int() }), obj({}))),
  FieldIntake: document(resource('field_intake', obj({ last_five_minutes: int('page views taken in the last five minutes'), accepted: int(),
    refused: obj({ foreign_origin: int(), malformed: int(), too_large: int(), out_of_bounds: int(), rate_limited: int(), gpc: int() }) }), obj({}))),
};

const siteId = idParams('field site ID');
// The route's own check names what is wrong precisely (a repeated key, a day count out of range) before the schema's words.
const explainQuery = (q: Record<string, string | string[]>) => { parseFieldQuery(q); };
const explainBreakdown = (q: Record<string, string | string[]>) => { parseBreakdown(q.by); parseFieldQuery({ ...q, by: undefined }); };
const base = { tags: ['Field data'], params: siteId, validationErrorCode: 'E40005' as const, paramsErrorCode: 'E40418' as const, explainQuery };

export const FIELD_ROUTES: Record<string, RouteSchema> = {
  'GET /field_sites': {
    operationId: 'listFieldSites', summary: 'List field sites', description: 'The account\'s sites that collect real visitors\' figures, oldest first.',
    tags: ['Field data'], validationErrorCode: 'E40000', responses: { '200': ok('The sites.', ref('FieldSiteList')), ...errors() },
  },
  'POST /field_sites': {
    operationId: 'createFieldSite', summary: 'Create a field site', description: 'Answers the site with the snippet to paste.', tags: ['Field data'],
    validationErrorCode: 'E40000', body: { schema: ref('FieldSiteRequest'), errorCode: 'E4001', hint: HINT },
    responses: { '201': ok('The site.', ref('FieldSiteDocument'), { location: true }), ...errors('E4001', 'E40002', 'E40301', 'E41500') },
  },
  'GET /field_sites/:id': {
    ...base, validationErrorCode: 'E40000', operationId: 'getFieldSite', summary: 'A field site', description: 'Its settings and snippet.',
    responses: { '200': ok('The site.', ref('FieldSiteDocument')), ...errors('E40418') },
  },
  'PATCH /field_sites/:id': {
    ...base, validationErrorCode: 'E40000', operationId: 'changeFieldSite', summary: 'Change a field site',
    description: 'Only the attributes given change. A new sample rate, query or GPC setting changes the snippet: paste it again.',
    body: { schema: ref('FieldSiteChangeRequest'), errorCode: 'E4001', hint: HINT },
    responses: { '200': ok('The site, changed.', ref('FieldSiteDocument')), ...errors('E4001', 'E40002', 'E40301', 'E40418', 'E41500') },
  },
  'DELETE /field_sites/:id': {
    ...base, validationErrorCode: 'E40000', operationId: 'deleteFieldSite', summary: 'Delete a field site', description: 'The site and everything collected for it.',
    responses: { '200': ok('Deleted.', ref('Deleted')), ...errors('E40301', 'E40418') },
  },
  'GET /field_sites/:id/summary': {
    ...base, operationId: 'fieldSummary', summary: 'Real visitors\' figures',
    description: 'Per metric (LCP, INP, CLS, FCP, TTFB): p50, p75, p90 and the shares good / needs improvement / poor (web.dev\'s bands) over the window, with filters; read from the hourly rollups (p75 within 1 % of the exact).',
    querystring: query(), responses: { '200': ok('The summary.', ref('FieldSummary')), ...errors('E40005', 'E40418') },
  },
  'GET /field_sites/:id/breakdown': {
    ...base, operationId: 'fieldBreakdown', summary: 'Real visitors\' figures by a key', description: 'One row per template, path, device, connection or browser, most viewed first (at most 100).',
    querystring: query({ by: str('template, path, device, connection or browser', { enum: [...BREAKDOWNS] }) }), explainQuery: explainBreakdown,
    responses: { '200': ok('The rows.', ref('FieldBreakdown')), ...errors('E40005', 'E40418') },
  },
  'GET /field_sites/:id/series': {
    ...base, operationId: 'fieldSeries', summary: 'Daily p75', description: 'Each day of the window with views: its views and each metric\'s p75.',
    querystring: query(), responses: { '200': ok('The days.', ref('FieldSeries')), ...errors('E40005', 'E40418') },
  },
  'GET /field_sites/:id/attribution': {
    ...base, operationId: 'fieldAttribution', summary: 'What slows real visitors',
    description: 'From the raw views (within the raw retention): LCP elements and resources, INP targets and scripts, CLS shift targets, each with its count and the p75 of those views.',
    querystring: query(), responses: { '200': ok('The lists.', ref('FieldAttribution')), ...errors('E40005', 'E40418') },
  },
  'GET /field_sites/:id/intake': {
    ...base, validationErrorCode: 'E40005', operationId: 'fieldIntake', summary: 'Beacons received and refused',
    description: 'Page views taken in the last five minutes; over the window, beacons taken and refused per reason.',
    querystring: obj({ days: str(`1 to ${MAX_WINDOW_DAYS} (default ${DEFAULT_WINDOW_DAYS})`, { pattern: '^\\d+$' }) }, [], { additionalProperties: false }),
    responses: { '200': ok('The counts.', ref('FieldIntake')), ...errors('E40005', 'E40418') },
  },
  'GET /field_sites/:id/series.csv': {
    ...base, operationId: 'downloadFieldSeriesCsv', summary: 'Daily p75 as CSV', description: 'One row per day, a header row first.',
    querystring: query(), responses: { '200': { description: 'text/csv', content: { 'text/csv': { type: 'string' } } }, ...errors('E40005', 'E40418') },
  },
  'GET /field_sites/:id/breakdown.csv': {
    ...base, operationId: 'downloadFieldBreakdownCsv', summary: 'A breakdown as CSV', description: 'One row per value, every metric\'s p50/p75/p90 and shares.',
    querystring: query({ by: str('template, path, device, connection or browser', { enum: [...BREAKDOWNS] }) }), explainQuery: explainBreakdown,
    responses: { '200': { description: 'text/csv', content: { 'text/csv': { type: 'string' } } }, ...errors('E40005', 'E40418') },
  },
};
