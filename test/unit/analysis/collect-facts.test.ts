import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import vm from 'node:vm';
import { collectPageFactsInPage } from '../../../src/analysis/collect-facts.js';
import { emptyDomFacts } from '../../../src/analysis/facts.js';

/**
 * The collector runs in the browser from its source text (page.evaluate serialises it). Here it runs from
 * its source text in an empty context with a stub of an empty document: any reference to a Node value, an
 * import or a transpiler helper (tsx's __name) would throw. Its DOM reading is checked against real Chromium
 * by the runner's integration tests.
 */
describe('collectPageFactsInPage', () => {
  it('has no transpiler helpers in its source', () => {
    assert.doesNotMatch(collectPageFactsInPage.toString(), /__name|__publicField|_interop|require\(/);
  });

  it('runs standalone from its source text', () => {
    const document = {
      head: { contains: () => true, querySelectorAll: () => [] },
      querySelectorAll: () => [],
      querySelector: () => null,
      styleSheets: [],
      images: [],
      getElementsByTagName: () => ({ length: 3 }),
      cookie: 'a=1; b=2',
    };
    const window = { devicePixelRatio: 2, matchMedia: () => ({ matches: true }) };
    const context = vm.createContext({ document, window, TextEncoder });
    const collect = vm.runInContext(`(${collectPageFactsInPage.toString()})`, context) as typeof collectPageFactsInPage;
    const facts = JSON.parse(JSON.stringify(collect()));
    assert.deepEqual(facts, { ...emptyDomFacts(), elementCount: 3, devicePixelRatio: 2, cookieBytes: 8 });
  });
});
