/** Reports (spec 2.2, 4.2): one report, its deletion and retest, and its downloadable resources. */
import { JSONAPI, bool, document, errors, idParams, int, link, num, obj, ok, queryValue, ref, resource, str, strings } from './common.js';
import { TEST_STARTED } from './tests.js';
import type { JsonSchema, RouteSchema } from './types.js';

const ms = (d?: string) => int(d ? `ms; ${d}` : 'ms');
const L = 'Lighthouse reports only';

const ReportAttributes = obj(
  {
    url: str('page URL tested'),
    page: str('page ID'),
    test: str('ID of the generating test, while it is kept (24 hours)'),
    source: str('api, on-demand or monitored', { enum: ['api', 'on-demand', 'monitored'] }),
    page_tags: strings('tag IDs attached to the page'),
    created: int('Unix time'),
    expires: int('Unix time'),
    browser: str('browser ID'),
    location: str('location ID'),
    service_grade: str(`letter grade A-F; ${L}`, { enum: ['A', 'B', 'C', 'D', 'E', 'F'] }),
    service_score: int(`0-100 from the grade; ${L}`),
    gtmetrix_grade: str('service_grade under the name deployed clients read (COMPAT.md); an operator setting may turn it off'),
    gtmetrix_score: int('service_score under the name deployed clients read'),
    performance_score: int(L),
    structure_score: int(L),
    pagespeed_score: int('legacy reports only'),
    lighthouse_version: str('Webgauge extension: the Lighthouse that made the report\'s Lighthouse figures (e.g. 13.5.0); absent ' +
      'without them. Structure scores compare only within one audit set (Lighthouse 12; 13 and later): see structure.json'),
    yslow_score: int('legacy reports only'),
    device_class: str('Webgauge extension: the device class the page ran as (desktop, phone-mid, phone-low); absent in reports ' +
      'made before device classes, which ran on the agent\'s own CPU'),
    cpu_benchmark_target: int('Webgauge extension, phones: the Lighthouse BenchmarkIndex the agent\'s CPU was slowed to'),
    cpu_throttling_rate: num('Webgauge extension, phones: the CPU throttling rate the agent calibrated for the target (1: none)'),
    host_benchmark_index: int('Webgauge extension, phones: the agent host\'s own BenchmarkIndex'),
    cpu_benchmark_index: int('Webgauge extension, phones: the BenchmarkIndex measured under the rate'),
    cpu_target_reached: bool('Webgauge extension, phones: false when the agent\'s CPU is slower than the device\'s; the page ran ' +
      'unthrottled'),
    html_bytes: int('HTML size (may be the compressed size)'),
    page_bytes: int('total page size'),
    page_requests: int('requests of the whole page'),
    redirect_duration: ms(),
    connect_duration: ms('blocked, DNS, connect and send of the HTML request'),
    backend_duration: ms('wait of the HTML request'),
    time_to_first_byte: ms(),
    first_paint_time: ms(),
    first_contentful_paint: ms(),
    dom_interactive_time: ms(),
    dom_content_loaded_time: ms(),
    dom_content_loaded_duration: ms('DOMContentLoaded handlers'),
    onload_time: ms(),
    onload_duration: ms('window.onload handlers'),
    fully_loaded_time: ms('-1 when stop_onload was used'),
    rum_speed_index: int(),
    speed_index: int(L),
    largest_contentful_paint: ms(L),
    time_to_interactive: ms(L),
    total_blocking_time: ms(L),
    cumulative_layout_shift: num(L),
    journey: obj(
      {
        title: str('the recording\'s title'),
        measured_step: int('the navigation step (index into the recording\'s steps) whose figures the attributes above are'),
        steps: {
          type: 'array',
          description: 'each step Lighthouse measured, in order',
          items: obj(
            {
              index: int('the first recording step it covers (0-based, as in the recording\'s steps)'),
              steps: { type: 'array', items: int(), description: 'every recording step it covers' },
              name: str('the recording\'s title and the step, as Lighthouse\'s flow report names it'),
              mode: str('Lighthouse\'s gather mode', { enum: ['navigation', 'timespan'] }),
              url: str('the page the step ended on'),
              start: ms('since the journey\'s first navigation started'),
              duration: ms('a navigation: until its load was over; a timespan: until its network was quiet'),
              measured: { type: 'boolean', description: 'the step whose figures the report\'s attributes are' },
              figures: {
                type: 'object', additionalProperties: num(),
                description: 'a navigation: the report attributes of a plain test (with performance_score); a timespan: ' +
                  'interaction_to_next_paint, total_blocking_time, cumulative_layout_shift, page_requests, page_bytes, duration',
              },
              warnings: strings('what its wait had to say'),
            },
            ['index', 'steps', 'name', 'mode', 'url', 'start', 'duration', 'measured', 'figures'],
          ),
        },
      },
      ['title', 'measured_step', 'steps'],
      { description: 'Webgauge extension, journeys only: every measured step with its figures' },
    ),
  },
  ['url', 'page', 'source', 'created', 'expires', 'browser', 'location'],
);

