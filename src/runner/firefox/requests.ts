/**
 * What the test's options do to the requests of a Firefox load, as conditions/interceptor.ts does for Chromium:
 * allow_url, block_url and adblock judge every request of the page's frames but the tested document itself before
 * it leaves the browser (WebDriver BiDi interception through puppeteer's public API), and HTTP auth answers the
 * challenges of the tested host and the hosts its HTTP redirects lead to, once per request; any other host's
 * challenge is cancelled, so a third party never receives the credentials.
 *
 * puppeteer answers a blocked authRequired event itself, with the page's credentials (`_credentials`) or by
 * cancelling, and BiDi allows one session: so the credentials are a getter that answers for the challenge being
 * handled, which this module's listener on the connection names first (the connection's listeners of one event
 * run before the session's catch-all one, through which puppeteer's requests hear of it).
 */
import type { HTTPRequest, Page } from 'puppeteer-core';
import type { AdblockJudge } from '../conditions/adblock.js';
import { urlMatcher } from '../conditions/url-patterns.js';
import type { RefusedRequest } from '../conditions/interceptor.js';
import { resourceType, type BidiNetworkEvent } from './network.js';

/** The part of puppeteer's BiDi connection this module uses: events by method, and commands. */
export interface BidiConnection {
  on(method: string, listener: (params: never) => void): unknown;
  /** Resolves with the command's answer, whose `result` is the command's result. */
  send(method: string, params: object): Promise<{ result: unknown }>;
}

export interface FirefoxRequestOptions {
  page: Page;
  connection: BidiConnection;
  topContext: string;
  testedUrl: string;
  allowUrl: readonly string[];
  blockUrl: readonly string[];
  adblock?: AdblockJudge;
  auth?: { username: string; password: string };
}

/** Starts judging the load's requests; returns what was refused. Does nothing without filters or auth. */
export async function judgeRequests(o: FirefoxRequestOptions): Promise<RefusedRequest[]> {
  const refused: RefusedRequest[] = [];
  const filtering = o.allowUrl.length > 0 || o.blockUrl.length > 0 || o.adblock !== undefined;
  // The request types BiDi gives (puppeteer's resourceType() needs CDP), by URL, for the filter engine: the
  // connection hears of a request just before puppeteer makes its own of it.
  const types = new Map<string, string>();
  o.connection.on('network.beforeRequestSent', (e: BidiNetworkEvent) => void types.set(e.request.url, resourceType(e.request)));
  const authHosts = new Set([new URL(o.testedUrl).host]);
  let testedRequest: string | undefined;
  let pageUrl = o.testedUrl;
  const isMainDocument = (r: HTTPRequest): boolean => r.isNavigationRequest() && r.frame() === o.page.mainFrame();

  if (filtering) {
    const allowFilter = o.allowUrl.length > 0 ? urlMatcher(o.allowUrl) : undefined;
    const blockFilter = o.blockUrl.length > 0 ? urlMatcher(o.blockUrl) : undefined;
    await o.page.setRequestInterception(true);
    o.page.on('request', (r) => {
      judge(r).catch(() => undefined); // the browser may close under us at the end of the run
    });
    const judge = async (r: HTTPRequest): Promise<void> => {
      const url = r.url();
      if (isMainDocument(r)) {
        pageUrl = url;
        return r.continue();
      }
      const refuse = (reason: RefusedRequest['reason'], filter?: string): Promise<void> => {
        refused.push({ url, reason, mainDocument: false, ...(filter ? { filter } : {}) });
        return r.abort('blockedbyclient');
      };
      if (allowFilter && !allowFilter(url)) return refuse('allow_url');
      if (blockFilter?.(url)) return refuse('block_url');
      const verdict = o.adblock?.({ url, resourceType: types.get(url) ?? 'other', frameUrl: pageUrl, mainFrame: false });
      if (verdict?.action === 'block') return refuse('adblock', verdict.filter);
      if (verdict?.action === 'redirect') {
        refused.push({ url, reason: 'adblock', filter: verdict.filter, mainDocument: false });
        return r.respond({ status: 200, contentType: verdict.contentType, body: verdict.body });
      }
      return r.continue();
    };
  }

  // HTTP auth, or none: a challenge is answered once per request, for the tested host and its redirects' hosts.
  const answered = new Set<string>();
  let answering: { username: string; password: string } | undefined;
  Object.defineProperty(o.page, '_credentials', { configurable: true, get: () => answering });
  o.connection.on('network.beforeRequestSent', (e: BidiNetworkEvent) => {
    if (e.context !== o.topContext || e.request.destination !== 'document' || !/^https?:/.test(e.request.url)) return;
    testedRequest ??= e.request.request;
    if (e.request.request === testedRequest) authHosts.add(new URL(e.request.url).host);
  });
  o.connection.on('network.authRequired', (e: BidiNetworkEvent) => {
    const first = !answered.has(e.request.request);
    answered.add(e.request.request);
    answering = o.auth && first && authHosts.has(new URL(e.request.url).host) ? o.auth : undefined;
    // A request of no frame (a worker's) has no puppeteer request to answer it.
    if (e.isBlocked && !e.context) void o.connection.send('network.continueWithAuth', { request: e.request.request, action: 'cancel' }).catch(() => undefined);
  });
  await o.connection.send('network.addIntercept', { phases: ['authRequired'], contexts: [o.topContext] });
  return refused;
}
