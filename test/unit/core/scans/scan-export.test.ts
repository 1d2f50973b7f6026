/** A scan's credits as its screen and the API say them (core/scans/scan-export.ts scanCredits; web/screens/scan-view.ts creditsText). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scanCredits } from '../../../../src/core/scans/scan-export.js';
import { creditsText } from '../../../../src/web/screens/scan-view.js';

const pages = (o: Partial<Record<'total' | 'queued' | 'started' | 'completed' | 'failed' | 'cancelled', number>>) =>
  ({ total: 0, queued: 0, started: 0, completed: 0, failed: 0, cancelled: 0, ...o });

describe('a scan\'s credits: reserved and used', () => {
  test('discovering: max_pages tests\' worth reserved, nothing used', () => {
    assert.deepEqual(scanCredits({ state: 'discovering', reserved_tenths: 500, cost_tenths: 10 }, pages({})), { creditsReserved: 50, creditsUsed: 0 });
  });

  test('running at 5 of 10 pages: 10 reserved, 5 used; a failed or cancelled page is given back', () => {
    const running = scanCredits({ state: 'running', reserved_tenths: 0, cost_tenths: 10 }, pages({ total: 10, queued: 4, started: 1, completed: 5 }));
    assert.deepEqual(running, { creditsReserved: 10, creditsUsed: 5 });
    assert.equal(creditsText(running), '10 reserved, 5 used');
    assert.deepEqual(scanCredits({ state: 'running', reserved_tenths: 0, cost_tenths: 12 }, pages({ total: 10, queued: 3, completed: 5, failed: 1, cancelled: 1 })),
      { creditsReserved: 9.6, creditsUsed: 6 });
  });

  test('finished: what was used is all that is held, said once', () => {
    const done = scanCredits({ state: 'completed', reserved_tenths: 0, cost_tenths: 10 }, pages({ total: 10, completed: 9, failed: 1 }));
    assert.deepEqual(done, { creditsReserved: 9, creditsUsed: 9 });
    assert.equal(creditsText(done), '9 used');
  });
});
