/**
 * `npm run bench -- parity`: Lighthouse's figures in a Webgauge report against a bare, unpatched Lighthouse CLI of the
 * same version on the same page, interleaved in one sitting, and the structure score each fixture page gets.
 *
 * Ours: the runner's load (our patched Lighthouse, our load wait, the connection guard), its lighthouse.json.
 * Theirs: `lighthouse` of the version package.json pins, installed untouched into .bench/ (no patch), with the settings of
 * a default desktop test: observed metrics (throttling-method=provided), desktop scoring, a 1366×768 screen at DPR 1,
 * performance only, Debian's Chromium with the flags Webgauge's own runs use. FCP, SI, LCP, TBT (ms), CLS and the
 * performance score: medians of BENCH_RUNS loads each (default 5). The goal: each time within 15 ms, CLS equal to
 * 0.001, the score within 1 point; and no audit of the result in `error`.
 *
 * A page whose first paint races a long task (/gallery: the render after the stylesheet against the
 * DOMContentLoaded handler's 250 ms task) paints either before the task or after it, in either tool: its loads fall
 * into two modes ~350 ms apart, and a median of 5 falls into the later one whenever 3 of 5 loads did. Such a page is
 * judged within the mode most of its loads (both tools' together) fell into, with more loads (up to BENCH_RUNS more
 * each) until each tool has 3 in it; the line says how each tool's loads split, so a tool that makes the race go
 * one way more often than the other still shows. Two modes: the loads' first paints, sorted, have a gap over 100 ms.
 *
 * The phone case (issue 49): the same page as a mid-tier phone (BENCH_PHONE_PAGES, default /; empty: none). Ours: the
 * runner's load of device_class phone-mid, on the rate calibrated once in this sitting as the agent calibrates it
 * (cpu-calibration.ts, passed as RunSpec.cpu), Lighthouse's mobile screen 412×823 at DPR 1.75, the slow 4G link
 * (1600/750 Kbit/s, RTT 150 ms) of our connection guard. Theirs: the bare CLI with --throttling-method=devtools, the
 * CPU slowed by Lighthouse itself (Emulation.setCPUThrottlingRate) at --throttling.cpuSlowdownMultiplier=<our rate>,
 * --form-factor=mobile and the same screen, and the same link: the CLI's Chromium sends its connections through a
 * connection guard of the same shape (a SOCKS proxy of its own, --proxy-server), and DevTools' network throttling is
 * off (latency 0, throughput 0). Why not DevTools' network throttling: it is not a link but a per-request rule.
 * Its latency is a minimum from a request's sending to its response headers, which overlaps the server's own time,
 * and connections cost nothing; our link adds a round trip to every connection and half of one to every byte each
 * way, on top of the server's time. No one latency is both for this page: its document is 400 ms of server time
 * (ours 2 round trips + 400 = ~735 ms; DevTools at 150 ms, the RTT: ~430; at 300 ms: ~430 too, hidden under the
 * server's time), its stylesheet 300 ms on a reused or pre-opened connection (ours ~490; 562.5 ms: ~575), its
 * 32 KB image none (ours ~490, 562.5 ms and 1474.56 Kbit: ~740, which moves LCP ~14 % later). (Measured here, one
 * load each, 2026-12-05.) So the judged comparison gives both tools the one link, and holds what the phone
 * changes: the CPU (ours on the page's session from each navigation to the load's end, theirs Lighthouse's own for the
 * whole run), the screen and the scoring. Lighthouse's own devtools preset (mobileSlow4G: 562.5 ms per request,
 * 1474.56/675 Kbit, the factors 3.75 and 0.9 that make DevTools' per-request rule approximate a link on real pages)
 * is loaded too and printed beside it for reading: what a person comparing with `lighthouse --throttling-method=devtools`
 * would see; it is not judged. Goal: FCP, LCP and TBT within 10 %, the score within 3 points (medians of BENCH_RUNS
 * each, within the mode most loads fell into as above), no audit in `error`.
 *
 *   BENCH_RUNS=5 BENCH_PAGES=/,/faulty npm run bench -- parity
 *   BENCH_PAGES= BENCH_PHONE_PAGES=/ npm run bench -- parity   (the phone case alone)
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFixtureSiteProcess } from '../test/fixtures/site/process.js';
import { ALLOW_ALL, analysisOptions, CHROME, runSpec } from '../test/helpers/run-spec.js';
import { runTest } from '../src/runner/run.js';
import { closeBrowser, launchBrowser } from '../src/runner/browser.js';
import { calibrateCpu, cpuUsed, type CpuUsed } from '../src/runner/cpu-calibration.js';
import { GuardThread } from '../src/runner/conditions/guard-thread.js';
import type { LinkShape } from '../src/runner/conditions/link.js';
import { loadConditions } from '../src/core/options/conditions.js';
import { loadFigures } from '../src/core/reports/report-figures.js';
import { median } from '../src/analysis/statistics.js';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const pages = (process.env.BENCH_PAGES ?? '/,/faulty,/gallery,/paint').split(',').filter(Boolean);
const phonePages = (process.env.BENCH_PHONE_PAGES ?? '/').split(',').filter(Boolean);
/** A mid-tier phone's CPU target (core/vocabulary/device-classes.ts). */
const PHONE_MID = 1000;
const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> }).dependencies.lighthouse!;
const CHROME_FLAGS = '--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run ' +
  '--disable-background-networking --disable-component-update --disable-sync';

