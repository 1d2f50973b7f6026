/**
 * The metrics' table (core/vocabulary/metrics.ts) and what reads it: the report resource and the report list, the run's
 * figures, alerts, compare and the charts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALERT_METRICS } from '../../../../src/core/alerts/alerts.js';
import {
  ALERTABLE_METRICS, CHARTED_METRICS, COMPARED_METRICS, higherIsBetter, LIGHTHOUSE_METRICS, LOAD_METRICS, METRICS, unitBetter,
} from '../../../../src/core/vocabulary/metrics.js';
import { titleOf } from '../../../../src/analysis/figures.js';
import { REPORT_SCHEMAS } from '../../../../src/api/schemas/reports.js';
import { REPORTS_LIST } from '../../../../src/core/vocabulary/lists.js';
import { FIGURES } from '../../../../src/web/screens/compare.js';
import { propertiesOf } from '../../../helpers/schemas.js';

test('metrics: every column is a numeric attribute of the report resource and a filter of the report list', () => {
  const attributes = propertiesOf(REPORT_SCHEMAS.Report, 'attributes');
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
  const lcp = FIGURES.find((f) => f.key === 'largest_contentful_paint')!;
  assert.deepEqual([lcp.label, lcp.kind, lcp.spec.better, lcp.spec.noise.change], ['Largest contentful paint', 'time', 'lower', 500]);
  assert.deepEqual(CHARTED_METRICS.map(titleOf), [
    'Grade', 'Performance', 'Structure', 'Largest Contentful Paint', 'Total Blocking Time', 'Cumulative Layout Shift', 'Fully loaded', 'Page size',
  ]);
});

