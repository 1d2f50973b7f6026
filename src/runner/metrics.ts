/**
 * The metrics one page load measures (spec 2.2): milliseconds, bytes, counts and CLS. The runner owns these names;
 * the reports table's metric columns (store/schema.ts) and core's metric vocabulary (core/vocabulary/metrics.ts)
 * are typed from them. No imports: the runner is the lowest layer.
 */

/** Measured on every load. */
export interface LoadMetrics {
  html_bytes: number;
  page_bytes: number;
  page_requests: number;
  redirect_duration: number;
  connect_duration: number;
  backend_duration: number;
  time_to_first_byte: number;
  first_paint_time: number;
  first_contentful_paint: number;
  dom_interactive_time: number;
  dom_content_loaded_time: number;
  dom_content_loaded_duration: number;
  onload_time: number;
  onload_duration: number;
  /** -1 when stop_onload was used. */
  fully_loaded_time: number;
  rum_speed_index: number;
}

/** Lighthouse's metrics: measured only when Lighthouse ran. */
export interface LighthouseMetrics {
  speed_index: number;
  largest_contentful_paint: number;
  time_to_interactive: number;
  total_blocking_time: number;
  cumulative_layout_shift: number;
}

/** Integer metrics of spec 2.2 (milliseconds, bytes, counts) plus CLS. Absent when not applicable. */
export interface RunMetrics extends LoadMetrics, Partial<LighthouseMetrics> {
  /** Lighthouse performance category score, 0-100. */
  performance_score?: number;
}
