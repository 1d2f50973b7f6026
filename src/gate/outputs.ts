/**
 * What the gate writes: a table for a person, JUnit XML for CI test reporters (one test case per check), a
 * Markdown summary (GitHub's step summary), and one JSON document for scripts.
 */
import { metricSpec } from '../core/vocabulary/metrics.js';
import { formatFigure } from '../analysis/figures.js';
import { formatValue, type Check } from './checks.js';
import { plural } from '../lib/words.js';

export interface GateResult {
  url: string;
  test: string;
  report: string;
  /** The report's web page, and Lighthouse's own HTML report where the server offers one. */
  reportUrl?: string;
  lighthouseHtml?: string;
  /** Loads the figures are the median of (kept runs; 1 for a one-load test or a server without runs). */
  runs: number;
  /** Numeric report attributes: the median of the runs. */
  figures: Record<string, number>;
  checks: Check[];
  /** Why the comparison with the page's history was not made, when it was asked for. */
  comparisonNote?: string;
  /** A journey's measured steps, each with its figures (the figures above are the measured one's). */
  journey?: { index: number; name: string; mode: string; measured: boolean; figures: Record<string, number> }[];
  exitCode: 0 | 1 | 2;
  /** The device the test ran as, when the gate was asked for devices (--device): every output then names it. */
  device?: string;
  /** Why this device's test reached no verdict (exit 2; --device: the other devices are still judged). */
  error?: string;
}

/** A journey step's figures in one line: a navigation's load figures, a timespan's interaction figures. */
const STEP_FIGURES = ['time_to_first_byte', 'first_contentful_paint', 'largest_contentful_paint', 'interaction_to_next_paint',
  'total_blocking_time', 'cumulative_layout_shift', 'page_requests', 'duration'] as const;

/** The figures of a timespan that are no report attribute (so not in the metrics vocabulary): both in ms. */
const STEP_ONLY: Record<string, string> = { interaction_to_next_paint: 'INP', duration: 'Duration' };

function stepFigures(figures: Record<string, number>): string {
  return STEP_FIGURES.filter((f) => figures[f] !== undefined).map((f) => {
    const v = figures[f]!;
    return f in STEP_ONLY ? `${STEP_ONLY[f]} ${formatFigure('time', v)}` : `${metricSpec(f)?.label ?? f} ${formatValue(f, v)}`;
  }).join(', ');
}

function journeyRows(r: GateResult): string[] {
  return (r.journey ?? []).map((s) =>
    `${s.measured ? '*' : ' '} ${String(s.index).padStart(2)} ${s.mode.padEnd(10)} ${s.name}: ${stepFigures(s.figures)}`);
}

/** The figures a summary shows, in this order (when the report has them). */
export const SUMMARY_FIGURES = [
  'performance_score', 'structure_score', 'first_contentful_paint', 'largest_contentful_paint', 'total_blocking_time',
  'cumulative_layout_shift', 'speed_index', 'time_to_interactive', 'time_to_first_byte', 'fully_loaded_time', 'page_bytes',
  'page_requests',
] as const;

export const OUTCOME_WORD: Record<Check['outcome'], string> = { pass: 'pass', fail: 'FAIL', improved: 'better', skipped: 'skipped' };

function figureRows(r: GateResult): [string, string][] {
  return SUMMARY_FIGURES.filter((a) => r.figures[a] !== undefined)
    .map((a) => [metricSpec(a)?.label ?? a, formatValue(a, r.figures[a]!)]);
}

const runsNote = (r: GateResult) => (r.runs > 1 ? ` (median of ${r.runs} runs)` : '');

