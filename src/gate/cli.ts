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
import {
  budgetFor, checkBudget, comparableHistory, compareWithHistory, COMPARISON, DEFAULT_COMPARED, exitCodeOf, type Check,
  type DeviceBudget,
} from './checks.js';
import { checkFieldBudgets, fetchField, fieldBudgetTable, readBudgets, splitFieldBudget } from './field-budgets.js';
import { testsJson, testsJunit, testsMarkdown, testsText, worstExit, type GateResult } from './outputs.js';
import { DEVICE_NAME_WORDS, deviceClassNamed } from '../core/vocabulary/device-names.js';
import type { DeviceClass } from '../core/vocabulary/device-classes.js';

export const GATE_USAGE = `Usage: webgauge test URL [--server URL] [--key KEY] [--location ID] [--browser ID] [--runs N]
         [--throttle DOWN/UP/LATENCY] [--report TYPE] [--device DEVICE[,DEVICE]...] [--budget FILE]
         [--budget [DEVICE:]FIELD_BUDGET=VALUE]... [--compare-history]
         [--junit FILE] [--markdown FILE] [--json]
       webgauge test --journey FILE [--secret NAME[=ENV_VAR]]... [--measured-step N] [the options above]
  --server and --key default to WEBGAUGE_SERVER and WEBGAUGE_KEY.
  --journey: a Chrome DevTools Recorder recording (its JSON export); its first navigation is the URL. Each
  --secret fills {{secrets.NAME}} with the value of the environment variable ENV_VAR (default: NAME), never
  one written on the command line.
  --device: the devices the page is tested as, a test each (${DEVICE_NAME_WORDS}; e.g. --device desktop,phone-mid);
  default: the server's one device for the options. Every output then gives each device's results. In the budget
  file, "DEVICE:ATTRIBUTE" is one device's limit (e.g. "phone-mid:largest_contentful_paint"), in place of the
  attribute's limit without a device; --compare-history compares each device's test with its own page's history.
  Field budgets hold this site's real visitors of the URL (its field site, last 28 days, the test's device: desktop ↔
  desktop, phone ↔ mobile) to a max, in the budget file ({"field_lcp_p75": {"max": 2500}}) or inline:
${fieldBudgetTable('    ')}
  A --budget of the form [DEVICE:]NAME=VALUE is inline, anything else a budget file (a file named like that: ./NAME=VALUE).
  Too few page views (under 50 of the URL and of its template), no field site for the origin, or a server without
  field figures: the check is skipped, saying why; it neither passes nor fails.
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
  budget?: DeviceBudget;
  /** --device: the devices asked, a test each (their results keyed by device); none: the server's one device. */
  devices?: DeviceClass[];
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
        runs: { type: 'string' }, throttle: { type: 'string' }, report: { type: 'string' }, budget: { type: 'string', multiple: true },
        'compare-history': { type: 'boolean' }, junit: { type: 'string' }, markdown: { type: 'string' }, json: { type: 'boolean' },
        device: { type: 'string', multiple: true }, journey: { type: 'string' }, secret: { type: 'string', multiple: true }, 'measured-step': { type: 'string' },
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
  const devices = parseDeviceList(values.device);
  const { budget, where } = await readBudgets(values.budget ?? []);
  for (const device of budget?.byDevice.keys() ?? []) {
    if (!devices) throw new GateError(`${where}: "${device}:..." is a budget of one device; it needs --device (e.g. --device desktop,${device})`);
    if (!devices.includes(device)) throw new GateError(`${where}: "${device}:...": ${device} is not tested; --device gives ${devices.join(', ')}`);
  }
  return { url, server, key: values.key ?? env.WEBGAUGE_KEY ?? '', attributes, budget, ...(devices ? { devices } : {}),
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

/** `--device`s (each a device or a comma list of them, as `webgauge scan` takes them): in the order given, each once; none: undefined. */
export function parseDeviceList(given: readonly string[] | undefined): DeviceClass[] | undefined {
  if (given === undefined) return undefined;
  const devices: DeviceClass[] = [];
  for (const name of given.flatMap((g) => g.split(','))) {
    const d = deviceClassNamed(name);
    if (!d) throw new GateError(`--device ${JSON.stringify(name.trim())}: give ${DEVICE_NAME_WORDS} (several: --device desktop,phone-mid)`);
    if (devices.includes(d)) throw new GateError(`--device ${name.trim()}: ${d} is given twice`);
    devices.push(d);
  }
  return devices;
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

/** One device's test as the gate follows it (device undefined: the one test of a run without --device). */
interface Followed {
  device?: DeviceClass;
  test?: Resource;
  poll?: string;
  done?: { test: string; report: string };
  error?: string;
}

/** POST /tests (with the device's `device_class`); a refusal is the device's error. */
async function startTest(api: ApiClient, o: GateOptions, device: DeviceClass | undefined): Promise<Followed> {
  const attributes = device ? { ...o.attributes, device_class: device } : o.attributes;
  const started = await api.expect('POST', '/tests', { data: { type: 'test', attributes } });
  const test = resourceOf(started.body);
  return { device, test, poll: started.headers.get('location') ?? `/tests/${encodeURIComponent(test.id)}` };
}

/** Polls one test once; sets its end (a report, or a test ended in error: the device's error). */
async function pollTest(api: ApiClient, f: Followed): Promise<Reply> {
  const reply = await api.request('GET', f.poll!);
  if (reply.status >= 400) throw new GateError(`GET /tests/${f.test!.id}: ${apiErrorText(reply)}`);
  const test = resourceOf(reply.body);
  f.test = test;
  if (reply.status === 303 || test.attributes.state === 'completed') {
    const report = test.attributes.report;
    if (typeof report !== 'string') throw new GateError(`test ${test.id} completed without a report ID`);
    f.done = { test: test.id, report };
  } else if (test.attributes.state === 'error') {
    f.error = `the test failed: ${String(test.attributes.error ?? 'no reason given')}`;
  }
  return reply;
}

/**
 * Starts a test per device (one without --device) and polls them together until each has its report or its error.
 * Without --device an error is the gate's (exit 2); with devices it is that device's, and the others are still judged.
 */
async function runTests(api: ApiClient, o: GateOptions, progress: Progress): Promise<Followed[]> {
  const several = o.devices !== undefined;
  const guard = async (f: Followed, step: () => Promise<unknown>) => {
    try {
      await step();
    } catch (err) {
      if (!several) throw err;
      f.error = failureMessage(err);
    }
  };
  const followed: Followed[] = [];
  for (const device of o.devices ?? [undefined]) {
    const f: Followed = { device };
    await guard(f, async () => Object.assign(f, await startTest(api, o, device)));
    followed.push(f);
  }
  const show = () => progress.update(followed.map((f) => `${several ? `${f.device}: ` : ''}` +
    `${f.error ? 'error' : f.test ? testState(f.test) : 'not started'}`).join(' · '));
  show();
  for (;;) {
    const open = followed.filter((f) => !f.done && !f.error);
    if (open.length === 0) break;
    let last: Reply | undefined;
    for (const f of open) await guard(f, async () => { last = await pollTest(api, f); });
    if (!several) {
      const f = followed[0]!;
      if (f.error) throw new GateError(f.error);
    }
    show();
    if (followed.some((f) => !f.done && !f.error)) await (last ? pollPause(last, o.pollMs) : new Promise((r) => setTimeout(r, o.pollMs ?? 3000)));
  }
  return followed;
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

/**
 * One test's verdict: its report's figures (the median of its runs), the budgets (the device's), and with
 * --compare-history the comparison with its page's history (a device's test is a page of its own: its own history).
 */
async function judgeTest(api: ApiClient, o: GateOptions, device: DeviceClass | undefined, done: { test: string; report: string }):
Promise<GateResult> {
  const report = resourceOf((await api.expect('GET', `/reports/${encodeURIComponent(done.report)}`)).body);
  // A server that does not test per device (another of API 2.0 ignores device_class) ran the options' one device.
  if (device && report.attributes.device_class !== device) {
    throw new GateError(`asked for ${device}, the report says ${String(report.attributes.device_class ?? 'no device_class')}: ` +
      'the server does not test per device (docs/ci-gate.md "Devices"); no device\'s budgets could be judged');
  }
  const { runs, values } = await runValues(api, report);
  const figures = Object.fromEntries(Object.entries(values).map(([name, v]) => [name, median(v)]));
  const budget = o.budget ? splitFieldBudget(budgetFor(o.budget, device)) : undefined;
  const checks: Check[] = budget ? checkBudget(budget.report, figures) : [];
  // Field budgets: this site's real visitors of the URL on the report's device (a server without them: skipped, said).
  if (budget && budget.field.size > 0) checks.push(...checkFieldBudgets(budget.field, await fetchField(api, `/reports/${encodeURIComponent(report.id)}/field`)));
  let comparisonNote: string | undefined;
  if (o.compareHistory) {
    const earlier = await history(api, report);
    if (earlier.length < COMPARISON.historyMin) {
      comparisonNote = `No comparison with history: the page has ${plural(earlier.length, 'earlier report')} ` +
        `(${COMPARISON.historyMin} needed); budgets only.`;
    } else {
      const metrics = budget && budget.report.size > 0 ? [...budget.report.keys()] : DEFAULT_COMPARED;
      for (const m of metrics) {
        const { values: before, note } = comparableHistory(m, report.attributes, earlier);
        checks.push(compareWithHistory(m, values[m] ?? [], before, note));
      }
    }
  }
  return {
    url: typeof report.attributes.url === 'string' && o.attributes.journey ? `${o.url} (${report.attributes.url})` : o.url,
    ...(device ? { device } : {}),
    test: done.test, report: done.report, reportUrl: report.links.report_url,
    journey: journeySteps(report),
    // Where the server offers Lighthouse's HTML report (a Webgauge extension), the one next to the report page
    // opens in a browser without the API key.
    lighthouseHtml: report.links.lighthouse_html && report.links.report_url ? `${report.links.report_url}/lighthouse.html` : undefined,
    runs, figures, checks, comparisonNote, exitCode: exitCodeOf(checks),
  };
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

async function writeOutputs(o: GateOptions, results: readonly GateResult[], io: GateIo): Promise<void> {
  if (o.junit) await writeOutput('--junit', o.junit, testsJunit(results));
  await writeMarkdown(o.markdown, testsMarkdown(results), io.env);
  io.stdout.write(o.json ? testsJson(results) : testsText(results));
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
    io.stderr.write(`Testing ${o.url}${o.devices ? ` as ${o.devices.join(', ')}` : ''} on ${api.root}\n`);
    progress = new Progress(io.stderr);
    const followed = await runTests(api, o, progress);
    progress.end();
    const results: GateResult[] = [];
    for (const f of followed) {
      try {
        if (f.error !== undefined) throw new GateError(f.error);
        results.push(await judgeTest(api, o, f.device, f.done!));
      } catch (err) {
        if (!f.device) throw err;
        results.push({ url: o.url, device: f.device, test: f.test?.id ?? '', report: '', runs: 0, figures: {}, checks: [],
          error: failureMessage(err), exitCode: 2 });
      }
    }
    await writeOutputs(o, results, io);
    for (const r of results) if (r.error) io.stderr.write(`webgauge test: ${r.device}: ${r.error}\n`);
    return worstExit(results);
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
