/**
 * HAR 1.2 from Lighthouse's devtools log of the load (chrome-har), with credentials scrubbed and contents
 * trimmed, plus the byte/request/timing figures the report takes from it.
 */
import { harFromMessages } from 'chrome-har';
import type { DevtoolsLog } from 'lighthouse';
import type { RunMetrics } from '../types.js';

export interface HarHeader { name: string; value: string }
export interface HarCookie { name: string; value: string; [k: string]: unknown }
export interface HarTimings { blocked?: number; dns?: number; connect?: number; send?: number; wait?: number;
  receive?: number; ssl?: number }
export interface HarEntry {
  _requestId?: string;
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

const REMOVED = '[removed]';
const SECRET_REQUEST_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);
const SECRET_RESPONSE_HEADERS = new Set(['set-cookie', 'set-cookie2', 'proxy-authenticate-info']);
const MAX_POST_DATA = 4096;

export function buildHar(log: DevtoolsLog, secrets: readonly string[]): Har {
  // Lighthouse's messages carry extra fields (sessionId, targetType); chrome-har only reads method/params.
  const har = harFromMessages(log as unknown as { method: string; params: unknown }[], {
    includeTextFromResponseBody: false, // no bodies in the HAR: they can hold personal data and are large
  }) as unknown as Har;
  for (const entry of har.log.entries) scrubEntry(entry);
  const strong = secrets.filter((s) => s.length >= 3);
  return strong.length ? (replaceSecrets(har, strong) as Har) : har;
}

function scrubEntry(entry: HarEntry): void {
  const { request, response } = entry;
  // chrome-har appends the ExtraInfo headers to the ones it already has: drop exact repeats.
  request.headers = uniqueHeaders(request.headers);
  response.headers = uniqueHeaders(response.headers);
  for (const h of request.headers) if (SECRET_REQUEST_HEADERS.has(h.name.toLowerCase())) h.value = REMOVED;
  for (const h of response.headers) if (SECRET_RESPONSE_HEADERS.has(h.name.toLowerCase())) h.value = REMOVED;
  for (const c of request.cookies ?? []) c.value = REMOVED;
  for (const c of response.cookies ?? []) c.value = REMOVED;
  request.url = stripUserInfo(request.url);
  if (request.postData?.text && request.postData.text.length > MAX_POST_DATA) {
    request.postData.text = request.postData.text.slice(0, MAX_POST_DATA);
  }
  delete response.content.text;
  delete response.content.encoding;
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

function stripUserInfo(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return url;
  }
}

/** Last line of defence: the HTTP auth password must not appear anywhere (e.g. echoed in a URL). */
function replaceSecrets(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return secrets.reduce((s, secret) => s.split(secret).join(REMOVED), value);
  if (Array.isArray(value)) return value.map((v) => replaceSecrets(v, secrets));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceSecrets(v, secrets)]));
  }
  return value;
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

const transferSize = (e: HarEntry): number =>
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
  return {
    html_bytes: main ? transferSize(main) : 0,
    page_bytes: entries.reduce((sum, e) => sum + transferSize(e), 0),
    page_requests: entries.length,
    redirect_duration: redirected && main
      ? Math.max(0, Math.round(Date.parse(main.startedDateTime) - Date.parse(chain[0].startedDateTime)))
      : 0,
    // Per the spec: blocked + DNS + connect + send of the HTML request; 0 when the page was redirected.
    connect_duration: redirected ? 0 : Math.round(nonNegative(t.blocked) + nonNegative(t.dns) +
      nonNegative(t.connect) + nonNegative(t.send)),
    backend_duration: Math.round(nonNegative(t.wait)),
  };
}
