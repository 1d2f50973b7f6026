import { toSeconds, toSecondsOrNull } from '../core/clock.js';
import { hasStructureAudits, optimizedImagesState, pagespeedFilesState, reportResources, type ReportRow, ARTIFACT } from '../core/reports/reports.js';
import type { PageRow } from '../core/pages/pages.js';
import { LIGHTHOUSE_METRICS, LOAD_METRICS, metricValue } from '../core/reports/report-figures.js';
import { readRunsMeta } from '../core/tests/runs.js';
import { readJourneySummary } from '../core/reports/journey-summary.js';
import { readDeviceCpu } from '../core/reports/device-cpu.js';
import { TEST_RETENTION_MS, type TestRow } from '../core/tests/tests.js';
import type { Links } from '../context/links.js';

/** JSON:API resource objects. Times leave as Unix seconds; metrics as integers (COMPAT.md). */

/**
 * A test as the API shows it. `queuePosition` (core `queuePosition`, read by GET /tests/{id} only) becomes the
 * Webgauge extension attribute `queue_position` while the test is queued.
 */
export function testResource(t: TestRow, links: Links, extra: { queuePosition?: number } = {}) {
  const attributes: Record<string, unknown> = {
    url: t.url,
    state: t.state,
    browser: t.browser,
    location: t.location,
    source: t.source,
    created: toSeconds(t.created),
  };
  if (t.page_id) attributes.page = t.page_id;
  if (t.scan_id) attributes.scan = t.scan_id;
  if (t.started !== null) attributes.started = toSeconds(t.started);
  if ((t.state === 'completed' || t.state === 'error') && t.finished !== null) attributes.finished = toSeconds(t.finished);
  if (t.state === 'error') attributes.error = t.error ?? 'The test failed.';
  if (t.state === 'completed' && t.report_id) attributes.report = t.report_id;
  if (t.state === 'queued' && extra.queuePosition !== undefined) attributes.queue_position = extra.queuePosition;
  const l: Record<string, string> = { self: links.test(t.id) };
  if (t.state === 'completed' && t.report_id) l.report = links.report(t.report_id);
  l.location = links.location(t.location);
  l.browser = links.browser(t.browser);
  return { type: 'test', id: t.id, attributes, links: l };
}

export interface ReportView {
  /** Also emit gtmetrix_grade / gtmetrix_score (COMPAT.md). */
  legacyBrandFields: boolean;
  pageTags: string[];
  now: number;
  /** The caller's plan decides the PDF links: a link only for a PDF the plan may create. */
  plan: { pdf: boolean; fullPdf: boolean };
}

/**
 * Everything `reportResource` depends on besides the row, which never changes: equal keys give equal resources.
 * Keep it next to reportResource and in step with it (the report's body is kept by this key).
 */
export function reportViewKey(r: ReportRow, links: Links, view: ReportView): string {
  return [r.id, links.origin, view.legacyBrandFields, view.pageTags.join(' '), view.plan.pdf, view.plan.fullPdf,
    r.created > view.now - TEST_RETENTION_MS, pagespeedFilesState(r, view.now), optimizedImagesState(r, view.now)].join('|');
}

