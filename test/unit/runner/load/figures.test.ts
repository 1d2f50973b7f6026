/**
 * The load's figures (runner/load/figures.ts), pure steps of a load: where the load ends on the protocol clock, the
 * run's metrics in the report's units, and its warnings.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DevtoolsLog } from 'lighthouse';
import type { PageTimings } from '../../../../src/runner/capture/timings.js';
import type { RefusedConnection } from '../../../../src/runner/conditions/connection-guard.js';
import { loadEnd, refusedConnectionsWarning, runMetrics, runWarnings, type MetricsInput } from '../../../../src/runner/load/figures.js';

describe('loadEnd: where the load ends, on the protocol clock', () => {
  const request = (id: string, sent: number, done: number, url = `https://site.example/${id}`) => [
    { method: 'Network.requestWillBeSent', params: { requestId: id, timestamp: sent, request: { url } } },
    { method: 'Network.loadingFinished', params: { requestId: id, timestamp: done } },
  ];
  const log = [
    ...request('1', 100.0, 100.4),
    ...request('2', 101.6, 101.8),
    ...request('3', 102.0, 102.5),
    // Refused by the connection guard: never left the machine, not activity.
    { method: 'Network.requestWillBeSent', params: { requestId: '4', timestamp: 103.0, request: { url: 'http://10.0.0.1/' } } },
    { method: 'Network.loadingFailed', params: { requestId: '4', timestamp: 103.1, errorText: 'net::ERR_SOCKS_CONNECTION_FAILED' } },
    // After 2 s of silence: not part of the load.
    ...request('5', 104.9, 105.0),
  ] as unknown as DevtoolsLog;

  test('fully loaded: the last activity before 2 s of silence after onload', () => {
    assert.deepEqual(loadEnd({ devtoolsLog: log, navStart: 100, loadEventEnd: 1500, stopOnload: false }),
      { at: 102.5, endMs: 2500 });
  });

  test('with stop_onload, the end of onload', () => {
    assert.deepEqual(loadEnd({ devtoolsLog: log, navStart: 100, loadEventEnd: 1500, stopOnload: true }),
      { at: 101.5, endMs: 1500 });
  });
});

describe('runMetrics: the run\'s figures', () => {
  const timings: PageTimings = {
    timeOrigin: 1_700_000_000_000, url: 'https://site.example/', responseStart: 180.4, domInteractive: 420.2,
    domContentLoadedEventStart: 430, domContentLoadedEventEnd: 436.6, loadEventStart: 900.2, loadEventEnd: 905.7,
    firstPaint: -1, firstContentfulPaint: 510.5, firstPaintRendered: -1, firstContentfulPaintRendered: 470.1,
  };
  const input: MetricsInput = {
    har: { html_bytes: 5120, page_bytes: 81_920, page_requests: 12, redirect_duration: 0, connect_duration: 35,
      backend_duration: 120 },
    timings, authChallengeMs: 0, loadEndMs: 2500, stopOnload: false, rumSpeedIndex: 640,
    lighthouse: { speed_index: 700, performance_score: 97 },
  };

  test('HAR, page timings, fully loaded, RUM SpeedIndex and Lighthouse\'s, in the report\'s units', () => {
    assert.deepEqual(runMetrics(input), {
      html_bytes: 5120, page_bytes: 81_920, page_requests: 12, redirect_duration: 0, connect_duration: 35,
      backend_duration: 120,
      time_to_first_byte: 180, first_paint_time: 511, first_contentful_paint: 511, dom_interactive_time: 420,
      dom_content_loaded_time: 430, dom_content_loaded_duration: 7, onload_time: 900, onload_duration: 6,
      fully_loaded_time: 2500, rum_speed_index: 640, speed_index: 700, performance_score: 97,
    });
  });

  test('fully loaded is never before the end of onload; -1 with stop_onload', () => {
    assert.equal(runMetrics({ ...input, loadEndMs: 880 }).fully_loaded_time, 906);
    assert.equal(runMetrics({ ...input, stopOnload: true }).fully_loaded_time, -1);
  });

  test('the time to first byte is the authorized response\'s, never below 0', () => {
    assert.equal(runMetrics({ ...input, authChallengeMs: 60 }).time_to_first_byte, 120);
    assert.equal(runMetrics({ ...input, authChallengeMs: 500 }).time_to_first_byte, 0);
  });
});

describe('the run\'s warnings', () => {
  const refusal = (host: string, address: string, reason: RefusedConnection['reason'] = 'non-public'): RefusedConnection =>
    ({ host, port: 80, reason, kind: 'private', address });

  test('refused private connections: the count of all, up to five hosts named once each', () => {
    const refused = [refusal('a.internal', '10.0.0.0'), refusal('b.internal', '10.0.0.1'),
      refusal('a.internal', '10.0.0.0'), // the same host and address again: named once
      refusal('c.internal', '10.0.0.3'), refusal('d.internal', '10.0.0.4'), refusal('e.internal', '10.0.0.5'),
      refusal('f.internal', '10.0.0.6')];
    assert.equal(refusedConnectionsWarning({ refused, refusedCount: 250 }),
      '250 connection(s) of the page to private or local addresses were refused: a.internal (private address 10.0.0.0), ' +
      'b.internal (private address 10.0.0.1), c.internal (private address 10.0.0.3), d.internal (private address 10.0.0.4), ' +
      'e.internal (private address 10.0.0.5), …');
    assert.equal(refusedConnectionsWarning({ refused: refused.slice(0, 2), refusedCount: 2 }),
      '2 connection(s) of the page to private or local addresses were refused: a.internal (private address 10.0.0.0), ' +
      'b.internal (private address 10.0.0.1)');
  });

  test('refusals of other kinds (after the load, unresolved hosts) are no warning', () => {
    assert.equal(refusedConnectionsWarning({ refused: [refusal('x.example', '', 'sealed'), refusal('y.example', '', 'unresolved')],
      refusedCount: 2 }), undefined);
  });

  test('in order: the load\'s, Lighthouse\'s (as strings), the refused connections, the load wait\'s', () => {
    const load = ['The cookie "a" could not be set'];
    const warnings = runWarnings({
      load,
      lighthouse: ['Lighthouse warning', { toString: () => 'a formatted message' }],
      guard: { refused: [refusal('db.internal', '10.1.2.3')], refusedCount: 1 },
      loadWait: ['The network did not go quiet within 18 s'],
    });
    assert.deepEqual(warnings, [
      'The cookie "a" could not be set',
      'Lighthouse warning',
      'a formatted message',
      '1 connection(s) of the page to private or local addresses were refused: db.internal (private address 10.1.2.3)',
      'The network did not go quiet within 18 s',
    ]);
    assert.deepEqual(load, ['The cookie "a" could not be set'], 'the load\'s list is not changed');
    assert.deepEqual(runWarnings({ load: [], lighthouse: [], guard: { refused: [], refusedCount: 0 }, loadWait: [] }), []);
  });
});

