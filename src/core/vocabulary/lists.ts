/**
 * The lists of the API (spec 4.1, 4.3) and the app: what each filters and sorts on, one table per list, read by the
 * query parser (core/list-query.ts: the API's lists and the app's filter of a scan's pages), the API's schemas and OpenAPI, and the store's one translation into SQL
 * (store/list-query.ts). Report metrics and monitoring frequencies come from their own tables.
 */
import { DEVICE_CLASS_IDS } from './device-classes.js';
import type { AttrSpec, ListSpec } from '../../store/list-query.js';
import { FREQUENCIES, FREQUENCY_NAMES } from './frequencies.js';
import { METRICS } from './metrics.js';
import { DELIVERY_EVENTS } from './webhook-events.js';

/** Other spellings of a frequency a filter accepts (`none` for `no`). */
const FREQUENCY_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  FREQUENCIES.flatMap((f) => f.aliases.map((alias: string) => [alias, f.name])),
);

const STATES = ['queued', 'started', 'error', 'completed'] as const;
const SOURCES = ['api', 'on-demand', 'monitored', 'scan'] as const;
const GRADES = ['A', 'B', 'C', 'D', 'E', 'F'] as const;

const time = (sort: boolean, nullable = false): AttrSpec => ({ type: 'time', filter: true, sort, nullable });
const metric = (type: 'int' | 'number', nullable: boolean): AttrSpec => ({ type, filter: true, sort: true, nullable });

export const TESTS_LIST: ListSpec<'tests'> = {
  table: 'tests',
  attrs: {
    state: { type: 'enum', values: STATES, filter: true },
    source: { type: 'enum', values: SOURCES, filter: true },
    browser: { type: 'id', filter: true },
    location: { type: 'id', filter: true },
    created: time(true),
    started: time(true, true),
    finished: time(true, true),
  },
  defaultSort: [{ attr: 'created', desc: false }],
  defaultPageSize: 50,
};

/** A scan's pages (docs/scans.md): sortable on every figure, the slowest first with `-largest_contentful_paint`. */
export const SCAN_PAGE_STATES = ['queued', 'started', 'completed', 'failed', 'cancelled'] as const;
export const SCAN_PAGES_LIST: ListSpec<'scan_pages'> = {
  table: 'scan_pages',
  attrs: {
    position: { type: 'int', filter: false, sort: true },
    url: { type: 'fuzzy', filter: true, sort: true },
    template: { type: 'id', filter: true, sort: true },
    state: { type: 'enum', values: SCAN_PAGE_STATES, filter: true, sort: true },
    grade: { type: 'enum', values: GRADES, filter: true, sort: true, nullable: true },
    performance_score: metric('int', true),
    structure_score: metric('int', true),
    largest_contentful_paint: metric('int', true),
    total_blocking_time: metric('int', true),
    cumulative_layout_shift: metric('number', true),
    fully_loaded_time: metric('int', true),
    page_bytes: metric('int', true),
    page_requests: metric('int', true),
  },
  defaultSort: [{ attr: 'position', desc: false }],
  defaultPageSize: 50,
};

export const SCAN_STATES = ['discovering', 'running', 'completed', 'cancelled', 'error'] as const;
export const SCANS_LIST: ListSpec<'scans'> = {
  table: 'scans',
  attrs: {
    state: { type: 'enum', values: SCAN_STATES, filter: true },
    source: { type: 'enum', values: ['sitemap', 'crawl', 'list'], filter: true },
    device_class: { type: 'enum', values: DEVICE_CLASS_IDS, filter: true },
    url: { type: 'fuzzy', filter: true },
    created: time(true),
    finished: time(true, true),
  },
  defaultSort: [{ attr: 'created', desc: true }],
  defaultPageSize: 20,
};

export const PAGES_LIST: ListSpec<'pages'> = {
  table: 'pages',
  attrs: {
    url: { type: 'fuzzy', filter: true },
    monitored: { type: 'enum', values: FREQUENCY_NAMES, aliases: FREQUENCY_ALIASES, filter: true },
    browser: { type: 'id', filter: true },
    location: { type: 'id', filter: true },
    page_tag: { type: 'tag', filter: true },
    created: time(true),
    latest_report_time: time(true),
    report_count: { type: 'int', filter: true },
  },
  defaultSort: [{ attr: 'created', desc: true }],
  defaultPageSize: 10,
  unsortable: { report_count: 'sorting pages by report_count is unavailable' },
};

/**
 * Every metric of the table, in the order the list has always named them (its messages list them): a load's own
 * figures are always there, Lighthouse's, the grade's and the legacy scores are absent (NULL) from reports that did
 * not run them, so those come first, then the load's, then layout shift, the one that is not an integer.
 */
const listGroup = (m: (typeof METRICS)[number]): number => (m.unit === 'cls' ? 2 : m.source === 'load' ? 1 : 0);
const LISTED_METRICS = [...METRICS].sort((a, b) => listGroup(a) - listGroup(b));

export const REPORTS_LIST: ListSpec<'reports'> = {
  table: 'reports',
  attrs: {
    source: { type: 'enum', values: SOURCES, filter: true },
    service_grade: { type: 'enum', values: GRADES, filter: true },
    browser: { type: 'id', filter: true },
    location: { type: 'id', filter: true },
    created: time(true),
    expires: time(true),
    ...Object.fromEntries(LISTED_METRICS.map((m) => [m.name, metric(m.unit === 'cls' ? 'number' : 'int', m.source !== 'load')])),
  },
  defaultSort: [{ attr: 'created', desc: true }],
  defaultPageSize: 50,
};

/** GET /pages/{id}/performance_alert_events (issue 12): newest first, like the report list. */
export const ALERT_EVENTS_LIST: ListSpec<'alert_events'> = {
  table: 'alert_events',
  attrs: {
    state: { type: 'enum', values: ['triggered', 'resolved'], filter: true },
    metric: { type: 'id', filter: true },
    created: time(true),
    value: metric('number', false),
    threshold: metric('number', false),
  },
  defaultSort: [{ attr: 'created', desc: true }],
  defaultPageSize: 50,
};

/** A field site's alert events (GET /field_sites/{id}/alert_events), newest first. */
export const FIELD_ALERT_EVENTS_LIST: ListSpec<'field_alert_events'> = {
  table: 'field_alert_events',
  attrs: {
    state: { type: 'enum', values: ['triggered', 'resolved'], filter: true },
    figure: { type: 'id', filter: true },
    device: { type: 'id', filter: true },
    created: time(true),
    measured: metric('number', false),
    views: metric('int', false),
  },
  defaultSort: [{ attr: 'created', desc: true }],
  defaultPageSize: 50,
};

/** GET /webhooks/{id}/deliveries (issue 12): newest first. */
export const DELIVERIES_LIST: ListSpec<'deliveries'> = {
  table: 'deliveries',
  attrs: {
    state: { type: 'enum', values: ['pending', 'delivered', 'failed'], filter: true },
    event: { type: 'enum', values: DELIVERY_EVENTS, filter: true },
    created: time(true),
  },
  defaultSort: [{ attr: 'created', desc: true }],
  defaultPageSize: 50,
};
