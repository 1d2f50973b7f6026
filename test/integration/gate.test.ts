// lane: alone
/**
 * `webgauge test` as a CI job runs it: the gate in a child process against a real service (real agent, real
 * Chromium, the fixture site). On both engines, one page tested again and again: its first test has no history to
 * compare with, eight earlier reports are made from that test's own runs, the unchanged page passes the comparison,
 * and the page made slower fails it and its budget (exit 1 naming the metric): the page's history is the store's.
 * Its seven loads are real on the first engine; the second engine's agent is handed those same results in the same
 * order (test/helpers/replayed-loads.ts), so the comparison there is of the same real figures.
 * On both engines too, `--device desktop,phone` with stub loads (no browser): a test per device, each a page of its own,
 * judged by its own budget (a `phone-mid:` limit fails the phone only: exit 1), the JSON keyed by device.
 * Once, on the first engine (what they prove is the gate's, a client of the API, and no part of the store): a
 * Lighthouse test within its budget (exit 0, JSON only on standard output, JUnit XML that parses, the Markdown
 * summary and GitHub's step summary); a wrong key, a refused URL, an unreachable server, a bad budget and a JUnit file
 * that cannot be written are exit 2 with the API's words (the last one's test is a stub load: no figure is read).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { newId } from '../../src/core/ids.js';
import { refreshPage } from '../../src/core/reports/reports.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { engines, startServer, type TestServer } from '../helpers/server.js';
import { webgauge } from '../helpers/gate-process.js';
import { replayedLoads } from '../helpers/replayed-loads.js';
import { stubResult } from '../helpers/stub-result.js';
import type { RunSpec } from '../../src/runner/types.js';

const HOUR_MS = 3_600_000;

/** A port nothing listens on (one the system just handed out and took back). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** One fixture site for both engines: the second engine's replayed loads are of its URLs. */
let site: FixtureSite;
const loads = replayedLoads();
/** The URL whose loads are stub results (a test run only for its exit code). */
const STUB_PATH = '/?gate-stub';
before(async () => {
  site = await startFixtureSite();
});
after(async () => {
  await site?.close();
  process.stderr.write(`[gate] page loads: ${loads.counts.real} real, ${loads.counts.replayed} replayed\n`);
});

