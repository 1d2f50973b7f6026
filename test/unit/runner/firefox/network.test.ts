/**
 * The Firefox load's network record (runner/firefox/network.ts) from WebDriver BiDi network events as Firefox sends
 * them: the HAR's phases from FetchTimingInfo, redirect hops as chrome-har names them, what counts as activity for
 * the quiet rule, and the main document's outcome.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FirefoxNetwork, resourceType, type BidiNetworkEvent } from '../../../../src/runner/firefox/network.js';
import { harFigures } from '../../../../src/runner/capture/har.js';
import { firefoxErrorCode } from '../../../../src/runner/firefox/load.js';

const T0 = 1_800_000_000_000;
const TOP = 'top-context';

function timings(o: Partial<Record<string, number>>): BidiNetworkEvent['request']['timings'] {
  return { requestTime: T0, redirectStart: 0, redirectEnd: 0, fetchStart: 0, dnsStart: 0, dnsEnd: 0, connectStart: 0, connectEnd: 0,
    tlsStart: 0, requestStart: 0, responseStart: 0, responseEnd: 0, ...o } as BidiNetworkEvent['request']['timings'];
}
const header = (name: string, value: string) => ({ name, value: { type: 'string' as const, value } });

function event(id: string, url: string, o: { redirectCount?: number; destination?: string; t: Partial<Record<string, number>>;
  status?: number; headers?: [string, string][]; bytes?: number; body?: number; error?: string; context?: string | null }): BidiNetworkEvent {
  return {
    context: o.context === undefined ? TOP : o.context, navigation: null, redirectCount: o.redirectCount ?? 0, timestamp: T0, isBlocked: false,
    request: { request: id, url, method: 'GET', headers: [header('Accept', '*/*')], headersSize: 100, bodySize: 0,
      destination: o.destination ?? '', initiatorType: null, timings: timings(o.t) },
    ...(o.status !== undefined ? { response: { url, protocol: 'http/1.1', status: o.status, statusText: 'OK', fromCache: false,
      headers: (o.headers ?? []).map(([n, v]) => header(n, v)), mimeType: 'text/html', bytesReceived: o.bytes ?? 0, headersSize: 150,
      bodySize: o.body ?? 0, content: { size: 0 } } } : {}),
    ...(o.error ? { errorText: o.error } : {}),
  };
}

