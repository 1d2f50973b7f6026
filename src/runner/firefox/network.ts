/**
 * The network of a Firefox load, from the WebDriver BiDi network events (beforeRequestSent, responseStarted,
 * responseCompleted, fetchError) as the browser sends them: each request's hops with Firefox's own timings
 * (FetchTimingInfo: epoch ms), sizes and protocol. From it: the load's activity for the quiet rule
 * (network-activity.ts, the same rule as Chromium's), the main document, and a HAR 1.2 of the same shape
 * chrome-har gives (capture/har.ts), to which the guard's addresses and lookups are added as for Chromium.
 * BiDi carries no remote address, and under the guard's remote DNS Firefox sees no DNS phase: both come from the
 * connection guard (har.ts applyGuardConnections). Requests that touch no network (data:, blob:, about:) are left out.
 */
import { NetworkActivity } from '../network-activity.js';
import type { Har, HarEntry, HarHeader } from '../capture/har.js';

interface BidiHeader { name: string; value: { type: 'string' | 'base64'; value: string } }
/** FetchTimingInfo: epoch ms, 0 when the phase did not happen; Firefox adds tlsEnd. */
interface BidiTimings {
  requestTime: number; redirectStart: number; redirectEnd: number; fetchStart: number; dnsStart: number; dnsEnd: number;
  connectStart: number; connectEnd: number; tlsStart: number; tlsEnd?: number; requestStart: number; responseStart: number;
  responseEnd: number;
}
interface BidiRequest {
  request: string; url: string; method: string; headers: BidiHeader[]; headersSize: number; bodySize: number | null;
  destination?: string; initiatorType?: string | null; timings: BidiTimings;
}
interface BidiResponse {
  url: string; protocol: string; status: number; statusText: string; fromCache: boolean; headers: BidiHeader[];
  mimeType: string; bytesReceived: number; headersSize: number | null; bodySize: number | null; content: { size: number | null };
}
export interface BidiNetworkEvent {
  context: string | null;
  navigation: string | null;
  redirectCount: number;
  request: BidiRequest;
  timestamp: number;
  isBlocked: boolean;
  response?: BidiResponse;
  errorText?: string;
}

/** One hop of a request (a redirect makes a new hop of the same request id). */
interface Hop {
  id: string;
  redirectCount: number;
  context: string | null;
  request: BidiRequest;
  response?: BidiResponse;
  error?: string;
  completed: boolean;
}

/**
 * Firefox's errors when the connection guard (the SOCKS proxy, the only peer Firefox connects to) answered a
 * connection with a failure: refused by the policy, a host without address, or an upstream that would not connect
 * (Firefox reports a SOCKS failure as a refused connection, a host the proxy could not resolve as an unknown host).
 * Not network activity (network-activity.ts), and explained by the guard's ledger, as Chromium's ERR_SOCKS_* are.
 */
export const GUARD_REFUSALS = new Set(['NS_ERROR_CONNECTION_REFUSED', 'NS_ERROR_UNKNOWN_HOST', 'NS_ERROR_NET_TIMEOUT',
  'NS_ERROR_PROXY_CONNECTION_REFUSED', 'NS_ERROR_UNKNOWN_PROXY_HOST', 'NS_ERROR_PROXY_FORBIDDEN', 'NS_ERROR_SOCKS_CONNECTION_FAILED',
  'NS_ERROR_SOCKS_HOST_UNREACHABLE', 'NS_ERROR_SOCKS_NOT_ALLOWED']);

export const NETWORK_EVENTS = ['network.beforeRequestSent', 'network.responseStarted', 'network.responseCompleted',
  'network.fetchError'] as const;

const isNetworkUrl = (url: string): boolean => /^(https?|wss?):/i.test(url);

/** The protocol's resource type (chrome-har's `_resourceType`, lower case), from the request's destination. */
export function resourceType(r: Pick<BidiRequest, 'destination' | 'initiatorType'>): string {
  switch (r.destination) {
    case 'document': case 'iframe': case 'frame': return 'document';
    case 'script': case 'worker': case 'sharedworker': case 'serviceworker': case 'audioworklet': case 'paintworklet': return 'script';
    case 'style': return 'stylesheet';
    case 'image': return 'image';
    case 'font': return 'font';
    case 'audio': case 'video': case 'track': return 'media';
    case 'manifest': return 'manifest';
    default: break;
  }
  if (r.initiatorType === 'fetch') return 'fetch';
  if (r.initiatorType === 'xmlhttprequest') return 'xhr';
  if (r.initiatorType === 'beacon') return 'ping';
  return 'other';
}