for (const engine of engines()) describe(`webgauge test, the CI gate (${engine})`, () => {
  let server: TestServer;
  let dir: string;
  let env: Record<string, string>;
  const authorization = () => ({ authorization: `Basic ${Buffer.from(`${server.key}:`).toString('base64')}` });
  const load = loads.runFor(engine);
  // A stub load runs as the test's device class (a real load says it from its conditions): --device's reports say theirs.
  const run = (spec: RunSpec) => (spec.options.url === site.url(STUB_PATH)
    ? Promise.resolve({ ...stubResult(spec.options.url), deviceClass: spec.conditions.device.deviceClass }) : load(spec));

  before(async () => {
    server = await startServer({ engine, agentSlots: 1, overrides: { run, launchAhead: loads.loadsOn(engine) } });
    dir = await mkdtemp(join(tmpdir(), 'webgauge-gate-'));
    env = { WEBGAUGE_SERVER: server.base, WEBGAUGE_KEY: server.key };
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('one page against its own history', () => {
    const budgetFile = () => join(dir, 'fail.json');
    const options = () => [site.url('/switchable'), '--report', 'none'];
    // The server's delay dominates every figure of the page (report=none: TTFB, FCP, fully loaded), so the
    // browser's own jitter on a busy machine (up to ~90 ms seen) stays well under the comparison's 5 %.
    const BASE_MS = 1500;

    test('its first test: no history yet, so budgets only; then eight earlier reports from its own runs', { timeout: 120_000 }, async () => {
      site.switchable.delayMs = BASE_MS;
      const ran = await webgauge([...options(), '--runs', '3', '--compare-history'], env);
      assert.equal(ran.code, 0, `${ran.err}\n${ran.out}`);
      assert.match(ran.out, /No comparison with history: the page has 0 earlier reports \(5 needed\); budgets only\./);
      assert.match(ran.out, /\(median of 3 runs\)/);
      assert.match(ran.out, /PASSED\n$/);
      assert.doesNotMatch(ran.out, /Lighthouse report/, 'report=none has none');
      const reportId = /Report: \S+\/reports\/(\S+) /.exec(ran.out)![1]!;
      // Eight earlier reports of the page, each with the figures of one of this test's runs.
      const db = server.app.store.db;
      const row = await db.selectFrom('reports').selectAll().where('id', '=', reportId).executeTakeFirstOrThrow();
      const runsFile = await fetch(`${server.api}/reports/${reportId}/resources/runs.json`, { headers: authorization() });
      const { runs } = (await runsFile.json()) as { runs: { attributes: Record<string, number> }[] };
      assert.equal(runs.length, 3);
      for (let i = 0; i < 8; i++) {
        const id = newId();
        await db.insertInto('reports').values({ ...row, ...runs[i % 3]!.attributes, id, test_id: id, runs: null,
          created: row.created - (i + 1) * HOUR_MS }).execute();
      }
      await refreshPage(db, row.page_id);
      const noLighthouse = await fetch(`${server.api}/reports/${reportId}/resources/lighthouse.html`, { headers: authorization() });
      assert.equal(noLighthouse.status, 404);
      assert.equal(((await noLighthouse.json()) as { errors: { code: string }[] }).errors[0]!.code, 'E40410');
    });

    test('the unchanged page passes the comparison (no significant change)', { timeout: 120_000 }, async () => {
      const ran = await webgauge([...options(), '--runs', '2', '--compare-history'], env);
      assert.equal(ran.code, 0, `${ran.err}\n${ran.out}`);
      assert.match(ran.out, /time_to_first_byte: no significant change: [\d.]+ m?s against [\d.]+ m?s before .*2 runs against 9 earlier reports/);
      assert.match(ran.out, /fully_loaded_time: no significant change/);
      assert.match(ran.out, /largest_contentful_paint: this test did not measure it/, 'report=none has no Lighthouse figures');
    });

    test('the page made slower fails the comparison and its budget, naming the metric (exit 1)', { timeout: 120_000 }, async () => {
      site.switchable.delayMs = 2 * BASE_MS;
      await writeFile(budgetFile(), JSON.stringify({ time_to_first_byte: { max: 1.5 * BASE_MS } }));
      const junit = join(dir, 'fail.xml');
      const ran = await webgauge([...options(), '--runs', '2', '--compare-history', '--budget', budgetFile(), '--junit', junit], env);
      assert.equal(ran.code, 1, `${ran.err}\n${ran.out}`);
      assert.match(ran.out, /FAIL {4}time_to_first_byte 3\.\d{2} s is over its budget of max 2\.25 s/);
      assert.match(ran.out, /FAIL {4}time_to_first_byte is significantly worse: 3\.\d{2} s against 1\.5\d s before \(\+\d+\.\d %, p = 0\.0\d+; 2 runs against 10 earlier reports\)/);
      assert.match(ran.out, /FAILED: 2 of 2 checks/);
      const cases = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(await readFile(junit, 'utf8'))
        .testsuites.testsuite.testcase as { classname: string; failure?: { message: string } }[];
      assert.deepEqual(cases.map((c) => c.classname), ['webgauge.budget', 'webgauge.comparison']);
      assert.ok(cases.every((c) => /time_to_first_byte/.test(c.failure?.message ?? '')));
    });
  });

  test('--device desktop,phone: a test per device, each its own page, judged by its own budget (stub loads)', { timeout: 60_000 }, async () => {
    const budget = join(dir, 'devices.json');
    // The stub's fully loaded time is 12 ms: the phone's own limit fails, the one of every device passes.
    await writeFile(budget, JSON.stringify({ fully_loaded_time: { max: 1000 }, 'phone-mid:fully_loaded_time': { max: 5 } }));
    const ran = await webgauge([site.url(STUB_PATH), '--report', 'none', '--device', 'desktop,phone', '--budget', budget,
      '--compare-history', '--json'], env);
    assert.equal(ran.code, 1, `${ran.err}\n${ran.out}`);
    const doc = JSON.parse(ran.out) as { exitCode: number; devices: Record<string, { exitCode: number; report: string; checks: { outcome: string; message: string }[] }> };
    assert.deepEqual(Object.keys(doc.devices), ['desktop', 'phone-mid']);
    assert.equal(doc.devices.desktop!.exitCode, 0);
    assert.equal(doc.devices['phone-mid']!.exitCode, 1);
    assert.match(doc.devices['phone-mid']!.checks[0]!.message, /fully_loaded_time 12 ms is over its budget of max 5 ms/);
    const db = server.app.store.db;
    const rows = await Promise.all(['desktop', 'phone-mid'].map((d) =>
      db.selectFrom('reports').select(['page_id', 'device_cpu']).where('id', '=', doc.devices[d]!.report).executeTakeFirstOrThrow()));
    assert.notEqual(rows[0]!.page_id, rows[1]!.page_id, 'a URL\'s desktop and phone tests are two pages');
    assert.match(String(rows[1]!.device_cpu), /"device_class":"phone-mid"/);
  });

  // The gate's own behaviour, once (on the first engine): its outputs and exit codes are the client's, and what it
  // reads of the store (a report, its Lighthouse HTML) is read as flow.test.ts reads it on both engines.
  if (engine !== engines()[0]) return;

  test('a Lighthouse test within its budget: exit 0, one JSON document, JUnit XML, the Markdown and step summaries', { timeout: 120_000 }, async () => {
    const budget = join(dir, 'pass.json');
    await writeFile(budget, JSON.stringify({ performance_score: { min: 50 }, largest_contentful_paint: { max: 10_000 }, page_requests: { max: 20 } }));
    const junit = join(dir, 'pass.xml');
    const markdown = join(dir, 'pass.md');
    const stepSummary = join(dir, 'step-summary.md');
    await writeFile(stepSummary, '# earlier step\n');
    const ran = await webgauge([site.url('/paint'), '--budget', budget, '--junit', junit, '--markdown', markdown, '--json'],
      { ...env, GITHUB_STEP_SUMMARY: stepSummary });
    assert.equal(ran.code, 0, `${ran.err}\n${ran.out}`);
    const doc = JSON.parse(ran.out) as { passed: boolean; report: string; reportUrl: string; lighthouseHtml?: string; runs: number;
      figures: Record<string, number>; checks: { attribute: string; outcome: string }[] };
    assert.equal(doc.passed, true);
    assert.equal(doc.runs, 1);
    assert.deepEqual(doc.checks.map((c) => `${c.attribute} ${c.outcome}`), ['performance_score pass', 'largest_contentful_paint pass', 'page_requests pass']);
    assert.equal(doc.reportUrl, `${server.base}/reports/${doc.report}`);
    assert.ok(doc.figures.largest_contentful_paint! > 0 && doc.figures.performance_score! >= 50, JSON.stringify(doc.figures));
    // The figures are the report's own.
    const report = await fetch(`${server.api}/reports/${doc.report}`, { headers: authorization() });
    const attributes = ((await report.json()) as { data: { attributes: Record<string, number> } }).data.attributes;
    for (const name of ['largest_contentful_paint', 'fully_loaded_time', 'page_bytes']) assert.equal(doc.figures[name], attributes[name], name);
    // Lighthouse's own HTML report: next to the report page without a key, and as an API resource with one.
    assert.equal(doc.lighthouseHtml, `${doc.reportUrl}/lighthouse.html`);
    for (const [url, headers] of [[doc.lighthouseHtml, {}], [`${server.api}/reports/${doc.report}/resources/lighthouse.html`, authorization()],
      [`${server.api}/reports/${doc.report}/resources/lighthouse_html`, authorization()]] as const) {
      const html = await fetch(url, { headers });
      assert.equal(html.status, 200, url);
      assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(html.headers.get('content-security-policy') ?? '', /^default-src 'none'; script-src 'unsafe-inline';.*sandbox allow-scripts/);
      const text = await html.text();
      assert.match(text, /window\.__LIGHTHOUSE_JSON__ = \{/);
      assert.ok(text.includes(`"finalDisplayedUrl":${JSON.stringify(site.url('/paint'))}`), 'the report of this load');
    }
    assert.match(ran.err, /^Testing /m);
    // Progress went to standard error, one line per state (not a terminal).
    assert.match(ran.err, /^(queued|started)/m);
    assert.match(ran.err, /^completed/m);

    const xml = await readFile(junit, 'utf8');
    assert.equal(XMLValidator.validate(xml), true);
    const cases = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).testsuites.testsuite.testcase as { name: string; failure?: unknown }[];
    assert.deepEqual(cases.map((c) => c.name), ['performance_score', 'largest_contentful_paint', 'page_requests']);
    assert.ok(cases.every((c) => c.failure === undefined));
    const md = await readFile(markdown, 'utf8');
    assert.match(md, /^### Webgauge: ✅ passed/);
    assert.equal(await readFile(stepSummary, 'utf8'), `# earlier step\n${md}`, 'appended to the step summary');
  });

  test('exit 2 when the test cannot be run: a wrong key, a refused URL, an unreachable server, a bad budget', { timeout: 60_000 }, async () => {
    const wrongKey = await webgauge([site.url('/paint'), '--key', 'not-a-key', '--json'], env);
    assert.equal(wrongKey.code, 2);
    assert.match(wrongKey.err, /401 E40100: .*\(check --key or WEBGAUGE_KEY\)/);
    assert.equal(JSON.parse(wrongKey.out).passed, false, '--json: still one JSON document');
    const refused = await webgauge(['ftp://example.test/'], env);
    assert.equal(refused.code, 2);
    assert.match(refused.err, /POST \/tests: 400 E4000\d: /);
    const port = await closedPort();
    const closed = await webgauge([site.url('/paint'), '--server', `http://127.0.0.1:${port}`], env);
    assert.equal(closed.code, 2);
    assert.match(closed.err, new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}/api/2\\.0: ECONNREFUSED`));
    await writeFile(join(dir, 'bad.json'), '{"lcp": {"max": 1}}');
    const badBudget = await webgauge([site.url('/paint'), '--budget', join(dir, 'bad.json')], env);
    assert.equal(badBudget.code, 2);
    assert.match(badBudget.err, /"lcp" is not a numeric report attribute/);
    const noServer = await webgauge([site.url('/paint')], { WEBGAUGE_KEY: server.key });
    assert.equal(noServer.code, 2);
    assert.match(noServer.err, /no server: give --server or set WEBGAUGE_SERVER/);
    // The test ran, but its JUnit file cannot be written: no verdict reached the pipeline, so 2, not 1 or 0.
    const unwritable = await webgauge([site.url(STUB_PATH), '--report', 'none', '--junit', join(dir, 'no-such-folder', 'junit.xml'), '--json'], env);
    assert.equal(unwritable.code, 2, unwritable.err);
    assert.match(unwritable.err, /cannot write --junit .*no-such-folder\/junit\.xml: ENOENT/);
    assert.equal(JSON.parse(unwritable.out).exitCode, 2);
  });
});
