/** Tests (spec 2.1, 4.1): POST /tests with its lenient body, the test list and the poll endpoint. */
import { DEVICE_CLASS_IDS, DEVICE_CLASS_WORDS } from '../../core/vocabulary/device-classes.js';
import { TESTS_LIST } from '../../core/vocabulary/lists.js';
import { DEFAULT_RETENTION, RETENTION_MONTHS } from '../../core/vocabulary/retentions.js';
import { orList } from '../../lib/words.js';
import { parseListQuery } from '../query.js';
import { document, errors, idParams, int, link, listQuerySchema, num, obj, ok, ref, resource, str } from './common.js';
import type { JsonSchema, RouteSchema } from './types.js';

/* ---------- the lenient attribute forms (COMPAT "Lenient input on POST /tests") ---------- */

const BLANK = '\\s*';
/** null and an empty or blank string mean "not given". */
const notGiven = 'null or an empty string mean "not given"';

const flag = (description: string): JsonSchema => ({
  description: `${description}. 0 or 1; also "0"/"1", "true"/"false" and false/true; ${notGiven}`,
  anyOf: [
    { type: 'integer', enum: [0, 1] },
    { type: 'boolean' },
    { type: 'string', nullable: true, pattern: `^(?:0|1|true|false|${BLANK})$` },
  ],
});
const text = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', nullable: true, description: `${description}; ${notGiven}`, ...extra });
const idOf = (description: string): JsonSchema => ({
  description: `${description}: an ID string (an integer is accepted too); ${notGiven}`,
  anyOf: [{ type: 'string', nullable: true }, { type: 'integer' }],
});
const stringList = (description: string): JsonSchema => ({
  description: `${description}. An array of strings (at most 100); a single string is one item; null or blank items are ignored`,
  anyOf: [
    { type: 'string', nullable: true },
    { type: 'array', maxItems: 100, items: { type: 'string', nullable: true } },
  ],
});
const integer = (description: string, min: number, max: number): JsonSchema => ({
  description: `${description}: an integer from ${min} to ${max}, or the same as a string; ${notGiven}`,
  anyOf: [
    { type: 'integer', minimum: min, maximum: max },
    { type: 'string', nullable: true, pattern: '^\\s*\\d*\\s*$' },
  ],
});