const resourceLink = (d: string) => link(`${d}; needs API authentication`);
const ReportLinks = obj(
  {
    self: link(),
    analysis_options: resourceLink('analysis options of the report'),
    har: resourceLink('HAR file'),
    video: resourceLink('video; only when the test ran with video'),
    report_pdf: resourceLink('PDF report; costs credits'),
    report_pdf_full: resourceLink('full PDF report; costs credits'),
    report_url: link('the report web page'),
    screenshot: resourceLink('screenshot'),
    filmstrip: resourceLink(`filmstrip; ${L}`),
    optimized_images: resourceLink('optimized images archive; 24 hours after creation'),
    lighthouse: resourceLink('Lighthouse JSON'),
    structure: resourceLink(`structure.json: the audits behind structure_score (StructureReport); ${L}`),
    pagespeed: resourceLink('PageSpeed JSON; legacy reports'),
    pagespeed_files: resourceLink('PageSpeed files archive; legacy reports, 24 hours after creation'),
    yslow: resourceLink('YSlow JSON; legacy reports'),
    resource_summary: resourceLink('resource summary JSON'),
    runs: resourceLink('runs.json: every load of a test with runs > 1 (or a load the run guard discarded)'),
    flow: resourceLink('flow.json: a journey\'s Lighthouse FlowResult (every measured step\'s full result)'),
    flow_html: resourceLink('flow.html: Lighthouse\'s own report of a journey\'s user flow'),
  },
  ['self'],
);

const spread = obj({ min: num(), median: num(), max: num(), stdev: num('sample standard deviation') }, ['min', 'median', 'max', 'stdev']);
/** Webgauge extension: the runs behind a report whose test loaded the page more than once. */
const ReportMeta = obj({
  runs: obj(
    {
      count: int('runs the median run was chosen from'),
      median_run: int('the run (1, 2, … in load order) whose figures, grade and files the report shows'),
      discarded: int('loads the run guard discarded (host busy or slow) and ran again'),
      spread: { type: 'object', description: 'each numeric attribute over the runs', additionalProperties: spread },
    },
    ['count', 'median_run', 'discarded', 'spread'],
  ),
});

const report = resource('report', ReportAttributes, ReportLinks);

