/** A site over time (docs/scans.md "Scheduled scans", "Site history"): scan schedules, and a scan's site history. */
import { FREQUENCY_NAMES } from '../../core/vocabulary/frequencies.js';
import { SITE_BUDGETS } from '../../analysis/named-site-figures.js';
import { alertConditions } from './scan-alerts.js';
import { bool, document, errors, idParams, int, link, obj, ok, ref, resource, str, strings } from './common.js';
import type { JsonSchema, RouteSchema } from './types.js';
import { DEVICE_CLASS_IDS } from '../../core/vocabulary/device-classes.js';

const nullableInt = (description: string): JsonSchema => ({ type: 'integer', nullable: true, description });
const nullableNum = (description: string): JsonSchema => ({ type: 'number', nullable: true, description });
const REPEATING = FREQUENCY_NAMES.filter((f) => f !== 'no');

const frequencyInput = str(`how often: ${REPEATING.join(', ')} (hourly only where the plan offers it)`, { example: 'weekly' });

const ScanScheduleAttributesInput = {
  allOf: [ref('ScanAttributesInput'), obj({ frequency: frequencyInput }, ['frequency'])],
  description: 'frequency, and every attribute of POST /scans: each scan of the schedule is that scan.',
};

const ScanSchedule = resource('scan_schedule', obj({
  url: str('the site: its start page'),
  source: str(undefined, { enum: ['sitemap', 'crawl', 'list'] }),
  frequency: str(undefined, { enum: REPEATING }),
  next_run: nullableInt('Unix time of the next slot (its scan starts within the scheduler\'s 30 s); null when paused'),
  paused: bool(),
  skipped_at: nullableInt('Unix time of the last slot that could not run'),
  skip_reason: str('why it could not run (credits short, the site refused, ...)', { nullable: true }),
  last_scan_id: str('the scan of the last slot that ran', { nullable: true }),
  last_scan_state: str('that scan\'s state; null when it is no longer kept', { nullable: true }),
  created: int('Unix time'),
  location: str(), browser: str(),
  devices: { type: 'array', items: str(undefined, { enum: [...DEVICE_CLASS_IDS] }),
    description: 'Webgauge extension: the devices each slot scans, a scan each (last_scan_id: the first device\'s, which links the others)' },
  max_pages: int(), sample: int(), crawl_depth: int(), respect_robots: bool(), keep_query: bool(),
  include: strings(), exclude: strings(), templates: strings(), sitemaps: strings(), urls_given: int(),
  alert_conditions: { ...alertConditions, description: 'checked when each of its scans completes (as a scan\'s)' },
  options: { type: 'object', description: 'each page\'s test options as POST /scans took them, but url and the secret ones (HTTP password, cookies: kept sealed, never shown)' },
}, ['url', 'source', 'frequency', 'paused', 'created']), obj({ self: link(), last_scan: link() }, ['self']),
'A scan that repeats: the settings and options of its scans, and when the next starts.');

const HistoryPoint = resource('scan_history_point', obj({
  scan: str('scan ID'), created: int('Unix time'), finished: nullableInt('Unix time'),
  schedule_id: str('the schedule that started the scan; null: started by hand', { nullable: true }),
  pages_measured: int('completed pages the figures are made of'),
  ...Object.fromEntries(SITE_BUDGETS.map((b) => [b.name, nullableNum(`${b.about} (${b.unit === 'time' ? 'ms' : b.unit})`)])),
  grades: { type: 'object', additionalProperties: { type: 'integer' }, description: 'pages per grade' },
  lighthouse_versions: strings('the Lighthouse versions that made its pages\' reports'),
}, ['scan', 'created', 'pages_measured']), obj({ scan: link() }, ['scan']), 'A completed scan of the site: its site figures.');