export const TestAttributesInput = obj(
  {
    url: str('page URL (http or https; a missing scheme means http); required unless journey is given', { minLength: 1, example: 'https://example.com/' }),
    location: idOf('test location (GET /locations); the account default when omitted'),
    browser: idOf('browser (GET /browsers); the default browser when omitted'),
    report: text('lighthouse (default), legacy, "lighthouse,legacy" or none (metrics only); any case and order. A browser ' +
      'whose "lighthouse" is false (Firefox (Desktop)) runs legacy by default and refuses the Lighthouse types', { example: 'lighthouse' }),
    retention: {
      description: `report retention in months: ${orList(RETENTION_MONTHS.map((m) => (m === DEFAULT_RETENTION ? `${m} (default)` : m)))}, as an integer or a string; ${notGiven}`,
      anyOf: [
        { type: 'integer', enum: [...RETENTION_MONTHS] },
        { type: 'string', nullable: true, pattern: `^\\s*(?:0*(?:${RETENTION_MONTHS.join('|')}))?\\s*$` },
      ],
    },
    httpauth_username: text('HTTP authentication user name for the tested page (not the API key)'),
    httpauth_password: text('HTTP authentication password for the tested page; needs httpauth_username'),
    adblock: flag('block ads'),
    cookies: stringList('cookies sent with the page requests, one per string in Set-Cookie form: "name=value; Domain=...; Path=/"'),
    video: flag('record a video of the load (extra credits)'),
    stop_onload: flag('stop at window.onload instead of after 2 s of network quiet'),
    throttle: text('connection throttle "down/up/latency": Kbit/s, Kbit/s, ms, e.g. "5000/1000/30"', {
      pattern: '^\\s*(?:\\d{1,9}\\s*/\\s*\\d{1,9}\\s*/\\s*\\d{1,9})?\\s*$',
    }),
    allow_url: stringList('only matching resources load; "*" matches anything, the pattern may match anywhere in the URL'),
    block_url: stringList('matching resources are blocked; applied after allow_url'),
    anonymize_user_agent: flag('older variant only: accepted and ignored'),
    dns: stringList('pro plans: custom DNS, "host:ip_address" ("*.example.com" for all subdomains)'),
    simulate_device: text('pro plans: a simulated device ID (GET /simulated-devices) or its name; a device is a mid-tier phone ' +
      '(device_class "phone-mid": its CPU and slow 4G link) unless device_class says otherwise'),
    device_class: text(`Webgauge extension: the device the page runs as, ${DEVICE_CLASS_WORDS}: a phone's CPU is the agent's, slowed ` +
      'to the phone\'s benchmark (1000 mid-tier, 264 low-tier), its link slow 4G ("1600/750/150") unless throttle names one, its ' +
      'screen the simulated device\'s or 412×823 at 1.75; default "phone-mid" with simulate_device (in a browser whose ' +
      'cpu_throttle is true), else "desktop"; "desktop" with simulate_device keeps the device\'s screen on the agent\'s own CPU',
    { pattern: `^\\s*(?:${DEVICE_CLASS_IDS.join('|')})?\\s*$` }),
    user_agent: text('pro plans: User-Agent header for the load'),
    browser_width: integer('pro plans: viewport width in px; needs browser_height; default 1366', 1, 10_000),
    browser_height: integer('pro plans: viewport height in px; needs browser_width; default 768', 1, 10_000),
    browser_dppx: {
      description: `pro plans: device pixel ratio from 1 to 5, decimals allowed, as a number or a string; ${notGiven}`,
      anyOf: [
        { type: 'number', minimum: 1, maximum: 5 },
        { type: 'string', nullable: true, pattern: '^\\s*(?:\\d+(?:\\.\\d+)?)?\\s*$' },
      ],
    },
    browser_rotate: flag('pro plans: swap viewport width and height'),
    journey: {
      description: 'Webgauge extension: a Chrome DevTools Recorder recording (the JSON the Recorder panel exports, as an ' +
        'object or as its text), replayed in one fresh browser and measured step by step as Lighthouse measures a user flow: ' +
        'each navigation step (navigate, or a step with assertedEvents navigation) with a page load\'s figures, the ' +
        'interactions between them as one timespan (INP, TBT, CLS). Its first navigate step gives url. At most ' +
        '50 steps and 256 KB; charged a test\'s credits for each measured step; report must be lighthouse',
      anyOf: [{ type: 'object' }, { type: 'string' }],
    },
    journey_secrets: {
      // Values are checked by core (core/options/journey.ts), whose messages never quote a secret.
      type: 'object', nullable: true,
      description: 'Webgauge extension: values of the journey\'s {{secrets.NAME}} placeholders ({"NAME": "value"}); write-only ' +
        '(never shown again, not even in analysis-options), sealed at rest, filled in only when a step runs, and removed from ' +
        'everything the test stores',
    },
    journey_measured_step: integer('Webgauge extension: the navigation step (index into the journey\'s steps) whose figures ' +
      'the report gives; default the last navigation step', 0, 49),
    runs: {
      description: 'Webgauge extension: how many times the page is loaded, each in a fresh browser; the report is the ' +
        'median run (GET /reports/{id}: meta.runs, resource runs.json). 1 (default) to the plan\'s max_runs ' +
        `(basic 3, pro 9); costs the test's credits times runs, a video once. An integer or the same as a string; ${notGiven}`,
      anyOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', nullable: true, pattern: '^\\s*\\d*\\s*$' },
      ],
    },
  },
  [],
  { description: 'Analysis options: url, or journey (whose first navigation gives the url). Unknown attributes are ignored; ' +
    'some options may be unavailable on the plan (400 E40004).' },
);

const testState = str('queued, started, error or completed', { enum: ['queued', 'started', 'error', 'completed'] });
const source = str('api, on-demand, monitored or scan', { enum: ['api', 'on-demand', 'monitored', 'scan'] });

