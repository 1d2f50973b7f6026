/**
 * One CDP Fetch interceptor for the conditions that must judge each request before it leaves the browser:
 * refusing private addresses (public tests), allow_url filtering and HTTP authentication. It is only
 * enabled when one of them is asked for, since pausing every request costs a round trip to Node.
 */
import type { CDPSession, Protocol } from 'puppeteer-core';
import { urlMatcher } from './url-patterns.js';
import { privateHostChecker } from './private-address.js';

export interface InterceptorOptions {
  session: CDPSession;
  mainFrameId: string;
  testedUrl: string;
  blockPrivate: boolean;
  dnsOverrides: Map<string, string>;
  allowUrl: readonly string[];
  auth?: { username: string; password: string };
}

export interface RefusedRequest {
  url: string;
  reason: 'private-address' | 'unresolved' | 'allow_url';
  address?: string;
  mainDocument: boolean;
}

export interface Interceptor {
  refused: RefusedRequest[];
}

export async function startInterceptor(opts: InterceptorOptions): Promise<Interceptor | undefined> {
  const { session, mainFrameId, auth, blockPrivate } = opts;
  const allowFilter = opts.allowUrl.length > 0 ? urlMatcher(opts.allowUrl) : undefined;
  if (!blockPrivate && !allowFilter && !auth) return undefined;

  const checkHost = privateHostChecker(opts.dnsOverrides);
  // Resolve the tested host now, so the main document is not held while Node looks it up (that wait
  // would show in its timings). Subresource hosts are unknown in advance and pay their lookup once.
  if (blockPrivate) void checkHost(new URL(opts.testedUrl).hostname);
  const refused: RefusedRequest[] = [];
  // Credentials only answer challenges from the tested host and the hosts its main document redirects to,
  // so a third party that asks for HTTP auth never receives them.
  const authHosts = new Set([new URL(opts.testedUrl).host]);
  const ignore = (): void => undefined;

  const judge = async (e: Protocol.Fetch.RequestPausedEvent): Promise<void> => {
    const url = e.request.url;
    const mainDocument = e.resourceType === 'Document' && e.frameId === mainFrameId;
    const fail = (reason: RefusedRequest['reason'], errorReason: Protocol.Network.ErrorReason, address?: string) => {
      refused.push({ url, reason, address, mainDocument });
      return session.send('Fetch.failRequest', { requestId: e.requestId, errorReason });
    };
    if (allowFilter && !mainDocument && !allowFilter(url)) return void (await fail('allow_url', 'BlockedByClient'));
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
          ? fail('private-address', 'AddressUnreachable', verdict.address)
          : fail('unresolved', 'NameNotResolved')));
      }
    }
    if (mainDocument && parsed) authHosts.add(parsed.host);
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
