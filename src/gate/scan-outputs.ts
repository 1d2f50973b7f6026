/**
 * What `webgauge scan` writes: the site's figures for a person, JUnit XML (one test case per page and one per site
 * budget), a Markdown summary (a CI job's summary) and one JSON document of the scan and its pages.
 *
 * A page's JUnit case fails exactly when the page is part of a site budget that failed (its LCP over `lcp_p75`'s
 * limit, a poor CLS when `poor_cls_pages` failed, its test failed when `failed_pages` failed...), so the test report
 * is red exactly when the gate's exit code is 1 and names the pages to look at. A page that failed without a budget on
 * it, or that the scan never measured, is a skipped case with its reason; a poor page under no failed budget passes,
 * its ratings in its system-out. With --compare-to, a page that got significantly worse than the earlier scan fails too
 * (what got worse, and whether a test or a threshold said so), and the site suite has a case for the comparison.
 */
import { byteSize, plural } from '../lib/words.js';
import type { Check } from './checks.js';
import { md, OUTCOME_WORD, xml } from './outputs.js';
import { figure, formatFigure, headingOf, rate, RATING_WORDS, type FigureName } from '../analysis/figures.js';
import { VITAL_NAMES } from '../analysis/site-figures.js';
import { pageBlame, type ScanAttributes, type ScanFigures, type ScanPage } from './scan-budgets.js';
import { againstName, againstText, comparisonVerdict, countsText, reasonText, worsePages, worseText, type GateComparison } from './scan-regressions.js';

export interface ScanResult {
  id: string;
  /** The device its pages ran as, when the gate was asked for devices (--device): every output then names it. */
  device?: string;
  scan: ScanAttributes;
  /** The scan resource's links (self, pages, csv, json). */
  links: Record<string, string>;
  /** The server's web origin (with its path prefix): a report's page is `${web}/reports/ID`. */
  web: string;
  pages: ScanPage[];
  checks: Check[];
  /** --compare-to: the comparison with the earlier scan (or why none was made). */
  comparison?: GateComparison;
  /** Why no verdict was reached (the scan was cancelled, or no page measured): exit code 2. */
  error?: string;
  exitCode: 0 | 1 | 2;
}

/** The worst pages, templates and structure audits a summary lists at most. */
const WORST_PAGES = 10;
const WORST_TEMPLATES = 5;
const STRUCTURE_AUDITS = 5;
const FAILED_PAGES = 10;

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const dash = '–';
const time = (v: number | null | undefined) => formatFigure('time', v);
const cls = (v: number | null | undefined) => formatFigure('cls', v);
const score = (v: number | null | undefined) => formatFigure('score', v);
/** A figure's column heading: its short name ("LCP"). */
const figHead = (name: FigureName) => headingOf(figure(name));
const reportLink = (r: ScanResult, report: string | null | undefined) => (report ? `${r.web}/reports/${encodeURIComponent(report)}` : undefined);

/** Why URLs were not tested, as a sentence reads them. */
const SKIP_WORDS: Record<string, string> = {
  other_host: 'on another host', robots_txt: 'disallowed by robots.txt', excluded: 'excluded by --include/--exclude',
  not_html: 'not HTML', duplicate: 'repeated', sitemap_error: 'in sitemaps that could not be read',
  fetch_error: 'could not be fetched', crawl_limit: 'beyond the crawl\'s limits', sampled_out: 'sampled out (--sample per template)',
  over_max_pages: 'over --max-pages',
};

/** "1435 skipped: 1180 sampled out (...), 240 over --max-pages", biggest first; undefined when none was. */
function skippedText(scan: ScanAttributes): string | undefined {
  const counts = Object.entries(scan.skipped ?? {}).filter(([, n]) => isNumber(n) && n > 0).sort((a, b) => b[1] - a[1]);
  if (counts.length === 0) return undefined;
  const total = counts.reduce((s, [, n]) => s + n, 0);
  return `${total} skipped: ${counts.map(([reason, n]) => `${n} ${SKIP_WORDS[reason] ?? reason}`).join(', ')}`;
}

