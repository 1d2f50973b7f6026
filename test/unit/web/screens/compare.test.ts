/**
 * The compare screen (web/screens/compare.ts): the report IDs of its query and the differences it shows, each figure
 * the way the report prints it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
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
  it('times: lower is better, signed, in ms or s', () => {
    assert.deepEqual(figureDelta('time', 1000, 1120), { text: '+120 ms', verdict: 'worse' });
    assert.deepEqual(figureDelta('time', 1120, 1000), { text: '\u2212120 ms', verdict: 'better' });
    assert.deepEqual(figureDelta('time', 1000, 3500), { text: '+2.50 s', verdict: 'worse' });
    assert.deepEqual(figureDelta('time', 20_000, 5_000), { text: '\u221215.0 s', verdict: 'better' });
    assert.deepEqual(figureDelta('time', 1000, 1000.3), { text: 'same', verdict: 'same' });
  });

  it('scores: higher is better, in points', () => {
    assert.deepEqual(figureDelta('score', 90, 87), { text: '\u22123 points', verdict: 'worse' });
    assert.deepEqual(figureDelta('score', 80, 81), { text: '+1 point', verdict: 'better' });
    assert.deepEqual(figureDelta('score', 80, 80), { text: 'same', verdict: 'same' });
  });

  it('sizes, requests and layout shift: lower is better', () => {
    assert.deepEqual(figureDelta('size', 2048, 1024), { text: '\u22121.0 KB', verdict: 'better' });
    assert.deepEqual(figureDelta('count', 10, 13), { text: '+3 requests', verdict: 'worse' });
    assert.deepEqual(figureDelta('count', 10, 9), { text: '\u22121 request', verdict: 'better' });
    assert.deepEqual(figureDelta('cls', 0.1, 0.25), { text: '+0.15', verdict: 'worse' });
    assert.deepEqual(figureDelta('cls', 0.1, 0.1002), { text: 'same', verdict: 'same' });
  });

  it('nothing to compare when a figure is missing or the test stopped at onload', () => {
    assert.deepEqual(figureDelta('time', null, 100), { text: '', verdict: 'none' });
    assert.deepEqual(figureDelta('time', -1, 100), { text: '', verdict: 'none' });
    assert.deepEqual(figureDelta('score', 90, null), { text: '', verdict: 'none' });
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
