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
 *   BENCH_RUNS=5 BENCH_PAGES=/,/faulty npm run bench -- parity
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFixtureSiteProcess } from '../test/fixtures/site/process.js';
import { analysisOptions, CHROME, runSpec } from '../test/helpers/run-spec.js';
import { runTest } from '../src/runner/run.js';
import { loadFigures } from '../src/core/reports/report-figures.js';
import { median } from '../src/analysis/statistics.js';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const pages = (process.env.BENCH_PAGES ?? '/,/faulty,/gallery,/paint').split(',');
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

async function bare(cli: string, url: string): Promise<Figures> {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-parity-'));
  try {
    const out = join(dir, 'report.json');
    await new Promise<void>((done, fail) => execFile(process.execPath, [cli, url, '--quiet', '--output=json', `--output-path=${out}`,
      '--only-categories=performance', '--throttling-method=provided', '--form-factor=desktop', '--screenEmulation.mobile=false',
      '--screenEmulation.width=1366', '--screenEmulation.height=768', '--screenEmulation.deviceScaleFactor=1',
      `--chrome-flags=${CHROME_FLAGS}`], { env: { ...process.env, CHROME_PATH: CHROME }, maxBuffer: 1 << 24 },
    (err, _o, stderr) => (err ? fail(new Error(`lighthouse CLI: ${err.message}\n${stderr}`)) : done())));
    return figuresOf(JSON.parse(await readFile(out, 'utf8')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function ours(url: string): Promise<{ figures: Figures; structure: number | null }> {
  const workDir = await mkdtemp(join(tmpdir(), 'webgauge-parity-'));
  try {
    const result = await runTest(runSpec(analysisOptions(url), { testId: 'parity', workDir, timeoutMs: 120_000 }));
    const lhr = result.lighthouse as Parameters<typeof figuresOf>[0];
    return { figures: figuresOf(lhr), structure: loadFigures(result, { report: 'lighthouse' }).structureScore };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const cli = unpatchedLighthouse();
  // Its own process: the page's server delays are on its critical path, and our runner (unlike the CLI, a process of
  // its own) would otherwise share the site's event loop and make them late.
  const site = await startFixtureSiteProcess();
  const rows: string[] = [];
  let failed = false;
  try {
    await bare(cli, site.url('/')); // the CLI's first run pays for the disk cache; ours pays for nothing but is not timed
    for (const path of pages) {
      const url = site.url(path);
      const a: Figures[] = [];
      const b: Figures[] = [];
      const structures: number[] = [];
      for (let i = 0; i < runs; i++) {
        const o = await ours(url);
        a.push(o.figures);
        if (o.structure !== null) structures.push(o.structure);
        b.push(await bare(cli, url));
      }
      const m = (xs: Figures[], k: keyof Omit<Figures, 'errors'>) => median(xs.map((x) => x[k]));
      const cells: string[] = [];
      for (const [k, limit, digits] of [['fcp', 15, 0], ['si', 15, 0], ['lcp', 15, 0], ['tbt', 15, 0], ['cls', 0.001, 3], ['score', 1, 0]] as const) {
        const mine = m(a, k);
        const theirs = m(b, k);
        const ok = Math.abs(mine - theirs) <= limit;
        failed ||= !ok;
        cells.push(`${k} ${mine.toFixed(digits)}/${theirs.toFixed(digits)}${ok ? '' : ' (!)'}`);
      }
      const errors = [...new Set([...a, ...b].flatMap((x) => x.errors))];
      failed ||= errors.length > 0;
      rows.push(`${path.padEnd(9)} ${cells.join('  ')}  structure ${median(structures)}${errors.length ? `  errors: ${errors.join(', ')}` : ''}`);
      console.log(rows.at(-1));
    }
  } finally {
    await site.close();
  }
  console.log(`\nLighthouse ${version}: Webgauge report / bare unpatched CLI, medians of ${runs} loads each (ms; CLS; score)`);
  for (const r of rows) console.log(r);
  if (failed) {
    console.log('\nat least one figure is outside its goal (marked (!)), or an audit ended in error');
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
