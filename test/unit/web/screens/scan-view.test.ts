/** A scan's status line and the key that refreshes its screen (web/screens/scan-view.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scanKey, scanLabel } from '../../../../src/web/screens/scan-view.js';

const scan = (done: number, pace?: { perMinute: number; leftMs: number }) => ({
  state: 'running', found: 10, figures: null, pace,
  pages: { total: 10, queued: 10 - done - 1, started: 1, completed: done, failed: 0, cancelled: 0 },
});

describe('a running scan\'s status line', () => {
  test('pages done, and the time left once its pace is known', () => {
    assert.equal(scanLabel(scan(0)), 'Running: 0 of 10 pages done');
    assert.equal(scanLabel(scan(4, { perMinute: 2, leftMs: 180_000 })), 'Running: 4 of 10 pages done, about 3 min left');
  });

  test('the screen is fetched again whenever the status line would change: the line, the progress and the pages change together', () => {
    assert.notEqual(scanKey(scan(4, { perMinute: 2, leftMs: 180_000 })), scanKey(scan(4, { perMinute: 2, leftMs: 120_000 })));
    assert.equal(scanKey(scan(4, { perMinute: 2, leftMs: 180_000 })), scanKey(scan(4, { perMinute: 2.1, leftMs: 181_000 })), 'not when it reads the same');
  });
});
