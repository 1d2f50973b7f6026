/**
 * A scan's alert conditions judged (core/scans/alert-verdicts.ts): each kind (a figure of the site figures' table,
 * blaming its pages, "and N more"; a page's grade fallen, pages and templates significantly worse from the comparison
 * of two scans; not evaluated without a previous scan or a value; grades left out across Lighthouse versions); a
 * verdict's change against the condition's last verdict on an earlier scan; and any JSON the parser
 * (alert-conditions.ts) takes judged without an error. The conditions parsed are alert-conditions.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { compareScans } from '../../../../src/analysis/scan-comparison-rules.js';
import type { ComparePageInput, CompareScanInput } from '../../../../src/analysis/scan-comparison-types.js';
import { siteFigures } from '../../../../src/analysis/site-figures.js';
import { ApiError } from '../../../../src/core/errors.js';
import {
  ALERT_KINDS, FIGURE_OPERATORS, parseAlertConditions, type AlertCondition,
} from '../../../../src/core/scans/alert-conditions.js';
import { SITE_BUDGET_NAMES } from '../../../../src/analysis/named-site-figures.js';
import { judgeConditions, NAMED_MAX, withChanges, type AlertPage, type AlertVerdict, type ScanForAlerts } from '../../../../src/core/scans/alert-verdicts.js';

const SITE = 'https://shop.example';

/* A scan of twelve pages: the first eleven with LCP 3000 + 100 × i ms, one failed. */
const pages: AlertPage[] = Array.from({ length: 11 }, (_, i) => ({
  url: `${SITE}/p/${i}`, template: '/p/:id', report_id: `r${i}`, state: 'completed', error: null,
  largest_contentful_paint: 3000 + 100 * i, cumulative_layout_shift: i === 0 ? 0.3 : 0.01, total_blocking_time: 100, fully_loaded_time: 4000,
  performance_score: 60,
}));
pages.push({ url: `${SITE}/gone`, template: '/gone', report_id: null, state: 'failed', error: 'net::ERR_CONNECTION_RESET' });
const measured = pages.filter((p) => p.state === 'completed').map((p) => ({ ...p, grade: 'C' })) as Parameters<typeof siteFigures>[0];
const SCAN: ScanForAlerts = { site: SITE, figures: siteFigures(measured, new Map(), new Map()), pages: { failed: 1 }, pages_list: pages };
const conditions = (list: unknown[]): AlertCondition[] => parseAlertConditions(list);
const NONE = { none: 'there is no earlier completed scan of https://shop.example (source list) to compare with.' };
/** When the previous scan (A) ran: texts name it by this date, never by its ID. */
const AT_A = Date.UTC(2026, 11, 4, 14, 2, 30);
const SINCE_A = 'since the scan of 4 Dec 2026, 14:02 UTC';

describe('figure conditions judged', () => {
  test('a figure over its threshold holds and names the pages over it, ten at most and "and N more"', () => {
    const [v] = judgeConditions(conditions([{ figure: 'lcp_p75', operator: 'gt', value: 2500 }]), SCAN, NONE);
    assert.equal(v!.holds, true);
    assert.equal(v!.measured, 3800);
    assert.equal(v!.pages.length, NAMED_MAX);
    assert.equal(v!.more_pages, 1);
    assert.deepEqual(v!.pages[0], { url: `${SITE}/p/0`, template: '/p/:id', report: 'r0', why: 'LCP 3.00 s is over the 2.50 s limit on LCP p75' });
    // People read the figure by its label and values as every output prints them, never the condition's name (lcp_p75).
    assert.match(v!.message, /^LCP, 75th percentile > 2\.50 s holds: LCP, 75th percentile is 3\.80 s\. Pages: \/p\/0: LCP 3\.00 s is over the 2\.50 s limit on LCP p75; .*\/p\/9: LCP 3\.90 s .*; and 1 more\.$/);
    assert.doesNotMatch(v!.message, /lcp_p75/);
    assert.equal(v!.change, null);
  });

  test('counts of pages blame the pages counted; a failed page is named with its error', () => {
    const [cls, failed] = judgeConditions(conditions([{ figure: 'poor_cls_pages', operator: 'gt', value: 0 },
      { figure: 'failed_pages', operator: 'gte', value: 1 }]), SCAN, NONE);
    assert.equal(cls!.holds, true);
    assert.deepEqual(cls!.pages.map((p) => p.why), ['poor CLS: 0.3 is over 0.25']);
    assert.equal(failed!.holds, true);
    assert.equal(failed!.measured, 1);
    assert.deepEqual(failed!.pages, [{ url: `${SITE}/gone`, template: '/gone', report: null, why: 'the page failed: net::ERR_CONNECTION_RESET' }]);
  });

  test('a condition that does not hold names no page; a figure the scan has not is not evaluated, saying so', () => {
    const [lcp, perf, tbt] = judgeConditions(conditions([{ figure: 'lcp_median', operator: 'gt', value: 5000 },
      { figure: 'performance_median', operator: 'gte', value: 50 }, { figure: 'tbt_p75', operator: 'gt', value: 0 }]),
    { ...SCAN, figures: { ...SCAN.figures, total_blocking_time: { good: 0, needs_improvement: 0, poor: 0, median: null, p75: null } } }, NONE);
    assert.deepEqual([lcp!.holds, lcp!.pages, lcp!.message], [false, [], 'LCP, median > 5.00 s does not hold: LCP, median is 3.50 s.']);
    // Holds, but on the figure's good side: nothing to blame.
    assert.deepEqual([perf!.holds, perf!.pages], [true, []]);
    assert.deepEqual([tbt!.holds, tbt!.measured], [null, null]);
    assert.equal(tbt!.message, 'TBT, 75th percentile > 0 ms was not evaluated: the scan has no TBT p75 (no page measured it).');
  });
});

