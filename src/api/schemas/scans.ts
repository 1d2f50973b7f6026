/** Site scans (docs/scans.md): POST /scans, the scan, its pages, their downloads, and the cancel. */
import { SCAN_PAGES_LIST, SCAN_PAGE_STATES, SCAN_STATES, SCANS_LIST } from '../../core/vocabulary/lists.js';
import { SKIP_REASONS } from '../../discovery/types.js';
import { figure, shortOf } from '../../analysis/figures.js';
import { COMPARED_METRICS } from '../../analysis/scan-comparison-rules.js';
import { VITAL_NAMES, type Vital } from '../../analysis/site-figures.js';
import { ID_PATTERN, MAX_ID_LENGTH } from '../../core/ids.js';
import { parseListQuery } from '../query.js';
import { bool, document, errors, idParams, int, link, listQuerySchema, num, obj, ok, ref, resource, str, strings } from './common.js';
import { TestAttributesInput } from './tests.js';
import { alertConditions, alertConditionsInput, alertVerdicts, SCAN_ALERT_SCHEMAS } from './scan-alerts.js';
import type { JsonSchema, RouteSchema } from './types.js';
import { DEVICE_CLASS_IDS } from '../../core/vocabulary/device-classes.js';
import { DEVICE_NAME_WORDS } from '../../core/vocabulary/device-names.js';

const nullableInt = (description: string): JsonSchema => ({ type: 'integer', nullable: true, description });
const nullableNum = (description: string): JsonSchema => ({ type: 'number', nullable: true, description });
const patterns = (description: string): JsonSchema => ({ type: 'array', maxItems: 50, items: { type: 'string' }, description });

const ScanAttributesInput = obj(
  {
    ...(TestAttributesInput.properties as Record<string, JsonSchema>),
    url: str('the site: its start page (http or https)', { minLength: 1, example: 'https://example.com/' }),
    source: str('sitemap (default: robots.txt\'s Sitemap lines, else /sitemap.xml), crawl (same-site links from url) or list (urls)',
      { enum: ['sitemap', 'crawl', 'list'] }),
    sitemaps: { type: 'array', maxItems: 20, items: { type: 'string' }, description: 'source sitemap: sitemap URLs of the site to read instead' },
    urls: { type: 'array', maxItems: 50_000, items: { type: 'string' }, description: 'source list: the pages (absolute URLs of the site, or paths)' },
    crawl_depth: { anyOf: [{ type: 'integer', minimum: 0, maximum: 10 }, { type: 'string' }], description: 'source crawl: links deep from url, 0-10, default 3' },
    include: patterns('path patterns (* = any characters): only pages matching one are tested'),
    exclude: patterns('path patterns: pages matching one are not tested'),
    templates: patterns('URL shapes to group pages by (/p/:id, /docs/*), tried before the automatic shape'),
    max_pages: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string' }], description: 'pages tested at most: 1 to the plan\'s max_scan_pages; default 50 or the cap' },
    sample: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }], description: 'pages per template, default 5, 0 = all; the same pages from one scan to the next' },
    respect_robots: { anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }, { type: 'string' }], description: 'default true' },
    keep_query: { anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }, { type: 'string' }], description: 'default false: query strings dropped' },
    alert_conditions: alertConditionsInput,
    devices: { type: 'array', minItems: 1, maxItems: DEVICE_CLASS_IDS.length, items: { type: 'string' },
      description: `Webgauge extension: a scan per device, each page tested once per device (${DEVICE_NAME_WORDS}); ` +
        'default: the one device the options name (device_class). Not with device_class. The response\'s data is the first ' +
        'device\'s scan, the others in included' },
  },
  [],
  { description: 'The scan\'s own attributes and every option of POST /tests (not journey), applied to each page\'s test.' },
);

