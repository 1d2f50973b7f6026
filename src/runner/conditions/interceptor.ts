/**
 * One CDP Fetch interceptor for the conditions that must judge each request before it leaves the browser, in
 * this order (spec 4.1: block_url applies after allow_url):
 *   allow_url (only matching requests load) → block_url (matching requests are refused) → adblock (the filter
 *   engine) → sent.
 * The tested document itself is never filtered. It also answers HTTP authentication challenges, only those of
 * the tested host (and the hosts its main document redirects to). During the load it is only enabled when one
 * of these is asked for, since pausing every request costs a round trip to Node. (Which addresses requests may
 * reach is not decided here but by the connection guard, which sees every connection of the browser.)
 *
 * After the load (`afterLoad`), it answers every request of the page's target itself: from the response the
 * load received for the same URL, or not at all. DevTools re-reads `no-store` stylesheets when Lighthouse
 * enables its CSS domain, Lighthouse's gatherers decode images again, and the page may keep polling: none of
 * that may reach the tested site, which must see exactly the requests of the one load. With `sourceMaps` (Lighthouse's
 * report is made) it also notes the source maps the load's scripts name: Lighthouse reads those after the load, through
 * the runner's own fetch (after-load-fetch.ts), not the browser's.
 */
import type { CDPSession, Protocol } from 'puppeteer-core';
import type { AdblockJudge } from './adblock.js';
import { urlMatcher } from './url-patterns.js';

export interface InterceptorOptions {
  session: CDPSession;
  mainFrameId: string;
  testedUrl: string;
  allowUrl: readonly string[];
  blockUrl: readonly string[];
  adblock?: AdblockJudge;
  auth?: { username: string; password: string };
  /** Note the source maps the load's scripts name (Lighthouse's report reads them after the load). */
  sourceMaps?: boolean;
}

export interface RefusedRequest {
  url: string;
  reason: 'allow_url' | 'block_url' | 'adblock';
  /** The adblock filter that matched. */
  filter?: string;
  mainDocument: boolean;
}

export interface Interceptor {
  refused: RefusedRequest[];
  /** From now on, requests are answered from the load's responses or failed; none reaches the network. */
  afterLoad(): Promise<void>;
  /** Whether a script of the load named this URL as its source map (its magic comment or SourceMap header). */
  namedSourceMap(url: string): boolean;
}

/** Whether the load needs the interceptor (and so every frame in one process). */
export function needsInterceptor(o: Pick<InterceptorOptions, 'allowUrl' | 'blockUrl' | 'adblock' | 'auth'>): boolean {
  return o.allowUrl.length > 0 || o.blockUrl.length > 0 || o.adblock !== undefined || o.auth !== undefined;
}

/** Response headers that no longer describe a body read back decoded from the browser's buffer. */
const STALE_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding']);

interface LoadResponse {
  requestId: string;
  status: number;
  statusText: string;
  headers: Protocol.Network.Headers;
  finished: boolean;
}

