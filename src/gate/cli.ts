/**
 * `webgauge test URL`: a performance gate for CI pipelines. Starts a test through API 2.0, shows its progress,
 * prints the report's figures, checks budgets against the median of the runs and, with --compare-history, the
 * runs against the page's earlier reports. Exit codes: 0 all passed, 1 a check failed, 2 the test could not be run.
 * Its progress, polling, test options and output files serve `webgauge scan` (scan.ts) as well.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { median } from '../analysis/statistics.js';
import { METRIC_NAMES } from '../core/vocabulary/metrics.js';
import { plural } from '../lib/words.js';
import { ApiClient, apiErrorText, GateError, resourceOf, type Reply, type Resource } from './api-client.js';
import { checkBudget, comparableHistory, compareWithHistory, COMPARISON, DEFAULT_COMPARED, exitCodeOf, parseBudget, type Budget, type Check } from './checks.js';
import { jsonDocument, junitXml, markdownSummary, textSummary, type GateResult } from './outputs.js';

export const GATE_USAGE = `Usage: webgauge test URL [--server URL] [--key KEY] [--location ID] [--browser ID] [--runs N]
         [--throttle DOWN/UP/LATENCY] [--report TYPE] [--budget FILE] [--compare-history]
         [--junit FILE] [--markdown FILE] [--json]
       webgauge test --journey FILE [--secret NAME[=ENV_VAR]]... [--measured-step N] [the options above]
  --server and --key default to WEBGAUGE_SERVER and WEBGAUGE_KEY.
  --journey: a Chrome DevTools Recorder recording (its JSON export); its first navigation is the URL. Each
  --secret fills {{secrets.NAME}} with the value of the environment variable ENV_VAR (default: NAME), never
  one written on the command line.
  Exit codes: 0 all checks passed, 1 a budget or the comparison failed, 2 the test could not be run (a broken
  journey included).`;

export interface GateIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
}

interface GateOptions {
  url: string;
  server: string;
  key: string;
  attributes: Record<string, unknown>;
  budget?: Budget;
  compareHistory: boolean;
  junit?: string;
  markdown?: string;
  json: boolean;
  /** Poll interval (ms): the server's Retry-After unless WEBGAUGE_POLL_MS says otherwise. */
  pollMs?: number;
}

