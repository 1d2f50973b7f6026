/**
 * HAR 1.2 from Lighthouse's devtools log of the load (chrome-har), with contents trimmed and HTTP auth
 * challenges taken out of the authorized responses, plus the byte/request/timing figures the report takes
 * from it. Credentials and cookie values are removed by core/options/secrets.ts when the HAR is stored.
 */
import { harFromMessages } from 'chrome-har';
import type { DevtoolsLog } from 'lighthouse';
import type { RunMetrics } from '../metrics.js';
import { bytesBeforeFinalResponse } from './network.js';
import { hostname } from '../../analysis/har.js';

export interface HarHeader { name: string; value: string }
export interface HarCookie { name: string; value: string; [k: string]: unknown }
export interface HarTimings { blocked?: number; dns?: number; connect?: number; send?: number; wait?: number;
  receive?: number; ssl?: number }
export interface HarEntry {
  _requestId?: string;
  /**
   * Bytes of the answered HTTP auth challenge (401 and its body) that preceded this response on the wire; not
   * counted in the response's sizes. The challenge's round trip is in `timings.blocked`.
   */
  _authChallengeBytes?: number;
  startedDateTime: string;
  time: number;
  serverIPAddress?: string;
  request: { url: string; headers: HarHeader[]; cookies?: HarCookie[]; postData?: { text?: string } };
  response: {
    status: number;
    headers: HarHeader[];
    cookies?: HarCookie[];
    bodySize: number;
    headersSize: number;
    _transferSize?: number;
    content: { size: number; mimeType?: string; text?: string; encoding?: string };
  };
  timings: HarTimings;
  [k: string]: unknown;
}
export interface Har { log: { version: string; pages: unknown[]; entries: HarEntry[]; [k: string]: unknown } }

const MAX_POST_DATA = 4096;

/**
 * @param spanOfFrame a journey's timespan (no navigation in its log): chrome-har keeps the requests only of a page it
 * saw begin, so the span begins as a page of this (the main) frame
 */
export function buildHar(log: DevtoolsLog, spanOfFrame?: string): Har {
  // Lighthouse's messages carry extra fields (sessionId, targetType); chrome-har only reads method/params.
  const messages = log as unknown as { method: string; params: unknown }[];
  const begun = spanOfFrame === undefined ? messages : [{ method: 'Page.frameStartedLoading', params: { frameId: spanOfFrame } }, ...messages];
  const har = harFromMessages(begun, {
    includeTextFromResponseBody: false, // no bodies in the HAR: they can hold personal data and are large
  }) as unknown as Har;
  const challenges = bytesBeforeFinalResponse(log);
  for (const entry of har.log.entries) {
    trimEntry(entry);
    const challenge = entry._requestId !== undefined ? challenges.get(entry._requestId) : undefined;
    if (challenge) withoutChallenge(entry, challenge);
  }
  return har;
}

/** What the HAR fix-up needs of the connection guard's ledger (conditions/connection-guard.ts GuardLedger). */
export interface GuardLookups {
  /** The address a host's connections went to, once one was made. */
  addressOf(host: string): string | undefined;
  /** How long the guard's one DNS lookup of a host took (ms), if it looked it up. */
  lookupMs(host: string): number | undefined;
}

/**
 * The browser only knows it talked to the connection guard: each entry names the address the guard connected to
 * (none if it connected nowhere), and the guard's DNS lookup of a host, which the browser saw inside its first
 * connect to that host, becomes that entry's `dns` (taken out of its `connect`).
 */
export function applyGuardConnections(har: Har, guard: GuardLookups): void {
  const looked = new Set<string>();
  for (const entry of har.log.entries) {
    const host = hostname(entry.request.url);
    const address = guard.addressOf(host);
    if (address) entry.serverIPAddress = address;
    else delete entry.serverIPAddress;
    const lookup = Math.round(guard.lookupMs(host) ?? 0);
    const t = entry.timings;
    if (!looked.has(host) && t.connect !== undefined && t.connect > 0) {
      looked.add(host);
      if (lookup > 0 && lookup <= t.connect) [t.dns, t.connect] = [lookup, t.connect - lookup];
    }
  }
}