const headerList = (headers: BidiHeader[] | undefined): HarHeader[] => (headers ?? []).map((h) => ({
  name: h.name, value: h.value.type === 'base64' ? Buffer.from(h.value.value, 'base64').toString('latin1') : h.value.value,
}));

export class FirefoxNetwork {
  private readonly hops = new Map<string, Hop>();
  /** Activity times (epoch ms), by the quiet rule's definition (network-activity.ts). */
  readonly activityTimes: number[] = [];
  private readonly activity = new NetworkActivity((t) => this.activityTimes.push(t));
  private mainId: string | undefined;
  /** Called when the main document's final response or failure is known. */
  onMainDocument: (hop: { status?: number; statusText?: string; error?: string; url: string }) => void = () => undefined;

  constructor(private readonly topContext: string) {}

  /** Feeds one raw BiDi event (the order the browser sent them in). */
  event(method: string, e: BidiNetworkEvent): void {
    const { request } = e;
    const key = `${request.request}:${e.redirectCount}`;
    const t = request.timings;
    const now = Date.now();
    if (method === 'network.beforeRequestSent') {
      if (this.hops.has(key)) return; // sent again after an auth challenge: the same hop
      this.hops.set(key, { id: request.request, redirectCount: e.redirectCount, context: e.context, request, completed: false });
      if (this.mainId === undefined && e.context === this.topContext && request.destination === 'document' && isNetworkUrl(request.url)) {
        this.mainId = request.request;
      }
      this.feed('Network.requestWillBeSent', request, { redirectResponse: e.redirectCount > 0 ? {} : undefined },
        t.requestTime || now);
      return;
    }
    const hop = this.hops.get(key);
    if (!hop) return;
    hop.request = request;
    if (method === 'network.fetchError') {
      hop.error = e.errorText ?? 'NS_ERROR_FAILURE';
      hop.completed = true;
      // A refusal of the guard is not activity (network-activity.ts).
      const errorText = GUARD_REFUSALS.has(hop.error) ? 'net::ERR_SOCKS_CONNECTION_FAILED' : hop.error;
      this.feed('Network.loadingFailed', request, { errorText }, now);
    } else {
      hop.response = e.response;
      const completed = method === 'network.responseCompleted';
      hop.completed ||= completed;
      const at = completed ? Math.max(t.responseEnd, t.responseStart) : t.responseStart;
      this.feed(completed ? 'Network.loadingFinished' : 'Network.responseReceived', request, {}, at || now);
    }
    if (hop.id === this.mainId && hop.completed && !this.redirected(hop)) {
      this.onMainDocument({ status: hop.response?.status, statusText: hop.response?.statusText, error: hop.error, url: request.url });
    }
  }

  private redirected(hop: Hop): boolean {
    const status = hop.response?.status ?? 0;
    return status >= 300 && status < 400 && hop.response!.headers.some((h) => h.name.toLowerCase() === 'location');
  }

  private feed(method: string, request: BidiRequest, more: Record<string, unknown>, time: number): void {
    this.activity.event(method, { requestId: request.request, request: { url: request.url }, ...more }, time);
  }

  /** The latest activity so far (epoch ms), counting requests whose outcome is not known yet; -Infinity if none. */
  latestActivity(): number {
    return Math.max(-Infinity, ...this.activityTimes, this.activity.latestWaiting());
  }

  /** The main document's request id (its redirect hops share it). */
  get mainRequestId(): string | undefined {
    return this.mainId;
  }

  /** The main document's final hop: its status, or its error. */
  mainDocument(): { status?: number; statusText?: string; error?: string; url: string } | undefined {
    const hops = [...this.hops.values()].filter((h) => h.id === this.mainId).sort((a, b) => a.redirectCount - b.redirectCount);
    const last = hops.at(-1);
    return last && { status: last.response?.status, statusText: last.response?.statusText, error: last.error, url: last.request.url };
  }

  /** Every activity counted, including requests still in flight (for the end of the load, after it). */
  settledActivity(): number[] {
    this.activity.flush();
    return this.activityTimes;
  }