export const SCAN_SCHEDULE_SCHEMAS: Record<string, JsonSchema> = {
  ScanSchedule,
  ScanScheduleDocument: document(ref('ScanSchedule')),
  ScanScheduleStartRequest: obj({ data: obj({ type: str(undefined, { enum: ['scan_schedule'] }), attributes: ScanScheduleAttributesInput },
    ['type', 'attributes']) }, ['data']),
  ScanScheduleStartDocument: obj({
    data: ref('ScanSchedule'),
    meta: obj({ scan: str('the first scan\'s ID (started now; the first device\'s)'), scans: strings('every scan started now, one per device'),
      credits_left: { type: 'number' },
      credits_reserved: { type: 'number', description: 'the first scans\' reservation (every device\'s), as POST /scans' } }, ['scan']),
    links: obj({ self: link(), scan: link() }, ['self']),
  }, ['data', 'meta', 'links']),
  ScanScheduleChangeRequest: obj({ data: obj({ type: str(undefined, { enum: ['scan_schedule'] }), attributes: obj({
    frequency: str(`${REPEATING.join(', ')}: a new slot grid from now (a slot already due sooner is kept)`),
    paused: bool('true: no scan starts until resumed; false: resumes at the grid\'s next slot'),
  }) }) }, ['data']),
  ScanScheduleList: obj({ data: { type: 'array', items: ref('ScanSchedule') }, links: ref('SelfLinks'), meta: obj({ count: int() }) }, ['data']),
  ScanHistoryPoint: HistoryPoint,
  ScanHistory: obj({
    data: { type: 'array', items: ref('ScanHistoryPoint'), description: 'oldest first' },
    meta: obj({ site: str(), device_class: str('the device of every scan of the history'), source: str(), count: int() }),
    links: ref('SelfLinks'),
  }, ['data', 'meta']),
};

const scheduleId = idParams('scan schedule ID');

export const SCAN_SCHEDULE_ROUTES: Record<string, RouteSchema> = {
  'POST /scan_schedules': {
    operationId: 'createScanSchedule',
    summary: 'Schedule a site scan',
    description: 'Stores a scan\'s request (the attributes of POST /scans) and a frequency; starts its first scan now and the next ones on ' +
      'the frequency\'s slots from now. The same settings each time: the same pages are sampled (docs/scans.md).',
    tags: ['Scans'],
    validationErrorCode: 'E40000',
    body: {
      schema: ref('ScanScheduleStartRequest'), errorCode: 'E40002', attributesPath: '/data/attributes', attributesErrorCode: 'E40004',
      hint: 'the body must be {"data":{"type":"scan_schedule","attributes":{"url":"https://example.com/", "frequency":"weekly", ...}}}',
    },
    responses: {
      '201': ok('Scheduled; its first scan started (meta.scan).', ref('ScanScheduleStartDocument'), { location: true }),
      ...errors('E4001', 'E40002', 'E40003', 'E40004', 'E40201', 'E40301', 'E40303', 'E41500'),
    },
  },
  'GET /scan_schedules': {
    operationId: 'listScanSchedules', summary: 'List scan schedules', description: 'The account\'s schedules, newest first (all: at most 100).',
    tags: ['Scans'], validationErrorCode: 'E40000',
    responses: { '200': ok('The schedules.', ref('ScanScheduleList')), ...errors() },
  },
  'GET /scan_schedules/:id': {
    operationId: 'getScanSchedule', summary: 'A scan schedule', description: 'Its settings, options and next run.', tags: ['Scans'],
    params: scheduleId, validationErrorCode: 'E40000', paramsErrorCode: 'E40400',
    responses: { '200': ok('The schedule.', ref('ScanScheduleDocument')), ...errors('E40400') },
  },
  'PATCH /scan_schedules/:id': {
    operationId: 'changeScanSchedule', summary: 'Change, pause or resume a scan schedule',
    description: 'frequency (a new grid from now) and paused; what is scanned does not change (delete and create another).', tags: ['Scans'],
    params: scheduleId, validationErrorCode: 'E40000', paramsErrorCode: 'E40400',
    body: { schema: ref('ScanScheduleChangeRequest'), errorCode: 'E4001',
      hint: 'send {"data":{"type":"scan_schedule","attributes":{"frequency":"daily"}}} or {"data":{"type":"scan_schedule","attributes":{"paused":true}}}' },
    responses: { '200': ok('The schedule, changed.', ref('ScanScheduleDocument')), ...errors('E4001', 'E40301', 'E40303', 'E40400', 'E41500') },
  },
  'DELETE /scan_schedules/:id': {
    operationId: 'deleteScanSchedule', summary: 'Delete a scan schedule', description: 'No more scans start; its scans stay.', tags: ['Scans'],
    params: scheduleId, validationErrorCode: 'E40000', paramsErrorCode: 'E40400',
    responses: { '200': ok('Deleted.', ref('Deleted')), ...errors('E40301', 'E40400') },
  },
  'GET /scans/:id/history': {
    operationId: 'scanSiteHistory', summary: 'A site over time',
    description: 'The account\'s completed scans of scan {id}\'s site and source, the newest 100, oldest first: each one\'s site figures ' +
      '(docs/scans.md "Site history").',
    tags: ['Scans'], params: idParams('scan ID'), validationErrorCode: 'E40000', paramsErrorCode: 'E40400',
    responses: { '200': ok('The history.', ref('ScanHistory')), ...errors('E40400') },
  },
};
