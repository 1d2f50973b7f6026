/**
 * The compare screen (web/screens/compare.ts): the report IDs of its query and the differences it shows, each figure
 * the way the report prints it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { figure, type FigureName } from '../../../../src/analysis/figures.js';
import { ApiError } from '../../../../src/core/errors.js';
import { compareIds, figureDelta, loadEnd, showFigure, shortUrl } from '../../../../src/web/screens/compare.js';

describe('compare: report IDs of the query', () => {
  it('reads a comma list and repeated parameters alike, in order, without duplicates', () => {
    assert.deepEqual(compareIds('a,b'), ['a', 'b']);
    assert.deepEqual(compareIds(['a', 'b', 'c']), ['a', 'b', 'c']);
    assert.deepEqual(compareIds(['a,b', ' c ', 'a']), ['a', 'b', 'c']);
    assert.deepEqual(compareIds('a, b,,c,d'), ['a', 'b', 'c', 'd']);
  });

  it('refuses fewer than 2 or more than 4 distinct IDs with a 400', () => {
    for (const q of [undefined, '', 'a', 'a,a', 'a,b,c,d,e', ['a', 'a']]) {
      assert.throws(() => compareIds(q), (e: unknown) => e instanceof ApiError && e.status === 400 && /2 to 4 report IDs/.test(e.detail ?? ''));
    }
  });
});

describe('compare: differences', () => {
  const fig = (name: FigureName) => figure(name);
  it('times: lower is better, signed, in ms or s; news only beyond the figure\'s noise', () => {
    const ttfb = fig('time_to_first_byte'); // noise 100 ms
    assert.deepEqual(figureDelta(ttfb, 1000, 1120), { text: '+120 ms', verdict: 'worse', basis: 'threshold' });
    assert.deepEqual(figureDelta(ttfb, 1120, 1000), { text: '\u2212120 ms', verdict: 'better', basis: 'threshold' });
    assert.deepEqual(figureDelta(ttfb, 1000, 1021), { text: '+21 ms', verdict: 'within_noise', basis: 'threshold' });
    assert.deepEqual(figureDelta(ttfb, 1000, 1000 + ttfb.noise.change), { text: '+100 ms', verdict: 'worse', basis: 'threshold' });
    assert.deepEqual(figureDelta(ttfb, 1000, 1000 + ttfb.noise.change - 1), { text: '+99 ms', verdict: 'within_noise', basis: 'threshold' });
    const full = fig('fully_loaded_time'); // noise 1 s
    assert.deepEqual(figureDelta(full, 1000, 3500), { text: '+2.50 s', verdict: 'worse', basis: 'threshold' });
    assert.deepEqual(figureDelta(full, 20_000, 5_000), { text: '\u221215.0 s', verdict: 'better', basis: 'threshold' });
    assert.deepEqual(figureDelta(full, 1000, 1224), { text: '+224 ms', verdict: 'within_noise', basis: 'threshold' });
    assert.deepEqual(figureDelta(full, 1000, 1000.3), { text: 'same', verdict: 'same', basis: 'threshold' });
  });

  it('with runs on both reports, the test decides', () => {
    const lcp = fig('largest_contentful_paint');
    const d = figureDelta(lcp, 1010, 1400, [[1000, 1010, 1020], [1390, 1400, 1410, 1420]]);
    assert.deepEqual(d, { text: '+390 ms', verdict: 'worse', basis: 'test' }, 'below the noise of one value, beyond it by the test');
  });

  it('scores: higher is better, in points', () => {
    const perf = fig('performance_score'); // noise 10 points
    assert.deepEqual(figureDelta(perf, 90, 87), { text: '\u22123 points', verdict: 'within_noise', basis: 'threshold' });
    assert.deepEqual(figureDelta(perf, 90, 80), { text: '\u221210 points', verdict: 'worse', basis: 'threshold' });
    assert.deepEqual(figureDelta(perf, 70, 81), { text: '+11 points', verdict: 'better', basis: 'threshold' });
    assert.deepEqual(figureDelta(perf, 80, 80), { text: 'same', verdict: 'same', basis: 'threshold' });
  });

  it('sizes, requests and layout shift: lower is better', () => {
    assert.deepEqual(figureDelta(fig('page_bytes'), 40_960, 20_480), { text: '\u221220.0 KB', verdict: 'better', basis: 'threshold' });
    assert.deepEqual(figureDelta(fig('page_bytes'), 2048, 1024), { text: '\u22121.0 KB', verdict: 'within_noise', basis: 'threshold' });
    assert.deepEqual(figureDelta(fig('page_requests'), 10, 13), { text: '+3 requests', verdict: 'worse', basis: 'threshold' });
    assert.deepEqual(figureDelta(fig('page_requests'), 10, 9), { text: '\u22121 request', verdict: 'within_noise', basis: 'threshold' });
    assert.deepEqual(figureDelta(fig('cumulative_layout_shift'), 0.1, 0.25), { text: '+0.15', verdict: 'worse', basis: 'threshold' });
    assert.deepEqual(figureDelta(fig('cumulative_layout_shift'), 0.1, 0.1002), { text: 'same', verdict: 'same', basis: 'threshold' });
  });

  it('nothing to compare when a figure is missing or the test stopped at onload', () => {
    assert.deepEqual(figureDelta(fig('fully_loaded_time'), null, 100), { text: '', verdict: 'none' });
    assert.deepEqual(figureDelta(fig('fully_loaded_time'), -1, 100), { text: '', verdict: 'none' });
    assert.deepEqual(figureDelta(fig('performance_score'), 90, null), { text: '', verdict: 'none' });
  });

  it('shows figures as the report does', () => {
    assert.equal(showFigure('time', 850), '850 ms');
    assert.equal(showFigure('time', -1), 'stopped at onload');
    assert.equal(showFigure('score', 87), '87%');
    assert.equal(showFigure('cls', 0.123), '0.123');
    assert.equal(showFigure('cls', 0.1), '0.1');
    assert.equal(showFigure('size', null), '–');
    assert.equal(showFigure('count', 12), '12');
  });

  it('shortens URLs for column headings', () => {
    assert.equal(shortUrl('https://example.com/'), 'example.com');
    assert.equal(shortUrl(`https://example.com/${'x'.repeat(80)}`, 20), 'example.com/xxxxxxx…');
  });
});

describe('compare: a filmstrip lane\'s end', () => {
  it('is the report\'s fully loaded figure, the table\'s value, even when a frame came later (onload when the test stopped there)', () => {
    assert.deepEqual(loadEnd({ fully_loaded_time: 218, onload_time: 150 }), { label: 'fully loaded', at: 218 });
    assert.equal(showFigure('time', loadEnd({ fully_loaded_time: 218, onload_time: 150 }).at), showFigure('time', 218));
    assert.deepEqual(loadEnd({ fully_loaded_time: -1, onload_time: 150 }), { label: 'onload', at: 150 });
  });
});
