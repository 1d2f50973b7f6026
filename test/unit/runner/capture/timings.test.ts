/** The page's timings (runner/capture/timings.ts): a first paint when the screen showed it. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { paintsAsShown, type PageTimings } from '../../../../src/runner/capture/timings.js';

describe('paintsAsShown: a first paint when the screen showed it', () => {
  const origin = 1_700_000_000_000;
  const timings: PageTimings = {
    timeOrigin: origin, url: 'https://site.example/', responseStart: 100, domInteractive: 300,
    domContentLoadedEventStart: 310, domContentLoadedEventEnd: 312, loadEventStart: 900, loadEventEnd: 901,
    firstPaint: 872, firstContentfulPaint: 872, firstPaintRendered: 792.7, firstContentfulPaintRendered: 792.7,
  };
  test('the first compositor frame at or after the paint, before its (late) presentation', () => {
    const shown = paintsAsShown(timings, [origin + 26, origin + 826, origin + 1500]);
    assert.equal(shown.firstPaint, 826);
    assert.equal(shown.firstContentfulPaint, 826);
  });
  test('the presentation time when no frame came before it, or the browser gave no paint time', () => {
    assert.equal(paintsAsShown(timings, [origin + 26, origin + 990]).firstPaint, 872);
    assert.equal(paintsAsShown({ ...timings, firstPaintRendered: -1 }, [origin + 826]).firstPaint, 872);
  });
  test('a page that never painted stays unpainted', () => {
    const none = { ...timings, firstPaint: -1, firstPaintRendered: -1 };
    assert.equal(paintsAsShown(none, [origin + 826]).firstPaint, -1);
  });
});