/** A rated figure's counts and statistics, described from the one table of figures (its short name, unit and bands). */
const vital = (name: Vital) => {
  const f = figure(name);
  const what = `${shortOf(f)}${f.unit === 'time' ? ' (ms)' : ''}; good ≤ ${f.bands!.good}, poor > ${f.bands!.poor}`;
  return obj({ good: int(), needs_improvement: int(), poor: int(), median: nullableNum(`median ${what}`), p75: nullableNum(`75th percentile ${what}`) });
};

const ScanFigures = obj({
  pages_measured: int('completed pages the figures are made of'),
  ...Object.fromEntries(VITAL_NAMES.map((name) => [name, vital(name)])),
  fully_loaded_time: obj({ median: nullableNum('median ms'), p75: nullableNum('75th percentile ms') }),
  performance_score: obj({ median: nullableNum('median score'), p75: nullableNum('the score 75 % of pages reach') }),
  grades: { type: 'object', additionalProperties: { type: 'integer' }, description: 'pages per grade' },
  worst_pages: { type: 'array', items: { type: 'object' }, description: 'lowest performance score first (then highest LCP)' },
  worst_templates: { type: 'array', items: { type: 'object' } },
  structure: { type: 'array', items: obj({ id: str(), title: str(), impact: str(), failing_pages: int(), pages_measured: int(),
    savings_ms: int(), savings_bytes: int() }), description: 'structure audits failing on the most pages, savings added up' },
  third_parties: { type: 'array', items: obj({ origin: str(), pages: int(), requests: int(), bytes: int(), time_ms: int() }) },
}, [], { nullable: true, description: 'site figures, once no page is left to run' });

const ScanResource = resource('scan', obj({
  url: str('the start page'), site: str('the site\'s origin, once discovery began', { nullable: true }),
  source: str(undefined, { enum: ['sitemap', 'crawl', 'list'] }),
  state: str(undefined, { enum: [...SCAN_STATES] }),
  error: str('why the scan ended in error', { nullable: true }),
  created: int('Unix time'), started: nullableInt('Unix time discovery began'), finished: nullableInt('Unix time'),
  location: str(), browser: str(),
  max_pages: int(), sample: int(), crawl_depth: int(), respect_robots: bool(), keep_query: bool(),
  include: strings(), exclude: strings(), templates: strings(), sitemaps: strings(), urls_given: int(),
  alert_conditions: alertConditions,
  found: int('distinct URLs found'),
  skipped: obj(Object.fromEntries(SKIP_REASONS.map((r) => [r, int()]))),
  discovery_errors: strings('what went wrong where (at most 20)'),
  pages: obj({ total: int(), queued: int(), started: int(), completed: int(), failed: int(), cancelled: int() }),
  credits_reserved: num('credits held for pages not yet queued'), credits_used: num('credits of the pages queued'),
  figures: ScanFigures,
  alerts: alertVerdicts,
  schedule_id: str('the schedule that started the scan (it may since have been deleted); null: started by hand', { nullable: true }),
  device_class: str('Webgauge extension: the device its pages ran as; its history, comparisons and alerts are this device\'s',
    { enum: [...DEVICE_CLASS_IDS] }),
  scan_set: str('shared by the scans one request started, one per device; null: a scan of one device', { nullable: true }),
  siblings: { type: 'array', items: obj({ scan: str('scan ID'), device_class: str(undefined, { enum: [...DEVICE_CLASS_IDS] }), state: str() }),
    description: 'the other devices\' scans of its request (links sibling_<device_class>)' },
}, ['url', 'source', 'state', 'created']), { type: 'object', properties: { self: link(), pages: link(), csv: link(), json: link() },
  additionalProperties: link(), required: ['self'], description: 'sibling_<device_class>: each sibling scan' });
/** A scan of several devices relates its siblings (POST /scans answers them in `included`). */
const Scan: JsonSchema = { ...ScanResource, properties: { ...(ScanResource.properties as Record<string, JsonSchema>),
  relationships: obj({ siblings: obj({ data: { type: 'array', items: obj({ type: str(undefined, { enum: ['scan'] }), id: str('scan ID') }, ['type', 'id']) } },
    ['data']) }, [], { description: 'with several devices: the other devices\' scans of its request' }) } };

