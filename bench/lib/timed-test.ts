/** A test through the whole service timed as a client sees it (POST to a readable report), for the benchmarks. */
import { call, waitForTest, type TestServer } from '../../test/helpers/server.js';

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : Math.round((s[s.length / 2 - 1]! + s[s.length / 2]!) / 2);
};

export interface Timed {
  ms: number;
  id: string;
  loads: number;
  /** Loads the run guard discarded (runs.json says; a one-load test without one has none), and why. */
  discarded: number;
  reasons: string[];
}

export async function timedTest(server: TestServer, attributes: Record<string, unknown>): Promise<Timed> {
  const t0 = performance.now();
  const res = await call(server, 'POST', '/tests', { key: server.key, body: { data: { type: 'test', attributes } } });
  if (res.status !== 202) throw new Error(`POST /tests: ${res.status} ${res.text}`);
  const id = res.body.data.id as string;
  // Polled every 80 ms (750 a minute: within the key's rate limit of 960, a journey's test lasting minutes included):
  // the bench measures the service, not a client's 3 s.
  const done = await waitForTest(server, server.key, id, 300_000, 80);
  if (done.status !== 303) throw new Error(`test did not complete: ${done.text}`);
  const report = await call(server, 'GET', `/reports/${id}`, { key: server.key });
  if (report.status !== 200) throw new Error(`report: ${report.status}`);
  const ms = Math.round(performance.now() - t0);
  const runsFile = await call(server, 'GET', `/reports/${id}/resources/runs.json`, { key: server.key });
  const records = runsFile.status === 200 ? (runsFile.body.runs as { discarded: boolean; discard_reason: string | null }[]) : [];
  return { ms, id, loads: Math.max(1, records.length), discarded: records.filter((r) => r.discarded).length,
    reasons: records.filter((r) => r.discarded).map((r) => r.discard_reason ?? '') };
}
