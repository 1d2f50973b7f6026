import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grade, structureScore, STRUCTURE_AUDITS } from '../../src/analysis/grade.js';

describe('grade', () => {
  it('weights performance 60 % and structure 40 %', () => {
    assert.deepEqual(grade(100, 50), { grade: 'B', score: 80 });
    assert.deepEqual(grade(50, 100), { grade: 'C', score: 70 });
  });

  it('puts each band boundary in the higher band', () => {
    assert.equal(grade(90, 90).grade, 'A');
    assert.equal(grade(80, 80).grade, 'B');
    assert.equal(grade(70, 70).grade, 'C');
    assert.equal(grade(60, 60).grade, 'D');
    assert.equal(grade(50, 50).grade, 'E');
    assert.equal(grade(49, 49).grade, 'F');
    assert.equal(grade(0, 0).grade, 'F');
  });

  it('grades by the exact percent, not the rounded score', () => {
    // 0.6 × 89 + 0.4 × 90.5 = 89.6: rounds to 90 but is below the A band.
    assert.deepEqual(grade(89, 90.5), { grade: 'B', score: 90 });
  });
});

describe('structure score', () => {
  it('is the impact-weighted mean of the scored audits', () => {
    const audits = {
      'render-blocking-resources': { score: 0, scoreDisplayMode: 'metricSavings' }, // high 3
      'dom-size': { score: 1, scoreDisplayMode: 'numeric' }, // low 1
    };
    assert.equal(structureScore(audits), Math.round((100 * 1) / 4));
  });

  it('leaves out audits Lighthouse did not score', () => {
    const audits = {
      'uses-text-compression': { score: 1, scoreDisplayMode: 'metricSavings' },
      'uses-optimized-images': { score: null, scoreDisplayMode: 'notApplicable' },
      'third-party-summary': { score: 0, scoreDisplayMode: 'informative' },
    };
    assert.equal(structureScore(audits), 100);
  });

  it('is absent when nothing could be scored', () => {
    assert.equal(structureScore({}), undefined);
    assert.equal(structureScore(undefined), undefined);
  });

  it('gives every audit a known impact', () => {
    for (const impact of Object.values(STRUCTURE_AUDITS)) assert.ok(['high', 'medium', 'low'].includes(impact));
  });
});