function trimEntry(entry: HarEntry): void {
  const { request, response } = entry;
  // chrome-har appends the ExtraInfo headers to the ones it already has: drop exact repeats.
  request.headers = uniqueHeaders(request.headers);
  response.headers = uniqueHeaders(response.headers);
  if (request.postData?.text && request.postData.text.length > MAX_POST_DATA) {
    request.postData.text = request.postData.text.slice(0, MAX_POST_DATA);
  }
  delete response.content.text;
  delete response.content.encoding;
}

/**
 * chrome-har counts everything received for the request: the 401 challenge, then the authorized response.
 * The entry describes the authorized response; the challenge's bytes are kept aside.
 */
function withoutChallenge(entry: HarEntry, bytes: number): void {
  const r = entry.response;
  entry._authChallengeBytes = bytes;
  if (typeof r._transferSize === 'number') r._transferSize = Math.max(0, r._transferSize - bytes);
  if (r.bodySize > 0) r.bodySize = Math.max(0, r.bodySize - bytes);
}

function uniqueHeaders(headers: HarHeader[]): HarHeader[] {
  const seen = new Set<string>();
  return headers.filter((h) => {
    const key = `${h.name.toLowerCase()}\n${h.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The report metrics taken from the HAR. */
export type HarFigures = Pick<
  RunMetrics,
  'html_bytes'
  | 'page_bytes'
  | 'page_requests'
  | 'redirect_duration'
  | 'connect_duration'
  | 'backend_duration'
>;

/** chrome-har suffixes the request id with an `r` per redirect hop. */
const baseRequestId = (entry: HarEntry): string => (entry._requestId ?? '').replace(/r+$/, '');

/** What an entry cost on the wire: headers and body as sent. */
export const transferSize = (e: HarEntry): number =>
  Math.max(0, e.response._transferSize ?? e.response.bodySize + Math.max(0, e.response.headersSize));

const nonNegative = (n: number | undefined): number => (typeof n === 'number' && n > 0 ? n : 0);

/**
 * Keeps the entries of requests sent before the load ended (fully loaded, or onload with stop_onload):
 * what the browser did afterwards, while Lighthouse waited for its TTI window, is not part of the page.
 */
export function keepEntries(har: Har, requestIds: Set<string>): void {
  har.log.entries = har.log.entries.filter((e) => requestIds.has(baseRequestId(e)));
}

/** @param mainRequestId the main document's request id (its redirect hops share it) */
export function harFigures(har: Har, mainRequestId: string | undefined): HarFigures {
  const entries = har.log.entries;
  const chain = har.log.entries
    .filter((e) => mainRequestId !== undefined && baseRequestId(e) === mainRequestId)
    .sort((a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime));
  const main = chain.find((e) => e._requestId === mainRequestId);
  const redirected = chain.length > 1;
  const t = main?.timings ?? {};
  // After an answered auth challenge, `blocked` holds the challenge's round trip, not the authorized request's.
  const blocked = main?._authChallengeBytes ? 0 : nonNegative(t.blocked);
  return {
    html_bytes: main ? transferSize(main) : 0,
    page_bytes: entries.reduce((sum, e) => sum + transferSize(e), 0),
    page_requests: entries.length,
    redirect_duration: redirected && main
      ? Math.max(0, Math.round(Date.parse(main.startedDateTime) - Date.parse(chain[0].startedDateTime)))
      : 0,
    // Per the spec: blocked + DNS + connect + send of the HTML request; 0 when the page was redirected.
    connect_duration: redirected ? 0 : Math.round(blocked + nonNegative(t.dns) +
      nonNegative(t.connect) + nonNegative(t.send)),
    backend_duration: Math.round(nonNegative(t.wait)),
  };
}

/**
 * The time the main document spent on its HTTP auth challenge (0 without one): the page's own navigation
 * timing counts it in the time to first byte, which is the authorized response's.
 */
export function authChallengeMs(har: Har, mainRequestId: string | undefined): number {
  const main = har.log.entries.find((e) => mainRequestId !== undefined && e._requestId === mainRequestId);
  return main?._authChallengeBytes ? Math.round(nonNegative(main.timings.blocked)) : 0;
}
