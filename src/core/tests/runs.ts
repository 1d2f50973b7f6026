/**
 * The runs of one test (`runs` > 1, or a load the run guard discarded): what runs.json holds and what the
 * report's meta.runs says. The report itself is the median run (analysis/median-run.ts).
 */
import { medianRunIndex, runSpread, type RunFigures, type Spread } from '../../analysis/median-run.js';

/** One load of the page, as runs.json lists it. */
export interface RunRecord {
  /** 1, 2, …: the order in which the loads happened, discarded ones included. */
  run: number;
  discarded: boolean;
  /** Why the run guard discarded the load (agent/host-check.ts); null when it was kept. */
  discard_reason: string | null;
  /** Lighthouse's benchmark index of the agent's browser, measured right before this load. */
  benchmark_index: number | null;
  /** The agent's baseline benchmark index when the load ran. */
  baseline_benchmark_index: number | null;
  /** CPU cores used on the host by other processes during the load, on average (null: not measurable here). */
  other_cpu_cores: number | null;
  /** The load's numeric report attributes (performance_score, largest_contentful_paint, …). */
  attributes: RunFigures;
}

/** runs.json. */
export interface RunsFile {
  /** Runs the median was chosen from (the test's `runs`, or fewer when loads failed the guard too often). */
  count: number;
  /** The run the report shows. */
  median_run: number;
  runs: RunRecord[];
}

/** The report's data.meta.runs. */
export interface RunsMeta {
  count: number;
  median_run: number;
  discarded: number;
  /** Every numeric attribute over the runs the median was chosen from. */
  spread: Record<string, Spread>;
}

/**
 * The runs the median is chosen from: the kept ones; when every load was discarded, all of them (the report
 * then carries a warning, so a figure is never made up and a test never fails only because the host was busy).
 */
export function candidateRuns(records: readonly RunRecord[]): RunRecord[] {
  const kept = records.filter((r) => !r.discarded);
  return kept.length > 0 ? kept : [...records];
}

/** Chooses the median run among the candidates and returns runs.json. */
export function runsFile(records: readonly RunRecord[]): RunsFile {
  const candidates = candidateRuns(records);
  const median = candidates[medianRunIndex(candidates.map((r) => r.attributes))]!;
  return { count: candidates.length, median_run: median.run, runs: [...records] };
}

export function runsMeta(file: RunsFile): RunsMeta {
  const candidates = candidateRuns(file.runs);
  return {
    count: file.count,
    median_run: file.median_run,
    discarded: file.runs.filter((r) => r.discarded).length,
    spread: runSpread(candidates.map((r) => r.attributes)),
  };
}

const isSpread = (v: unknown): v is Spread => typeof v === 'object' && v !== null &&
  ['min', 'median', 'max', 'stdev'].every((k) => typeof (v as Record<string, unknown>)[k] === 'number');

/** A report's stored meta.runs (reports.runs), read with its shape checked; undefined for a single-run report. */
export function readRunsMeta(text: string | null): RunsMeta | undefined {
  if (text === null) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined; // only this module writes the column; a damaged value hides the spread, not the report
  }
  if (typeof o !== 'object' || o === null) return undefined;
  const { count, median_run, discarded, spread } = o as Record<string, unknown>;
  if (typeof count !== 'number' || typeof median_run !== 'number' || typeof discarded !== 'number') return undefined;
  if (typeof spread !== 'object' || spread === null) return undefined;
  const checked: Record<string, Spread> = {};
  for (const [k, v] of Object.entries(spread)) if (isSpread(v)) checked[k] = v;
  return { count, median_run, discarded, spread: checked };
}
