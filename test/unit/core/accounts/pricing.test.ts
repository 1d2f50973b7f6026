/**
 * Test prices (core/accounts/pricing.ts; spec part 8): each report type's base, video, retention and PDFs, summed
 * without float drift.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ReportType, Retention } from '../../../../src/core/options/analysis-options.js';
import { FULL_PDF_COST, PDF_COST, testCost, testCostTenths } from '../../../../src/core/accounts/pricing.js';

const cost = (report: ReportType, video: 0 | 1 = 0, retention: Retention = 1) => testCost({ report, video, retention });

describe('test prices (spec part 8)', () => {
  test('each report type has its base price with one month retention and no video', () => {
    assert.equal(cost('lighthouse'), 1);
    assert.equal(cost('legacy'), 0.7);
    assert.equal(cost('lighthouse,legacy'), 1.1);
    assert.equal(cost('none'), 0.6);
  });
  test('video adds 0.9', () => {
    assert.equal(cost('lighthouse', 1), 1.9);
    assert.equal(cost('none', 1), 1.5);
  });
  test('retention adds 0.4, 0.9 or 1.8 for 6, 12 or 24 months', () => {
    assert.equal(cost('lighthouse', 0, 6), 1.4);
    assert.equal(cost('lighthouse', 0, 12), 1.9);
    assert.equal(cost('lighthouse', 0, 24), 2.8);
  });
  test('combinations sum exactly, with no float drift', () => {
    const reports: [ReportType, number][] = [['lighthouse', 10], ['legacy', 7], ['lighthouse,legacy', 11], ['none', 6]];
    const retentions: [Retention, number][] = [[1, 0], [6, 4], [12, 9], [24, 18]];
    for (const [report, r] of reports) {
      for (const [retention, t] of retentions) {
        for (const video of [0, 1] as const) {
          const tenths = r + t + (video ? 9 : 0);
          assert.equal(testCostTenths({ report, video, retention }), tenths);
          const c = testCost({ report, video, retention });
          assert.equal(c, tenths / 10, `${report} video=${video} retention=${retention}`);
          assert.equal(String(c), (tenths / 10).toFixed(1).replace(/\.0$/, ''), 'one decimal when printed');
        }
      }
    }
    assert.equal(cost('lighthouse,legacy', 1, 24), 3.8);
    assert.equal(cost('legacy', 1, 6), 2);
    assert.equal(cost('none', 1, 12), 2.4);
  });
  test('PDFs cost 0.2 and full PDFs 0.3', () => {
    assert.equal(PDF_COST, 0.2);
    assert.equal(FULL_PDF_COST, 0.3);
  });
  test('options that were never normalised are a programming error', () => {
    assert.throws(() => testCost({ report: 'pagespeed' as ReportType, video: 0, retention: 1 }), /unnormalised/);
    assert.throws(() => testCost({ report: 'none', video: 0, retention: 3 as Retention }), /unnormalised/);
  });
});
