/**
 * A scan's site figures (analysis/site-figures.ts): Web Vitals rated at their thresholds, percentiles, and the figures
 * of a site's pages (counts, medians, grades, worst pages and templates, audits, third parties).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { percentile, rateVital, siteFigures, thirdPartiesOf, type SitePage } from '../../../src/analysis/site-figures.js';

const page = (url: string, template: string, o: Partial<SitePage>): SitePage => ({
  url, template, report_id: `r-${url}`, grade: null, performance_score: null, largest_contentful_paint: null,
  total_blocking_time: null, cumulative_layout_shift: null, fully_loaded_time: null, ...o,
});

describe('site figures', () => {
  test('Core Web Vitals are rated at their thresholds: good at or below the first, poor above the second', () => {
    assert.equal(rateVital('largest_contentful_paint', 2500), 'good');
    assert.equal(rateVital('largest_contentful_paint', 2501), 'needs_improvement');
    assert.equal(rateVital('largest_contentful_paint', 4000), 'needs_improvement');
    assert.equal(rateVital('largest_contentful_paint', 4001), 'poor');
    assert.equal(rateVital('cumulative_layout_shift', 0.1), 'good');
    assert.equal(rateVital('cumulative_layout_shift', 0.26), 'poor');
    assert.equal(rateVital('total_blocking_time', 200), 'good');
    assert.equal(rateVital('total_blocking_time', 600), 'needs_improvement');
    assert.equal(rateVital('total_blocking_time', 601), 'poor');
  });

  test('the 75th percentile is a measured value (nearest rank), the median the middle', () => {
    assert.equal(percentile([1, 2, 3, 4], 0.75), 3);
    assert.equal(percentile([10], 0.75), 10);
    assert.equal(percentile([], 0.75), null);
    assert.equal(percentile([5, 1, 4, 2, 3], 0.75), 4);
  });

  test('counts, medians, grades, worst pages and templates, failing audits with savings added, third parties', () => {
    const pages = [
      page('/a', '/blog/:slug', { grade: 'A', performance_score: 95, largest_contentful_paint: 1200, total_blocking_time: 0, cumulative_layout_shift: 0, fully_loaded_time: 1500 }),
      page('/b', '/blog/:slug', { grade: 'C', performance_score: 60, largest_contentful_paint: 3000, total_blocking_time: 300, cumulative_layout_shift: 0.05, fully_loaded_time: 3200 }),
      page('/c', '/p/:id', { grade: 'E', performance_score: 30, largest_contentful_paint: 5200, total_blocking_time: 900, cumulative_layout_shift: 0.3, fully_loaded_time: 6000 }),
      page('/d', '/', { grade: 'A', performance_score: 99, largest_contentful_paint: 900, total_blocking_time: 10, cumulative_layout_shift: 0.01, fully_loaded_time: 1000 }),
    ];
    const audit = (score: number | null, ms = 0, bytes = 0) => ({ id: 'document-latency-insight', title: 'Document request latency', impact: 'high', score, savings: { ms, bytes } });
    const audits = new Map([
      ['a', [audit(1)]], ['b', [audit(0, 100, 1000)]], ['c', [audit(0.5, 300, 5000)]], ['d', [audit(null)]],
    ]);
    const third = new Map([
      ['a', [{ origin: 'https://cdn.example', requests: 2, bytes: 100, time_ms: 50 }]],
      ['b', [{ origin: 'https://cdn.example', requests: 1, bytes: 10, time_ms: 5 }, { origin: 'https://ads.example', requests: 9, bytes: 900, time_ms: 500 }]],
    ]);
    const f = siteFigures(pages, audits, third);
    assert.equal(f.pages_measured, 4);
    assert.deepEqual(f.largest_contentful_paint, { good: 2, needs_improvement: 1, poor: 1, median: 2100, p75: 3000 });
    assert.deepEqual(f.total_blocking_time, { good: 2, needs_improvement: 1, poor: 1, median: 155, p75: 300 });
    assert.equal(f.cumulative_layout_shift.poor, 1);
    assert.deepEqual(f.grades, { A: 2, C: 1, E: 1 });
    assert.deepEqual(f.worst_pages.map((p) => p.url), ['/c', '/b', '/a', '/d']);
    assert.deepEqual(f.worst_templates.map((t) => t.template), ['/p/:id', '/blog/:slug', '/']);
    assert.equal(f.worst_templates[1]!.performance_score, 78);
    assert.deepEqual(f.structure, [{ id: 'document-latency-insight', title: 'Document request latency', impact: 'high',
      failing_pages: 2, pages_measured: 3, savings_ms: 400, savings_bytes: 6000 }]);
    assert.deepEqual(f.third_parties.map((t) => [t.origin, t.pages, t.requests]), [['https://cdn.example', 2, 3], ['https://ads.example', 1, 9]]);
  });

  test('third parties are the requests to other hosts than the site (its subdomains are the site)', () => {
    const entries = [
      { request: { url: 'https://shop.example/' }, response: { _transferSize: 1000 }, time: 10 },
      { request: { url: 'https://img.shop.example/a.png' }, response: { _transferSize: 10 }, time: 1 },
      { request: { url: 'https://fonts.example/f.woff2' }, response: { _transferSize: 200 }, time: 30 },
      { request: { url: 'https://fonts.example/g.woff2' }, response: { bodySize: 100, headersSize: 50 }, time: 20 },
      { request: { url: 'data:text/plain,x' } },
    ];
    assert.deepEqual(thirdPartiesOf(entries, 'https://www.shop.example'), [{ origin: 'https://fonts.example', requests: 2, bytes: 350, time_ms: 50 }]);
  });
});
