/**
 * The one definition of "the network is doing something", used live while the load runs (load-wait.ts,
 * which holds the load open until the network has been quiet for NETWORK_QUIET_MS after onload) and
 * afterwards on the devtools log (capture/network.ts, which finds the fully loaded time), so both agree.
 *
 * A request the connection guard refused (a non-public address) is not activity: it never left the machine,
 * and a hostile page that keeps trying (a fetch loop to 127.0.0.1) must not hold the load open until its time
 * limit. Refusal is only known when the request fails, so a request's events count once it is past the
 * point where it could still be refused (a response, or any other outcome than the guard's refusal).
 * Requests that never touch the network (data:, blob:, about: URLs) are not activity either.
 */

/** Fully loaded: the last network activity before this much silence after onload (the spec's 2 s). */
export const NETWORK_QUIET_MS = 2000;

/** Network events that mean activity (ExtraInfo events carry no timestamp and are left out). */
export const ACTIVITY_EVENTS = [
  'Network.requestWillBeSent', 'Network.responseReceived', 'Network.dataReceived', 'Network.loadingFinished',
  'Network.loadingFailed', 'Network.webSocketFrameSent', 'Network.webSocketFrameReceived',
  'Network.eventSourceMessageReceived',
] as const;
const ACTIVITY = new Set<string>(ACTIVITY_EVENTS);

/** Whether a request of this URL goes over the network at all (data:, blob:, about: and the like do not). */
export const usesNetwork = (url: string): boolean => /^(https?|wss?):/i.test(url);

/** The error Chromium reports when the SOCKS proxy (the connection guard) refused the connection. */
export const GUARD_REFUSAL_ERRORS = new Set(['net::ERR_SOCKS_CONNECTION_FAILED', 'net::ERR_SOCKS_CONNECTION_HOST_UNREACHABLE']);

/**
 * Feeds on network events in order and calls `count(time)` for each one that is activity. Events of a request
 * that has not got a response yet wait until its outcome is known.
 */
export class NetworkActivity {
  private readonly waiting = new Map<string, number[]>();
  private readonly local = new Set<string>();

  constructor(private readonly count: (time: number) => void) {}

  event(method: string, params: { requestId?: unknown; errorText?: unknown; redirectResponse?: unknown; request?: unknown },
    time: number): void {
    if (!ACTIVITY.has(method)) return;
    const id = typeof params.requestId === 'string' ? params.requestId : undefined;
    if (id === undefined) return this.count(time);
    if (this.local.has(id)) return;
    const waiting = this.waiting.get(id);
    if (method === 'Network.requestWillBeSent') {
      const url = (params.request as { url?: unknown } | undefined)?.url;
      if (typeof url === 'string' && !usesNetwork(url)) {
        this.local.add(id);
        return;
      }
      // A redirect hop: the response that redirected was real activity; the new hop may still be refused.
      if (waiting && params.redirectResponse) this.settle(id);
      const times = this.waiting.get(id) ?? [];
      times.push(time);
      this.waiting.set(id, times);
      return;
    }
    if (method === 'Network.loadingFailed' && typeof params.errorText === 'string' && GUARD_REFUSAL_ERRORS.has(params.errorText)) {
      this.waiting.delete(id);
      return;
    }
    if (waiting) this.settle(id);
    this.count(time);
  }

  /** Counts the events still waiting (their requests are in flight and were not refused). */
  flush(): void {
    for (const id of [...this.waiting.keys()]) this.settle(id);
  }

  /** The latest time among events still waiting for their request's outcome (-Infinity if none). */
  latestWaiting(): number {
    let latest = -Infinity;
    for (const times of this.waiting.values()) latest = Math.max(latest, ...times);
    return latest;
  }

  private settle(id: string): void {
    for (const t of this.waiting.get(id) ?? []) this.count(t);
    this.waiting.delete(id);
  }
}

/**
 * The end of the load by the quiet rule: the last activity before the first NETWORK_QUIET_MS of silence
 * after `onloadEnd` (same unit as the times, seconds here).
 */
export function lastActivityBeforeQuiet(times: number[], onloadEnd: number, quietSeconds = NETWORK_QUIET_MS / 1000): number {
  const after = times.filter((t) => t > onloadEnd).sort((a, b) => a - b);
  let last = onloadEnd;
  for (const t of after) {
    if (t - last >= quietSeconds) break;
    last = t;
  }
  return last;
}