/** What was found and tested: "1420 URLs found, 50 pages tested: 48 completed, 2 failed". */
function pagesText(r: ScanResult): string {
  const p = r.scan.pages;
  const counts = p ? (['completed', 'failed', 'cancelled', 'queued', 'started'] as const)
    .filter((k) => isNumber(p[k]) && p[k]! > 0).map((k) => `${p[k]} ${k}`) : [];
  const found = isNumber(r.scan.found) ? `${plural(r.scan.found, 'URL')} found, ` : '';
  return `${found}${plural(p?.total ?? r.pages.length, 'page')} tested${counts.length ? `: ${counts.join(', ')}` : ''}`;
}

function duration(scan: ScanAttributes): string {
  if (!isNumber(scan.started) || !isNumber(scan.finished)) return '';
  const s = Math.max(0, Math.round(scan.finished - scan.started));
  return ` in ${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The site's rows: [label, good, needs improvement, poor, median, p75] (empty cells for the figures without ratings). */
function figureRows(f: ScanFigures): string[][] {
  const rows: string[][] = [];
  for (const name of VITAL_NAMES) {
    const x = f[name];
    if (!x) continue;
    const { label, short, unit } = figure(name);
    rows.push([`${label} (${short})`, String(x.good), String(x.needs_improvement), String(x.poor), formatFigure(unit, x.median), formatFigure(unit, x.p75)]);
  }
  for (const name of ['fully_loaded_time', 'performance_score'] as const) {
    const x = f[name];
    if (x) rows.push([figure(name).label, '', '', '', formatFigure(figure(name).unit, x.median), formatFigure(figure(name).unit, x.p75)]);
  }
  return rows;
}
const FIGURE_HEADER = ['', 'good', 'needs improvement', 'poor', 'median', 'p75'];

const gradesText = (f: ScanFigures) => Object.entries(f.grades ?? {}).filter(([, n]) => n > 0).map(([g, n]) => `${g} ${n}`).join(' · ');

/** "Document request latency fails on 38 of 48 pages (high impact); 1.2 MiB and 9.1 s to save". */
function structureLines(f: ScanFigures): string[] {
  return [...(f.structure ?? [])].sort((a, b) => b.failing_pages - a.failing_pages).slice(0, STRUCTURE_AUDITS).map((a) => {
    const savings = [isNumber(a.savings_bytes) && a.savings_bytes > 0 ? byteSize(a.savings_bytes) : '',
      isNumber(a.savings_ms) && a.savings_ms > 0 ? `${(a.savings_ms / 1000).toFixed(1)} s` : ''].filter(Boolean);
    return `${a.title} fails on ${a.failing_pages} of ${plural(f.pages_measured, 'page')}${a.impact ? ` (${a.impact} impact)` : ''}` +
      `${savings.length ? `; ${savings.join(' and ')} to save` : ''}`;
  });
}

const worstPages = (f: ScanFigures) => (f.worst_pages ?? []).slice(0, WORST_PAGES);
const failedPages = (r: ScanResult) => r.pages.filter((p) => p.state === 'failed');

/** Columns padded to their widest cell: numbers right-aligned, the columns in `left` (default the first) left-aligned. */
function columns(rows: string[][], left: readonly number[] = [0]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows.map((row) => `  ${row.map((c, i) => (left.includes(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`.trimEnd());
}

function verdict(r: ScanResult): string {
  const failed = r.checks.filter((c) => c.outcome === 'fail').length;
  if (r.exitCode === 2) return `NOT JUDGED: ${r.error ?? 'the scan did not complete'}`;
  const compared = comparisonVerdict(r.comparison);
  if (failed || compared?.failed) {
    return `FAILED: ${[failed ? `${failed} of ${plural(r.checks.length, 'budget')}` : '', compared?.failed ? compared.text : ''].filter(Boolean).join('; ')}`;
  }
  const passed = [r.checks.length ? plural(r.checks.length, 'budget') : '', compared?.text ?? ''].filter(Boolean).join('; ');
  return `PASSED${passed ? `: ${passed}` : ''}`;
}

/** The comparison's lines of the text summary: against what, the counts, the notes, each worse page, worse templates. */
function comparisonLines(r: ScanResult): string[] {
  const c = r.comparison;
  if (!c) return [];
  if (!c.attributes) return ['', `Not compared (--compare-to ${c.to}): ${c.skipped ?? 'no comparison'}`];
  const a = c.attributes;
  const lines = ['', `Compared with ${againstText(c)}: ${countsText(a)}`, ...a.notes.map((n) => `  note: ${n}`)];
  const worse = worsePages(c);
  if (worse.length) lines.push('Pages significantly worse:', ...worse.map((p) => `  ${p.url}: ${worseText(p)}`));
  const templates = a.templates.filter((t) => t.verdict === 'worse');
  if (templates.length) {
    lines.push('Templates worse as a whole:', ...templates.map((t) =>
      `  ${t.template} (${plural(t.pages, 'page')}): ${t.reasons.filter((x) => x.direction === 'worse').map(reasonText).join('; ')}`));
  }
  return lines;
}

/** The terminal's summary: the scan, the site's figures, the worst of it, what was skipped, each budget, the verdict. */
export function scanText(r: ScanResult): string {
  const s = r.scan;
  const lines = [`Scan ${r.id} of ${s.site ?? s.url}${r.device ? ` as ${r.device}` : ''}: ${s.state}${duration(s)}`, `  ${pagesText(r)}`];
  const skipped = skippedText(s);
  if (skipped) lines.push(`  ${skipped}`);
  for (const e of s.discovery_errors ?? []) lines.push(`  discovery error: ${e}`);
  const f = s.figures;
  if (f) {
    lines.push('', `Site figures of ${plural(f.pages_measured, 'measured page')}:`, ...columns([FIGURE_HEADER, ...figureRows(f)]));
    const grades = gradesText(f);
    if (grades) lines.push('', `Grades: ${grades}`);
    const worst = worstPages(f);
    if (worst.length) {
      lines.push('', 'Worst pages:', ...columns(worst.map((p) => [p.grade ?? dash, score(p.performance_score),
        `${figHead('largest_contentful_paint')} ${time(p.largest_contentful_paint)}`, `${figHead('total_blocking_time')} ${time(p.total_blocking_time)}`,
        `${figHead('cumulative_layout_shift')} ${cls(p.cumulative_layout_shift)}`,
        p.url, reportLink(r, p.report) ?? '']), [0, 5, 6]));
    }
    const templates = (f.worst_templates ?? []).slice(0, WORST_TEMPLATES);
    if (templates.length) {
      lines.push('', 'Worst templates:', ...columns(templates.map((t) => [t.template, plural(t.pages, 'page'),
        `performance ${score(t.performance_score)}`, `${figHead('largest_contentful_paint')} ${time(t.largest_contentful_paint)}`])));
    }
    const structure = structureLines(f);
    if (structure.length) lines.push('', 'Top failing structure audits:', ...structure.map((l) => `  ${l}`));
  }
  const failed = failedPages(r);
  if (failed.length) {
    lines.push('', `Failed pages${failed.length > FAILED_PAGES ? ` (the first ${FAILED_PAGES} of ${failed.length})` : ''}:`,
      ...failed.slice(0, FAILED_PAGES).map((p) => `  ${p.url}: ${p.error ?? 'no reason given'}`));
  }
  if (r.checks.length) lines.push('', ...r.checks.map((c) => `  ${OUTCOME_WORD[c.outcome].padEnd(7)} ${c.message}`));
  lines.push(...comparisonLines(r));
  lines.push('', verdict(r));
  return `${lines.join('\n')}\n`;
}

/** A page's figures in one line, and its report's page. */
function pageFigures(r: ScanResult, p: ScanPage): string {
  const parts = [
    p.grade ? `grade ${p.grade}` : '', isNumber(p.performance_score) ? `performance ${score(p.performance_score)}` : '',
    isNumber(p.structure_score) ? `structure ${score(p.structure_score)}` : '',
    ...VITAL_NAMES.map((name) => {
      const x = p[name];
      return isNumber(x) ? `${figHead(name)} ${formatFigure(figure(name).unit, x)} (${RATING_WORDS[rate(name, x)]})` : '';
    }),
    isNumber(p.fully_loaded_time) ? `fully loaded ${time(p.fully_loaded_time)}` : '',
    isNumber(p.page_bytes) ? formatFigure('size', p.page_bytes) : '', isNumber(p.page_requests) ? plural(p.page_requests, 'request') : '',
  ].filter(Boolean);
  const link = reportLink(r, p.report);
  return `${parts.join(', ')}${link ? `\nreport: ${link}` : ''}`;
}

interface Case { classname: string; name: string; failure?: string; skipped?: string; error?: string; out?: string }

function pageCase(r: ScanResult, p: ScanPage): Case {
  const base = { classname: p.template || 'page', name: p.url };
  const worse = worsePages(r.comparison).find((w) => w.url === p.url);
  const blame = [...pageBlame(p, r.checks), ...(worse ? [`worse than ${againstName(r.comparison!)}: ${worseText(worse)}`] : [])];
  if (blame.length) return { ...base, failure: blame.join('; '), out: p.state === 'completed' ? pageFigures(r, p) : undefined };
  if (p.state === 'failed') return { ...base, skipped: `not measured: the page failed: ${p.error ?? 'no reason given'}` };
  if (p.state !== 'completed') return { ...base, skipped: `not measured: ${p.state}${r.scan.state === 'cancelled' ? ' when the scan was cancelled' : ''}` };
  return { ...base, out: pageFigures(r, p) };
}

/**
 * A scan's JUnit suites: its pages (one case each) and its site budgets (and the scan's own end, when it did not
 * complete). Of a device's scan (--device), the suites and the pages' classnames name the device.
 */
function junitSuites(r: ScanResult): { cases: Case[]; xml: string } {
  const pages = r.pages.map((p) => pageCase(r, p)).map((c) => (r.device ? { ...c, classname: `${r.device} ${c.classname}` } : c));
  const site: Case[] = r.checks.map((c) => ({ classname: 'webgauge.budget', name: c.attribute,
    ...(c.outcome === 'fail' ? { failure: c.message } : c.outcome === 'skipped' ? { skipped: c.message } : { out: c.message }) }));
  const c = r.comparison;
  if (c) {
    const name = `compared with ${c.against ? `scan ${c.against}` : `--compare-to ${c.to}`}`;
    const compared = comparisonVerdict(c);
    site.push(!c.attributes ? { classname: 'webgauge.compare', name, skipped: c.skipped ?? 'not compared' }
      : compared?.failed ? { classname: 'webgauge.compare', name, failure: `${compared.text}: ${countsText(c.attributes)}` }
        : { classname: 'webgauge.compare', name, out: countsText(c.attributes) });
  }
  if (r.exitCode === 2) site.push({ classname: 'webgauge.scan', name: 'the scan completed', error: r.error ?? 'the scan did not complete' });
  else if (site.length === 0) site.push({ classname: 'webgauge.scan', name: 'the scan completed', out: pagesText(r) });
  const siteCases = r.device ? site.map((x) => ({ ...x, classname: `${x.classname}.${r.device}` })) : site;
  const suite = (name: string, cases: Case[]) => {
    const count = (k: 'failure' | 'skipped' | 'error') => cases.filter((c) => c[k] !== undefined).length;
    const body = cases.map((c) => {
      const inner = [
        c.failure !== undefined ? `<failure message="${xml(c.failure)}" type="budget">${xml(c.failure)}</failure>` : '',
        c.error !== undefined ? `<error message="${xml(c.error)}" type="scan">${xml(c.error)}</error>` : '',
        c.skipped !== undefined ? `<skipped message="${xml(c.skipped)}"/>` : '',
        c.out !== undefined ? `<system-out>${xml(c.out)}</system-out>` : '',
      ].filter(Boolean).map((x) => `\n      ${x}`).join('');
      return `    <testcase classname="${xml(c.classname)}" name="${xml(c.name)}">${inner}\n    </testcase>`;
    });
    return `  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}" ` +
      `skipped="${count('skipped')}">\n${body.join('\n')}${body.length ? '\n' : ''}  </testsuite>`;
  };
  const name = `${r.scan.site ?? r.scan.url}${r.device ? ` as ${r.device}` : ''}`;
  return { cases: [...pages, ...siteCases], xml: `${suite(`webgauge scan ${name} pages`, pages)}\n${suite(`webgauge scan ${name} site`, siteCases)}` };
}

/** JUnit XML of the gate's scans (one, or one per device): each scan's suites of its pages and of its site budgets. */
export function scansJunit(results: readonly ScanResult[]): string {
  const suites = results.map(junitSuites);
  const all = suites.flatMap((x) => x.cases);
  const n = (k: 'failure' | 'skipped' | 'error') => all.filter((c) => c[k] !== undefined).length;
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="webgauge scan" tests="${all.length}" failures="${n('failure')}" errors="${n('error')}" skipped="${n('skipped')}">\n` +
    `${suites.map((x) => x.xml).join('\n')}\n</testsuites>\n`;
}

/** JUnit XML of one scan. */
export const scanJunit = (r: ScanResult): string => scansJunit([r]);

/** A Markdown summary for a CI job's summary page: the verdict, the budgets, the site's figures, the worst pages. */
export function scanMarkdown(r: ScanResult): string {
  const s = r.scan;
  const failed = r.checks.filter((c) => c.outcome === 'fail').length;
  const compared = comparisonVerdict(r.comparison);
  const failures = [failed ? `${failed} of ${plural(r.checks.length, 'budget')} failed` : '', compared?.failed ? compared.text : ''].filter(Boolean);
  const head = r.exitCode === 2 ? `⚠️ not judged: ${md(r.error ?? 'the scan did not complete')}`
    : failures.length ? `❌ ${md(failures.join('; '))}` : '✅ passed';
  const lines = [`### Webgauge scan${r.device ? ` as ${md(r.device)}` : ''}: ${head}`, '', `${md(s.site ?? s.url)}: ${s.state}${duration(s)}; ${md(pagesText(r))}`, ''];
  const skipped = skippedText(s);
  if (skipped) lines.push(md(skipped), '');
  if (r.checks.length) {
    lines.push('| Budget | Result | Detail |', '| --- | --- | --- |',
      ...r.checks.map((c) => `| ${md(c.attribute)} | ${OUTCOME_WORD[c.outcome]} | ${md(c.message)} |`), '');
  }
  const f = s.figures;
  if (f) {
    const row = (cells: string[]) => `| ${cells.map(md).join(' | ')} |`;
    lines.push(`#### ${plural(f.pages_measured, 'measured page')}`, '', row(['Figure', ...FIGURE_HEADER.slice(1)]),
      `|${' --- |'.repeat(FIGURE_HEADER.length)}`, ...figureRows(f).map(row), '');
    const grades = gradesText(f);
    if (grades) lines.push(`Grades: ${grades}`, '');
    const worst = worstPages(f);
    if (worst.length) {
      const heads = (['performance_score', 'largest_contentful_paint', 'total_blocking_time', 'cumulative_layout_shift'] as const).map(figHead);
      lines.push('#### Worst pages', '', `| Page | Grade | ${heads.join(' | ')} |`, '| --- | --- | --- | --- | --- | --- |');
      for (const p of worst) {
        const link = reportLink(r, p.report);
        lines.push(`| ${link ? `[${md(p.url)}](${link})` : md(p.url)} | ${md(p.grade ?? dash)} | ${score(p.performance_score)} | ` +
          `${time(p.largest_contentful_paint)} | ${time(p.total_blocking_time)} | ${cls(p.cumulative_layout_shift)} |`);
      }
      lines.push('');
    }
    const templates = (f.worst_templates ?? []).slice(0, WORST_TEMPLATES);
    if (templates.length) {
      lines.push('#### Worst templates', '', `| Template | Pages | ${figHead('performance_score')} | ${figHead('largest_contentful_paint')} |`, '| --- | --- | --- | --- |',
        ...templates.map((t) => `| ${md(t.template)} | ${t.pages} | ${score(t.performance_score)} | ${time(t.largest_contentful_paint)} |`), '');
    }
    const structure = structureLines(f);
    if (structure.length) lines.push('#### Top failing structure audits', '', ...structure.map((l) => `- ${md(l)}`), '');
  }
  const failedList = failedPages(r);
  if (failedList.length) {
    lines.push(`#### ${plural(failedList.length, 'failed page')}`, '',
      ...failedList.slice(0, FAILED_PAGES).map((p) => `- ${md(p.url)}: ${md(p.error ?? 'no reason given')}`), '');
  }
  lines.push(...comparisonMarkdown(r));
  return `${lines.join('\n')}\n`;
}

/** The comparison's part of the Markdown summary: the counts, the notes, a table of the pages that got worse. */
function comparisonMarkdown(r: ScanResult): string[] {
  const c = r.comparison;
  if (!c) return [];
  if (!c.attributes) return [`#### Not compared`, '', md(`--compare-to ${c.to}: ${c.skipped ?? 'no comparison'}`), ''];
  const lines = [`#### Compared with ${md(againstText(c))}`, '', md(countsText(c.attributes)), '', ...c.attributes.notes.map((n) => `> ${md(n)}`)];
  if (c.attributes.notes.length) lines.push('');
  const worse = worsePages(c);
  if (worse.length) {
    lines.push('| Page | What got worse | Basis |', '| --- | --- | --- |');
    for (const p of worse) {
      const reasons = p.reasons.filter((x) => x.direction === 'worse');
      const link = reportLink(r, p.after.report);
      lines.push(`| ${link ? `[${md(p.url)}](${link})` : md(p.url)} | ${reasons.map((x) => md(x.text)).join('; ')} | ` +
        `${reasons.map((x) => md(`${x.basis === 'test' ? 'test' : 'threshold'}: ${x.why}`)).join('; ')} |`);
    }
    lines.push('');
  }
  return lines;
}

/** A scan's part of the JSON document: the verdict, the scan (its attributes and links), its pages, the budgets. */
function scanDocument(r: ScanResult) {
  return {
    passed: r.exitCode === 0, exitCode: r.exitCode, ...(r.error ? { error: r.error } : {}),
    scan: { id: r.id, ...r.scan, links: r.links }, pages: r.pages, checks: r.checks,
    ...(r.comparison ? { comparison: { to: r.comparison.to, against: r.comparison.against ?? null,
      ...(r.comparison.skipped ? { skipped: r.comparison.skipped } : {}), ...(r.comparison.attributes ?? {}),
      ...(r.comparison.links ? { links: r.comparison.links } : {}) } } : {}),
  };
}

/** The worst exit code of the scans: one not judged (2) over a failed budget (1) over passed. */
const worstExit = (results: readonly ScanResult[]): 0 | 1 | 2 => Math.max(0, ...results.map((r) => r.exitCode)) as 0 | 1 | 2;

/** The one JSON document of `--json`: a scan's document; of devices (--device), the verdict and each device's document. */
export function scansJson(results: readonly ScanResult[]): string {
  const keyed = results.some((r) => r.device !== undefined);
  const exitCode = worstExit(results);
  const doc = keyed
    ? { passed: exitCode === 0, exitCode, devices: Object.fromEntries(results.map((r) => [r.device ?? r.id, scanDocument(r)])) }
    : scanDocument(results[0]!);
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export const scanJson = (r: ScanResult): string => scansJson([r]);

/** The terminal's summary of the gate's scans: each device's, then the verdict over all of them. */
export function scansText(results: readonly ScanResult[]): string {
  const each = results.map(scanText);
  if (results.length < 2) return each.join('');
  const exitCode = worstExit(results);
  const word = exitCode === 0 ? 'PASSED' : exitCode === 1 ? 'FAILED' : 'NOT JUDGED';
  return `${each.join('\n')}\n${word} over ${plural(results.length, 'device')}: ` +
    `${results.map((r) => `${r.device ?? r.id} ${r.exitCode === 0 ? 'passed' : r.exitCode === 1 ? 'failed' : 'not judged'}`).join(', ')}\n`;
}

/** The Markdown summary of the gate's scans: each device's in turn. */
export function scansMarkdown(results: readonly ScanResult[]): string {
  return results.map(scanMarkdown).join('\n');
}
