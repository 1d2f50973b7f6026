/**
 * A remote agent whose runner returns at once (the queue bench only: it measures the queue and the protocol, not
 * a page load). Everything else is the real agent: HTTP transport, hello, long-poll claims, leases, the upload of
 * a result bundle, completion. Prints `claimed <test id> <epoch ms>` when a test reaches its runner.
 *
 *   node --import tsx bench/lib/stub-agent.ts <server> <token>
 */
import { startRemoteAgent } from '../../src/agent/remote.js';
import type { RunResult, RunSpec } from '../../src/runner/types.js';

const [server, token] = process.argv.slice(2);
// A 1×1 JPEG, the smallest real screenshot.
const JPEG = Buffer.from('/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAAA//EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AN//Z', 'base64');

async function stubRun(spec: RunSpec): Promise<RunResult> {
  process.stdout.write(`claimed ${spec.testId} ${Date.now()}\n`);
  const zero = { html_bytes: 100, page_bytes: 100, page_requests: 1, redirect_duration: 0, connect_duration: 0, backend_duration: 1,
    time_to_first_byte: 1, first_paint_time: 10, first_contentful_paint: 10, dom_interactive_time: 10, dom_content_loaded_time: 10,
    dom_content_loaded_duration: 0, onload_time: 11, onload_duration: 0, fully_loaded_time: 12, rum_speed_index: 10 };
  return {
    finalUrl: spec.options.url, userAgent: 'stub', metrics: zero, screenshot: JPEG, filmstrip: [], phases: {},
    har: { log: { version: '1.2', creator: { name: 'stub', version: '0' }, pages: [], entries: [] } } as unknown as RunResult['har'],
  };
}

await startRemoteAgent({ server: server!, token: token!, slots: 1, run: stubRun });