  /**
   * HAR 1.2 of the hops sent no later than `until` (epoch ms) that got a response (as chrome-har); `decodedSizes` gives
   * the decoded body size by URL (the page's resource timing), which BiDi does not carry in Firefox.
   */
  har(o: { until: number; pageStart: number; title: string; onContentLoad: number; onLoad: number;
    decodedSizes: ReadonlyMap<string, number> }): Har {
    const hops = [...this.hops.values()]
      .filter((h) => isNetworkUrl(h.request.url) && h.request.timings.requestTime <= o.until && h.response)
      .sort((a, b) => a.request.timings.requestTime - b.request.timings.requestTime);
    // The profile is fresh, so a hop from the cache that moved no byte reuses a response this load already fetched
    // (an image the speculative parser preloaded, handed to its <img> by Firefox's image cache, sometimes reported
    // again): the server saw one request, and the HAR has one.
    const fetched = new Set<string>();
    const own = hops.filter((h) => {
      const reused = h.response!.fromCache && !h.response!.bytesReceived && fetched.has(h.request.url);
      if (!h.response!.fromCache) fetched.add(h.request.url);
      return !reused;
    });
    const lastHop = new Map<string, number>();
    for (const h of own) lastHop.set(h.id, Math.max(lastHop.get(h.id) ?? 0, h.redirectCount));
    const entries = own.map((h) => harEntry(h, lastHop.get(h.id)! - h.redirectCount, o.decodedSizes));
    return {
      log: {
        version: '1.2',
        creator: { name: 'webgauge', version: '1' },
        pages: [{ startedDateTime: new Date(o.pageStart).toISOString(), id: 'page_1', title: o.title,
          pageTimings: { onContentLoad: o.onContentLoad, onLoad: o.onLoad } }],
        entries,
      },
    };
  }
}

/** A hop as HAR: `laterHops` redirect hops follow it (chrome-har's id suffix: one `r` per hop to the final one). */
function harEntry(h: Hop, laterHops: number, decodedSizes: ReadonlyMap<string, number>): HarEntry {
  const { request: q, response: r } = h;
  const t = q.timings;
  const start = t.requestTime;
  const since = (a: number, b: number): number => (a > 0 && b > 0 ? Math.max(0, a - b) : 0);
  const connected = t.connectStart > 0;
  const sent = t.requestStart > 0 ? t.requestStart : (connected ? t.connectEnd : start);
  const timings = {
    blocked: since(connected ? t.connectStart : sent, start),
    dns: -1,
    connect: connected ? since(t.connectEnd, t.connectStart) : -1,
    ssl: connected && t.tlsStart > 0 ? since(t.tlsEnd || t.connectEnd, t.tlsStart) : -1,
    send: connected ? since(sent, t.connectEnd) : 0,
    wait: since(t.responseStart, sent),
    receive: since(Math.max(t.responseEnd, t.responseStart), t.responseStart),
  };
  const headers = headerList(r?.headers);
  const location = headers.find((x) => x.name.toLowerCase() === 'location')?.value ?? '';
  const bodySize = r?.bodySize ?? 0;
  const encoded = headers.some((x) => x.name.toLowerCase() === 'content-encoding');
  const decoded = decodedSizes.get(q.url) ?? (encoded ? 0 : bodySize);
  return {
    _requestId: h.id + 'r'.repeat(laterHops),
    _resourceType: resourceType(q),
    startedDateTime: new Date(start).toISOString(),
    time: timings.blocked + Math.max(0, timings.connect) + timings.send + timings.wait + timings.receive,
    request: {
      method: q.method, url: q.url, httpVersion: r?.protocol ?? '', headers: headerList(q.headers), cookies: [],
      headersSize: q.headersSize ?? -1, bodySize: q.bodySize ?? 0, queryString: [],
    },
    response: {
      status: r?.status ?? 0, statusText: r?.statusText ?? '', httpVersion: r?.protocol ?? '', headers, cookies: [],
      redirectURL: location, headersSize: r?.headersSize ?? -1, bodySize, _transferSize: r?.bytesReceived ?? 0,
      content: { size: decoded, mimeType: r?.mimeType ?? '' },
    },
    cache: {},
    timings,
    ...(r?.fromCache ? { _fromCache: 'disk' } : {}),
  } as HarEntry;
}
