/**
 * One CDP Fetch interceptor for the conditions that must judge or hold each request before it leaves the
 * browser, in this order (spec 4.1: block_url applies after allow_url):
 *   allow_url (only matching requests load) → block_url (matching requests are refused) → adblock (the filter
 *   engine) → refusing private addresses (public tests) → the throttle's latency → sent.
 * The tested document itself is never filtered. It also answers HTTP authentication challenges, only those of
 * the tested host (and the hosts its main document redirects to). It is only enabled when one of these is asked
 * for, since pausing every request costs a round trip to Node.
 */
import type { CDPSession, Protocol } from 'puppeteer-core';
import type { AdblockJudge } from './adblock.js';
import { urlMatcher } from './url-patterns.js';
import { privateHostChecker } from './private-address.js';

export interface InterceptorOptions {
  session: CDPSession;
  mainFrameId: string;
  testedUrl: string;
  blockPrivate: boolean;
  dnsOverrides: Map<string, string>;
  allowUrl: readonly string[];
  blockUrl: readonly string[];
  adblock?: AdblockJudge;
  /** Added to every request (the throttle's latency), in ms. */
  latencyMs: number;
  auth?: { username: string; password: string };
}

export interface RefusedRequest {
  url: string;
  reason: 'private-address' | 'unresolved' | 'allow_url' | 'block_url' | 'adblock';
  address?: string;
  /** The adblock filter that matched. */
  filter?: string;
  mainDocument: boolean;
}

export interface Interceptor {
  refused: RefusedRequest[];
}

/** Whether a run with these conditions needs the interceptor (and so every frame in one process). */
export function needsInterceptor(o: Pick<InterceptorOptions, 'blockPrivate' | 'allowUrl' | 'blockUrl' | 'adblock' |
  'latencyMs' | 'auth'>): boolean {
  return o.blockPrivate || o.allowUrl.length > 0 || o.blockUrl.length > 0 || o.adblock !== undefined ||
    o.latencyMs > 0 || o.auth !== undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function startInterceptor(opts: InterceptorOptions): Promise<Interceptor | undefined> {
  const { session, mainFrameId, auth, blockPrivate, adblock, latencyMs } = opts;
  if (!needsInterceptor(opts)) return undefined;
  const allowFilter = opts.allowUrl.length > 0 ? urlMatcher(opts.allowUrl) : undefined;
  const blockFilter = opts.blockUrl.length > 0 ? urlMatcher(opts.blockUrl) : undefined;
  // The document the page's requests come from, for the filter engine's first/third-party rules.
  let pageUrl = opts.testedUrl;

  const checkHost = privateHostChecker(opts.dnsOverrides);
  // Resolve the tested host now, so the main document is not held while Node looks it up (that wait
  // would show in its timings). Subresource hosts are unknown in advance and pay their lookup once.
  if (blockPrivate) void checkHost(new URL(opts.testedUrl).hostname);
  const refused: RefusedRequest[] = [];
  // Credentials only answer challenges from the tested host and the hosts its HTTP redirects lead to (the
  // redirect hops of the first main-document request share its network id), so a third party that asks for
  // HTTP auth never receives them, not even when the page navigates to it.
  const authHosts = new Set([new URL(opts.testedUrl).host]);
  let testedRequest: string | undefined;
  const ignore = (): void => undefined;

  const judge = async (e: Protocol.Fetch.RequestPausedEvent): Promise<void> => {
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
    if (blockPrivate && parsed && /^(https?|wss?):$/.test(parsed.protocol)) {
      const verdict = await checkHost(parsed.hostname);
      if (!verdict.ok) {
        return void (await (verdict.reason === 'private'
          ? fail('private-address', 'AddressUnreachable', { address: verdict.address })
          : fail('unresolved', 'NameNotResolved')));
      }
    }
    if (mainDocument && parsed) {
      testedRequest ??= e.networkId;
      if (e.networkId === testedRequest) authHosts.add(parsed.host);
      pageUrl = url;
    }
    if (latencyMs > 0) await sleep(latencyMs);
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
  return { refused };
}