export const REPORT_SCHEMAS: Record<string, JsonSchema> = {
  Report: { ...report, properties: { ...(report.properties as object), meta: ReportMeta } },
  RunsFile: obj(
    {
      count: int('runs the median run was chosen from'),
      median_run: int('the run the report shows'),
      runs: {
        type: 'array',
        items: {
          type: 'object',
          description: 'one load: run (1, 2, … in load order), discarded, discard_reason, benchmark_index (Lighthouse\'s, ' +
            'measured before the load), baseline_benchmark_index (the agent\'s), other_cpu_cores (CPU used by other ' +
            'processes of the host during the load), and every numeric report attribute of the load',
          required: ['run', 'discarded', 'discard_reason', 'benchmark_index'],
        },
      },
    },
    ['count', 'median_run', 'runs'],
  ),
  StructureReport: obj(
    {
      score: int('structure_score: round(100 × Σ weight × score / Σ weight) over the audits with a score'),
      lighthouse_version: str('the Lighthouse whose audits were read (absent in reports made before Lighthouse 13)'),
      audit_set: str('the Lighthouse audits the score reads: "12" (Lighthouse 12) or "13" (13 and later); scores of ' +
        'different sets do not compare', { enum: ['12', '13'] }),
      audits: {
        type: 'array',
        description: 'every structure audit: Lighthouse\'s and Webgauge\'s own (use-cdn, avoid-bad-requests, avoid-empty-src, ' +
          'enable-keep-alive, no-duplicate-requests)',
        items: obj(
          {
            id: str('Lighthouse\'s audit ID (render-blocking-insight, cache-insight, …) or ours'),
            title: str('Lighthouse\'s title of the audit as its result gives it'),
            impact: str('weight 3, 2 or 1', { enum: ['high', 'medium', 'low'] }),
            weight: int(),
            source: str(undefined, { enum: ['lighthouse', 'webgauge'] }),
            score: num('0-1; null when it does not apply (left out of the score)'),
            display_value: str('Lighthouse\'s summary line, e.g. "Est savings of 33 KiB"'),
            savings: obj({
              ms: int('time Lighthouse estimates fixing it saves'),
              bytes: int('bytes Lighthouse estimates fixing it saves'),
              metrics: { type: 'object', additionalProperties: num(), description: 'each metric\'s saving: FCP, LCP, TBT, INP (ms), CLS' },
            }, [], { description: 'absent when Lighthouse estimates none' }),
            items: {
              type: 'array',
              description: 'what the audit names (at most 50): resources, elements, failed checks',
              items: obj({
                url: str(), element: str('an element of the page: its HTML or selector'), label: str('words: a check, a third party, a statistic'),
                total_bytes: int(), wasted_bytes: int(), wasted_ms: num(),
              }),
            },
          },
          ['id', 'title', 'impact', 'weight', 'source', 'score', 'items'],
        ),
      },
    },
    ['audit_set', 'audits'],
  ),
  ReportDocument: document(ref('Report')),
  ReportList: obj({ data: { type: 'array', items: ref('Report') }, links: ref('ListLinks'), meta: ref('ListMeta') }, ['data', 'links', 'meta']),
  FilmstripIndex: obj(
    {
      frames: {
        type: 'array',
        items: obj({ id: str('frame ID'), timestamp: num('ms from the start of the load'), url: link('the frame JPEG'), data: str('base64 JPEG; with base64=1') }, ['id']),
      },
      steps: {
        type: 'array',
        description: 'a journey\'s measured steps on the film\'s time axis',
        items: obj({ index: int(), name: str(), mode: str(undefined, { enum: ['navigation', 'timespan'] }), start: num('ms'), end: num('ms') },
          ['index', 'name', 'mode', 'start', 'end']),
      },
    },
    ['frames'],
  ),
};

const RESOURCE_NAMES = [
  'screenshot.jpg', 'filmstrip.json', 'filmstrip-frame.jpg', 'net.har', 'analysis-options', 'video.mp4', 'optimized-images.tar',
  'report.pdf', 'lighthouse.json', 'lighthouse.html', 'pagespeed.json', 'pagespeed-files.tar', 'yslow.json', 'resource-summary',
  'runs.json', 'flow.json', 'flow.html', 'structure.json',
];

const binary = { type: 'string', format: 'binary' };
const json = {
  type: 'object',
  description: 'net.har (HAR 1.2; a journey\'s has a HAR page per measured step), lighthouse.json (the full Lighthouse result), filmstrip.json (FilmstripIndex), analysis-options (the options, with HTTP auth and cookies; never journey_secrets), pagespeed.json, yslow.json, resource-summary, runs.json (RunsFile), flow.json (a journey\'s Lighthouse FlowResult), structure.json (StructureReport)',
};

