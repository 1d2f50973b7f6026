/**
 * A RunResult made without a browser, for tests of the queue and the agent protocol (and the queue bench), where
 * the load itself is not what is tested. Its figures are fixed and small; nothing reads them as a measurement.
 */
import type { RunResult } from '../../src/runner/types.js';

// A 1×1 JPEG.
const JPEG = Buffer.from('/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAAA//EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AN//Z', 'base64');

export function stubResult(url: string): RunResult {
  const metrics = {
    html_bytes: 100, page_bytes: 100, page_requests: 1, redirect_duration: 0, connect_duration: 0, backend_duration: 1,
    time_to_first_byte: 1, first_paint_time: 10, first_contentful_paint: 10, dom_interactive_time: 10, dom_content_loaded_time: 10,
    dom_content_loaded_duration: 0, onload_time: 11, onload_duration: 0, fully_loaded_time: 12, rum_speed_index: 10,
  };
  return {
    finalUrl: url, userAgent: 'stub', metrics, screenshot: JPEG, filmstrip: [], phases: {},
    har: { log: { version: '1.2', creator: { name: 'stub', version: '0' }, pages: [], entries: [] } } as unknown as RunResult['har'],
  };
}
