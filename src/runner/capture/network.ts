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
  remoteIPAddress?: string;
  /** Monotonic seconds when the first request of the chain was sent. */
  startTime: number;
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
      const p = params as { requestId: string; type?: string; frameId?: string; timestamp: number; request: { url: string } };
      if (!doc && p.type === 'Document' && p.frameId === mainFrameId && !p.request.url.startsWith('about:')) {
        doc = { requestId: p.requestId, urls: [p.request.url], startTime: p.timestamp };
      } else if (doc && p.requestId === doc.requestId) {
        doc.urls.push(p.request.url); // a redirect hop keeps the request id
      }
    } else if (method === 'Network.responseReceived' && doc && params.requestId === doc.requestId) {
      const r = params.response as { status: number; statusText: string; remoteIPAddress?: string };
      doc.status = r.status;
      doc.statusText = r.statusText;
      doc.remoteIPAddress = r.remoteIPAddress;
    }
  }
  return doc;
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
