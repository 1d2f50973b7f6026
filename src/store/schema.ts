import type { Generated } from 'kysely';
import type { LighthouseMetrics, LoadMetrics } from '../runner/metrics.js';

/**
 * Table shapes as Kysely sees them. Times are integer milliseconds; credits are integer tenths so that
 * 0.7 + 0.2 never drifts. JSON columns are text on both engines (portable, and we never query inside them).
 */
export interface AccountsTable {
  id: string;
  email: string;
  plan: string;
  role: string;
  team_owner_id: string | null;
  api_key_hash: string;
  credits_tenths: number;
  credits_refilled_at: number;
  email_validated: number;
  created: number;
  /** scrypt hash of the account's web app password (migration 009); null: the API key only. */
  password_hash?: string | null;
}

export interface TestsTable {
  id: string;
  account_id: string;
  url: string;
  options: string;
  fingerprint: string;
  source: string;
  state: string;
  error: string | null;
  browser: string;
  location: string;
  created: number;
  started: number | null;
  finished: number | null;
  lease_owner: string | null;
  lease_expires: number | null;
  attempts: Generated<number>;
  credits_tenths: number;
  report_id: string | null;
  page_id: string | null;
  /** 1 while the finished test's alert checks and test.* webhooks wait to run (migration 006). */
  events_pending?: number | null;
  /** When the test last entered the queue (creation or requeue); the queue timeout counts from it (migration 008). */
  queued_at?: number | null;
  /** The scan whose page this test measures, and the page's turn in it (migration 013); null for any other test. */
  scan_id: string | null;
  scan_position: number | null;
  /** A started test's phase as its agent last reported it (core/tests/phases.ts), and the load it is in (migration 016). */
  phase?: string | null;
  phase_run?: number | null;
}

export interface LocationsTable {
  id: string;
  name: string;
  region: string;
  is_default: number;
  created: number;
}

export interface AgentTokensTable {
  id: string;
  location: string;
  token_hash: string;
  created: number;
  revoked: number | null;
}

export interface AgentsTable {
  id: string;
  location: string;
  /** null for the in-process agent of location 1. */
  token_id: string | null;
  version: string;
  hostname: string;
  /** JSON array of browser IDs the agent offers. */
  browsers: string;
  slots: number;
  started: number;
  last_seen: number;
}

/** Lighthouse's metric columns: NULL when Lighthouse did not run for the report. */
export type LighthouseColumns = { [K in keyof LighthouseMetrics]: LighthouseMetrics[K] | null };

/** A report row; its metric columns are the runner's metrics (runner/metrics.ts), named and typed once there. */
export interface ReportsTable extends LoadMetrics, LighthouseColumns {
  id: string;
  account_id: string;
  test_id: string;
  page_id: string;
  url: string;
  source: string;
  report_type: string;
  options: string;
  created: number;
  expires: number;
  browser: string;
  location: string;
  user_agent: string;
  /** JSON array of artifact names present for this report. */
  resources: string;
  filmstrip_frames: number;
  service_grade: string | null;
  service_score: number | null;
  performance_score: number | null;
  structure_score: number | null;
  pagespeed_score: number | null;
  yslow_score: number | null;
  /** JSON of the report's meta.runs (core/tests/runs.ts RunsMeta) when the test loaded the page more than once. */
  runs: string | null;
  /** JSON of a journey's steps (core/reports/journey-summary.ts); null for a plain test (migration 011). */
  journey: string | null;
  /** The Lighthouse that made the report's figures (its lighthouseVersion); null without Lighthouse figures (migration 012). */
  lighthouse_version: string | null;
  /** JSON of the device the load ran as and its CPU (core/reports/device-cpu.ts); null for reports before (migration 017). */
  device_cpu: string | null;
}

export interface PagesTable {
  id: string;
  account_id: string;
  url: string;
  fingerprint: string;
  options: string;
  created: number;
  browser: string;
  location: string;
  monitored: string;
  latest_report_id: string | null;
  latest_report_time: number | null;
  report_count: number;
  /** Monitoring (migration 003): next due slot, slot-grid origin, last skipped slot and why. */
  monitor_next_run: number | null;
  monitor_anchor: number | null;
  monitor_skipped_at: number | null;
  monitor_skip_reason: string | null;
}

export interface TagsTable {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  /** Six upper-case hex digits, no `#`. */
  color: string;
  created: number;
}

export interface PageTagLinksTable {
  page_id: string;
  tag_id: string;
  account_id: string;
}

export interface RateLimitsTable {
  account_id: string;
  window_start: number;
  count: number;
}

/** A PDF generation running now (migration 004): the account's parallel-PDF slot, across processes. */
export interface PdfGenerationsTable {
  pdf_key: string;
  account_id: string;
  token: string;
  expires: number;
}

