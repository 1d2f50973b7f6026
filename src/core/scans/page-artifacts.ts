/**
 * What a scan's stages read of a page's report in the artifact store, beside its row's figures: the values of its runs
 * (runs.json), which following stores on the page (following.ts), and its structure audits (structure.json) and third
 * parties (its HAR), from which completion makes the site figures (completion.ts). An artifact that is missing or
 * unreadable counts as absent.
 */
import { readStructureReport } from '../../analysis/structure/index.js';
import { COMPARED_METRICS } from '../../analysis/scan-comparison-rules.js';
import { thirdPartiesOf, type HarEntryOfPage, type PageAudit, type PageThirdParty } from '../../analysis/site-figures.js';
import type { ArtifactStore } from '../../artifacts/store.js';
import { ARTIFACT, artifactKey } from '../reports/reports.js';
import { readRunsMeta, type RunsFile } from '../tests/runs.js';

/**
 * The compared figures over the kept runs of a report whose test loaded the page more than once (its runs.json), as
 * the page's run_values: `{metric: number[]}` with a figure only when every kept run has it; null for a single kept run
 * (a single-run test whose loads the run guard discarded included).
 * Read back by readRunValues (scan-readers.ts). `metrics`: the figures to read (the compared site figures unless
 * told; the app's compare table reads its own).
 */
export async function runValuesOf(artifacts: ArtifactStore, r: { id: string; runs: string | null },
  metrics: readonly string[] = COMPARED_METRICS): Promise<string | null> {
  if ((readRunsMeta(r.runs)?.count ?? 1) < 2) return null;
  const file = await readJson(artifacts, artifactKey(r.id, ARTIFACT.runs)) as Partial<RunsFile> | undefined;
  if (!Array.isArray(file?.runs)) return null;
  // The kept runs only: loads the run guard discarded are no runs. A one-run test on a busy host is the median of its
  // discarded loads (up to 3), which are not runs of a test that asked for one: a comparison spoke of "3 and 3 runs"
  // of two scans that ran each page once.
  const kept = file.runs.filter((run) => !run.discarded);
  if (kept.length < 2) return null;
  const values: Record<string, number[]> = {};
  for (const metric of metrics) {
    const column = kept.map((run) => run.attributes?.[metric]);
    if (column.length > 1 && column.every((v): v is number => typeof v === 'number' && Number.isFinite(v))) values[metric] = column;
  }
  return Object.keys(values).length ? JSON.stringify(values) : null;
}

/**
 * The structure audits and third parties (judged against `site`) of each page with a report, by the page's ID; a page
 * whose structure.json or HAR cannot be read is left out of that map.
 */
export async function pageAnalyses(
  artifacts: ArtifactStore, pages: readonly { id: string; report_id: string | null }[], site: string,
): Promise<{ audits: Map<string, PageAudit[]>; thirdParties: Map<string, PageThirdParty[]> }> {
  const audits = new Map<string, PageAudit[]>();
  const thirdParties = new Map<string, PageThirdParty[]>();
  for (const p of pages) {
    if (!p.report_id) continue;
    const structure = await readJson(artifacts, artifactKey(p.report_id, ARTIFACT.structure));
    const report = structure === undefined ? undefined : readStructureReport(structure);
    if (report) audits.set(p.id, report.audits);
    const har = await readJson(artifacts, artifactKey(p.report_id, ARTIFACT.har)) as { log?: { entries?: HarEntryOfPage[] } } | undefined;
    if (har?.log?.entries) thirdParties.set(p.id, thirdPartiesOf(har.log.entries, site));
  }
  return { audits, thirdParties };
}

/** An artifact parsed as JSON; undefined when it is missing or unreadable. */
async function readJson(artifacts: ArtifactStore, key: string): Promise<unknown> {
  const buf = await artifacts.get(key).catch(() => null);
  if (!buf) return undefined;
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return undefined;
  }
}
