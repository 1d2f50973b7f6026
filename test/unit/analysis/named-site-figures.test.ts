/**
 * The site figures by name (analysis/named-site-figures.ts): each a statistic of a site figure of the one table, named,
 * labelled, charted and directed from it; which are budgets, comparison rows and charts; what a page is blamed for.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SITE_FIGURES } from '../../../src/analysis/figures.js';
import {
  CHARTED_SITE_FIGURES, COMPARED_SITE_FIGURES, SITE_BUDGET_NAMES, SITE_FIGURE_TABLE, siteBudget,
} from '../../../src/analysis/named-site-figures.js';

describe('named site figures', () => {
  it('the site figures are named from the table: statistics and poor pages of its site figures', () => {
    assert.deepEqual(SITE_FIGURES, ['performance_score', 'largest_contentful_paint', 'total_blocking_time', 'cumulative_layout_shift', 'fully_loaded_time']);
    assert.deepEqual(SITE_BUDGET_NAMES, ['lcp_p75', 'lcp_median', 'cls_p75', 'cls_median', 'tbt_p75', 'tbt_median', 'fully_loaded_p75',
      'performance_median', 'poor_lcp_pages', 'poor_cls_pages', 'poor_tbt_pages', 'failed_pages']);
    assert.deepEqual(COMPARED_SITE_FIGURES.map((f) => [f.name, f.label]), [
      ['pages_measured', 'Pages measured'], ['performance_median', 'Performance, median'], ['lcp_median', 'LCP, median'],
      ['lcp_p75', 'LCP, 75th percentile'], ['poor_lcp_pages', 'Pages with poor LCP'], ['tbt_p75', 'TBT, 75th percentile'],
      ['poor_tbt_pages', 'Pages with poor TBT'], ['cls_p75', 'CLS, 75th percentile'], ['poor_cls_pages', 'Pages with poor CLS'],
      ['fully_loaded_median', 'Fully loaded, median'],
    ]);
    assert.deepEqual(CHARTED_SITE_FIGURES.map((f) => [f.name, f.short, f.chart.max ?? f.chart.minTop]), [
      ['performance_median', 'median performance', 100], ['lcp_p75', 'LCP p75', 1000], ['tbt_p75', 'TBT p75', 100], ['cls_p75', 'CLS p75', 0.1],
      ['fully_loaded_p75', 'fully loaded p75', 1000], ['poor_lcp_pages', 'pages with poor LCP', 5], ['poor_cls_pages', 'pages with poor CLS', 5],
      ['poor_tbt_pages', 'pages with poor TBT', 5],
    ]);
    assert.equal(new Set(SITE_FIGURE_TABLE.map((f) => f.name)).size, SITE_FIGURE_TABLE.length, 'no site figure twice');
  });

  it('a site figure reads the direction of its figure: lower is better but for the performance score', () => {
    for (const f of SITE_FIGURE_TABLE.filter((x) => x.name !== 'pages_measured')) {
      assert.equal(f.direction, f.name === 'performance_median' ? 'min' : 'max', f.name);
    }
  });

  it('a page past a limit is blamed with both values, printed apart even when they round alike', () => {
    const lcp = siteBudget('lcp_p75')!;
    assert.equal(lcp.blames({ state: 'completed', largest_contentful_paint: 2504 }, 2500), 'LCP 2.50 s (2,504 ms) is over the 2.50 s (2,500 ms) limit on LCP p75');
    assert.equal(lcp.blames({ state: 'completed', largest_contentful_paint: 2500 }, 2500), undefined, 'at the limit is not past it');
    assert.equal(lcp.blames({ state: 'completed', largest_contentful_paint: 2500 }, 2500, true), 'LCP 2.50 s is over the 2.50 s limit on LCP p75');
    const poor = siteBudget('poor_lcp_pages')!;
    assert.equal(poor.blames({ state: 'completed', largest_contentful_paint: 4004 }, 0), 'poor LCP: 4.00 s (4,004 ms) is over 4.00 s (4,000 ms)');
    assert.equal(poor.blames({ state: 'failed', largest_contentful_paint: 9000 }, 0), undefined, 'a failed page has no figure to blame');
  });
});
