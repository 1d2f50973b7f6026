/**
 * Where a test is (core/tests/phases.ts): its steps in order, the status line of each phase, a remote agent's report
 * checked, the elapsed time in words, and the estimate from the location's latest completed tests.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  aboutText, checkedPhaseReport, currentStep, durationText, estimateOf, estimateText, ESTIMATE_TESTS, PROGRESS_STEPS, startedLabel, stepName, TEST_PHASES,
} from '../../../../src/core/tests/phases.js';
import { LOAD_PHASES } from '../../../../src/runner/types.js';

describe('a test\'s phases', () => {
  test('in order: queued, then the load\'s phases as the runner goes through them, then storing', () => {
    assert.deepEqual([...LOAD_PHASES], ['launching', 'loading', 'auditing']);
    assert.deepEqual([...TEST_PHASES], ['launching', 'loading', 'auditing', 'storing']);
    assert.deepEqual([...PROGRESS_STEPS], ['queued', 'launching', 'loading', 'auditing', 'storing']);
    assert.deepEqual(PROGRESS_STEPS.map((s) => stepName(s)), ['Queued', 'Launching the browser', 'Loading the page', 'Lighthouse audits', 'Storing the results']);
    assert.equal(stepName('auditing', true), 'Reading the captures', 'Firefox runs no Lighthouse');
  });

  test('the current step: queued; a started test\'s reported phase, launching before its agent said any; none once finished', () => {
    assert.equal(currentStep('queued', null), 'queued');
    assert.equal(currentStep('started', null), 'launching');
    assert.equal(currentStep('started', 'auditing'), 'auditing');
    assert.equal(currentStep('started', 'nonsense'), 'launching');
    assert.equal(currentStep('completed', 'storing'), undefined);
    assert.equal(currentStep('error', 'loading'), undefined);
  });

  test('the status line says the phase, and the load when the test loads the page more than once', () => {
    assert.equal(startedLabel(null, null, 1), 'Started: the agent is setting out');
    assert.equal(startedLabel('loading', 1, 1), 'Started: loading the page');
    assert.equal(startedLabel('loading', 2, 3), 'Started: load 2 of 3, loading the page');
    assert.equal(startedLabel('auditing', 1, 1), 'Started: Lighthouse audits');
    assert.equal(startedLabel('auditing', 1, 1, true), 'Started: reading the captures');
    assert.equal(startedLabel('storing', 3, 3), 'Started: storing the results', 'storing is of the test, not of a load');
  });

  test('a remote agent\'s report is a known phase with the load it is in, from 1', () => {
    assert.deepEqual(checkedPhaseReport('loading', 2), { phase: 'loading', run: 2 });
    for (const [phase, run] of [['dancing', 1], ['loading', 0], ['loading', 1.5], ['loading', '1'], [undefined, 1], ['loading', 101]]) {
      assert.equal(checkedPhaseReport(phase, run), undefined, JSON.stringify([phase, run]));
    }
  });
});

describe('time elapsed and the estimate', () => {
  test('a wait in words: seconds, then minutes and seconds, then hours and minutes', () => {
    assert.equal(durationText(0), '0 s');
    assert.equal(durationText(-5), '0 s');
    assert.equal(durationText(12_999), '12 s');
    assert.equal(durationText(65_000), '1 min 05 s');
    assert.equal(durationText(3_725_000), '1 h 02 min');
  });

  test('the estimate is the median of the latest completed tests (at most ESTIMATE_TESTS); none without history', () => {
    assert.equal(estimateOf([]), undefined);
    assert.deepEqual(estimateOf([30_000, 10_000, 20_000]), { ms: 20_000, tests: 3 });
    assert.deepEqual(estimateOf([24_000]), { ms: 24_000, tests: 1 });
    // The newest first: the older ones beyond ESTIMATE_TESTS do not count.
    const many = [...Array(ESTIMATE_TESTS).fill(10_000), ...Array(10).fill(99_000)];
    assert.deepEqual(estimateOf(many), { ms: 10_000, tests: ESTIMATE_TESTS });
  });

  test('said as a person would say it, with where it comes from', () => {
    assert.equal(aboutText(4_400), 'about 4 s');
    assert.equal(aboutText(23_100), 'about 25 s');
    assert.equal(aboutText(59_000), 'about 1 min');
    assert.equal(aboutText(95_000), 'about 1 min 40 s');
    assert.equal(estimateText({ ms: 23_100, tests: 12 }, 'Local'),
      'A test at Local takes about 25 s once an agent has it (the median of its last 12 completed tests).');
    assert.equal(estimateText({ ms: 9_000, tests: 1 }, 'Local'),
      'A test at Local takes about 9 s once an agent has it (the one test completed there lately).');
  });
});