describe('the network of a Firefox load', () => {
  test('a redirected document: hops named as chrome-har names them, phases from Firefox\'s timings, the figures of the final hop', () => {
    const n = new FirefoxNetwork(TOP);
    const hop1 = { redirectCount: 0, destination: 'document', t: { requestTime: T0, connectStart: T0 + 10, connectEnd: T0 + 30,
      requestStart: T0 + 30, responseStart: T0 + 80, responseEnd: T0 + 81 } };
    n.event('network.beforeRequestSent', event('1', 'http://a.test/', hop1));
    n.event('network.responseCompleted', event('1', 'http://a.test/', { ...hop1, status: 302, headers: [['Location', '/b']], bytes: 120 }));
    const hop2 = { redirectCount: 1, destination: 'document', t: { requestTime: T0 + 90, requestStart: T0 + 95, responseStart: T0 + 300,
      responseEnd: T0 + 320 } };
    n.event('network.beforeRequestSent', event('1', 'http://a.test/b', hop2));
    let main: unknown;
    n.onMainDocument = (doc) => (main = doc);
    n.event('network.responseCompleted', event('1', 'http://a.test/b', { ...hop2, status: 200, bytes: 3150, body: 3000 }));
    assert.deepEqual(main, { status: 200, statusText: 'OK', error: undefined, url: 'http://a.test/b' });
    assert.equal(n.mainRequestId, '1');

    const har = n.har({ until: T0 + 1000, pageStart: T0, title: 't', onContentLoad: 1, onLoad: 2, decodedSizes: new Map([['http://a.test/b', 9000]]) });
    assert.deepEqual(har.log.entries.map((e) => e._requestId), ['1r', '1']);
    const [first, final] = har.log.entries;
    assert.deepEqual(first!.timings, { blocked: 10, dns: -1, connect: 20, ssl: -1, send: 0, wait: 50, receive: 1 });
    assert.deepEqual(final!.timings, { blocked: 5, dns: -1, connect: -1, ssl: -1, send: 0, wait: 205, receive: 20 });
    assert.equal((first!.response as { redirectURL?: string }).redirectURL, '/b');
    assert.deepEqual([final!.response._transferSize, final!.response.bodySize, final!.response.content.size], [3150, 3000, 9000]);
    assert.deepEqual(harFigures(har, n.mainRequestId), { html_bytes: 3150, page_bytes: 3270, page_requests: 2, redirect_duration: 90,
      connect_duration: 0, backend_duration: 205 });
  });

  test('requests that touch no network, failed ones and those sent after the load are not in the HAR', () => {
    const n = new FirefoxNetwork(TOP);
    n.event('network.beforeRequestSent', event('1', 'data:,', { t: {} }));
    n.event('network.responseCompleted', event('1', 'data:,', { t: {}, status: 200 }));
    n.event('network.beforeRequestSent', event('2', 'http://a.test/x.js', { destination: 'script', t: {} }));
    n.event('network.fetchError', event('2', 'http://a.test/x.js', { t: {}, error: 'NS_ERROR_ABORT' }));
    n.event('network.beforeRequestSent', event('3', 'http://a.test/late', { t: { requestTime: T0 + 5000 } }));
    n.event('network.responseCompleted', event('3', 'http://a.test/late', { t: { requestTime: T0 + 5000 }, status: 200 }));
    assert.deepEqual(n.har({ until: T0 + 4000, pageStart: T0, title: '', onContentLoad: 0, onLoad: 0, decodedSizes: new Map() }).log.entries, []);
  });

  test('an image fetched once and handed out again from the cache (a preload reused) is one request, as the server saw', () => {
    const n = new FirefoxNetwork(TOP);
    const img = { destination: 'image', t: { requestTime: T0 + 10, requestStart: T0 + 11, responseStart: T0 + 20, responseEnd: T0 + 30 } };
    n.event('network.beforeRequestSent', event('5', 'http://a.test/image.jpg', img));
    n.event('network.responseCompleted', event('5', 'http://a.test/image.jpg', { ...img, status: 200, bytes: 32_920, body: 32_768 }));
    const again = { destination: 'image', t: { requestTime: T0 + 40 } };
    n.event('network.beforeRequestSent', event('3', 'http://a.test/image.jpg', again));
    const cached = event('3', 'http://a.test/image.jpg', { ...again, status: 200 });
    cached.response!.fromCache = true;
    n.event('network.responseCompleted', cached);
    // A cache hit of a URL the load never fetched (none in a fresh profile) stays: nothing is hidden that has no twin.
    const lone = event('7', 'http://a.test/other.jpg', { destination: 'image', t: { requestTime: T0 + 50 }, status: 200 });
    lone.response!.fromCache = true;
    n.event('network.beforeRequestSent', event('7', 'http://a.test/other.jpg', { destination: 'image', t: { requestTime: T0 + 50 } }));
    n.event('network.responseCompleted', lone);
    const har = n.har({ until: T0 + 4000, pageStart: T0, title: '', onContentLoad: 0, onLoad: 0, decodedSizes: new Map() });
    assert.deepEqual(har.log.entries.map((e) => [e.request.url, e._requestId]),
      [['http://a.test/image.jpg', '5'], ['http://a.test/other.jpg', '7']]);
  });

  test('a connection the guard refused is not network activity; any other outcome is, at Firefox\'s own times', () => {
    const n = new FirefoxNetwork(TOP);
    n.event('network.beforeRequestSent', event('1', 'http://10.0.0.1/', { t: { requestTime: T0 + 100 } }));
    assert.equal(n.latestActivity(), T0 + 100, 'in flight: it may still be refused, so it holds the load open');
    n.event('network.fetchError', event('1', 'http://10.0.0.1/', { t: { requestTime: T0 + 100 }, error: 'NS_ERROR_CONNECTION_REFUSED' }));
    assert.equal(n.latestActivity(), -Infinity);
    n.event('network.beforeRequestSent', event('2', 'http://a.test/', { t: { requestTime: T0 + 200 } }));
    n.event('network.responseCompleted', event('2', 'http://a.test/', { t: { requestTime: T0 + 200, responseStart: T0 + 250, responseEnd: T0 + 400 }, status: 200 }));
    assert.equal(n.latestActivity(), T0 + 400);
    assert.deepEqual(n.settledActivity(), [T0 + 200, T0 + 400]);
  });

  test('Firefox\'s errors read as Chromium\'s; a SOCKS failure is the guard\'s to explain', () => {
    assert.equal(firefoxErrorCode('NS_ERROR_CONNECTION_REFUSED'), 'net::ERR_SOCKS_CONNECTION_FAILED');
    assert.equal(firefoxErrorCode('NS_ERROR_UNKNOWN_HOST'), 'net::ERR_SOCKS_CONNECTION_FAILED');
    assert.equal(firefoxErrorCode('SEC_ERROR_UNKNOWN_ISSUER'), 'net::ERR_CERT_AUTHORITY_INVALID');
    assert.equal(firefoxErrorCode('NS_ERROR_SOMETHING_NEW'), 'net::NS_ERROR_SOMETHING_NEW');
  });

  test('resource types from the request\'s destination, as chrome-har names them', () => {
    assert.deepEqual([resourceType({ destination: 'style' }), resourceType({ destination: 'iframe' }), resourceType({ destination: '', initiatorType: 'fetch' }),
      resourceType({ destination: '', initiatorType: 'xmlhttprequest' }), resourceType({ destination: 'video' })],
    ['stylesheet', 'document', 'fetch', 'xhr', 'media']);
  });
});
