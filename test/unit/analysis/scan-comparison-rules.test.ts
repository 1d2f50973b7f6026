/**
 * Two scans compared (analysis/scan-comparison-rules.ts): pages matched by URL, the thresholds of one run, the Mann-Whitney test
 * of several, grades across Lighthouse versions, new, gone and failed pages, templates as a whole, the notes, the
 * site figures side by side.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareScans, smallestP } from '../../../src/analysis/scan-comparison-rules.js';
import type { ComparePageInput, CompareScanInput } from '../../../src/analysis/scan-comparison-types.js';
import { siteFigures } from '../../../src/analysis/site-figures.js';

const SITE = 'https://shop.example';
const ALPHA = 0.05;

type PageSeed = Partial<ComparePageInput> & { path: string };
let position = 0;
function page(p: PageSeed): ComparePageInput {
  return {
    url: `${SITE}${p.path}`, template: p.template ?? p.path, position: position++, state: 'completed', error: null, report_id: `r${position}`,
    grade: 'B', performance_score: 85, largest_contentful_paint: 1800, total_blocking_time: 100, cumulative_layout_shift: 0.02,
    fully_loaded_time: 2500, lighthouse_version: '13.5.0', run_values: null, ...p,
  };
}

function scan(id: string, pages: ComparePageInput[], o: Partial<CompareScanInput> = {}): CompareScanInput {
  const measured = pages.filter((p) => p.state === 'completed').map((p) => ({ ...p }));
  return {
    id, created: id === 'A' ? 1_000 : 2_000, url: `${SITE}/`, site: SITE, state: 'completed',
    conditions: { location: '1', browser: '3', throttle: null, simulate_device: null, viewport: null, user_agent: null, report: 'lighthouse', runs: 1 },
    figures: siteFigures(measured, new Map(), new Map()), pages, ...o,
  };
}

const byPath = (c: ReturnType<typeof compareScans>, path: string) => c.pages.find((p) => p.url === `${SITE}${path}`)!;

describe('one run a page: thresholds, not a test', () => {
  const before = [page({ path: '/' }), page({ path: '/slow' }), page({ path: '/a-bit', largest_contentful_paint: 2000 }),
    page({ path: '/faster', total_blocking_time: 700 }), page({ path: '/grade', grade: 'B' }), page({ path: '/shift', cumulative_layout_shift: 0.1 }),
    page({ path: '/mixed', performance_score: 90 }), page({ path: '/worst' })];
  const after = [page({ path: '/' }), page({ path: '/slow', largest_contentful_paint: 2900 }), page({ path: '/a-bit', largest_contentful_paint: 2499 }),
    page({ path: '/faster', total_blocking_time: 100 }), page({ path: '/grade', grade: 'D' }), page({ path: '/shift', cumulative_layout_shift: 0.2 }),
    page({ path: '/mixed', performance_score: 70, fully_loaded_time: 800 }), page({ path: '/worst', largest_contentful_paint: 4000, total_blocking_time: 900 })];
  const c = compareScans(scan('A', before), scan('B', after), ALPHA);

  test('a change at or beyond its threshold is worse, said to be a threshold with the change', () => {
    const slow = byPath(c, '/slow');
    assert.equal(slow.verdict, 'worse');
    assert.equal(slow.basis, 'threshold');
    assert.equal(slow.changes.largest_contentful_paint, 1100);
    assert.deepEqual(slow.reasons.map((r) => [r.metric, r.direction, r.basis, r.text, r.why]),
      [['largest_contentful_paint', 'worse', 'threshold', 'LCP 1.80 s → 2.90 s', '+1.10 s, threshold 500 ms']]);
    assert.equal(slow.before.report, before[1]!.report_id);
    assert.equal(slow.after.report, after[1]!.report_id);
    // CLS 0.1 → 0.2 is exactly the threshold (no floating-point shortfall).
    assert.deepEqual(byPath(c, '/shift').reasons.map((r) => `${r.text} (${r.why})`), ['CLS 0.1 → 0.2 (+0.1, threshold 0.1)']);
  });

  test('a change under its threshold is unchanged; one beyond it the right way is better', () => {
    assert.equal(byPath(c, '/a-bit').verdict, 'unchanged');
    assert.equal(byPath(c, '/a-bit').changes.largest_contentful_paint, 499);
    assert.equal(byPath(c, '/').verdict, 'unchanged');
    const faster = byPath(c, '/faster');
    assert.equal(faster.verdict, 'better');
    assert.deepEqual(faster.reasons.map((r) => `${r.text} (${r.why})`), ['TBT 700 ms → 100 ms (−600 ms, threshold 200 ms)']);
  });

  test('the grade counts from two letters; worse outweighs better, worse reasons first', () => {
    const g = byPath(c, '/grade');
    assert.equal(g.verdict, 'worse');
    assert.deepEqual(g.reasons.map((r) => `${r.text} (${r.why})`), ['grade B → D (2 letters down, threshold 2 letters)']);
    assert.equal(g.changes.grade, 2);
    const mixed = byPath(c, '/mixed');
    assert.equal(mixed.verdict, 'worse');
    assert.deepEqual(mixed.reasons.map((r) => `${r.direction} ${r.text}`), ['worse performance 90% → 70%', 'better fully loaded 2.50 s → 800 ms']);
    const oneLetter = compareScans(scan('A', [page({ path: '/', grade: 'B' })]), scan('B', [page({ path: '/', grade: 'C' })]), ALPHA);
    assert.equal(oneLetter.pages[0]!.verdict, 'unchanged');
  });

  test('the pages come worse first (the most reasons first), then better, then unchanged; the counts add up', () => {
    assert.deepEqual(c.pages.map((p) => `${p.verdict} ${p.url.slice(SITE.length)}`),
      ['worse /worst', 'worse /slow', 'worse /grade', 'worse /shift', 'worse /mixed', 'better /faster', 'unchanged /', 'unchanged /a-bit']);
    assert.deepEqual(c.counts, { matched: 8, worse: 5, better: 1, unchanged: 2, new: 0, gone: 0, failed: 0 });
    assert.deepEqual(c.notes, []);
    assert.equal(c.grades_compared, true);
  });
});

describe('several runs a page: the Mann-Whitney test of the alerts', () => {
  const runs = (lcp: number[], extra: Record<string, number[]> = {}) => ({ largest_contentful_paint: lcp, ...extra });

  test('runs that moved beyond chance and by half the threshold are worse, said to be a test with its p', () => {
    const c = compareScans(
      scan('A', [page({ path: '/', largest_contentful_paint: 1800, run_values: runs([1750, 1800, 1820, 1790, 1810]) })]),
      scan('B', [page({ path: '/', largest_contentful_paint: 2100, run_values: runs([2050, 2100, 2150, 2080, 2120]) })]), ALPHA);
    const p = c.pages[0]!;
    assert.equal(p.verdict, 'worse', 'a 300 ms shift is under the 500 ms threshold, but a test shows it and it is over half of it');
    assert.equal(p.basis, 'test');
    assert.equal(p.before.runs, 5);
    const r = p.reasons[0]!;
    assert.equal(r.basis, 'test');
    assert.deepEqual(r.n, [5, 5]);
    assert.ok(r.p! < 0.01, `p ${r.p}`);
    assert.equal(r.text, 'LCP 1.80 s → 2.10 s');
    assert.equal(r.why, 'Mann-Whitney p = 0.004 over 5 and 5 runs; medians +300 ms, at least 250 ms');
  });

  test('a shift within the runs\' noise is unchanged, however large its medians\' change; a tiny significant one too', () => {
    const noisy = compareScans(
      scan('A', [page({ path: '/', largest_contentful_paint: 1800, run_values: runs([1200, 1800, 2600, 1500, 3000]) })]),
      scan('B', [page({ path: '/', largest_contentful_paint: 2400, run_values: runs([1400, 2400, 3100, 1700, 2500]) })]), ALPHA);
    assert.equal(noisy.pages[0]!.verdict, 'unchanged', 'a 600 ms change of the reports that the runs do not bear out');
    assert.equal(noisy.pages[0]!.basis, 'test');
    const tiny = compareScans(
      scan('A', [page({ path: '/', run_values: runs([1800, 1801, 1802, 1803, 1804]) })]),
      scan('B', [page({ path: '/', run_values: runs([1900, 1901, 1902, 1903, 1904]) })]), ALPHA);
    assert.equal(tiny.pages[0]!.verdict, 'unchanged', 'significant, but 100 ms is under half the threshold');
  });

  test('too few runs for the test to reach alpha: the thresholds decide, and a note says why', () => {
    assert.equal(smallestP(3, 3), 0.05);
    assert.ok(smallestP(3, 4) < ALPHA);
    const c = compareScans(
      scan('A', [page({ path: '/', largest_contentful_paint: 1800, run_values: runs([1790, 1800, 1810]) })]),
      scan('B', [page({ path: '/', largest_contentful_paint: 2400, run_values: runs([2390, 2400, 2410]) })]), ALPHA);
    assert.equal(c.pages[0]!.verdict, 'worse');
    assert.equal(c.pages[0]!.basis, 'threshold');
    assert.equal(c.pages[0]!.reasons[0]!.why, '+600 ms, threshold 500 ms; 3 and 3 runs are too few for a test');
    assert.match(c.notes.join('\n'), /too few times for the Mann-Whitney test to reach p < 0\.05 \(with 3 and 3 runs its smallest p is 0\.05\)/);
  });

  test('runs on one side only: the thresholds on the reports\' figures', () => {
    const c = compareScans(scan('A', [page({ path: '/', largest_contentful_paint: 1800 })]),
      scan('B', [page({ path: '/', largest_contentful_paint: 2400, run_values: runs([2300, 2400, 2500, 2450]) })], {
        conditions: { ...scan('B', []).conditions, runs: 4 } }), ALPHA);
    assert.equal(c.pages[0]!.basis, 'threshold');
    assert.match(c.pages[0]!.reasons[0]!.why, /no test: one side has a single run/);
    assert.match(c.notes[0]!, /runs 1 → 4/);
  });
});

describe('what does not match, templates, notes and site figures', () => {
  test('new, gone and failed pages are listed apart from the matched ones', () => {
    const c = compareScans(
      scan('A', [page({ path: '/' }), page({ path: '/gone' }), page({ path: '/broke' }), page({ path: '/fixed', state: 'failed', error: 'HTTP 500', report_id: null })]),
      scan('B', [page({ path: '/' }), page({ path: '/new', template: '/n/:id' }), page({ path: '/broke', state: 'failed', error: 'The page crashed.', report_id: null }),
        page({ path: '/fixed' })]), ALPHA);
    assert.deepEqual(c.pages.map((p) => p.url), [`${SITE}/`]);
    assert.deepEqual(c.new_pages.map((p) => [p.url, p.template, p.state]), [[`${SITE}/new`, '/n/:id', 'completed']]);
    assert.deepEqual(c.gone_pages.map((p) => p.url), [`${SITE}/gone`]);
    assert.deepEqual(c.failed_pages.map((p) => [p.url, p.before.state, p.after.state, p.after.error ?? p.before.error]),
      [[`${SITE}/broke`, 'completed', 'failed', 'The page crashed.'], [`${SITE}/fixed`, 'failed', 'completed', 'HTTP 500']]);
    assert.deepEqual(c.counts, { matched: 1, worse: 0, better: 0, unchanged: 1, new: 1, gone: 1, failed: 2 });
  });

  test('a template is worse as a whole by the test of its pages\' values (enough pages), else by its median\'s change', () => {
    const before: ComparePageInput[] = [];
    const after: ComparePageInput[] = [];
    for (let i = 0; i < 4; i++) {
      before.push(page({ path: `/p/${i}`, template: '/p/:id', largest_contentful_paint: 2000 + i * 50 }));
      after.push(page({ path: `/p/${i}`, template: '/p/:id', largest_contentful_paint: 2300 + i * 50 }));
    }
    for (let i = 0; i < 2; i++) {
      before.push(page({ path: `/blog/${i}`, template: '/blog/:slug', total_blocking_time: 100 }));
      after.push(page({ path: `/blog/${i}`, template: '/blog/:slug', total_blocking_time: 400 }));
    }
    const c = compareScans(scan('A', before), scan('B', after), ALPHA);
    assert.equal(c.counts.worse, 2, 'the blog pages each passed the TBT threshold; no /p/ page passed LCP\'s');
    const [blog, p] = c.templates;
    assert.deepEqual([blog!.template, blog!.verdict, blog!.pages], ['/blog/:slug', 'worse', 2]);
    assert.deepEqual(blog!.reasons.map((r) => `${r.basis}: ${r.text} (${r.why})`),
      ['threshold: TBT median 100 ms → 400 ms (+300 ms, threshold 200 ms; 2 and 2 pages are too few for a test)']);
    assert.deepEqual([p!.template, p!.verdict, p!.pages], ['/p/:id', 'worse', 4]);
    const r = p!.reasons[0]!;
    assert.equal(r.basis, 'test');
    assert.deepEqual(r.n, [4, 4]);
    assert.match(r.why, /^Mann-Whitney p = 0\.014 over 4 and 4 pages; medians \+300 ms, at least 250 ms$/);
    assert.equal(r.text, 'LCP median 2.08 s → 2.38 s');
  });

  test('notes at the top: options that differ, another site, the order, a cancelled scan', () => {
    const a = scan('A', [page({ path: '/' })], { conditions: { ...scan('A', []).conditions, throttle: '5000/1000/30' } });
    const b = scan('B', [page({ path: '/' })], { created: 500, state: 'cancelled', site: 'https://other.example' });
    const notes = compareScans(a, b, ALPHA).notes;
    assert.equal(notes[0], 'The scans were tested under different options: throttle 5000/1000/30 → not set. A change may come from the options rather than from the site.');
    assert.match(notes[1]!, /different sites \(https:\/\/shop\.example and https:\/\/other\.example\)/);
    assert.match(notes[2]!, /The before scan is the newer one/);
    assert.match(notes[3]!, /The after scan was cancelled/);
  });

  test('across Lighthouse 12 and 13 the grade is left out of the verdicts, and a note says so; 13.4 and 13.5 compare', () => {
    const c = compareScans(scan('A', [page({ path: '/', grade: 'A', lighthouse_version: '12.8.2' })]),
      scan('B', [page({ path: '/', grade: 'D', lighthouse_version: '13.5.0' })]), ALPHA);
    assert.equal(c.pages[0]!.verdict, 'unchanged');
    assert.equal(c.pages[0]!.changes.grade, null);
    assert.equal(c.grades_compared, false);
    assert.match(c.notes[0]!, /^Lighthouse 12\.8\.2 made the before scan's reports and 13\.5\.0 the after scan's: the structure audits changed .* grades are left out of the verdicts of every matched page\.$/);
    const minor = compareScans(scan('A', [page({ path: '/', grade: 'A', lighthouse_version: '13.4.0' })]),
      scan('B', [page({ path: '/', grade: 'D', lighthouse_version: '13.5.0' })]), ALPHA);
    assert.equal(minor.pages[0]!.verdict, 'worse');
    assert.match(minor.notes[0]!, /read the same structure audits, so every figure compares/);
  });

  test('the site figures side by side, with their changes', () => {
    const c = compareScans(scan('A', [page({ path: '/', largest_contentful_paint: 2000 }), page({ path: '/b', largest_contentful_paint: 4200 })]),
      scan('B', [page({ path: '/', largest_contentful_paint: 2600 }), page({ path: '/b', largest_contentful_paint: 4500 })]), ALPHA);
    const rows = Object.fromEntries(c.site_figures.map((r) => [r.figure, [r.before, r.after, r.change]]));
    assert.deepEqual(rows.lcp_median, [3100, 3550, 450]);
    assert.deepEqual(rows.poor_lcp_pages, [1, 1, 0]);
    assert.deepEqual(rows.pages_measured, [2, 2, 0]);
    assert.equal(c.figures.before!.largest_contentful_paint.p75, 4200);
  });

  test('200 pages of 9 runs each, every one shifted by 400 ms: every page and template is worse by the test', () => {
    const runsOf = (base: number) => Array.from({ length: 9 }, (_, i) => base + i * 10);
    const mk = (shift: number) => Array.from({ length: 200 }, (_, i) => page({ path: `/p/${i}`, template: `/t${i % 10}/:id`, largest_contentful_paint: 2000 + shift,
      run_values: { largest_contentful_paint: runsOf(2000 + shift), total_blocking_time: runsOf(100), performance_score: runsOf(80),
        cumulative_layout_shift: runsOf(0), fully_loaded_time: runsOf(3000 + shift) } }));
    const a = scan('A', mk(0));
    const b = scan('B', mk(400));
    // How long it takes is the scan bench's to say (speed is measured in benchmarks, never in a unit test).
    const c = compareScans(a, b, ALPHA);
    assert.equal(c.counts.worse, 200);
    assert.ok(c.pages.every((p) => p.basis === 'test' || p.reasons.some((r) => r.basis === 'test')));
  });
});