const ScanPage = resource('scan-page', obj({
  url: str(), template: str(), position: int('its turn in the scan'), state: str(undefined, { enum: [...SCAN_PAGE_STATES] }),
  error: str(undefined, { nullable: true }), test: str('test ID'), report: str('report ID', { nullable: true }),
  grade: str(undefined, { nullable: true }), performance_score: nullableInt(''), structure_score: nullableInt(''),
  largest_contentful_paint: nullableInt('ms'), total_blocking_time: nullableInt('ms'), cumulative_layout_shift: nullableNum(''),
  fully_loaded_time: nullableInt('ms'), page_bytes: nullableInt(''), page_requests: nullableInt(''),
}, ['url', 'template', 'state']), obj({ test: link(), report: link() }));

/* A comparison of two scans (docs/scans.md "Compare two scans"; analysis/scan-comparison-rules.ts). */

const figureValues = {
  grade: str(undefined, { nullable: true }), performance_score: nullableInt(''), largest_contentful_paint: nullableInt('ms'),
  total_blocking_time: nullableInt('ms'), cumulative_layout_shift: nullableNum(''), fully_loaded_time: nullableInt('ms'),
};
const PageSide = obj({
  report: str('report ID', { nullable: true }), ...figureValues,
  lighthouse_version: str('the Lighthouse that made the report', { nullable: true }), runs: int('loads behind the figures'),
});
const CompareReason = obj({
  metric: str(undefined, { enum: ['grade', ...COMPARED_METRICS] }),
  direction: str(undefined, { enum: ['worse', 'better'] }),
  basis: str('test: the Mann-Whitney test over the runs (of a template: over its pages); threshold: a change of at least the threshold', { enum: ['test', 'threshold'] }),
  before: { anyOf: [{ type: 'number' }, { type: 'string' }], description: 'the value compared (a median under a test; a grade\'s letter)' },
  after: { anyOf: [{ type: 'number' }, { type: 'string' }] },
  change: num('after − before; of a grade, letters fallen'), threshold: num('the least change that counted'),
  p: num('the test\'s one-sided p'), n: { type: 'array', items: { type: 'integer' }, description: 'values on each side (runs, or pages of a template)' },
  text: str('e.g. "LCP 1.80 s → 2.90 s"'), why: str('e.g. "+1.10 s, threshold 500 ms" or "Mann-Whitney p = 0.004 over 5 and 5 runs; ..."'),
}, ['metric', 'direction', 'basis', 'text', 'why']);
const verdict = str(undefined, { enum: ['worse', 'better', 'unchanged'] });
const ComparedPage = obj({
  url: str(), template: str(), verdict, basis: str(undefined, { enum: ['test', 'threshold'] }), before: PageSide, after: PageSide,
  changes: { type: 'object', additionalProperties: { type: 'number', nullable: true }, description: 'after − before of each figure; grade: letters fallen' },
  reasons: { type: 'array', items: CompareReason },
}, ['url', 'template', 'verdict', 'basis', 'before', 'after', 'reasons']);
const OtherPage = obj({ url: str(), template: str(), state: str(), error: str(undefined, { nullable: true }), side: PageSide });
const pageState = obj({ state: str(), error: str(undefined, { nullable: true }), report: str(undefined, { nullable: true }) });
const ComparedScanSide = obj({
  scan: str('scan ID'), url: str(), site: str(undefined, { nullable: true }), source: str(),
  device_class: str('the device both scans ran as', { enum: [...DEVICE_CLASS_IDS] }), state: str(),
  created: int('Unix time'), finished: nullableInt('Unix time'),
  options: { type: 'object', additionalProperties: { anyOf: [{ type: 'string', nullable: true }, { type: 'number' }] },
    description: 'the test options that change figures: location, browser, throttle, simulate_device, viewport, user_agent, report, runs' },
});

