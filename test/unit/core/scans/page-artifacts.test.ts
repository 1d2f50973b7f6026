/** What a scan's stages read of a page's report (core/scans/page-artifacts.ts): the values of its kept runs. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FileArtifactStore } from '../../../../src/artifacts/store.js';
import { runValuesOf } from '../../../../src/core/scans/page-artifacts.js';
import { ARTIFACT, artifactKey } from '../../../../src/core/reports/reports.js';
import { runsFile, runsMeta, type RunRecord } from '../../../../src/core/tests/runs.js';

describe('run values of a report', () => {
  let dir: string;
  let artifacts: FileArtifactStore;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webgauge-run-values-'));
    artifacts = new FileArtifactStore(dir);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const load = (run: number, discarded: boolean, lcp: number): RunRecord => ({
    run, discarded, discard_reason: discarded ? 'the host was busy' : null, benchmark_index: null, baseline_benchmark_index: null,
    other_cpu_cores: null, attributes: { largest_contentful_paint: lcp, performance_score: 90 },
  });
  async function report(id: string, loads: RunRecord[]) {
    const file = runsFile(loads);
    await artifacts.put(artifactKey(id, ARTIFACT.runs), JSON.stringify(file));
    return { id, runs: JSON.stringify(runsMeta(file)) };
  }

  it('are the kept runs\' values', async () => {
    const r = await report('kept', [load(1, false, 1000), load(2, true, 3000), load(3, false, 1100), load(4, false, 1200)]);
    assert.deepEqual(JSON.parse((await runValuesOf(artifacts, r))!).largest_contentful_paint, [1000, 1100, 1200]);
  });

  it('are none for a one-run test whose loads the run guard discarded: 3 loads on a busy host are not 3 runs', async () => {
    const r = await report('busy', [load(1, true, 1000), load(2, true, 1100), load(3, true, 1200)]);
    assert.equal(runsMeta(runsFile([load(1, true, 1000), load(2, true, 1100), load(3, true, 1200)])).count, 3, 'the report is their median');
    assert.equal(await runValuesOf(artifacts, r), null);
    const one = await report('one-kept', [load(1, true, 1000), load(2, false, 1100)]);
    assert.equal(await runValuesOf(artifacts, one), null);
  });
});