describe('comparison conditions judged', () => {
  type Seed = Partial<ComparePageInput> & { path: string };
  let position = 0;
  const page = (p: Seed): ComparePageInput => ({
    url: `${SITE}${p.path}`, template: p.template ?? '/p/:id', position: position++, state: 'completed', error: null, report_id: `r${position}`,
    grade: 'B', performance_score: 85, largest_contentful_paint: 1800, total_blocking_time: 100, cumulative_layout_shift: 0.02,
    fully_loaded_time: 2500, lighthouse_version: '13.5.0', run_values: null, ...p,
  });
  const side = (id: string, ps: ComparePageInput[]): CompareScanInput => ({
    id, created: id === 'A' ? 1 : 2, url: `${SITE}/`, site: SITE, state: 'completed', figures: siteFigures(ps, new Map(), new Map()), pages: ps,
    conditions: { location: '1', browser: '3', throttle: null, simulate_device: null, viewport: null, user_agent: null, report: 'lighthouse', runs: 1 },
  });
  const paths = ['/p/1', '/p/2', '/p/3', '/p/4'];
  const before = side('A', paths.map((path) => page({ path })));
  // Every /p/ page 1,000 ms slower (the template too), /p/2 three letters down.
  const after = side('B', paths.map((path) => page({ path, largest_contentful_paint: 2800, grade: path === '/p/2' ? 'E' : 'B' })));
  const comparison = compareScans(before, after, 0.05);
  const all = conditions([{ kind: 'grade_drop' }, { kind: 'pages_worse', value: 3 }, { kind: 'template_worse' }, { kind: 'pages_worse', value: 4 }]);

  test('a grade fallen, pages and a template significantly worse: each holds, naming the pages with their basis', () => {
    const [grade, pagesWorse, template, notMore] = judgeConditions(all, SCAN, { scan: 'A', at: AT_A, comparison });
    assert.equal(grade!.holds, true);
    assert.deepEqual(grade!.pages.map((p) => [p.url, p.why]), [[`${SITE}/p/2`, 'grade B → E, 3 letters down']]);
    assert.equal(grade!.compared_with, 'A');
    assert.equal(grade!.outcome, `a page's grade falls 2 letters or more holds: the grade of 1 page of 4 fell 2 letters or more ${SINCE_A}.`);
    assert.equal(pagesWorse!.holds, true);
    assert.equal(pagesWorse!.measured, 4);
    assert.match(pagesWorse!.pages.find((p) => p.url.endsWith('/p/1'))!.why, /^LCP 1\.80 s → 2\.80 s \[threshold: \+1\.00 s, threshold 500 ms\]$/);
    assert.match(pagesWorse!.message, /^more than 3 pages significantly worse holds: 4 pages of 4 got significantly worse since the scan of 4 Dec 2026, 14:02 UTC\. Pages: \/p\/2: grade B → E \[threshold: 3 letters down, threshold 2 letters\], LCP/);
    assert.equal(template!.holds, true);
    assert.deepEqual(template!.templates.map((t) => [t.template, t.pages]), [['/p/:id', 4]]);
    assert.match(template!.templates[0]!.reasons[0]!, /^LCP median 1\.80 s → 2\.80 s \[(test|threshold): /);
    assert.match(template!.message, /1 template of 1 got significantly worse as a whole since the scan of 4 Dec 2026, 14:02 UTC \(\/p\/:id: LCP median/);
    assert.equal(template!.pages.length, 4);
    assert.equal(notMore!.holds, false, 'four pages worse is not more than four');
  });

  test('no previous scan: not evaluated, saying why; no page in both: not evaluated', () => {
    for (const v of judgeConditions(all, SCAN, NONE)) {
      assert.equal(v.holds, null);
      assert.match(v.message, /was not evaluated: there is no earlier completed scan of https:\/\/shop\.example \(source list\)/);
    }
    const elsewhere = compareScans(before, side('B', [page({ path: '/new' })]), 0.05);
    for (const v of judgeConditions(all, SCAN, { scan: 'A', at: AT_A, comparison: elsewhere })) {
      assert.match(v.message, /no page was measured in both this scan and the scan of 4 Dec 2026, 14:02 UTC\./);
    }
  });

  test('across Lighthouse 12 and 13 grades are left out, and the verdicts say so with the comparison\'s notes', () => {
    const older = side('A', paths.map((path) => page({ path, lighthouse_version: '12.8.2' })));
    const c = compareScans(older, after, 0.05);
    const [grade, pagesWorse] = judgeConditions(all, SCAN, { scan: 'A', at: AT_A, comparison: c });
    assert.equal(grade!.holds, null);
    assert.match(grade!.message, /was not evaluated: no page's grade compares since the scan of 4 Dec 2026, 14:02 UTC\. Grades of 4 of 4 pages measured in both are left out/);
    assert.ok(grade!.notes.some((n) => /grades are left out/.test(n)), JSON.stringify(grade!.notes));
    assert.equal(pagesWorse!.holds, true, 'the pages are still worse on LCP');
    assert.match(pagesWorse!.message, /Grades of 4 of 4 pages measured in both are left out/);
    assert.ok(pagesWorse!.pages.every((p) => !/grade/.test(p.why)));
  });
});

describe('a verdict\'s change against the same condition\'s last verdict', () => {
  const [c] = conditions([{ figure: 'lcp_p75', operator: 'gt', value: 2500 }]);
  const verdict = (holds: boolean | null): AlertVerdict => ({ ...c!, holds, measured: 1, message: '', outcome: '', pages: [], more_pages: 0, templates: [],
    compared_with: null, notes: [], change: null, previous_scan: null });
  const earlier = (scan: string, holds: boolean | null, condition: AlertCondition = c!) => ({ scan, verdicts: [{ ...condition, holds }] });

  test('triggered when it holds and did not (or never was evaluated); resolved when it held; else no change', () => {
    const change = (now: boolean | null, before: ReturnType<typeof earlier>[]) => {
      const [v] = withChanges([verdict(now)], before);
      return [v!.change, v!.previous_scan];
    };
    assert.deepEqual(change(true, []), ['triggered', null]);
    assert.deepEqual(change(true, [earlier('s2', false)]), ['triggered', 's2']);
    assert.deepEqual(change(true, [earlier('s2', true)]), [null, 's2']);
    assert.deepEqual(change(false, [earlier('s2', true)]), ['resolved', 's2']);
    assert.deepEqual(change(false, [earlier('s2', false)]), [null, 's2']);
    assert.deepEqual(change(false, []), [null, null]);
    assert.deepEqual(change(null, [earlier('s2', true)]), [null, 's2']);
    // A scan that did not evaluate it, or had another condition, is passed over for the last one that did.
    assert.deepEqual(change(false, [earlier('s3', null), { scan: 's3b', verdicts: [] }, earlier('s2b', true, { ...c!, value: 3000 }), earlier('s2', true)]),
      ['resolved', 's2']);
  });
});

test('any JSON is parsed or refused with E40004, and what is parsed is judged without an error', () => {
  const near = (names: readonly string[]) => fc.oneof(fc.constantFrom(...names), fc.jsonValue());
  const condition = fc.record({ kind: near(ALERT_KINDS), figure: near(SITE_BUDGET_NAMES), operator: near(FIGURE_OPERATORS),
    value: fc.oneof(fc.double(), fc.integer({ min: -3, max: 3000 }), fc.jsonValue()) }, { requiredKeys: [] });
  fc.assert(fc.property(fc.oneof(fc.jsonValue(), fc.array(condition, { maxLength: 4 })), (v) => {
    let parsed: AlertCondition[];
    try {
      parsed = parseAlertConditions(v);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'E40004') return;
      throw e;
    }
    judgeConditions(parsed, SCAN, NONE);
  }), { numRuns: 500 });
});
