/**
 * Site scans in tests and benchmarks without a page load: a scan posted and waited for, its pages completed with stub
 * results; and the rows a scan stores (its options, settings and scans row) for the scans written straight into the
 * store (seed.ts, bench/scan.bench.ts).
 */
import assert from 'node:assert/strict';
import type { Insertable } from 'kysely';
import { claimTest, type TestRow } from '../../src/core/tests/tests.js';
import { completeTest } from '../../src/core/reports/reports.js';
import type { AnalysisOptions } from '../../src/core/options/analysis-options.js';
import { publicOptions } from '../../src/core/options/options.js';
import type { ScanSettings } from '../../src/core/scans/scan-request.js';
import type { RunsFile } from '../../src/core/tests/runs.js';
import type { ScansTable } from '../../src/store/schema.js';
import { analysisOptions } from './run-spec.js';
import { call, type TestServer } from './server.js';
import { stubResult } from './stub-result.js';

export const scanBody = (attributes: Record<string, unknown>) => ({ data: { type: 'scan', attributes } });

export async function waitForScan(server: TestServer, key: string, id: string, until: (state: string) => boolean, timeoutMs = 20_000,
  pollMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(server, 'GET', `/scans/${id}`, { key });
    assert.equal(res.status, 200, res.text);
    if (until(res.body.data.attributes.state)) return res.body.data;
    if (Date.now() > deadline) throw new Error(`scan ${id} still ${res.body.data.attributes.state}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * POST /scans of the pages `paths` of the site at `url` (source list, report none, location 1; `extra` on top), 202,
 * waited for until its pages are queued: the running scan's resource.
 */
export async function startListScan(server: TestServer, key: string, url: string, paths: string[], extra: Record<string, unknown> = {}) {
  const res = await call(server, 'POST', '/scans', { key, body: scanBody({ url, source: 'list', urls: paths, report: 'none', location: '1', ...extra }) });
  assert.equal(res.status, 202, res.text);
  return waitForScan(server, key, res.body.data.id, (s) => s === 'running');
}

/** Claims every queued test as a stub agent would, puts every other scan's back in the queue: this scan's tests, held. */
export async function claimScanTests(server: TestServer, scanId: string): Promise<TestRow[]> {
  const { store } = server.app;
  const held = [];
  for (;;) {
    const t = await claimTest(store, '1', 'stub-agent', 60_000);
    if (!t) break;
    held.push(t);
  }
  const mine = [];
  for (const t of held) {
    if (t.scan_id === scanId) mine.push(t);
    else await store.db.updateTable('tests').set({ state: 'queued', lease_owner: null, lease_expires: null, started: null }).where('id', '=', t.id).execute();
  }
  return mine;
}

/**
 * Completes a running scan's tests as an agent would (a stub result: no page load; `runs` for the paths loaded several
 * times), writes the figures into their reports, puts every other scan's claimed test back in the queue, and (unless
 * `follow` is false) lets the scans' follower complete the scan.
 */
export async function completeScan(server: TestServer, scanId: string, figures: Record<string, Record<string, number | string>>,
  runs: Record<string, RunsFile> = {}, follow = true) {
  const { store, artifacts } = server.app;
  for (const t of await claimScanTests(server, scanId)) {
    const path = new URL(t.url).pathname;
    assert.ok(await completeTest(store, artifacts, t.id, 'stub-agent', stubResult(t.url), runs[path]));
    await store.db.updateTable('reports').set({ cumulative_layout_shift: 0.02, performance_score: 90, service_grade: 'A', total_blocking_time: 50,
      lighthouse_version: '13.5.0', ...figures[path] }).where('id', '=', t.id).execute();
  }
  if (follow) await server.app.scanFollow.drain();
}

/** The options of each page's test as a scan stores them: POST /tests' defaults for `url`, `extra` on top. */
export const scanOptions = (url: string, extra: Partial<AnalysisOptions> = {}): AnalysisOptions => publicOptions(analysisOptions(url, extra));

/** A scan's settings as POST /scans stores them (stored before alert conditions): a sitemap scan unless `o` says otherwise. */
export function scanSettings(o: Partial<ScanSettings> & Pick<ScanSettings, 'max_pages' | 'sample'>): Omit<ScanSettings, 'alert_conditions'> {
  const { max_pages, sample, ...rest } = o;
  return { source: 'sitemap', urls: [], sitemaps: [], include: [], exclude: [], templates: [], max_pages, sample, crawl_depth: 3, respect_robots: true,
    keep_query: false, ...rest };
}

/**
 * A scans row as the scan's work leaves it, for a scan written straight into the store: a completed sitemap scan of
 * `url`'s site, started and finished when created, on location 1 and browser 3, unless `o` says otherwise.
 */
export const scanRow = (o: Pick<Insertable<ScansTable>, 'id' | 'account_id' | 'url' | 'options' | 'settings' | 'created' | 'expires' | 'found'>
  & Partial<Insertable<ScansTable>>): Insertable<ScansTable> => ({
  site: new URL(o.url).origin, source: 'sitemap', state: 'completed', error: null, location: '1', browser: '3', started: o.created,
  finished: o.created, skipped: '{}', discovery_errors: '[]', cost_tenths: 10, reserved_tenths: 0, lease_owner: null, lease_expires: null,
  figures: null, ...o,
});