/** Lighthouse of `version`, as npm publishes it: no patch-package here. */
function unpatchedLighthouse(): string {
  const prefix = resolve(`.bench/lighthouse-${version}`);
  const cli = join(prefix, 'node_modules/lighthouse/cli/index.js');
  if (!existsSync(cli)) {
    console.log(`installing lighthouse@${version} (unpatched) into ${prefix}`);
    const r = spawnSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--prefer-offline',
      '--loglevel=error', `lighthouse@${version}`], { stdio: 'inherit', env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' } });
    if (r.status !== 0) throw new Error('could not install the unpatched Lighthouse');
  }
  return cli;
}

interface Figures { fcp: number; si: number; lcp: number; tbt: number; cls: number; score: number; errors: string[] }

function figuresOf(lhr: { audits: Record<string, { numericValue?: number; scoreDisplayMode?: string }>; categories: { performance: { score: number } } }): Figures {
  const n = (id: string) => lhr.audits[id]?.numericValue ?? NaN;
  return {
    fcp: n('first-contentful-paint'), si: n('speed-index'), lcp: n('largest-contentful-paint'), tbt: n('total-blocking-time'),
    cls: n('cumulative-layout-shift'), score: Math.round(lhr.categories.performance.score * 100),
    errors: Object.entries(lhr.audits).filter(([, a]) => a.scoreDisplayMode === 'error').map(([id]) => id),
  };
}

/** A default desktop test's settings. */
const DESKTOP = ['--throttling-method=provided', '--form-factor=desktop', '--screenEmulation.mobile=false',
  '--screenEmulation.width=1366', '--screenEmulation.height=768', '--screenEmulation.deviceScaleFactor=1'];
/** Lighthouse's mobile screen, the one a phone test gets (the Moto G Power's). */
const PHONE_SCREEN = ['--form-factor=mobile', '--screenEmulation.mobile=true', '--screenEmulation.width=412',
  '--screenEmulation.height=823', '--screenEmulation.deviceScaleFactor=1.75'];

