/**
 * The runner's phases (runner/load/): the pure steps of a load, each alone: the plan of a load, the Lighthouse-error
 * translation, the HAR fix-up from the connection guard's ledger, the load's end, the metrics, the warnings, the phase
 * timer and the run's deadline.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DevtoolsLog } from 'lighthouse';
import { RunError, type RunSpec } from '../../../../src/runner/types.js';
import { lighthouseFailure, lighthouseRuntimeFailure, type LoadStanding } from '../../../../src/runner/failures.js';
import { applyGuardConnections, type Har, type HarEntry, type GuardLookups } from '../../../../src/runner/capture/har.js';
import { paintsAsShown, type PageTimings } from '../../../../src/runner/capture/timings.js';
import type { RefusedConnection } from '../../../../src/runner/conditions/connection-guard.js';
import { findMainDocument, navigationStartOf } from '../../../../src/runner/capture/network.js';
import { loadEnd, refusedConnectionsWarning, runMetrics, runWarnings, type MetricsInput } from '../../../../src/runner/load/figures.js';
import { loadWaitLimit, PhaseTimer, planLoad } from '../../../../src/runner/load/context.js';
import { RunDeadline } from '../../../../src/runner/load/deadline.js';
import { LaunchAhead, type LaunchSettings } from '../../../../src/runner/launch-ahead.js';
import { TargetPolicy } from '../../../../src/net/policy.js';

/** A LighthouseError as Lighthouse throws it: an Error with a `code` and a `friendlyMessage`. */
function lighthouseError(code: string): Error {
  return Object.assign(new Error(code), { code, friendlyMessage: `friendly ${code}` });
}

describe('lighthouseFailure: an error of Lighthouse\'s in the words the user reads', () => {
  const standing = (over: Partial<LoadStanding> = {}): LoadStanding =>
    ({ mainDocumentResponded: true, url: 'https://slow.example:8443/page', maxWaitMs: 30_000, ...over });

  test('PAGE_HUNG before the main document responded: the server did not respond, named with its host and port', () => {
    const err = lighthouseFailure(lighthouseError('PAGE_HUNG'), standing({ mainDocumentResponded: false }));
    assert.ok(err instanceof RunError);
    assert.equal(err.message, 'The server at slow.example:8443 did not respond within 30 s');
  });

  test('PAGE_HUNG after the response: the page stopped responding within the load wait\'s limit', () => {
    const err = lighthouseFailure(lighthouseError('PAGE_HUNG'), standing({ maxWaitMs: 18_400 }));
    assert.ok(err instanceof RunError);
    assert.equal(err.message, 'The page did not finish loading within 18 s and stopped responding');
  });

  test('other codes Lighthouse explains become their sentence', () => {
    assert.equal((lighthouseFailure(lighthouseError('NO_FCP'), standing()) as Error).message,
      'The page did not paint any content');
    assert.equal((lighthouseFailure(lighthouseError('DNS_FAILURE'), standing()) as Error).message,
      'The page could not be measured: DNS_FAILURE');
  });

  test('the load\'s own failure, then the run\'s stop, come before Lighthouse\'s code', () => {
    const stopped = new RunError('The test was cancelled');
    const failed = lighthouseFailure(lighthouseError('PAGE_HUNG'),
      standing({ failure: 'The page returned HTTP 503 Service Unavailable', stopped, mainDocumentResponded: false }));
    assert.ok(failed instanceof RunError);
    assert.equal(failed.message, 'The page returned HTTP 503 Service Unavailable');
    assert.equal(lighthouseFailure(lighthouseError('NO_FCP'), standing({ stopped })), stopped);
  });

  test('a RunError, an unknown code and a plain error are left as they are', () => {
    const own = new RunError('The page has no navigation timing (it did not load as a document)');
    assert.equal(lighthouseFailure(own, standing({ failure: 'something else' })), own);
    const unknown = lighthouseError('PROTOCOL_TIMEOUT');
    assert.equal(lighthouseFailure(unknown, standing()), unknown);
    const bug = new TypeError('x is undefined');
    assert.equal(lighthouseFailure(bug, standing()), bug);
  });

  test('a Lighthouse result\'s runtime error', () => {
    assert.equal(lighthouseRuntimeFailure({ code: 'NO_FCP', message: 'x' }, 30_000).message, 'The page did not paint any content');
    assert.equal(lighthouseRuntimeFailure({ code: 'NO_LCP', message: 'No LCP event' }, 30_000).message,
      'The page could not be measured: No LCP event');
    assert.equal(lighthouseRuntimeFailure({ code: 'SOMETHING_NEW', message: 'odd' }, 30_000).message,
      'The page could not be measured: odd');
  });
});

