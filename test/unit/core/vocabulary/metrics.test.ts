import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALERT_METRICS } from '../../../../src/core/alerts/alerts.js';
import { publicOptions } from '../../../../src/core/options/options.js';
import { ACCEPTED_FREQUENCIES, FREQUENCIES, FREQUENCY_NAMES } from '../../../../src/core/vocabulary/frequencies.js';
import {
  ALERTABLE_METRICS, CHARTED_METRICS, COMPARED_METRICS, higherIsBetter, LIGHTHOUSE_METRICS, LOAD_METRICS, METRICS, unitBetter,
} from '../../../../src/core/vocabulary/metrics.js';
import { titleOf } from '../../../../src/analysis/figures.js';
import { CAPABILITY_NAMES, IDENTITY_OPTIONS, OPTIONS, PRO_OPTIONS, SECRET_OPTIONS, WRITE_ONLY_OPTIONS } from '../../../../src/core/vocabulary/options.js';
import { REPORT_TYPE_NAMES } from '../../../../src/core/vocabulary/report-types.js';
import { RETENTION_MONTHS } from '../../../../src/core/vocabulary/retentions.js';
import { REPORT_SCHEMAS } from '../../../../src/api/schemas/reports.js';
import { PAGE_SCHEMAS } from '../../../../src/api/schemas/pages.js';
import { TEST_SCHEMAS } from '../../../../src/api/schemas/tests.js';
import { PAGES_LIST, REPORTS_LIST } from '../../../../src/core/vocabulary/lists.js';
import { FIGURES } from '../../../../src/web/screens/compare.js';
import { FREQUENCY_NAMES as APP_FREQUENCY_NAMES } from '../../../../src/web/screens/pages.js';

type Schema = { properties?: Record<string, Schema>; enum?: unknown[]; anyOf?: Schema[]; type?: string };
const props = (s: unknown, ...path: string[]): Record<string, Schema> => {
  let at = s as Schema;
  for (const p of path) at = at.properties![p];
  return at.properties!;
};

test('metrics: every column is a numeric attribute of the report resource and a filter of the report list', () => {
  const attributes = props(REPORT_SCHEMAS.Report, 'attributes');
  for (const m of METRICS) {
    const a = attributes[m.name];
    assert.ok(a, `${m.name} is a report attribute`);
    assert.equal(a.type, m.unit === 'cls' ? 'number' : 'integer', m.name);
    assert.ok(REPORTS_LIST.attrs[m.name], `${m.name} is a report list attribute`);
  }
  assert.equal(new Set(METRICS.map((m) => m.name)).size, METRICS.length, 'no metric twice');
});

test('metrics: directions', () => {
  for (const m of ['service_score', 'performance_score', 'structure_score', 'pagespeed_score', 'yslow_score']) assert.ok(higherIsBetter(m), m);
  for (const m of ['fully_loaded_time', 'page_bytes', 'page_requests', 'cumulative_layout_shift', 'total_blocking_time']) assert.ok(!higherIsBetter(m), m);
  // Every metric of a unit reads the same way (compare's default direction of a unit relies on it).
  for (const m of METRICS) assert.equal(m.better, unitBetter(m.unit), m.name);
});

test('metrics: the run metrics, alerts, compare and charts read the table', () => {
  assert.deepEqual([...LOAD_METRICS], [
    'html_bytes', 'page_bytes', 'page_requests', 'redirect_duration', 'connect_duration', 'backend_duration',
    'time_to_first_byte', 'first_paint_time', 'first_contentful_paint', 'dom_interactive_time', 'dom_content_loaded_time',
    'dom_content_loaded_duration', 'onload_time', 'onload_duration', 'fully_loaded_time', 'rum_speed_index',
  ]);
  assert.deepEqual([...LIGHTHOUSE_METRICS], ['speed_index', 'largest_contentful_paint', 'time_to_interactive', 'total_blocking_time', 'cumulative_layout_shift']);
  assert.deepEqual([...ALERT_METRICS].sort(), [...ALERTABLE_METRICS].sort());
  assert.deepEqual(FIGURES.map((f) => f.key), COMPARED_METRICS.map((m) => m.name));
  assert.deepEqual(FIGURES.find((f) => f.key === 'largest_contentful_paint'), { key: 'largest_contentful_paint', label: 'Largest contentful paint', kind: 'time', better: 'lower' });
  assert.deepEqual(CHARTED_METRICS.map(titleOf), [
    'Grade', 'Performance', 'Structure', 'Largest Contentful Paint', 'Total Blocking Time', 'Cumulative Layout Shift', 'Fully loaded', 'Page size',
  ]);
});

test('frequencies: the API, the report list and the app use the table', () => {
  assert.deepEqual([...FREQUENCY_NAMES], ['no', 'hourly', 'daily', 'weekly', 'monthly']);
  assert.deepEqual([...ACCEPTED_FREQUENCIES], ['no', 'none', 'hourly', 'daily', 'weekly', 'monthly']);
  assert.deepEqual(props(PAGE_SCHEMAS.Page, 'attributes').monitored.enum, [...FREQUENCY_NAMES]);
  // The pages list's filter (store/list-query.ts, below core) must name the same frequencies.
  assert.deepEqual([...(PAGES_LIST.attrs.monitored?.values ?? [])], [...FREQUENCY_NAMES]);
  assert.deepEqual(Object.keys(APP_FREQUENCY_NAMES), [...FREQUENCY_NAMES]);
  assert.equal(APP_FREQUENCY_NAMES.no, 'Off');
  assert.deepEqual(FREQUENCIES.filter((f) => 'planFlag' in f).map((f) => f.name), ['hourly']);
});

test('report types and retentions: the API schema and the parser use the tables', () => {
  assert.deepEqual([...REPORT_TYPE_NAMES], ['lighthouse', 'legacy', 'lighthouse,legacy', 'none']);
  assert.deepEqual([...RETENTION_MONTHS], [1, 6, 12, 24]);
  const retention = props(TEST_SCHEMAS.TestAttributesInput).retention;
  assert.deepEqual(retention.anyOf![0].enum, [...RETENTION_MONTHS]);
});

test('options: one row per option, in the order of the normalised options', () => {
  const names = OPTIONS.map((o) => o.name);
  assert.equal(new Set(names).size, names.length);
  const all = Object.fromEntries([...names].reverse().map((n) => [n, 1]));
  assert.deepEqual(Object.keys(publicOptions(all as never)), names);
  assert.deepEqual([...PRO_OPTIONS], ['dns', 'simulate_device', 'user_agent', 'browser_width', 'browser_height', 'browser_dppx', 'browser_rotate']);
  assert.deepEqual([...SECRET_OPTIONS], ['httpauth_password', 'cookies', 'journey', 'journey_secrets']);
  assert.deepEqual([...WRITE_ONLY_OPTIONS], ['journey_secrets']);
  assert.deepEqual(names.filter((n) => !IDENTITY_OPTIONS.includes(n)), ['retention', 'httpauth_password', 'video', 'runs', 'journey_secrets']);
  // Every capability an option needs is described, and every described one is needed by an option.
  const needed = new Set(OPTIONS.flatMap((o) => ('capability' in o ? [o.capability] : [])));
  assert.deepEqual(new Set(CAPABILITY_NAMES.map(([c]) => c)), needed);
});