/** One run of the bare CLI with `settings`; `chromeFlags` added to the usual ones. */
async function bare(cli: string, url: string, settings = DESKTOP, chromeFlags: readonly string[] = []): Promise<Figures> {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-parity-'));
  try {
    const out = join(dir, 'report.json');
    await new Promise<void>((done, fail) => execFile(process.execPath, [cli, url, '--quiet', '--output=json', `--output-path=${out}`,
      '--only-categories=performance', ...settings, `--chrome-flags=${[CHROME_FLAGS, ...chromeFlags].join(' ')}`],
    { env: { ...process.env, CHROME_PATH: CHROME }, maxBuffer: 1 << 24 },
    (err, _o, stderr) => (err ? fail(new Error(`lighthouse CLI: ${err.message}\n${stderr}`)) : done())));
    const lhr = JSON.parse(await readFile(out, 'utf8')) as Parameters<typeof figuresOf>[0] & CliSettings;
    lastCliSettings = lhr.configSettings;
    return figuresOf(lhr);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface CliSettings { configSettings: { throttlingMethod: string; throttling: Record<string, number>; screenEmulation: Record<string, unknown> } }
/** The settings the CLI's last result says it ran with (to show that the phone's were the ones asked for). */
let lastCliSettings: CliSettings['configSettings'] | undefined;

/**
 * The CLI as a phone on `rate` and `link`: Lighthouse's own devtools CPU throttling, the link of a connection guard
 * of its own (DevTools' network throttling off; the file's head says why), Lighthouse's mobile screen.
 */
async function barePhone(cli: string, url: string, rate: number, link: LinkShape): Promise<Figures> {
  const guard = await GuardThread.start(ALLOW_ALL, [], link);
  try {
    // The proxy flags alone: the fixture is an address, so there is nothing for the browser to resolve.
    const proxy = guard.browserFlags().filter((f) => f.startsWith('--proxy-'));
    return await bare(cli, url, ['--throttling-method=devtools', `--throttling.cpuSlowdownMultiplier=${rate}`,
      '--throttling.requestLatencyMs=0', '--throttling.downloadThroughputKbps=0', '--throttling.uploadThroughputKbps=0',
      ...PHONE_SCREEN], proxy);
  } finally {
    await guard.close();
  }
}

/** The CLI with Lighthouse's own devtools preset (mobileSlow4G's per-request latency and throughputs) and `rate`. */
function bareDevtoolsPreset(cli: string, url: string, rate: number): Promise<Figures> {
  return bare(cli, url, ['--throttling-method=devtools', `--throttling.cpuSlowdownMultiplier=${rate}`, ...PHONE_SCREEN]);
}

async function ours(url: string, cpu?: CpuUsed): Promise<{ figures: Figures; structure: number | null }> {
  const workDir = await mkdtemp(join(tmpdir(), 'webgauge-parity-'));
  try {
    const options = analysisOptions(url, cpu ? { device_class: 'phone-mid' } : {});
    const result = await runTest(runSpec(options, { testId: 'parity', workDir, timeoutMs: 120_000, cpu }));
    if (cpu && result.cpu?.rate !== cpu.rate) throw new Error(`the phone's load ran on ${JSON.stringify(result.cpu)}, not on rate ${cpu.rate}`);
    const lhr = result.lighthouse as Parameters<typeof figuresOf>[0];
    return { figures: figuresOf(lhr), structure: loadFigures(result, { report: 'lighthouse' }).structureScore };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Two modes 350 ms apart and the bar 15 ms: a gap in first paints over this splits a page's loads in two. */
const MODE_GAP_MS = 100;
const MODE_MIN_LOADS = 3;

/** Each load's mode (0 early, 1 late) by its first paint, or all 0 when the first paints have no gap over MODE_GAP_MS. */
function modesOf(loads: readonly Figures[]): number[] {
  const sorted = loads.map((l) => l.fcp).sort((x, y) => x - y);
  let split = Infinity;
  for (let i = 1; i < sorted.length; i++) if (sorted[i]! - sorted[i - 1]! > MODE_GAP_MS) split = Math.min(split, sorted[i]!);
  return loads.map((l) => (l.fcp >= split ? 1 : 0));
}

/** The loads of each tool in the mode most loads of both fell into, and a note of how each tool's loads split. */
function sharedMode(a: readonly Figures[], b: readonly Figures[]): { a: Figures[]; b: Figures[]; note: string } {
  const modes = modesOf([...a, ...b]);
  const ma = modes.slice(0, a.length);
  const mb = modes.slice(a.length);
  if (!modes.includes(1)) return { a: [...a], b: [...b], note: '' };
  const late = modes.filter((m) => m === 1).length * 2 > modes.length ? 1 : 0;
  const count = (ms: number[]) => ms.filter((m) => m === 1).length;
  return {
    a: a.filter((_, i) => ma[i] === late), b: b.filter((_, i) => mb[i] === late),
    note: `  two modes (a first paint before or after a long task): late in ${count(ma)}/${a.length} of ours, ` +
      `${count(mb)}/${b.length} of the CLI's; judged in the ${late ? 'late' : 'early'} one`,
  };
}

async function main(): Promise<void> {
  const cli = unpatchedLighthouse();
  // Its own process: the page's server delays are on its critical path, and our runner (unlike the CLI, a process of
  // its own) would otherwise share the site's event loop and make them late.
  const site = await startFixtureSiteProcess();
  const rows: string[] = [];
  const phoneRows: string[] = [];
  let failed = false;
  try {
    await bare(cli, site.url('/')); // the CLI's first run pays for the disk cache; ours pays for nothing but is not timed
    for (const path of pages) {
      const url = site.url(path);
      const a: Figures[] = [];
      const b: Figures[] = [];
      const structures: number[] = [];
      const pair = async (): Promise<void> => {
        const o = await ours(url);
        a.push(o.figures);
        if (o.structure !== null) structures.push(o.structure);
        b.push(await bare(cli, url));
      };
      for (let i = 0; i < runs; i++) await pair();
      let judged = sharedMode(a, b);
      for (let extra = 0; extra < runs && (judged.a.length < MODE_MIN_LOADS || judged.b.length < MODE_MIN_LOADS); extra++) {
        await pair();
        judged = sharedMode(a, b);
      }
      const m = (xs: Figures[], k: keyof Omit<Figures, 'errors'>) => (xs.length ? median(xs.map((x) => x[k])) : NaN);
      const cells: string[] = [];
      for (const [k, limit, digits] of [['fcp', 15, 0], ['si', 15, 0], ['lcp', 15, 0], ['tbt', 15, 0], ['cls', 0.001, 3], ['score', 1, 0]] as const) {
        const mine = m(judged.a, k);
        const theirs = m(judged.b, k);
        const ok = Math.abs(mine - theirs) <= limit;
        failed ||= !ok;
        cells.push(`${k} ${mine.toFixed(digits)}/${theirs.toFixed(digits)}${ok ? '' : ' (!)'}`);
      }
      const errors = [...new Set([...a, ...b].flatMap((x) => x.errors))];
      failed ||= errors.length > 0;
      rows.push(`${path.padEnd(9)} ${cells.join('  ')}  structure ${median(structures)}  loads ${judged.a.length}+${judged.b.length}` +
        `${errors.length ? `  errors: ${errors.join(', ')}` : ''}${judged.note}`);
      console.log(rows.at(-1));
      console.log(`          first paints, ours: ${a.map((x) => Math.round(x.fcp)).join(' ')}; the CLI's: ${b.map((x) => Math.round(x.fcp)).join(' ')}`);
    }
    if (phonePages.length > 0) failed = (await phoneCase(cli, site.url.bind(site), phoneRows)) || failed;
  } finally {
    await site.close();
  }
  if (rows.length > 0) {
    console.log(`\nLighthouse ${version}: Webgauge report / bare unpatched CLI, medians of ${runs} loads each (ms; CLS; score)`);
    for (const r of rows) console.log(r);
  }
  for (const r of phoneRows) console.log(r);
  if (failed) {
    console.log('\nat least one figure is outside its goal (marked (!)), or an audit ended in error');
    process.exitCode = 1;
  }
}

/** The rate of a mid-tier phone on this host, calibrated as the agent calibrates it (a busy moment: made again). */
async function calibrated(): Promise<CpuUsed> {
  const browser = await launchBrowser({ chromePath: CHROME, protocolTimeoutMs: 60_000 });
  try {
    const page = (await browser.pages())[0] ?? await browser.newPage();
    for (let attempt = 1; ; attempt++) {
      const calibration = await calibrateCpu(page, [PHONE_MID]);
      const cpu = calibration && cpuUsed('phone-mid', calibration, PHONE_MID);
      if (!cpu) throw new Error('no calibration');
      console.log(`calibration ${attempt}: host benchmark ${Math.round(cpu.hostIndex)}, rate ${cpu.rate} → ${Math.round(cpu.measured)} ` +
        `for ${PHONE_MID}${calibration.settled ? '' : ' (not within 5 %)'}`);
      if (!cpu.reachable) throw new Error('this host is slower than a mid-tier phone: nothing to compare');
      if (calibration.settled || attempt === 3) return cpu;
    }
  } finally {
    await closeBrowser(browser);
  }
}

/** A phone's figure is within 10 % of the CLI's (or the desktop's 15 ms, for a figure near 0); the score within 3. */
const PHONE_GOALS = [['fcp', 0.1], ['lcp', 0.1], ['tbt', 0.1], ['score', 3]] as const;

/** The phone case (the file's head): each page as a mid-tier phone, ours against the CLI; true when a goal is missed. */
async function phoneCase(cli: string, urlOf: (path: string) => string, out: string[]): Promise<boolean> {
  const cpu = await calibrated();
  const link = loadConditions(analysisOptions(urlOf('/'), { device_class: 'phone-mid' })).throttle;
  if (!link) throw new Error('a phone test has no link');
  let failed = false;
  out.push(`\nLighthouse ${version}, a mid-tier phone (rate ${cpu.rate}: host benchmark ${Math.round(cpu.hostIndex)} → ` +
    `${Math.round(cpu.measured)}; link ${link.downloadKbps}/${link.uploadKbps} Kbit/s, RTT ${link.latencyMs} ms; 412×823 @1.75): ` +
    `medians of ${runs} loads each`);
  console.log(out.at(-1));
  for (const path of phonePages) {
    const from = out.length;
    const url = urlOf(path);
    const a: Figures[] = [];
    const b: Figures[] = [];
    const preset: Figures[] = [];
    const triple = async (): Promise<void> => {
      a.push((await ours(url, cpu)).figures);
      b.push(await barePhone(cli, url, cpu.rate, link));
      const t = lastCliSettings?.throttling;
      if (lastCliSettings?.throttlingMethod !== 'devtools' || t?.cpuSlowdownMultiplier !== cpu.rate || t.requestLatencyMs !== 0 ||
        lastCliSettings.screenEmulation.width !== 412) {
        throw new Error(`the CLI did not run as asked: ${JSON.stringify(lastCliSettings)}`);
      }
      preset.push(await bareDevtoolsPreset(cli, url, cpu.rate));
    };
    for (let i = 0; i < runs; i++) await triple();
    let judged = sharedMode(a, b);
    for (let extra = 0; extra < runs && (judged.a.length < MODE_MIN_LOADS || judged.b.length < MODE_MIN_LOADS); extra++) {
      await triple();
      judged = sharedMode(a, b);
    }
    const m = (xs: Figures[], k: keyof Omit<Figures, 'errors'>) => (xs.length ? median(xs.map((x) => x[k])) : NaN);
    out.push(`${path}: ours / the CLI on the same link${judged.note ? ` (${judged.note.trim()})` : ''}; the CLI with Lighthouse's devtools preset for reading`);
    out.push(`  ${'figure'.padEnd(7)} ${'ours'.padStart(7)} ${'CLI'.padStart(7)} ${'ours÷CLI'.padStart(9)}  ${'goal'.padEnd(9)} ${'preset'.padStart(7)}`);
    for (const k of ['fcp', 'lcp', 'tbt', 'si', 'cls', 'score'] as const) {
      const mine = m(judged.a, k);
      const theirs = m(judged.b, k);
      const goal = PHONE_GOALS.find(([g]) => g === k)?.[1];
      const ok = goal === undefined ? true : k === 'score' ? Math.abs(mine - theirs) <= goal
        : Math.abs(mine - theirs) <= Math.max(goal * theirs, 15);
      failed ||= !ok;
      const digits = k === 'cls' ? 3 : 0;
      const ratio = k === 'score' ? `${mine - theirs >= 0 ? '+' : ''}${mine - theirs}` : theirs > 0 ? (mine / theirs).toFixed(3) : '-';
      out.push(`  ${k.padEnd(7)} ${mine.toFixed(digits).padStart(7)} ${theirs.toFixed(digits).padStart(7)} ${ratio.padStart(9)}  ` +
        `${(goal === undefined ? '' : k === 'score' ? `±${goal}` : `±${goal * 100} %`).padEnd(5)}${ok ? '    ' : ' (!)'} ` +
        `${m(preset, k).toFixed(digits).padStart(7)}`);
    }
    const errors = [...new Set([...a, ...b].flatMap((x) => x.errors))];
    failed ||= errors.length > 0;
    if (errors.length) out.push(`  errors: ${errors.join(', ')}`);
    out.push(`  each load (fcp/lcp/tbt): ours ${a.map(brief).join(', ')}; CLI ${b.map(brief).join(', ')}; preset ${preset.map(brief).join(', ')}`);
    console.log(out.slice(from).join('\n'));
  }
  return failed;
}

const brief = (f: Figures): string => `${Math.round(f.fcp)}/${Math.round(f.lcp)}/${Math.round(f.tbt)}`;

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
