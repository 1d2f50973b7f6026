/** Pages (spec 2.3, 4.3): the page list, one page, its reports, retest, monitoring and page-side tagging. */
import { ID_LIST_MAX } from '../../core/pages/tags.js';
import { ACCEPTED_FREQUENCIES, FREQUENCY_NAMES } from '../../core/vocabulary/frequencies.js';
import { PAGES_LIST, REPORTS_LIST } from '../../core/vocabulary/lists.js';
import { parseListQuery } from '../query.js';
import { ci, document, errors, idParams, int, link, listQuerySchema, obj, ok, ref, resource, str, strings } from './common.js';
import { TEST_STARTED } from './tests.js';
import type { JsonSchema, RouteSchema } from './types.js';

/** Every spelling POST .../performance_monitor accepts, from the frequencies table. */
const FREQUENCIES = ACCEPTED_FREQUENCIES;

/** `{"<key>": ["ID", ...]}` of attach and detach: 1 to 500 non-blank ID strings (duplicates are dropped). */
export const idList = (key: string, what: string): JsonSchema =>
  obj({ [key]: { type: 'array', minItems: 1, maxItems: ID_LIST_MAX, items: str(undefined, { pattern: '\\S' }), description: `${what}, 1 to ${ID_LIST_MAX}` } }, [key]);

export const PAGE_SCHEMAS: Record<string, JsonSchema> = {
  Page: resource(
    'page',
    obj(
      {
        url: str(),
        created: int('Unix time'),
        browser: str('browser ID of the analysis options'),
        location: str('location ID of the analysis options'),
        latest_report: str('report ID', { nullable: true }),
        latest_report_time: int('Unix time', { nullable: true }),
        report_count: int('valid reports'),
        monitored: str('monitoring frequency', { enum: [...FREQUENCY_NAMES] }),
        page_tags: strings('tag IDs'),
      },
      ['url', 'created', 'browser', 'location', 'report_count', 'monitored', 'page_tags'],
    ),
    obj(
      {
        self: link(),
        retest: link('POST: a new test with the page\'s settings'),
        latest_report: link(),
        reports: link(),
        location: link(),
        browser: link(),
        performance_monitor: link(),
        performance_alert_conditions: link(),
        performance_alert_events: link(),
      },
      ['self', 'retest', 'latest_report', 'reports', 'location', 'browser'],
    ),
  ),
  PageDocument: document(ref('Page')),
  PageList: obj(
    {
      data: { type: 'array', items: obj({ data: ref('Page') }, ['data']), description: 'each item is itself wrapped as {data: page}' },
      links: ref('ListLinks'),
      meta: ref('ListMeta'),
    },
    ['data', 'links', 'meta'],
  ),
  MonitorRequest: obj(
    {
      data: obj(
        {
          type: str(undefined, { enum: ['performance_monitor'] }),
          attributes: obj(
            {
              frequency: str(`${FREQUENCIES.join(', ')} (any case); no and none stop monitoring`, {
                pattern: `^\\s*(?:${FREQUENCIES.map(ci).join('|')})\\s*$`,
                example: 'daily',
              }),
            },
            ['frequency'],
          ),
        },
        ['attributes'],
      ),
    },
    ['data'],
  ),
  PageTagsRequest: idList('page_tags', 'tag IDs'),
};

const pageParams = idParams('page ID');
const page = (r: Omit<RouteSchema, 'tags' | 'params' | 'paramsErrorCode' | 'validationErrorCode'> & Partial<RouteSchema>): RouteSchema => ({
  tags: ['Pages'],
  params: pageParams,
  validationErrorCode: 'E40000',
  paramsErrorCode: 'E40402',
  ...r,
});
const PAGE_OK = ok('The page as it is now.', ref('PageDocument'));

const tagsBody = (op: 'attach' | 'detach') =>
  page({
    operationId: `${op}PageTags`,
    summary: `${op === 'attach' ? 'Attach tags to' : 'Detach tags from'} a page`,
    description: op === 'attach' ? 'Tags already attached are unaffected.' : 'Tags not attached are unaffected.',
    body: { schema: ref('PageTagsRequest'), errorCode: 'E4001', hint: `send {"page_tags":["ID", ...]} with 1 to ${ID_LIST_MAX} tag IDs` },
    responses: { '200': PAGE_OK, ...errors('E4001', 'E40301', 'E40402', 'E40417', 'E41500') },
  });

export const PAGE_ROUTES: Record<string, RouteSchema> = {
  'GET /pages': {
    operationId: 'listPages',
    summary: 'List pages',
    description: 'The account\'s pages that have at least one valid report.',
    tags: ['Pages'],
    querystring: listQuerySchema(PAGES_LIST, 'created descending'),
    validationErrorCode: 'E40005',
    explainQuery: (q) => void parseListQuery(PAGES_LIST, q),
    responses: { '200': ok('A page of pages.', ref('PageList')), ...errors('E40005', 'E40006', 'E40007', 'E40008') },
  },
  'GET /pages/:id': page({
    operationId: 'getPage',
    summary: 'Get a page',
    description: 'The page: URL, analysis options\' browser and location, latest report, report count, monitoring and tags.',
    responses: { '200': PAGE_OK, ...errors('E40402') },
  }),
  'DELETE /pages/:id': page({
    operationId: 'deletePage',
    summary: 'Delete a page',
    description: 'Permanently deletes the page, all its reports and history.',
    responses: { '200': ok('Deleted.', ref('Deleted')), ...errors('E40402', 'E40301') },
  }),
  'POST /pages/:id/retest': page({
    operationId: 'retestPage',
    summary: 'Retest a page',
    description: 'A new test with the settings of the last test that produced a report for the page. No body.',
    responses: { '202': TEST_STARTED, ...errors('E40402', 'E40004', 'E40201', 'E40301', 'E42900') },
  }),
  'GET /pages/:id/latest-report': page({
    operationId: 'getLatestReport',
    summary: 'Latest report of a page',
    description: 'Same answer as GET /reports/{id} of the page\'s latest report.',
    responses: { '200': ok('The report.', ref('ReportDocument'), { cache: true }), ...errors('E40402') },
  }),
  'GET /pages/:id/reports': page({
    operationId: 'listPageReports',
    summary: 'List a page\'s reports',
    description: 'The page\'s valid reports. Only one filtered or sorted report-list query of an account runs at a time (429 E42902).',
    querystring: listQuerySchema(REPORTS_LIST, 'created descending'),
    validationErrorCode: 'E40005',
    explainQuery: (q) => void parseListQuery(REPORTS_LIST, q),
    responses: { '200': ok('A page of reports.', ref('ReportList')), ...errors('E40005', 'E40006', 'E40007', 'E40008', 'E40402', 'E42902') },
  }),
  'POST /pages/:id/performance_monitor': page({
    operationId: 'setPageMonitoring',
    summary: 'Enable, change or stop monitoring',
    description: 'frequency no or none stops monitoring; hourly may be unavailable on the plan.',
    body: {
      schema: ref('MonitorRequest'),
      errorCode: 'E4001',
      hint: 'send {"data":{"type":"performance_monitor","attributes":{"frequency":"daily"}}}',
    },
    responses: { '200': PAGE_OK, ...errors('E4001', 'E40301', 'E40303', 'E40402', 'E41500') },
  }),
  'POST /pages/:id/attach_tags': tagsBody('attach'),
  'POST /pages/:id/detach_tags': tagsBody('detach'),
};