const ScanComparison = resource('scan-comparison', obj({
  before: ComparedScanSide, after: ComparedScanSide,
  notes: strings('what to know before the verdicts: different test options or Lighthouse versions, another site, a cancelled scan'),
  grades_compared: bool('false when some pages\' reports read different structure audits (Lighthouse 12 and 13): their grades are left out'),
  counts: obj({ matched: int(), worse: int(), better: int(), unchanged: int(), new: int(), gone: int(), failed: int() }),
  figures: obj({ before: { ...ScanFigures, nullable: true }, after: { ...ScanFigures, nullable: true } }, [], { description: 'both scans\' site figures' }),
  site_figures: { type: 'array', items: obj({ figure: str(), label: str(), unit: str(), better: str(), before: nullableNum(''), after: nullableNum(''),
    change: nullableNum('') }), description: 'the main site figures side by side' },
  pages: { type: 'array', items: ComparedPage, description: 'pages of both scans, matched by URL: worse first, then better, then unchanged' },
  new_pages: { type: 'array', items: OtherPage, description: 'only in the after scan' },
  gone_pages: { type: 'array', items: OtherPage, description: 'only in the before scan' },
  failed_pages: { type: 'array', items: obj({ url: str(), template: str(), before: pageState, after: pageState }), description: 'in both, not measured in one' },
  templates: { type: 'array', items: obj({ template: str(), pages: int('matched pages'), verdict, reasons: { type: 'array', items: CompareReason } }) },
  rules: obj({ alpha: num('significance level of the tests'), thresholds: { type: 'object', additionalProperties: { type: 'number' } },
    grade_letters: int(), tested_share: num('under a test, the least change that counts: this share of the threshold'), template_test_min_pages: int() }),
}, ['before', 'after', 'notes', 'counts', 'pages']), obj({ self: link(), before: link(), after: link() }, ['self']));

export const SCAN_SCHEMAS: Record<string, JsonSchema> = {
  ...SCAN_ALERT_SCHEMAS,
  ScanComparison,
  ScanComparisonDocument: document(ref('ScanComparison')),
  ScanAttributesInput,
  ScanStartRequest: obj({ data: obj({ type: str(undefined, { enum: ['scan'] }), attributes: ref('ScanAttributesInput') }, ['type', 'attributes']) }, ['data']),
  Scan,
  ScanDocument: document(ref('Scan')),
  ScanStartDocument: obj({
    data: ref('Scan'),
    included: { type: 'array', items: ref('Scan'), description: 'with devices: the other devices\' scans' },
    meta: obj({ credits_left: num('credits after the reservation'),
      credits_reserved: num('max_pages tests\' credits of every device, the unused given back after discovery'),
      scans: strings('the scans started, one per device, in the order of devices') }),
    links: obj({ self: link() }, ['self']),
  }, ['data', 'meta', 'links']),
  ScanList: obj({ data: { type: 'array', items: ref('Scan') }, links: ref('ListLinks'), meta: ref('ListMeta') }, ['data', 'links', 'meta']),
  ScanPage,
  ScanPageList: obj({ data: { type: 'array', items: ref('ScanPage') }, links: ref('ListLinks'), meta: ref('ListMeta') }, ['data', 'links', 'meta']),
};

const scanId = idParams('scan ID');

