import type { Kysely, Migration } from 'kysely';
import { m002Lists } from './002-lists.js';
import { m003TagsMonitoring } from './003-tags-monitoring.js';
import { m004PdfGenerations } from './004-pdf-generations.js';
import { m005UrlSearch } from './005-url-search.js';
import { m006AlertsWebhooks } from './006-alerts-webhooks.js';
import { m007ReportRuns } from './007-report-runs.js';
import { m008LocationsAgents } from './008-locations-agents.js';
import { m009AccountPasswords } from './009-account-passwords.js';
import { m010Sessions } from './010-sessions.js';
import { m011ReportJourneys } from './011-report-journeys.js';
import { m012ReportLighthouseVersion } from './012-report-lighthouse-version.js';
import { m013Scans } from './013-scans.js';
import { m014ScanRunValues } from './014-scan-run-values.js';
import { m015ScanSchedulesAlerts } from './015-scan-schedules-alerts.js';
import { m016TestPhases } from './016-test-phases.js';
import { m017ReportDeviceCpu } from './017-report-device-cpu.js';
import { m018ScanDevices } from './018-scan-devices.js';
import { m019Field } from './019-field.js';
import { m020FieldPathIndex } from './020-field-path-index.js';
import { m021CruxCache } from './021-crux-cache.js';
import { m022FieldAlerts } from './022-field-alerts.js';
import { m023FieldAlertEvents } from './023-field-alert-events.js';

/** One migration set for SQLite and PostgreSQL. `bigint` holds ms timestamps (pg parses int8 to number). */
const m001: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('team_owner_id', 'text')
      .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('credits_tenths', 'integer', (c) => c.notNull())
      .addColumn('credits_refilled_at', 'bigint', (c) => c.notNull())
      .addColumn('email_validated', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('created', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('tests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('options', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('browser', 'text', (c) => c.notNull())
      .addColumn('location', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addColumn('started', 'bigint')
      .addColumn('finished', 'bigint')
      .addColumn('lease_owner', 'text')
      .addColumn('lease_expires', 'bigint')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('credits_tenths', 'integer', (c) => c.notNull())
      .addColumn('report_id', 'text')
      .addColumn('page_id', 'text')
      .execute();
    // The queue: oldest queued test of a location; the reaper: expired leases; lists: per account by time.
    await db.schema.createIndex('tests_queue').on('tests').columns(['state', 'location', 'created']).execute();
    await db.schema.createIndex('tests_lease').on('tests').columns(['state', 'lease_expires']).execute();
    await db.schema.createIndex('tests_account_created').on('tests').columns(['account_id', 'created']).execute();

    await db.schema
      .createTable('pages')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('options', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addColumn('browser', 'text', (c) => c.notNull())
      .addColumn('location', 'text', (c) => c.notNull())
      .addColumn('monitored', 'text', (c) => c.notNull().defaultTo('no'))
      .addColumn('latest_report_id', 'text')
      .addColumn('latest_report_time', 'bigint')
      .addColumn('report_count', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex('pages_identity')
      .on('pages')
      .columns(['account_id', 'url', 'fingerprint'])
      .unique()
      .execute();
    await db.schema.createIndex('pages_account_created').on('pages').columns(['account_id', 'created']).execute();

    const reports = db.schema
      .createTable('reports')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('test_id', 'text', (c) => c.notNull())
      .addColumn('page_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('report_type', 'text', (c) => c.notNull())
      .addColumn('options', 'text', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addColumn('expires', 'bigint', (c) => c.notNull())
      .addColumn('browser', 'text', (c) => c.notNull())
      .addColumn('location', 'text', (c) => c.notNull())
      .addColumn('user_agent', 'text', (c) => c.notNull())
      .addColumn('resources', 'text', (c) => c.notNull())
      .addColumn('filmstrip_frames', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('service_grade', 'text')
      .addColumn('cumulative_layout_shift', 'double precision');
    const intColumns = [
      'service_score', 'performance_score', 'structure_score', 'pagespeed_score', 'yslow_score',
      'html_bytes', 'page_bytes', 'page_requests', 'redirect_duration', 'connect_duration', 'backend_duration',
      'time_to_first_byte', 'first_paint_time', 'first_contentful_paint', 'dom_interactive_time',
      'dom_content_loaded_time', 'dom_content_loaded_duration', 'onload_time', 'onload_duration',
      'fully_loaded_time', 'rum_speed_index', 'speed_index', 'largest_contentful_paint', 'time_to_interactive',
      'total_blocking_time',
    ];
    let table = reports;
    for (const name of intColumns) table = table.addColumn(name, 'integer');
    await table.execute();
    await db.schema.createIndex('reports_page_created').on('reports').columns(['page_id', 'created']).execute();
    await db.schema.createIndex('reports_account_created').on('reports').columns(['account_id', 'created']).execute();
    await db.schema.createIndex('reports_expires').on('reports').columns(['expires']).execute();

    await db.schema
      .createTable('rate_limits')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('rate_limits_pk', ['account_id', 'window_start'])
      .execute();
  },
  async down(db: Kysely<any>) {
    for (const t of ['rate_limits', 'reports', 'pages', 'tests', 'accounts']) {
      await db.schema.dropTable(t).ifExists().execute();
    }
  },
};

export const migrations: Record<string, Migration> = {
  '001_initial': m001,
  '002_lists': m002Lists,
  '003_tags_monitoring': m003TagsMonitoring,
  '004_pdf_generations': m004PdfGenerations,
  '005_url_search': m005UrlSearch,
  '006_alerts_webhooks': m006AlertsWebhooks,
  '007_report_runs': m007ReportRuns,
  '008_locations_agents': m008LocationsAgents,
  '009_account_passwords': m009AccountPasswords,
  '010_sessions': m010Sessions,
  '011_report_journeys': m011ReportJourneys,
  '012_report_lighthouse_version': m012ReportLighthouseVersion,
  '013_scans': m013Scans,
  '014_scan_run_values': m014ScanRunValues,
  '015_scan_schedules_alerts': m015ScanSchedulesAlerts,
  '016_test_phases': m016TestPhases,
  '017_report_device_cpu': m017ReportDeviceCpu,
  '018_scan_devices': m018ScanDevices,
  '019_field': m019Field,
  '020_field_path_index': m020FieldPathIndex,
  '021_crux_cache': m021CruxCache,
  '022_field_alerts': m022FieldAlerts,
  '023_field_alert_events': m023FieldAlertEvents,
};