export async function startInterceptor(opts: InterceptorOptions): Promise<Interceptor> {
  const { session, mainFrameId, auth, adblock } = opts;
  const ignore = (): void => undefined;

  // The load's GET responses by URL (the last one wins), for answering requests after the load.
  const methods = new Map<string, string>();
  const responses = new Map<string, LoadResponse>();
  const byRequest = new Map<string, LoadResponse>();
  let loadOver = false;
  session.on('Network.requestWillBeSent', (e: Protocol.Network.RequestWillBeSentEvent) => {
    if (!loadOver) methods.set(e.requestId, e.request.method);
  });
  session.on('Network.responseReceived', (e: Protocol.Network.ResponseReceivedEvent) => {
    if (loadOver || methods.get(e.requestId) !== 'GET') return;
    const r: LoadResponse = { requestId: e.requestId, status: e.response.status, statusText: e.response.statusText,
      headers: e.response.headers, finished: false };
    responses.set(withoutFragment(e.response.url), r);
    byRequest.set(e.requestId, r);
  });
  session.on('Network.loadingFinished', (e: Protocol.Network.LoadingFinishedEvent) => {
    const r = byRequest.get(e.requestId);
    if (r) r.finished = true;
  });

  // The source maps the load's scripts named (their magic comment or SourceMap header, as the debugger read them).
  const sourceMaps = new Set<string>();
  if (opts.sourceMaps) {
    session.on('Debugger.scriptParsed', (e: Protocol.Debugger.ScriptParsedEvent) => {
      if (loadOver || !e.sourceMapURL || e.sourceMapURL.startsWith('data:')) return;
      try {
        sourceMaps.add(withoutFragment(new URL(e.sourceMapURL, e.url).href));
      } catch {
        // A map URL that does not resolve is not fetched by anyone.
      }
    });
    await session.send('Debugger.enable');
  }

  const namedSourceMap = (url: string): boolean => sourceMaps.has(withoutFragment(url));

  const answerFromLoad = async (e: Protocol.Fetch.RequestPausedEvent): Promise<void> => {
    const r = e.request.method === 'GET' ? responses.get(withoutFragment(e.request.url)) : undefined;
    if (r?.finished) {
      try {
        const { body, base64Encoded } = await session.send('Network.getResponseBody', { requestId: r.requestId });
        await session.send('Fetch.fulfillRequest', {
          requestId: e.requestId, responseCode: r.status, responsePhrase: r.statusText || undefined,
          responseHeaders: Object.entries(r.headers).filter(([name]) => !STALE_HEADERS.has(name.toLowerCase()))
            .flatMap(([name, value]) => String(value).split('\n').map((v) => ({ name, value: v }))),
          body: base64Encoded ? body : Buffer.from(body).toString('base64'),
        });
        return;
      } catch {
        // The body left the browser's buffer: refuse below rather than ask the site again.
      }
    }
    await session.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' });
  };

  const intercepting = needsInterceptor(opts);
  const afterLoad = async (): Promise<void> => {
    if (loadOver) return;
    loadOver = true;
    if (!intercepting) {
      session.on('Fetch.requestPaused', (e: Protocol.Fetch.RequestPausedEvent) => void answerFromLoad(e).catch(ignore));
      await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
    }
  };
  if (!intercepting) return { refused: [], afterLoad, namedSourceMap };

  const allowFilter = opts.allowUrl.length > 0 ? urlMatcher(opts.allowUrl) : undefined;
  const blockFilter = opts.blockUrl.length > 0 ? urlMatcher(opts.blockUrl) : undefined;
  // The document the page's requests come from, for the filter engine's first/third-party rules.
  let pageUrl = opts.testedUrl;

  const refused: RefusedRequest[] = [];
  // Credentials only answer challenges from the tested host and the hosts its HTTP redirects lead to (the
  // redirect hops of the first main-document request share its network id), so a third party that asks for
  // HTTP auth never receives them, not even when the page navigates to it.
  const authHosts = new Set([new URL(opts.testedUrl).host]);
  let testedRequest: string | undefined;

  const judge = async (e: Protocol.Fetch.RequestPausedEvent): Promise<void> => {
    if (loadOver) return answerFromLoad(e);
    const url = e.request.url;
    const mainDocument = e.resourceType === 'Document' && e.frameId === mainFrameId;
    const fail = (reason: RefusedRequest['reason'], errorReason: Protocol.Network.ErrorReason,
      more: Partial<RefusedRequest> = {}) => {
      refused.push({ url, reason, mainDocument, ...more });
      return session.send('Fetch.failRequest', { requestId: e.requestId, errorReason });
    };
    if (!mainDocument) {
      if (allowFilter && !allowFilter(url)) return void (await fail('allow_url', 'BlockedByClient'));
      if (blockFilter?.(url)) return void (await fail('block_url', 'BlockedByClient'));
      const verdict = adblock?.({ url, resourceType: e.resourceType, frameUrl: pageUrl, mainFrame: false });
      if (verdict?.action === 'block') return void (await fail('adblock', 'BlockedByClient', { filter: verdict.filter }));
      if (verdict?.action === 'redirect') {
        refused.push({ url, reason: 'adblock', filter: verdict.filter, mainDocument });
        return void (await session.send('Fetch.fulfillRequest', {
          requestId: e.requestId, responseCode: 200, body: verdict.body.toString('base64'),
          responseHeaders: [{ name: 'Content-Type', value: verdict.contentType }],
        }));
      }
    }
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (mainDocument && parsed) {
      testedRequest ??= e.networkId;
      if (e.networkId === testedRequest) authHosts.add(parsed.host);
      pageUrl = url;
    }
    await session.send('Fetch.continueRequest', { requestId: e.requestId });
  };

  session.on('Fetch.requestPaused', (e: Protocol.Fetch.RequestPausedEvent) => {
    judge(e).catch(ignore); // the session may close under us at the end of the run
  });
  // Wrong credentials make the server challenge again: answer each request once, then let the 401 through.
  const answered = new Set<string>();
  session.on('Fetch.authRequired', (e: Protocol.Fetch.AuthRequiredEvent) => {
    const host = new URL(e.request.url).host;
    const first = !answered.has(e.requestId);
    answered.add(e.requestId);
    const answer: Protocol.Fetch.AuthChallengeResponse =
      auth && first && e.authChallenge.source !== 'Proxy' && authHosts.has(host)
        ? { response: 'ProvideCredentials', username: auth.username, password: auth.password }
        : { response: 'CancelAuth' };
    session.send('Fetch.continueWithAuth', { requestId: e.requestId, authChallengeResponse: answer }).catch(ignore);
  });
  await session.send('Fetch.enable', {
    patterns: [{ urlPattern: '*', requestStage: 'Request' }],
    handleAuthRequests: auth !== undefined,
  });
  return { refused, afterLoad, namedSourceMap };
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}
