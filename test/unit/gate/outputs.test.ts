/**
 * The CI gate's outputs (gate/outputs.ts), without a server: JUnit XML and Markdown that a CI reads, and the text
 * summary.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { checkBudget, compareWithHistory, parseBudget } from '../../../src/gate/checks.js';
import { junitXml, markdownSummary, textSummary, type GateResult } from '../../../src/gate/outputs.js';

describe('outputs', () => {
  const result: GateResult = {
    url: 'https://shop.example/?q=<a&b>', test: 't1', report: 't1', reportUrl: 'https://wg.example/reports/t1', runs: 3,
    figures: { largest_contentful_paint: 2600, performance_score: 88, cumulative_layout_shift: 0.01234 },
    checks: [
      ...checkBudget(parseBudget('{"largest_contentful_paint": {"max": 2500}, "performance_score": {"min": 80}}', 'b'),
        { largest_contentful_paint: 2600, performance_score: 88 }),
      compareWithHistory('cumulative_layout_shift', [0, 0], [0, 0, 0, 0]),
    ],
    exitCode: 1,
  };

  test('JUnit XML parses: one test case per check, the failure with its message', () => {
    const text = junitXml(result);
    assert.equal(XMLValidator.validate(text), true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(text);
    const suite = doc.testsuites.testsuite;
    assert.equal(suite.tests, '3');
    assert.equal(suite.failures, '1');
    assert.equal(suite.skipped, '1');
    assert.equal(suite.name, 'webgauge https://shop.example/?q=<a&b>');
    const cases = suite.testcase as { name: string; classname: string; failure?: { message: string } }[];
    assert.deepEqual(cases.map((c) => `${c.classname} ${c.name}`),
      ['webgauge.budget largest_contentful_paint', 'webgauge.budget performance_score', 'webgauge.comparison cumulative_layout_shift']);
    assert.equal(cases[0]!.failure!.message, 'largest_contentful_paint 2.60 s is over its budget of max 2.50 s');
  });

  test('a test without checks is one passing case', () => {
    const text = junitXml({ ...result, checks: [], exitCode: 0 });
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(text);
    assert.equal(doc.testsuites.testsuite.tests, '1');
    assert.equal(doc.testsuites.testsuite.failures, '0');
  });

  test('the Markdown summary and the text summary say the verdict, the runs and each check', () => {
    const mdText = markdownSummary(result);
    assert.match(mdText, /^### Webgauge: ❌ 1 of 3 checks failed/);
    assert.match(mdText, /\[report\]\(https:\/\/wg\.example\/reports\/t1\) \(median of 3 runs\)/);
    assert.match(mdText, /\| budget largest\\_contentful\\_paint \| FAIL \| largest\\_contentful\\_paint 2\.60 s is over/);
    assert.match(mdText, /\| Cumulative layout shift \| 0\.012 \|/);
    const text = textSummary(result);
    assert.match(text, /FAIL {4}largest_contentful_paint 2\.60 s is over its budget of max 2\.50 s/);
    assert.match(text, /FAILED: 1 of 3 checks\n$/);
    assert.doesNotMatch(textSummary({ ...result, runs: 1 }), /median of/);
  });
});
