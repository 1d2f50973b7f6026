/**
 * A test's loads: the page loaded `runs` times, one after the other in this slot, each in a fresh browser (the
 * runner launches one per load), with the host-quality check discarding loads made on a busy or slow host and
 * loading again (host-check.ts). The report is the median run (analysis/median-run.ts): its figures and files are all of
 * that one load. Loads of one test are not spread over several slots: two loads at once on one host would
 * disturb each other, which is what the check discards.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runCount } from '../core/options/analysis-options.js';
import { loadFigures, numericAttributes } from '../core/reports/report-figures.js';
import { candidateRuns, runsFile, type RunRecord, type RunsFile } from '../core/tests/runs.js';
import type { LoadPhase, RunResult, RunSpec } from '../runner/types.js';
import type { HostQualityCheck } from './host-check.js';

export interface SeriesOutcome {
  /** The load the report shows. */
  result: RunResult;
  /** Every load, when there was more than one. */
  runs?: RunsFile;
}

export async function runSeries(
  spec: RunSpec,
  run: (spec: RunSpec) => Promise<RunResult>,
  hostCheck: HostQualityCheck | undefined,
  /** Told as each load enters each of its phases, with the load's number (from 1). */
  onPhase?: (phase: LoadPhase, run: number) => void,
): Promise<SeriesOutcome> {
  const wanted = runCount(spec.options);
  const maxLoads = wanted + (hostCheck?.settings.maxExtraLoads ?? 0);
  const records: RunRecord[] = [];
  const results = new Map<number, RunResult>();
  let kept = 0;
  // After a load discarded as slow, the next one reads the host itself, right before its navigation.
  let readHostAgain = false;
  for (let n = 1; kept < wanted && n <= maxLoads; n++) {
    const workDir = join(spec.workDir, `run-${n}`);
    await mkdir(workDir, { recursive: true });
    const baseline = hostCheck?.baseline();
    const benchmarkIndex = hostCheck ? (readHostAgain ? undefined : hostCheck.currentReading()) : spec.benchmarkIndex;
    const load = n;
    const result = await run({ ...spec, workDir, measureHost: hostCheck !== undefined, benchmarkIndex,
      anotherLoadFollows: kept + 1 < wanted, onPhase: onPhase && ((phase) => onPhase(phase, load)) });
    const own = result.host?.benchmarkIndex;
    if (hostCheck && benchmarkIndex === undefined && own !== undefined) {
      hostCheck.record({ benchmarkIndex: own, otherCpuCores: result.host?.otherCpuCores, at: Date.now() });
    }
    const reason = hostCheck?.verdict(result.host, baseline) ?? null;
    readHostAgain = hostCheck?.isSlow(result.host, baseline) ?? false;
    records.push({
      run: n,
      discarded: reason !== null,
      discard_reason: reason,
      benchmark_index: result.host?.benchmarkIndex ?? null,
      baseline_benchmark_index: baseline ?? null,
      other_cpu_cores: result.host?.otherCpuCores ?? null,
      // Only runs.json needs a load's figures. A first load that is kept and is all the test wants stays alone
      // (no runs.json): its report computes them once, in completeTest.
      attributes: wanted === 1 && n === 1 && reason === null ? {} : numericAttributes(loadFigures(result, spec.options)),
    });
    if (reason === null) {
      kept++;
      // A discarded load's files are needed only while no load was kept (then the median comes from them all).
      for (const r of records) if (r.discarded) results.delete(r.run);
    }
    if (reason === null || kept === 0) results.set(n, result);
  }
  if (records.length === 1) return { result: results.get(1)! };

  const file = runsFile(records);
  const result = results.get(file.median_run)!;
  const used = candidateRuns(records);
  if (kept === 0) {
    result.warnings = [...(result.warnings ?? []), `All ${records.length} loads ran while the test agent's host was busy ` +
      'or slow (runs.json says why); the report is their median, and may be slower than the page is.'];
  } else if (used.length < wanted) {
    const made = used.length === 1 ? 'The report is a single run' : `The report is the median of ${used.length} runs`;
    result.warnings = [...(result.warnings ?? []), `${made}, not ${wanted}: ` +
      `${records.length - used.length} loads were discarded because the test agent's host was busy or slow (runs.json says why).`];
  }
  return { result, runs: file };
}