describe('applyGuardConnections: the HAR names what the connection guard did', () => {
  const entry = (url: string, timings: HarEntry['timings'], serverIPAddress = '127.0.0.1'): HarEntry => ({
    startedDateTime: '2024-01-01T00:00:00.000Z', time: 100, serverIPAddress,
    request: { url, headers: [] },
    response: { status: 200, headers: [], bodySize: 10, headersSize: 10, content: { size: 10 } },
    timings,
  });
  const ledger = (addresses: Record<string, string>, lookups: Record<string, number>): GuardLookups => ({
    addressOf: (host) => addresses[host],
    lookupMs: (host) => lookups[host],
  });

  test('the guard\'s address replaces the browser\'s (the guard itself); a host it never reached has none', () => {
    const har: Har = { log: { version: '1.2', pages: [], entries: [
      entry('https://www.example.com/', { dns: -1, connect: 40 }),
      entry('https://cdn.example.net/app.js', { dns: -1, connect: -1 }),
    ] } };
    applyGuardConnections(har, ledger({ 'www.example.com': '93.184.215.14' }, {}));
    assert.equal(har.log.entries[0].serverIPAddress, '93.184.215.14');
    assert.equal('serverIPAddress' in har.log.entries[1], false);
  });

  test('the guard\'s DNS lookup is taken out of the first connect to its host, rounded; later connects keep theirs', () => {
    const har: Har = { log: { version: '1.2', pages: [], entries: [
      entry('https://WWW.Example.com/', { dns: -1, connect: 50 }),
      entry('https://www.example.com/style.css', { dns: -1, connect: 30 }),
      entry('https://img.example.org/a.png', { dns: -1, connect: -1 }), // a reused connection: no connect
      entry('https://img.example.org/b.png', { dns: -1, connect: 25 }),
      entry('https://slow-dns.example/', { dns: -1, connect: 20 }), // a lookup longer than the connect is left alone
    ] } };
    applyGuardConnections(har, ledger(
      { 'www.example.com': '192.0.2.1', 'img.example.org': '192.0.2.2', 'slow-dns.example': '192.0.2.3' },
      { 'www.example.com': 12.4, 'img.example.org': 7.6, 'slow-dns.example': 21 }));
    const t = har.log.entries.map((e) => e.timings);
    assert.deepEqual(t[0], { dns: 12, connect: 38 });
    assert.deepEqual(t[1], { dns: -1, connect: 30 });
    assert.deepEqual(t[2], { dns: -1, connect: -1 });
    assert.deepEqual(t[3], { dns: 8, connect: 17 });
    assert.deepEqual(t[4], { dns: -1, connect: 20 });
    assert.deepEqual(har.log.entries.map((e) => e.serverIPAddress),
      ['192.0.2.1', '192.0.2.1', '192.0.2.2', '192.0.2.2', '192.0.2.3']);
  });
});

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

describe('the load\'s plan, timer and deadline', () => {
  const settings: LaunchSettings = { chromePath: '/usr/bin/chromium', protocolTimeoutMs: 30_000, policy: new TargetPolicy({ allowAll: false, allowTargets: '' }) };
  const spec = (conditions: Record<string, unknown>, ahead?: LaunchAhead): RunSpec => ({
    testId: 't1', options: { url: 'https://site.example/' }, chromePath: settings.chromePath, policy: settings.policy,
    workDir: '/tmp', timeoutMs: 30_000, ahead,
    conditions: { allowUrl: [], blockUrl: [], adblock: false, cookies: [], dns: [], ...conditions },
  }) as unknown as RunSpec;

  test('the load wait\'s limit: 60 % of the run\'s, between 5 and 60 s', () => {
    assert.equal(loadWaitLimit(30_000), 18_000);
    assert.equal(loadWaitLimit(4_000), 5000);
    assert.equal(loadWaitLimit(300_000), 60_000);
  });

  test('a load takes the agent\'s browser launched ahead, unless its interceptor needs frames in one process', () => {
    const ahead = new LaunchAhead(settings);
    const plain = planLoad(spec({}, ahead));
    plain.deadline.dispose();
    assert.equal(plain.ahead, ahead);
    assert.equal(plain.sameProcessFrames, false);
    assert.equal(plain.maxWaitMs, 18_000);
    const blocking = planLoad(spec({ blockUrl: ['*.ads.example'] }, ahead));
    blocking.deadline.dispose();
    assert.equal(blocking.ahead, undefined);
    assert.equal(blocking.sameProcessFrames, true);
    assert.deepEqual(blocking.filters.blockUrl, ['*.ads.example']);
    const otherChrome = planLoad({ ...spec({}, ahead), chromePath: '/opt/chrome' });
    otherChrome.deadline.dispose();
    assert.equal(otherChrome.ahead, undefined);
  });

  test('the phase timer: each phase the time since the previous one, the total since the start', async () => {
    const timer = new PhaseTimer();
    await new Promise((resolve) => setTimeout(resolve, 30));
    timer.end('launch');
    timer.end('setup');
    timer.finish();
    assert.deepEqual(Object.keys(timer.phases), ['launch', 'setup', 'total']);
    assert.ok(timer.phases.launch >= 25, `${timer.phases.launch}`);
    assert.ok(timer.phases.setup < 25, `${timer.phases.setup}`);
    assert.ok(timer.phases.total >= timer.phases.launch);
  });

  test('the run\'s deadline: a cancellation rejects the race with the run\'s error', async () => {
    const abort = new AbortController();
    const deadline = new RunDeadline(abort.signal, 60_000);
    const race = deadline.race(new Promise<never>(() => undefined));
    abort.abort();
    await assert.rejects(race, (err: unknown) => err instanceof RunError && err.message === 'The test was cancelled');
    assert.equal(deadline.error?.message, 'The test was cancelled');
    deadline.dispose();
  });

  test('the run\'s deadline: its time limit, in seconds', async () => {
    const deadline = new RunDeadline(undefined, 1400);
    await assert.rejects(deadline.race(new Promise<never>(() => undefined)),
      (err: unknown) => err instanceof RunError && err.message === 'The test did not finish within 1 s');
    deadline.dispose();
  });
});

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