export function reportResource(r: ReportRow, links: Links, view: ReportView) {
  const a: Record<string, unknown> = {
    url: r.url,
    page: r.page_id,
  };
  if (r.created > view.now - TEST_RETENTION_MS) a.test = r.test_id;
  a.source = r.source;
  a.page_tags = view.pageTags;
  a.created = toSeconds(r.created);
  a.expires = toSeconds(r.expires);
  a.browser = r.browser;
  a.location = r.location;
  if (r.service_grade !== null) {
    a.service_grade = r.service_grade;
    a.service_score = r.service_score;
    if (view.legacyBrandFields) {
      a.gtmetrix_grade = r.service_grade;
      a.gtmetrix_score = r.service_score;
    }
  }
  if (r.performance_score !== null) a.performance_score = r.performance_score;
  if (r.structure_score !== null) a.structure_score = r.structure_score;
  if (r.pagespeed_score !== null) a.pagespeed_score = r.pagespeed_score;
  if (r.yslow_score !== null) a.yslow_score = r.yslow_score;
  // Webgauge extension: which Lighthouse made the figures (structure scores compare within one audit set).
  if (r.lighthouse_version !== null) a.lighthouse_version = r.lighthouse_version;
  // Webgauge extension: the device class the page ran as and, for a phone, the CPU it was slowed to (issue 49).
  Object.assign(a, readDeviceCpu(r.device_cpu));
  for (const k of LOAD_METRICS) a[k] = metricValue(k, r[k]);
  for (const k of LIGHTHOUSE_METRICS) {
    const v = r[k];
    if (v !== null) a[k] = metricValue(k, v);
  }
  // Webgauge extension: a journey's every step with its figures (the attributes above are its measured step's).
  const journey = readJourneySummary(r.journey);
  if (journey) a.journey = journey;

  const have = reportResources(r);
  const l: Record<string, string> = { self: links.report(r.id) };
  l.analysis_options = links.resource(r.id, 'analysis-options');
  if (have.has(ARTIFACT.har)) l.har = links.resource(r.id, 'net.har');
  l.report_url = links.reportPage(r.id);
  if (have.has(ARTIFACT.screenshot)) l.screenshot = links.resource(r.id, 'screenshot.jpg');
  if (have.has(ARTIFACT.filmstrip)) l.filmstrip = links.resource(r.id, 'filmstrip.json');
  if (have.has(ARTIFACT.lighthouse)) l.lighthouse = links.resource(r.id, 'lighthouse.json');
  // Webgauge extension: Lighthouse's own HTML report of that JSON.
  if (have.has(ARTIFACT.lighthouse)) l.lighthouse_html = links.resource(r.id, 'lighthouse.html');
  // Webgauge extension: the structure audits behind structure_score.
  if (hasStructureAudits(r)) l.structure = links.resource(r.id, 'structure.json');
  if (have.has(ARTIFACT.pagespeed)) l.pagespeed = links.resource(r.id, 'pagespeed.json');
  if (pagespeedFilesState(r, view.now) === 'available') l.pagespeed_files = links.resource(r.id, 'pagespeed-files.tar');
  if (have.has(ARTIFACT.yslow)) l.yslow = links.resource(r.id, 'yslow.json');
  if (have.has(ARTIFACT.video)) l.video = links.resource(r.id, 'video.mp4');
  if (view.plan.pdf) l.report_pdf = links.resource(r.id, 'report.pdf');
  if (view.plan.fullPdf) l.report_pdf_full = `${links.resource(r.id, 'report.pdf')}?full=1`;
  if (optimizedImagesState(r, view.now) === 'available') l.optimized_images = links.resource(r.id, 'optimized-images.tar');
  if (have.has(ARTIFACT.resourceSummary)) l.resource_summary = links.resource(r.id, 'resource-summary');
  if (have.has(ARTIFACT.runs)) l.runs = links.resource(r.id, 'runs.json');
  if (have.has(ARTIFACT.flow)) {
    l.flow = links.resource(r.id, 'flow.json');
    l.flow_html = links.resource(r.id, 'flow.html');
  }
  const resource = { type: 'report', id: r.id, attributes: a, links: l };
  // Webgauge extension: the runs behind the figures.
  const runs = readRunsMeta(r.runs);
  return runs === undefined ? resource : { ...resource, meta: { runs } };
}

/** A page (spec 2.3). `pageTags` comes from tagIdsForPages; every link is absolute (COMPAT.md). */
export function pageResource(p: PageRow, links: Links, pageTags: string[]) {
  const self = links.page(p.id);
  const attributes: Record<string, unknown> = {
    url: p.url,
    created: toSeconds(p.created),
    browser: p.browser,
    location: p.location,
    latest_report: p.latest_report_id,
    latest_report_time: toSecondsOrNull(p.latest_report_time),
    report_count: p.report_count,
    monitored: p.monitored,
    page_tags: pageTags,
  };
  const l: Record<string, string> = {
    self,
    retest: `${self}/retest`,
    latest_report: `${self}/latest-report`,
    reports: `${self}/reports`,
    location: links.location(p.location),
    browser: links.browser(p.browser),
    performance_monitor: `${self}/performance_monitor`,
    performance_alert_conditions: `${self}/performance_alert_conditions`,
    performance_alert_events: `${self}/performance_alert_events`,
  };
  return { type: 'page', id: p.id, attributes, links: l };
}