/** The running filtered or sorted report-list query of an account (migration 002; spec 4.3, 429 E42902). */
export interface ReportListLocksTable {
  account_id: string;
  token: string;
  expires: number;
}

/** An alert condition of a page (migration 006). */
export interface AlertConditionsTable {
  id: string;
  account_id: string;
  page_id: string;
  metric: string;
  operator: string;
  value: number;
  consecutive: number;
  enabled: number;
  state: string;
  created: number;
}

/** A condition's change of state on a report (migration 006). */
export interface AlertEventsTable {
  id: string;
  account_id: string;
  page_id: string;
  condition_id: string;
  report_id: string;
  metric: string;
  value: number;
  threshold: number;
  state: string;
  created: number;
  /** Why the check compared with fewer reports than it would have (migration 012: a change of structure audits). */
  note: string | null;
}

export interface WebhooksTable {
  id: string;
  account_id: string;
  url: string;
  events: string;
  secret: string;
  created: number;
}

/** The notification outbox: one webhook POST or one e-mail, with its attempts (migration 006). */
export interface DeliveriesTable {
  id: string;
  account_id: string;
  channel: string;
  webhook_id: string | null;
  event: string;
  body: string;
  state: string;
  created: number;
  next_attempt: number | null;
  attempts: string;
}

export interface SessionsTable {
  /** SHA-256 (hex) of the cookie's token. */
  token_hash: string;
  account_id: string;
  created: number;
  expires: number;
}

/** A site scan (migration 013; docs/scans.md). JSON columns: settings, skipped, discovery_errors, figures. */
export interface ScansTable {
  id: string;
  account_id: string;
  url: string;
  /** The site's origin, once discovery has followed the start page's redirects. */
  site: string | null;
  source: string;
  state: string;
  error: string | null;
  /** The analysis options every page's test gets (stored like a test's: secrets sealed). */
  options: string;
  settings: string;
  location: string;
  browser: string;
  created: number;
  started: number | null;
  finished: number | null;
  /** The scan is kept as long as its pages' reports (their retention). */
  expires: number;
  found: number;
  skipped: string;
  discovery_errors: string;
  /** One page's test price, and the credits still held for pages not yet queued (given back when discovery ends). */
  cost_tenths: number;
  reserved_tenths: number;
  /** The process discovering the scan now, until when (a crashed discovery is taken up again after it). */
  lease_owner: string | null;
  lease_expires: number | null;
  figures: string | null;
  /** The schedule that started the scan; null when started by hand (migration 015). */
  schedule_id: string | null;
  /** JSON: the verdicts of the scan's alert conditions once it completed (migration 015). */
  alerts: string | null;
  /** The device class its pages run as (migration 018): its history, comparisons and alerts are this device's. */
  device_class: Generated<string>;
  /** Shared by the scans one request started, one per device (migration 018); null for a scan of one device. */
  scan_set: string | null;
}

/**
 * A scan that repeats (migration 015): the request of POST /scans, and a slot grid of a monitoring frequency from
 * `anchor`; `next_run` is the next due slot (null: paused).
 */
export interface ScanSchedulesTable {
  id: string;
  account_id: string;
  url: string;
  source: string;
  /** The analysis options every scan's pages get (stored like a test's: secrets sealed). */
  options: string;
  /** The scan's settings (ScanSettings JSON), the same for every scan it starts: the same pages are sampled. */
  settings: string;
  location: string;
  browser: string;
  frequency: string;
  anchor: number;
  next_run: number | null;
  /** The last slot that could not run, and why (credits short, the site refused by the policy now, …). */
  skipped_at: number | null;
  skip_reason: string | null;
  last_scan_id: string | null;
  created: number;
  /** JSON array: the device classes each slot scans, one scan each (migration 018). */
  devices: Generated<string>;
}

/** One page of a scan: its test, and the test's outcome and figures once it has finished. */
export interface ScanPagesTable {
  /** The page's test's ID (a page is one test). */
  id: string;
  scan_id: string;
  position: number;
  account_id: string;
  url: string;
  template: string;
  /** queued, started, completed, failed, cancelled. */
  state: string;
  error: string | null;
  report_id: string | null;
  grade: string | null;
  performance_score: number | null;
  structure_score: number | null;
  largest_contentful_paint: number | null;
  total_blocking_time: number | null;
  cumulative_layout_shift: number | null;
  fully_loaded_time: number | null;
  page_bytes: number | null;
  page_requests: number | null;
  /** JSON `{metric: number[]}`: each figure over the kept runs, when the page's test loaded it more than once (migration 014). */
  run_values: string | null;
  /** The Lighthouse that made the page's report (its reports.lighthouse_version; migration 014). */
  lighthouse_version: string | null;
}