/** The terminal's summary: where the report is, the figures, each check, the verdict. */
export function textSummary(r: GateResult): string {
  if (r.error !== undefined) return `NOT JUDGED: ${r.error}\n`;
  const lines = [`Report: ${r.reportUrl ?? r.report}${runsNote(r)}`];
  if (r.lighthouseHtml) lines.push(`Lighthouse report: ${r.lighthouseHtml}`);
  const rows = figureRows(r);
  const width = Math.max(...rows.map(([label]) => label.length), 0);
  lines.push('', ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`));
  if (r.journey) lines.push('', 'Journey steps (* the measured step, whose figures are above):', ...journeyRows(r));
  if (r.checks.length > 0 || r.comparisonNote) lines.push('');
  for (const c of r.checks) lines.push(`  ${OUTCOME_WORD[c.outcome].padEnd(7)} ${c.message}`);
  if (r.comparisonNote) lines.push(`  ${r.comparisonNote}`);
  const failed = r.checks.filter((c) => c.outcome === 'fail').length;
  lines.push('', failed ? `FAILED: ${failed} of ${r.checks.length} checks` : `PASSED${r.checks.length ? `: ${r.checks.length} checks` : ''}`);
  return `${lines.join('\n')}\n`;
}

/** Text for XML content and attribute values. */
export const xml = (s: string) => s.replace(/[<>&"']/g, (c) => `&${({ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' })[c]};`)
  // XML 1.0 allows no control characters but tab, line feed and carriage return.
  // eslint-disable-next-line no-control-regex
  .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** One test's JUnit suite: a case per check (a test with no checks is one passing case: the test ran; one not run, an error). */
function junitSuite(r: GateResult): { xml: string; tests: number; failures: number; skipped: number; errors: number } {
  const cases = r.error !== undefined ? [{ kind: 'test', attribute: 'completed', outcome: 'error', message: r.error }]
    : r.checks.length > 0 ? r.checks : [{ kind: 'test', attribute: 'completed', outcome: 'pass', message: `report ${r.report}` }];
  const failures = cases.filter((c) => c.outcome === 'fail').length;
  const skipped = cases.filter((c) => c.outcome === 'skipped').length;
  const errors = cases.filter((c) => c.outcome === 'error').length;
  const body = cases.map((c) => {
    const open = `    <testcase classname="webgauge.${c.kind}${r.device ? `.${xml(r.device)}` : ''}" name="${xml(c.attribute)}">`;
    const inner = c.outcome === 'fail' ? `\n      <failure message="${xml(c.message)}" type="${c.kind}">${xml(c.message)}</failure>\n    `
      : c.outcome === 'error' ? `\n      <error message="${xml(c.message)}" type="test">${xml(c.message)}</error>\n    `
        : c.outcome === 'skipped' ? `\n      <skipped message="${xml(c.message)}"/>\n    `
          : `\n      <system-out>${xml(c.message)}</system-out>\n    `;
    return `${open}${inner}</testcase>`;
  });
  const name = `webgauge ${r.url}${r.device ? ` as ${r.device}` : ''}`;
  return { tests: cases.length, failures, skipped, errors,
    xml: `  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}" errors="${errors}">\n` +
      `${body.join('\n')}\n  </testsuite>` };
}

/** JUnit XML: one test case per check; of devices (--device), a suite per device, its classnames ending in the device. */
export function testsJunit(results: readonly GateResult[]): string {
  const suites = results.map(junitSuite);
  const n = (k: 'tests' | 'failures' | 'skipped' | 'errors') => suites.reduce((sum, x) => sum + x[k], 0);
  const errors = n('errors') ? ` errors="${n('errors')}"` : '';
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="webgauge" tests="${n('tests')}" failures="${n('failures')}" skipped="${n('skipped')}"${errors}>\n` +
    `${suites.map((x) => x.xml).join('\n')}\n</testsuites>\n`;
}

/** JUnit XML of one test. */
export const junitXml = (r: GateResult): string => testsJunit([r]);

/** Text for a Markdown table cell. */
export const md = (s: string) => s.replace(/[|\\`*_[\]<>]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');

/** A Markdown summary: the verdict, the report link, the checks and the figures. */
export function markdownSummary(r: GateResult): string {
  const failed = r.checks.filter((c) => c.outcome === 'fail').length;
  const as = r.device ? ` as ${md(r.device)}` : '';
  if (r.error !== undefined) return `### Webgauge${as}: ⚠️ not judged: ${md(r.error)}\n\n${md(r.url)}\n`;
  const lines = [
    `### Webgauge${as}: ${failed ? `❌ ${failed} of ${r.checks.length} checks failed` : '✅ passed'}`,
    '',
    `${md(r.url)}: [report](${r.reportUrl ?? r.report})${r.lighthouseHtml ? `, [Lighthouse report](${r.lighthouseHtml})` : ''}${runsNote(r)}`,
    '',
  ];
  if (r.checks.length > 0) {
    lines.push('| Check | Result | Detail |', '| --- | --- | --- |');
    for (const c of r.checks) lines.push(`| ${c.kind} ${md(c.attribute)} | ${OUTCOME_WORD[c.outcome]} | ${md(c.message)} |`);
    lines.push('');
  }
  if (r.comparisonNote) lines.push(md(r.comparisonNote), '');
  lines.push('| Figure | Value |', '| --- | --- |', ...figureRows(r).map(([label, value]) => `| ${label} | ${value} |`), '');
  if (r.journey) {
    lines.push('| Step | Mode | Figures |', '| --- | --- | --- |');
    for (const s of r.journey) {
      lines.push(`| ${s.measured ? '**' : ''}${s.index}: ${md(s.name)}${s.measured ? '** (measured)' : ''} | ${s.mode} | ${md(stepFigures(s.figures))} |`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

/** The one JSON document of `--json`. */
export function jsonDocument(r: GateResult): string {
  return `${JSON.stringify({ passed: r.exitCode === 0, ...r }, null, 2)}\n`;
}

/** The worst exit code of the tests: one not judged (2) over a failed check (1) over passed. */
export const worstExit = (results: readonly GateResult[]): 0 | 1 | 2 => Math.max(0, ...results.map((r) => r.exitCode)) as 0 | 1 | 2;

const keyed = (results: readonly GateResult[]) => results.some((r) => r.device !== undefined);
const verdictWord = (code: number) => (code === 0 ? 'passed' : code === 1 ? 'failed' : 'not judged');

/** The terminal's summary of the gate's tests: one test's; of devices (--device), each device's, then the verdict over all. */
export function testsText(results: readonly GateResult[]): string {
  if (!keyed(results)) return textSummary(results[0]!);
  const each = results.map((r) => `Test of ${r.url} as ${r.device}:\n${textSummary(r)}`);
  const exitCode = worstExit(results);
  return `${each.join('\n')}\n${verdictWord(exitCode).toUpperCase()} over ${plural(results.length, 'device')}: ` +
    `${results.map((r) => `${r.device} ${verdictWord(r.exitCode)}`).join(', ')}\n`;
}

/** The Markdown summary of the gate's tests: each device's in turn. */
export function testsMarkdown(results: readonly GateResult[]): string {
  return results.map(markdownSummary).join('\n');
}

/** `--json`: one test's document; of devices (--device), the verdict and each device's document. */
export function testsJson(results: readonly GateResult[]): string {
  if (!keyed(results)) return jsonDocument(results[0]!);
  const exitCode = worstExit(results);
  const devices = Object.fromEntries(results.map(({ device, ...r }) => [device!, { passed: r.exitCode === 0, ...r }]));
  return `${JSON.stringify({ passed: exitCode === 0, exitCode, devices }, null, 2)}\n`;
}