export const SCAN_ROUTES: Record<string, RouteSchema> = {
  'POST /scans': {
    operationId: 'startScan',
    summary: 'Start a site scan',
    description: 'Discovers the site\'s pages (sitemap, crawl or a list), then tests each as an ordinary test (source scan). ' +
      'Reserves max_pages tests\' credits up front and gives back the unused after discovery (docs/scans.md).',
    tags: ['Scans'],
    validationErrorCode: 'E40000',
    body: {
      schema: ref('ScanStartRequest'), errorCode: 'E40002', attributesPath: '/data/attributes', attributesErrorCode: 'E40004',
      hint: 'the body must be {"data":{"type":"scan","attributes":{"url":"https://example.com/", "source":"sitemap", ...}}}',
    },
    responses: {
      '202': ok('Scan started; poll the Location.', ref('ScanStartDocument'), { location: true }),
      ...errors('E40002', 'E40003', 'E40004', 'E40201', 'E40301', 'E41500'),
    },
  },
  'GET /scans': {
    operationId: 'listScans', summary: 'List scans', description: 'The account\'s scans, newest first.', tags: ['Scans'],
    querystring: listQuerySchema(SCANS_LIST, 'created descending'),
    validationErrorCode: 'E40005',
    explainQuery: (q) => void parseListQuery(SCANS_LIST, q),
    responses: { '200': ok('A page of scans.', ref('ScanList')), ...errors('E40005', 'E40006', 'E40007', 'E40008') },
  },
  'GET /scans/:id': {
    operationId: 'getScan', summary: 'A scan', description: 'State and counts while it runs; site figures when done.', tags: ['Scans'],
    params: scanId, validationErrorCode: 'E40000', paramsErrorCode: 'E40400',
    responses: { '200': ok('The scan (with Retry-After while it runs).', ref('ScanDocument'), { retryAfter: true }), ...errors('E40400') },
  },
  'DELETE /scans/:id': {
    operationId: 'cancelScan', summary: 'Cancel a scan',
    description: 'Queued pages are dropped and refunded; the page loading now finishes; the reports made so far stay.', tags: ['Scans'],
    params: scanId, validationErrorCode: 'E40000', paramsErrorCode: 'E40400',
    responses: { '200': ok('The scan, cancelled (or as it was, when it had finished).', ref('ScanDocument')), ...errors('E40301', 'E40400') },
  },
  'GET /scans/:id/pages': {
    operationId: 'listScanPages', summary: 'A scan\'s pages', description: 'Sortable on every figure, filterable by state, template and grade.',
    tags: ['Scans'], params: scanId, paramsErrorCode: 'E40400',
    querystring: listQuerySchema(SCAN_PAGES_LIST, 'position ascending'),
    validationErrorCode: 'E40005',
    explainQuery: (q) => void parseListQuery(SCAN_PAGES_LIST, q),
    responses: { '200': ok('A page of the scan\'s pages.', ref('ScanPageList')), ...errors('E40005', 'E40006', 'E40007', 'E40008', 'E40400') },
  },
  'GET /scans/:id/compare/:other': {
    operationId: 'compareScans', summary: 'Compare two scans',
    description: 'Scan {id} (before) against scan {other} (after), pages matched by URL: each page\'s changes and whether it got ' +
      'significantly worse or better (the Mann-Whitney test over the runs when both sides have enough, else thresholds), new, gone ' +
      'and failed pages, templates, both scans\' site figures. {other} = last: scan {id} (after) against the account\'s previous ' +
      'completed scan of the same site, device and source (before). Both scans must have finished and be of one device (docs/scans.md).',
    tags: ['Scans'],
    params: idParams('scan ID', { other: str('the other scan\'s ID, or last', { minLength: 1, maxLength: MAX_ID_LENGTH, pattern: ID_PATTERN }) }),
    validationErrorCode: 'E40000', paramsErrorCode: 'E40400',
    responses: { '200': ok('The comparison.', ref('ScanComparisonDocument')), ...errors('E40003', 'E40400') },
  },
  'GET /scans/:id/pages.csv': {
    operationId: 'downloadScanPagesCsv', summary: 'A scan\'s pages as CSV', description: 'Every page, a header row first.', tags: ['Scans'],
    params: scanId, validationErrorCode: 'E40000', paramsErrorCode: 'E40400',
    responses: { '200': { description: 'text/csv', content: { 'text/csv': { type: 'string' } } }, ...errors('E40400') },
  },
  'GET /scans/:id/pages.json': {
    operationId: 'downloadScanPagesJson', summary: 'A scan\'s pages as JSON', description: '{"scan", "site", "pages": [...]}', tags: ['Scans'],
    params: scanId, validationErrorCode: 'E40000', paramsErrorCode: 'E40400',
    responses: { '200': { description: 'application/json', content: { 'application/json': { type: 'object' } } }, ...errors('E40400') },
  },
};