export interface Database {
  accounts: AccountsTable;
  tests: TestsTable;
  reports: ReportsTable;
  pages: PagesTable;
  rate_limits: RateLimitsTable;
  tags: TagsTable;
  page_tag_links: PageTagLinksTable;
  pdf_generations: PdfGenerationsTable;
  report_list_locks: ReportListLocksTable;
  alert_conditions: AlertConditionsTable;
  alert_events: AlertEventsTable;
  webhooks: WebhooksTable;
  deliveries: DeliveriesTable;
  locations: LocationsTable;
  agent_tokens: AgentTokensTable;
  agents: AgentsTable;
  sessions: SessionsTable;
  scans: ScansTable;
  scan_pages: ScanPagesTable;
  scan_schedules: ScanSchedulesTable;
  field_sites: FieldSitesTable;
  field_views: FieldViewsTable;
  field_rollups: FieldRollupsTable;
  field_paths: FieldPathsTable;
  field_counts: FieldCountsTable;
  crux_cache: CruxCacheTable;
  field_alert_conditions: FieldAlertConditionsTable;
  field_alert_events: FieldAlertEventsTable;
}

/** A field site (migration 019): `origins` and `templates` are JSON arrays; `sample_rate` a percentage. */
export interface FieldSitesTable {
  id: string;
  account_id: string;
  name: string;
  origins: string;
  sample_rate: number;
  templates: string;
  keep_query: number;
  honour_gpc: number;
  raw_retention_days: number;
  created: number;
}

/** A raw page view: what one beacon said, without its sender's address or user agent. */
export interface FieldViewsTable {
  id: Generated<number>;
  site_id: string;
  received: number;
  path: string;
  template: string | null;
  device: string;
  connection: string;
  browser: string;
  browser_major: number | null;
  os: string;
  nav: string;
  lcp: number | null;
  inp: number | null;
  cls: number | null;
  fcp: number | null;
  ttfb: number | null;
  rtt: number | null;
  vw: number | null;
  vh: number | null;
  /** JSON: the metrics' attribution (selectors, resource and script URLs, subparts). */
  attribution: string | null;
  rolled: Generated<number>;
}

/** One hour's (or day's) distribution of a cut of a site's views (core/field/sketch.ts encodes `sketch`). */
export interface FieldRollupsTable {
  site_id: string;
  cut: string;
  grain: string;
  start: number;
  device: string;
  template: string;
  path: string;
  connection: string;
  browser: string;
  views: number;
  sketch: Uint8Array;
}

export interface FieldPathsTable {
  site_id: string;
  path: string;
  views: number;
}

export interface FieldCountsTable {
  site_id: string;
  hour: number;
  accepted: Generated<number>;
  foreign_origin: Generated<number>;
  malformed: Generated<number>;
  too_large: Generated<number>;
  out_of_bounds: Generated<number>;
  rate_limited: Generated<number>;
  gpc: Generated<number>;
}

/** Google's CrUX answers, one a day per URL or origin and form factor (migration 021; core/field/crux.ts). */
export interface CruxCacheTable {
  /** `record` (queryRecord) or `history` (queryHistoryRecord). */
  kind: string;
  /** The URL or origin asked about. */
  key: string;
  form_factor: string;
  /** The UTC day (its start, ms) the answer was asked on. */
  day: number;
  /** The answer's record as JSON; null: CrUX has no record of the URL nor its origin. */
  body: string | null;
  fetched: number;
}

/** An alert condition on a field site's figure (migration 022; core/field/field-alerts.ts). */
export interface FieldAlertConditionsTable {
  id: string;
  account_id: string;
  site_id: string;
  /** analysis/named-field-figures.ts: field_lcp_p75, field_inp_poor_share, … */
  figure: string;
  operator: string;
  value: number;
  /** mobile, tablet, desktop, or all. */
  device: string;
  /** '' for the whole site. */
  template: string;
  path: string;
  window_days: number;
  min_views: number;
  enabled: number;
  state: string;
  state_since: number;
  judged: number | null;
  measured: number | null;
  views: number | null;
  created: number;
}

/** A change of a field alert condition a judgement told (migration 023), with the condition's words at the time. */
export interface FieldAlertEventsTable {
  id: string;
  account_id: string;
  site_id: string;
  condition_id: string;
  /** triggered | resolved */
  state: string;
  figure: string;
  operator: string;
  /** The condition's value when it changed. */
  threshold: number;
  measured: number;
  views: number;
  device: string;
  template: string;
  path: string;
  window_days: number;
  min_views: number;
  created: number;
}
