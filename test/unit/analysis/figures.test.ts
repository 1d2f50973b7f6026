/**
 * The one table of figures (analysis/figures.ts): how each unit prints everywhere, the rating bands, a value never
 * printed alike its limit, and the rules the scans' comparison derives from it (the site figures: named-site-figures.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bandsText, figure, FIGURES, formatAgainst, formatChange, formatFigure, headingOf, rate, RATED_FIGURES, roundFigure, shortOf,
  SITE_FIGURES, titleOf,
} from '../../../src/analysis/figures.js';
import { COMPARE_RULES } from '../../../src/analysis/scan-comparison-rules.js';

describe('figures: one way to print each unit', () => {
  it('times: ms under a second, then seconds with two decimals, one from 10 s', () => {
    assert.deepEqual([0, 849.6, 999, 1000, 1234, 9994, 10_000, 12_345].map((v) => formatFigure('time', v)),
      ['0 ms', '850 ms', '999 ms', '1.00 s', '1.23 s', '9.99 s', '10.0 s', '12.3 s']);
  });

  it('layout shift: at most three decimals, as Lighthouse writes it', () => {
    assert.deepEqual([0, 0.1, 0.25, 0.01234, 0.1235].map((v) => formatFigure('cls', v)), ['0', '0.1', '0.25', '0.012', '0.124']);
  });

  it('scores with a percent sign, sizes in binary multiples, counts with separators; no value is a dash', () => {
    assert.deepEqual([formatFigure('score', 87.4), formatFigure('size', 512), formatFigure('size', 2048), formatFigure('size', 3_145_728),
      formatFigure('count', 1234), formatFigure('time', null), formatFigure('cls', undefined), formatFigure('score', NaN)],
    ['87%', '512 B', '2.0 KB', '3.00 MB', '1,234', '–', '–', '–']);
  });

  it('changes carry their sign and unit; one that rounds to nothing is no change', () => {
    assert.deepEqual([formatChange('time', 1100), formatChange('time', -600), formatChange('score', -1), formatChange('score', 14),
      formatChange('cls', 0.15), formatChange('cls', 0.0002), formatChange('time', 0.4)],
    ['+1.10 s', '\u2212600 ms', '\u22121 point', '+14 points', '+0.15', 'no change', 'no change']);
  });

  it('a value over its limit never prints as equal to it', () => {
    assert.deepEqual(formatAgainst('time', 3500, 2500), ['3.50 s', '2.50 s']);
    assert.deepEqual(formatAgainst('time', 2504, 2500), ['2.50 s (2,504 ms)', '2.50 s (2,500 ms)']);
    assert.deepEqual(formatAgainst('time', 2500, 2500), ['2.50 s', '2.50 s'], 'equal values print alike');
    assert.deepEqual(formatAgainst('size', 1_048_577, 1_048_576), ['1.00 MB (1,048,577 bytes)', '1.00 MB (1,048,576 bytes)']);
  });

  it('computed values keep their unit\'s precision: layout shift three decimals, the rest whole', () => {
    assert.deepEqual([roundFigure('cls', 0.12345), roundFigure('time', 2499.5), roundFigure('score', 71.5)], [0.123, 2500, 72]);
  });
});

describe('figures: ratings', () => {
  it('good at or below the first band, poor above the second (web.dev; TBT as Lighthouse rates it)', () => {
    assert.deepEqual(RATED_FIGURES, ['largest_contentful_paint', 'total_blocking_time', 'cumulative_layout_shift']);
    assert.deepEqual([2500, 2501, 4000, 4001].map((v) => rate('largest_contentful_paint', v)), ['good', 'needs_improvement', 'needs_improvement', 'poor']);
    assert.deepEqual([0.1, 0.26].map((v) => rate('cumulative_layout_shift', v)), ['good', 'poor']);
    assert.deepEqual([200, 600, 601].map((v) => rate('total_blocking_time', v)), ['good', 'needs_improvement', 'poor']);
  });

  it('the bands in words, printed as their unit', () => {
    assert.equal(bandsText('largest_contentful_paint'), 'good ≤ 2.50 s, poor > 4.00 s');
    assert.equal(bandsText('total_blocking_time'), 'good ≤ 200 ms, poor > 600 ms');
    assert.equal(bandsText('cumulative_layout_shift'), 'good ≤ 0.1, poor > 0.25');
  });
});

describe('figures: the table and what derives from it', () => {
  it('each figure once, with a title, a short name and a heading', () => {
    assert.equal(new Set(FIGURES.map((f) => f.name)).size, FIGURES.length);
    const lcp = figure('largest_contentful_paint');
    assert.deepEqual([titleOf(lcp), shortOf(lcp), headingOf(lcp)], ['Largest Contentful Paint', 'LCP', 'LCP']);
    const fully = figure('fully_loaded_time');
    assert.deepEqual([titleOf(fully), shortOf(fully), headingOf(fully)], ['Fully loaded', 'fully loaded', 'Fully loaded']);
  });

  it('the comparison of two scans takes its thresholds from the table', () => {
    assert.deepEqual(Object.fromEntries(Object.entries(COMPARE_RULES).map(([k, r]) => [k, [r.short, r.unit, r.threshold]])), {
      performance_score: ['performance', 'score', 10], largest_contentful_paint: ['LCP', 'time', 500], total_blocking_time: ['TBT', 'time', 200],
      cumulative_layout_shift: ['CLS', 'cls', 0.1], fully_loaded_time: ['fully loaded', 'time', 1000],
    });
  });
});
