/**
 * Facts read straight from the devtools log of the load (the protocol's own timestamps): the main document
 * and its redirect chain, and when the network went quiet.
 */
import type { DevtoolsLog } from 'lighthouse';
import { lastActivityBeforeQuiet, NetworkActivity } from '../network-activity.js';

interface Message {
  method: string;
  params: Record<string, unknown>;
  targetType?: string;
}

export interface MainDocument {
  requestId: string;
  /** URLs of the chain, first requested to final. */
  urls: string[];
  status?: number;
  statusText?: string;
  /** Monotonic seconds when the first request of the chain was sent. */
  startTime: number;
  /** The same moment on the epoch clock (seconds). */
  wallTime: number;
}

function messages(log: DevtoolsLog): Message[] {
  return log as unknown as Message[];
}

/** The main frame's navigation request: the first Document request of the page target. */
export function findMainDocument(log: DevtoolsLog, mainFrameId: string): MainDocument | undefined {
  let doc: MainDocument | undefined;
  for (const { method, params, targetType } of messages(log)) {
    if (targetType !== undefined && targetType !== 'page') continue; // iframes/workers attached by Lighthouse
    if (method === 'Network.requestWillBeSent') {
      const p = params as { requestId: string; type?: string; frameId?: string; timestamp: number; wallTime: number; request: { url: string } };
      if (!doc && p.type === 'Document' && p.frameId === mainFrameId && !p.request.url.startsWith('about:')) {
        doc = { requestId: p.requestId, urls: [p.request.url], startTime: p.timestamp, wallTime: p.wallTime };
      } else if (doc && p.requestId === doc.requestId) {
        doc.urls.push(p.request.url); // a redirect hop keeps the request id
      }
    } else if (method === 'Network.responseReceived' && doc && params.requestId === doc.requestId) {
      const r = params.response as { status: number; statusText: string };
      doc.status = r.status;
      doc.statusText = r.statusText;
    }
  }
  return doc;
}

/**
 * Navigation start on the protocol's monotonic clock (seconds), from the page's time origin (epoch ms): the main
 * document's request was stamped on both clocks at once. What Lighthouse's trace says when there is no trace.
 */
export function navigationStartOf(doc: MainDocument, timeOriginMs: number): number {
  return doc.startTime - (doc.wallTime - timeOriginMs / 1000);
}

/** Request ids sent no later than `until` (monotonic seconds). */
export function requestsStartedBy(log: DevtoolsLog, until: number): Set<string> {
  const ids = new Set<string>();
  for (const { method, params } of messages(log)) {
    if (method === 'Network.requestWillBeSent' && (params.timestamp as number) <= until) {
      ids.add(params.requestId as string);
    }
  }
  return ids;
}

/**
 * "Fully loaded": the last network activity before the first 2 s of network silence that follows the end
 * of onload (monotonic seconds). The load wait (load-wait.ts) applies the same rule live, so the log
 * always reaches that silence unless the load hit its time limit. Both read activity through
 * network-activity.ts.
 */
export function fullyLoadedTime(log: DevtoolsLog, onloadEnd: number): number {
  const times: number[] = [];
  const activity = new NetworkActivity((t) => times.push(t));
  for (const m of messages(log)) {
    if (typeof m.params.timestamp === 'number') activity.event(m.method, m.params, m.params.timestamp);
  }
  activity.flush();
  return lastActivityBeforeQuiet(times, onloadEnd);
}

/**
 * Bytes a request received before its final response's headers, by request id: the answered 401 (or 407)
 * challenge of an HTTP-authenticated request, or 1xx interim responses. Chromium sends no events for the
 * challenge: it only shows as `encodedDataLength` at responseReceived (all bytes so far) exceeding the final
 * headers (`headersText` of the ExtraInfo, HTTP/1.x only; over HTTP/2 and 3 it cannot be told apart).
 */
export function bytesBeforeFinalResponse(log: DevtoolsLog): Map<string, number> {
  const headersText = new Map<string, number>();
  const atHeaders = new Map<string, number>();
  for (const { method, params } of messages(log)) {
    const id = params.requestId as string;
    if (method === 'Network.responseReceivedExtraInfo' && typeof params.headersText === 'string') {
      headersText.set(id, Buffer.byteLength(params.headersText));
    } else if (method === 'Network.responseReceived') {
      const n = (params.response as { encodedDataLength?: number }).encodedDataLength;
      if (typeof n === 'number') atHeaders.set(id, n);
    }
  }
  const before = new Map<string, number>();
  for (const [id, total] of atHeaders) {
    const own = headersText.get(id);
    if (own !== undefined && total > own) before.set(id, total - own);
  }
  return before;
}
