/** The load's network record (runner/capture/network.ts): navigation start on the protocol clock without a trace. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DevtoolsLog } from 'lighthouse';
import { findMainDocument, navigationStartOf } from '../../../../src/runner/capture/network.js';

describe('navigationStartOf: navigation start on the protocol clock without a trace', () => {
  test('the main document\'s request, stamped on both clocks, maps the page\'s time origin onto the monotonic clock', () => {
    const log = [
      { method: 'Network.requestWillBeSent', params: { requestId: 'doc', type: 'Document', frameId: 'main', timestamp: 500.25,
        wallTime: 1_800_000_000.5, request: { url: 'https://site.example/' } } },
    ] as unknown as DevtoolsLog;
    const doc = findMainDocument(log, 'main')!;
    // The page's time origin 4 ms before the request was sent: navigation started at 500.246 on the monotonic clock.
    assert.ok(Math.abs(navigationStartOf(doc, 1_800_000_000_500 - 4) - 500.246) < 1e-6);
  });
});
