/** Site scans in integration tests without a page load: wait for a scan's state, and complete its pages with stub results. */
import assert from 'node:assert/strict';
import { claimTest } from '../../src/core/tests/tests.js';
import { completeTest } from '../../src/core/reports/reports.js';
import type { RunsFile } from '../../src/core/tests/runs.js';
import { call, type TestServer } from './server.js';
import { stubResult } from './stub-result.js';

export const scanBody = (attributes: Record<string, unknown>) => ({ data: { type: 'scan', attributes } });

export async function waitForScan(server: TestServer, key: string, id: string, until: (state: string) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(server, 'GET', `/scans/${id}`, { key });
    assert.equal(res.status, 200, res.text);
    if (until(res.body.data.attributes.state)) return res.body.data;
    if (Date.now() > deadline) throw new Error(`scan ${id} still ${res.body.data.attributes.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Completes a running scan's tests as an agent would (a stub result: no page load; `runs` for the paths loaded several
 * times), writes the figures into their reports, puts every other scan's claimed test back in the queue, and (unless
 * `follow` is false) lets the scans' follower complete the scan.
 */
export async function completeScan(server: TestServer, scanId: string, figures: Record<string, Record<string, number | string>>,
  runs: Record<string, RunsFile> = {}, follow = true) {
  const { store, artifacts } = server.app;
  const held = [];
  for (;;) {
    const t = await claimTest(store, '1', 'stub-agent', 60_000);
    if (!t) break;
    held.push(t);
  }
  for (const t of held) {
    if (t.scan_id !== scanId) {
      await store.db.updateTable('tests').set({ state: 'queued', lease_owner: null, lease_expires: null, started: null }).where('id', '=', t.id).execute();
      continue;
    }
    const path = new URL(t.url).pathname;
    assert.ok(await completeTest(store, artifacts, t.id, 'stub-agent', stubResult(t.url), runs[path]));
    await store.db.updateTable('reports').set({ cumulative_layout_shift: 0.02, performance_score: 90, service_grade: 'A', total_blocking_time: 50,
      lighthouse_version: '13.5.0', ...figures[path] }).where('id', '=', t.id).execute();
  }
  if (follow) await server.app.scanFollow.drain();
}
