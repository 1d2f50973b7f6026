/** A running scan's pace and time left (core/scans/scan-pace.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { leftText, rateText, scanPace } from '../../../../src/core/scans/scan-pace.js';

describe('a scan\'s pace', () => {
  test('none before a page is done, or before its first page started', () => {
    assert.equal(scanPace({ done: 0, left: 10, firstStarted: 0, now: 60_000 }), undefined);
    assert.equal(scanPace({ done: 3, left: 7, firstStarted: null, now: 60_000 }), undefined);
  });

  test('pages done a minute since the first page started, and the pages left at that pace', () => {
    // 5 pages in 2 minutes: 2.5 a minute; 5 left take 2 minutes.
    const p = scanPace({ done: 5, left: 5, firstStarted: 1_000, now: 121_000 })!;
    assert.equal(p.perMinute, 2.5);
    assert.equal(p.leftMs, 120_000);
    assert.equal(rateText(p), '2.5 pages a minute');
    assert.equal(leftText(p), 'about 2 min left');
    assert.equal(rateText({ perMinute: 1, leftMs: 0 }), '1 page a minute');
    assert.equal(rateText({ perMinute: 23.4, leftMs: 0 }), '23 pages a minute');
    assert.equal(scanPace({ done: 10, left: 0, firstStarted: 0, now: 60_000 })!.leftMs, 0, 'nothing left');
  });
});