async function parseGateArgs(args: string[], env: GateIo['env']): Promise<GateOptions | 'help'> {
  let parsed;
  try {
    parsed = parseArgs({
      args, allowPositionals: true,
      options: {
        server: { type: 'string' }, key: { type: 'string' }, location: { type: 'string' }, browser: { type: 'string' },
        runs: { type: 'string' }, throttle: { type: 'string' }, report: { type: 'string' }, budget: { type: 'string' },
        'compare-history': { type: 'boolean' }, junit: { type: 'string' }, markdown: { type: 'string' }, json: { type: 'boolean' },
        journey: { type: 'string' }, secret: { type: 'string', multiple: true }, 'measured-step': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new GateError(`${(err as Error).message}\n${GATE_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length > 1 || (positionals.length === 0 && values.journey === undefined)) {
    throw new GateError(`give one URL to test, or a recording with --journey\n${GATE_USAGE}`);
  }
  const server = values.server ?? env.WEBGAUGE_SERVER;
  if (!server) throw new GateError('no server: give --server or set WEBGAUGE_SERVER');
  const attributes: Record<string, unknown> = positionals.length > 0 ? { url: positionals[0] } : {};
  let url = positionals[0] ?? '';
  if (values.journey !== undefined) {
    const journey = await journeyAttributes(values.journey, values.secret ?? [], values['measured-step'], env);
    Object.assign(attributes, journey.attributes);
    url ||= journey.title;
  } else if (values.secret || values['measured-step'] !== undefined) {
    throw new GateError('--secret and --measured-step belong to --journey');
  }
  Object.assign(attributes, testOptionAttributes(values));
  const budget = values.budget === undefined ? undefined : parseBudget(await readFile(values.budget, 'utf8').catch((err: Error) => {
    throw new GateError(`cannot read the budget file: ${err.message}`);
  }), values.budget);
  return { url, server, key: values.key ?? env.WEBGAUGE_KEY ?? '', attributes, budget,
    compareHistory: values['compare-history'] === true, junit: values.junit, markdown: values.markdown, json: values.json === true,
    pollMs: pollMsOf(env) };
}

/** The test options both gates pass on (`webgauge scan` applies them to each page's test), as API attributes. */
export function testOptionAttributes(values: { location?: string; browser?: string; throttle?: string; report?: string; runs?: string }):
Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const name of ['location', 'browser', 'throttle', 'report'] as const) {
    if (values[name] !== undefined) attributes[name] = values[name];
  }
  if (values.runs !== undefined) {
    const runs = Number(values.runs);
    if (!Number.isInteger(runs) || runs < 1) throw new GateError(`--runs ${values.runs}: give a whole number of loads, 1 or more`);
    // A Webgauge extension; servers without it ignore the attribute (one load).
    if (runs > 1) attributes.runs = runs;
  }
  return attributes;
}

/** WEBGAUGE_POLL_MS when it is a positive number (tests and impatient pipelines), else undefined: the server's Retry-After. */
export function pollMsOf(env: GateIo['env']): number | undefined {
  const pollMs = env.WEBGAUGE_POLL_MS ? Number(env.WEBGAUGE_POLL_MS) : undefined;
  return pollMs !== undefined && Number.isFinite(pollMs) && pollMs > 0 ? pollMs : undefined;
}

/**
 * A journey's attributes: the recording file's text as the server parses it (the server names what is wrong in it),
 * its secrets from the environment, the measured step.
 */
async function journeyAttributes(file: string, secrets: string[], measured: string | undefined, env: GateIo['env']):
Promise<{ attributes: Record<string, unknown>; title: string }> {
  const text = await readFile(file, 'utf8').catch((err: Error) => {
    throw new GateError(`cannot read the recording ${file}: ${err.message}`);
  });
  let title = file;
  try {
    const t = (JSON.parse(text) as { title?: unknown }).title;
    if (typeof t === 'string' && t) title = t;
  } catch {
    // the server says what is wrong with it
  }
  const attributes: Record<string, unknown> = { journey: text };
  if (secrets.length > 0) {
    const values: Record<string, string> = {};
    for (const spec of secrets) {
      const [name, from = name] = spec.split('=', 2) as [string, string?];
      const value = env[from!];
      if (!name || value === undefined || value === '') {
        throw new GateError(`--secret ${spec}: the environment variable ${from || '(none)'} is not set; export it (your CI's secret) first`);
      }
      values[name] = value;
    }
    attributes.journey_secrets = values;
  }
  if (measured !== undefined) {
    if (!/^\d+$/.test(measured)) throw new GateError(`--measured-step ${measured}: give the index of a step of the recording (0, 1, …)`);
    attributes.journey_measured_step = Number(measured);
  }
  return { attributes, title };
}

/** Progress on standard error: a line redrawn every second on a terminal, else one line per change of state. */
export class Progress {
  private last = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly started = Date.now();
  private state = '';

  constructor(private readonly out: GateIo['stderr']) {
    if (out.isTTY) this.timer = setInterval(() => this.draw(), 1000);
  }

  update(state: string): void {
    this.state = state;
    this.draw();
  }

  private draw(): void {
    const elapsed = Math.round((Date.now() - this.started) / 1000);
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[K${this.state} · ${Math.floor(elapsed / 60)}:${String(elapsed % 60).padStart(2, '0')}`);
    } else if (this.state !== this.last) {
      this.out.write(`${this.state} (${elapsed} s)\n`);
    }
    this.last = this.state;
  }

  end(): void {
    clearInterval(this.timer);
    if (this.out.isTTY) this.out.write('\r\x1b[K');
  }
}

/** A test's state as its progress shows it: queued with the tests ahead, started... */
function testState(test: Resource): string {
  const a = test.attributes;
  const ahead = typeof a.queue_position === 'number' ? `, ${plural(a.queue_position, 'test')} ahead` : '';
  return `${String(a.state)}${a.state === 'queued' ? ahead : ''}`;
}

/** Waits before the next poll: `pollMs` when given, else the reply's Retry-After seconds (3 s without one). */
export function pollPause(reply: Reply, pollMs: number | undefined): Promise<void> {
  const retryAfter = Number(reply.headers.get('retry-after') ?? 3);
  const ms = pollMs ?? (Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 3000);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Starts the test and waits for its report; a test that ends in error is a GateError with its message. */
async function runTest(api: ApiClient, o: GateOptions, progress: Progress): Promise<{ test: string; report: string }> {
  const started = await api.expect('POST', '/tests', { data: { type: 'test', attributes: o.attributes } });
  let test = resourceOf(started.body);
  progress.update(testState(test));
  const poll = started.headers.get('location') ?? `/tests/${encodeURIComponent(test.id)}`;
  for (;;) {
    const reply = await api.request('GET', poll);
    if (reply.status >= 400) throw new GateError(`GET /tests/${test.id}: ${apiErrorText(reply)}`);
    test = resourceOf(reply.body);
    progress.update(testState(test));
    if (reply.status === 303 || test.attributes.state === 'completed') {
      const report = test.attributes.report;
      if (typeof report !== 'string') throw new GateError(`test ${test.id} completed without a report ID`);
      return { test: test.id, report };
    }
    if (test.attributes.state === 'error') {
      throw new GateError(`the test failed: ${String(test.attributes.error ?? 'no reason given')}`);
    }
    await pollPause(reply, o.pollMs);
  }
}

const numeric = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A journey report's steps (a Webgauge extension), as the summary lists them. */
function journeySteps(report: Resource): GateResult['journey'] {
  const j = report.attributes.journey as { steps?: unknown } | undefined;
  if (!j || !Array.isArray(j.steps)) return undefined;
  return (j.steps as Record<string, unknown>[]).map((s) => ({
    index: Number(s.index), name: String(s.name), mode: String(s.mode), measured: s.measured === true,
    figures: Object.fromEntries(Object.entries((s.figures ?? {}) as Record<string, unknown>).filter(([, v]) => numeric(v))) as Record<string, number>,
  }));
}

/** Each numeric attribute's values over the kept runs (runs.json, a Webgauge extension), or the report's own values. */
async function runValues(api: ApiClient, report: Resource): Promise<{ runs: number; values: Record<string, number[]> }> {
  const runsFile = report.links.runs ? await api.reportResource(report.id, 'runs.json') : undefined;
  const kept = ((runsFile?.runs ?? []) as { discarded?: boolean; attributes?: Record<string, unknown> }[])
    .filter((r) => !r.discarded && r.attributes);
  const source = kept.length > 0 ? kept.map((r) => r.attributes!) : [report.attributes];
  const values: Record<string, number[]> = {};
  for (const name of METRIC_NAMES) {
    const column = source.map((r) => r[name]).filter(numeric);
    if (column.length > 0) values[name] = column;
  }
  return { runs: source.length, values };
}

/** The page's earlier reports (the API's page report list, newest first), this test's own excluded. */
async function history(api: ApiClient, report: Resource): Promise<Record<string, unknown>[]> {
  const page = report.attributes.page;
  if (typeof page !== 'string') throw new GateError('the report names no page: the comparison with history needs one');
  const reply = await api.expect('GET', `/pages/${encodeURIComponent(page)}/reports?sort=-created&page[size]=${COMPARISON.historyMax + 1}`);
  const items = (reply.body?.data ?? []) as Resource[];
  return items.filter((r) => r.id !== report.id).slice(0, COMPARISON.historyMax).map((r) => r.attributes ?? {});
}

/** Writes (or appends to) an output file; a failure is a GateError naming the option and the file. */
export function writeOutput(what: string, file: string, text: string, append = false): Promise<void> {
  return (append ? appendFile(file, text) : writeFile(file, text)).catch((err: Error) => {
    throw new GateError(`cannot write ${what} ${file}: ${err.message}`);
  });
}

/** The Markdown summary to --markdown FILE and, on GitHub Actions, appended to the job's summary. */
export async function writeMarkdown(file: string | undefined, summary: string, env: GateIo['env']): Promise<void> {
  if (file) await writeOutput('--markdown', file, summary);
  if (env.GITHUB_STEP_SUMMARY) await writeOutput('GITHUB_STEP_SUMMARY', env.GITHUB_STEP_SUMMARY, summary, true);
}

async function writeOutputs(o: GateOptions, result: GateResult, io: GateIo): Promise<void> {
  if (o.junit) await writeOutput('--junit', o.junit, junitXml(result));
  await writeMarkdown(o.markdown, markdownSummary(result), io.env);
  io.stdout.write(o.json ? jsonDocument(result) : textSummary(result));
}

/** What a gate says when it reached no verdict: a GateError's message; a fault of the gate's own with its stack. */
export function failureMessage(err: unknown): string {
  return err instanceof GateError ? err.message : `unexpected error: ${(err as Error).stack ?? String(err)}`;
}

/** The gate from its arguments (after `webgauge test`); the exit code. */
export async function gateMain(args: string[], io: GateIo): Promise<number> {
  let progress: Progress | undefined;
  try {
    const o = await parseGateArgs(args, io.env);
    if (o === 'help') {
      io.stdout.write(`${GATE_USAGE}\n`);
      return 0;
    }
    const api = new ApiClient(o.server, o.key);
    io.stderr.write(`Testing ${o.url} on ${api.root}\n`);
    progress = new Progress(io.stderr);
    const { test, report: reportId } = await runTest(api, o, progress);
    progress.end();
    const report = resourceOf((await api.expect('GET', `/reports/${encodeURIComponent(reportId)}`)).body);
    const { runs, values } = await runValues(api, report);
    const figures = Object.fromEntries(Object.entries(values).map(([name, v]) => [name, median(v)]));
    const checks: Check[] = o.budget ? checkBudget(o.budget, figures) : [];
    let comparisonNote: string | undefined;
    if (o.compareHistory) {
      const earlier = await history(api, report);
      if (earlier.length < COMPARISON.historyMin) {
        comparisonNote = `No comparison with history: the page has ${plural(earlier.length, 'earlier report')} ` +
          `(${COMPARISON.historyMin} needed); budgets only.`;
      } else {
        const metrics = o.budget ? [...o.budget.keys()] : DEFAULT_COMPARED;
        for (const m of metrics) {
          const { values: before, note } = comparableHistory(m, report.attributes, earlier);
          checks.push(compareWithHistory(m, values[m] ?? [], before, note));
        }
      }
    }
    const result: GateResult = {
      url: typeof report.attributes.url === 'string' && o.attributes.journey ? `${o.url} (${report.attributes.url})` : o.url,
      test, report: reportId, reportUrl: report.links.report_url,
      journey: journeySteps(report),
      // Where the server offers Lighthouse's HTML report (a Webgauge extension), the one next to the report page
      // opens in a browser without the API key.
      lighthouseHtml: report.links.lighthouse_html && report.links.report_url ? `${report.links.report_url}/lighthouse.html` : undefined,
      runs, figures, checks, comparisonNote, exitCode: exitCodeOf(checks),
    };
    await writeOutputs(o, result, io);
    return result.exitCode;
  } catch (err) {
    progress?.end();
    // Whatever went wrong, no verdict was reached: exit 2, never the 1 of a failed check. A fault of the gate's
    // own shows its stack.
    const message = failureMessage(err);
    io.stderr.write(`webgauge test: ${message}\n`);
    // --json promises one JSON document on standard output, whatever happened.
    if (args.includes('--json')) io.stdout.write(`${JSON.stringify({ passed: false, exitCode: 2, error: message }, null, 2)}\n`);
    return 2;
  }
}