export const REPORT_ROUTES: Record<string, RouteSchema> = {
  'GET /reports/:id': {
    operationId: 'getReport',
    summary: 'Get a report',
    description: 'The report object; reports never change, hence the year-long Cache-Control.',
    tags: ['Reports'],
    params: idParams('report ID'),
    validationErrorCode: 'E40000',
    paramsErrorCode: 'E40401',
    responses: { '200': ok('The report.', ref('ReportDocument'), { cache: true }), ...errors('E40401') },
  },
  'DELETE /reports/:id': {
    operationId: 'deleteReport',
    summary: 'Delete a report',
    description: 'Permanently deletes the report and all its resources.',
    tags: ['Reports'],
    params: idParams('report ID'),
    validationErrorCode: 'E40000',
    paramsErrorCode: 'E40401',
    responses: { '200': ok('Deleted.', ref('Deleted')), ...errors('E40401', 'E40301') },
  },
  'POST /reports/:id/retest': {
    operationId: 'retestReport',
    summary: 'Retest a report',
    description: 'Starts a test with the settings of the report\'s test. No body; any or no Content-Type.',
    tags: ['Reports'],
    params: idParams('report ID'),
    validationErrorCode: 'E40000',
    paramsErrorCode: 'E40402',
    responses: { '202': TEST_STARTED, ...errors('E40402', 'E40004', 'E40201', 'E40301', 'E42900') },
  },
  'GET /reports/:id/resources/structure.json': {
    operationId: 'getReportStructure',
    summary: 'The structure audits of a report',
    description: 'Webgauge extension: every audit behind structure_score, with Lighthouse\'s title, its impact and score, what ' +
      'fixing it saves and what it names (resources, elements, failed checks), as the report page lists them. Reports made by ' +
      'Lighthouse 12 keep the audits they were scored with (audit_set "12"). Also under the alias name `structure`.',
    tags: ['Reports'],
    params: idParams('report ID'),
    validationErrorCode: 'E40001',
    paramsErrorCode: 'E40401',
    responses: {
      '200': ok('The structure audits.', undefined, { cache: true, content: { 'application/json': ref('StructureReport') } }),
      ...errors('E40401', 'E40410'),
    },
  },
  'GET /reports/:id/resources/:name': {
    operationId: 'getReportResource',
    summary: 'Download a report resource',
    description:
      `Resource names: ${RESOURCE_NAMES.join(', ')}; the link attribute names (har, lighthouse, screenshot...) are aliases. ` +
      'filmstrip.json takes base64=1; filmstrip-frame.jpg takes id=<frame ID>; report.pdf takes full=1 and may answer 302 while it is generated; video.mp4 supports Range requests.',
    tags: ['Reports'],
    params: idParams('report ID', { name: str('resource name, e.g. screenshot.jpg, net.har, lighthouse.json', { minLength: 1, example: 'net.har' }) }),
    // Other parameters are ignored, and a repeated one counts once: nothing here refuses what the handler takes.
    querystring: obj({
      base64: queryValue('filmstrip.json: 1 to include each frame as base64 JPEG data'),
      id: queryValue('filmstrip-frame.jpg: the frame ID (from filmstrip.json)'),
      full: queryValue('report.pdf: 1 for the full PDF'),
      format: queryValue('optimized-images.tar: a modern image format to convert to (e.g. webp); absent keeps each image\'s format'),
    }),
    validationErrorCode: 'E40001',
    paramsErrorCode: 'E40401',
    responses: {
      '200': ok('The resource.', undefined, {
        cache: true,
        content: {
          'image/jpeg': binary,
          'application/json': json,
          'video/mp4': binary,
          'application/pdf': binary,
          'application/x-tar': binary,
          'application/octet-stream': binary,
        },
      }),
      '206': ok('Part of video.mp4 (Range request).', undefined, { content: { 'video/mp4': binary } }),
      '302': ok('report.pdf is being generated: follow the Location.', undefined, {
        location: true,
        content: { [JSONAPI]: obj({ meta: obj({ detail: str() }) }) },
      }),
      ...errors(
        'E40001', 'E40201', 'E40301', 'E40302', 'E40401', 'E40405', 'E40406', 'E40407', 'E40409', 'E40410', 'E40411', 'E40412', 'E40413',
        'E40414', 'E40415', 'E40416', 'E41600', 'E42903', 'E50001', 'E50002',
      ),
    },
  },
};