export const TEST_SCHEMAS: Record<string, JsonSchema> = {
  TestAttributesInput,
  TestStartRequest: obj(
    { data: obj({ type: str(undefined, { enum: ['test'] }), attributes: ref('TestAttributesInput') }, ['type', 'attributes']) },
    ['data'],
  ),
  Test: resource(
    'test',
    obj(
      {
        url: str('URL of the page tested'),
        state: testState,
        browser: str('browser ID'),
        location: str('location ID'),
        source,
        created: int('Unix time'),
        started: int('Unix time; once started'),
        finished: int('Unix time; when completed or error'),
        page: str('page ID; once known'),
        report: str('report ID; when completed'),
        error: str('why the test failed; when error'),
        scan: str('Webgauge extension: the scan this test measures a page of (source scan)'),
        queue_position: int('Webgauge extension, GET /tests/{id} only, while queued: how many tests of its location are ahead ' +
          'of it (0: it is next)', { minimum: 0 }),
      },
      ['url', 'state', 'browser', 'location', 'source', 'created'],
    ),
    obj({ self: link(), report: link('when completed'), location: link(), browser: link() }, ['self', 'location', 'browser']),
  ),
  TestDocument: document(ref('Test')),
  TestStartDocument: obj(
    {
      data: ref('Test'),
      meta: obj({ credits_left: num('credits after this test'), credits_used: num('credits this test cost') }, ['credits_left', 'credits_used']),
      links: obj({ self: link('poll URL; equal to the Location header') }, ['self']),
    },
    ['data', 'meta', 'links'],
  ),
  TestList: obj({ data: { type: 'array', items: ref('Test') }, links: ref('ListLinks'), meta: ref('ListMeta') }, ['data', 'links', 'meta']),
};

/** The 202 of POST /tests and of both retests (spec 3). */
export const TEST_STARTED = ok('Test queued; poll the Location until it completes.', ref('TestStartDocument'), { location: true });

export const TEST_ROUTES: Record<string, RouteSchema> = {
  'POST /tests': {
    operationId: 'startTest',
    summary: 'Start a test',
    description: 'Queues a test of a page URL and charges its credits. Lenient input: flags as 0/1/"0"/"1"/false/true, a single string for an array, unknown attributes ignored.',
    tags: ['Tests'],
    validationErrorCode: 'E40000',
    body: {
      schema: ref('TestStartRequest'),
      errorCode: 'E40002',
      attributesPath: '/data/attributes',
      attributesErrorCode: 'E40004',
      hint: 'the body must be {"data":{"type":"test","attributes":{"url":"https://example.com/", ...}}}',
    },
    responses: {
      '202': TEST_STARTED,
      ...errors('E40002', 'E40003', 'E40004', 'E40201', 'E40301', 'E41500', 'E42900'),
    },
  },
  'GET /tests': {
    operationId: 'listTests',
    summary: 'List tests',
    description: 'The account\'s tests of the last 24 hours, by default only those with source api.',
    tags: ['Tests'],
    querystring: listQuerySchema(TESTS_LIST, 'created ascending'),
    validationErrorCode: 'E40005',
    explainQuery: (q) => void parseListQuery(TESTS_LIST, q),
    responses: { '200': ok('A page of tests.', ref('TestList')), ...errors('E40005', 'E40006', 'E40007', 'E40008') },
  },
  'GET /tests/:id': {
    operationId: 'getTest',
    summary: 'Poll a test',
    description: 'Running: 200 with Retry-After (queued: with queue_position, a Webgauge extension). Completed: 303 to the report, the body standing alone. Failed: 200 with state error.',
    tags: ['Tests'],
    params: idParams('test ID'),
    validationErrorCode: 'E40000',
    paramsErrorCode: 'E40400',
    responses: {
      '200': ok('The test, queued or started (with Retry-After), or failed (state error).', ref('TestDocument'), { retryAfter: true }),
      '303': ok('The test is completed; Location is the report.', ref('TestDocument'), { location: true }),
      ...errors('E40400'),
    },
  },
};
