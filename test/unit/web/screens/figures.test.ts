/**
 * The small pieces of figures the app's lists share (web/screens/figures.ts): a rated figure's cell coloured and titled
 * by the one table's bands, and column headings by the figures' short names.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { figureHeads, ratedCell } from '../../../../src/web/screens/figures.js';

test('a rated cell carries its band as a class and, in words with the limits, as its title', () => {
  assert.equal(ratedCell('largest_contentful_paint', 4600),
    '<td class="num rated-poor" title="poor (good ≤ 2.50 s, poor &gt; 4.00 s)">4.60 s</td>');
  assert.match(ratedCell('total_blocking_time', 200), /class="num rated-good"[^>]*>200 ms</);
  assert.match(ratedCell('cumulative_layout_shift', 0.12), /class="num rated-needs_improvement" title="needs improvement \(good ≤ 0\.1, poor &gt; 0\.25\)">0\.12</);
  assert.equal(ratedCell('cumulative_layout_shift', null), '<td class="num">–</td>');
});

test('column headings are the figures\' short names', () => {
  assert.equal(figureHeads('largest_contentful_paint', 'fully_loaded_time'),
    '<th scope="col" class="num">LCP</th><th scope="col" class="num">Fully loaded</th>');
});
