/** Messages for page loads that fail, worded so the user knows what to change. */
import { STATUS_CODES } from 'node:http';
import type { RefusedConnection } from './conditions/connection-guard.js';
import { TargetPolicy } from '../net/policy.js';
import { RunError } from './types.js';

export function httpStatusMessage(status: number, statusText?: string): string {
  const text = statusText || STATUS_CODES[status] || '';
  const base = `The page returned HTTP ${status}${text ? ` ${text}` : ''}`;
  if (status === 401) {
    return `${base}: it needs HTTP authentication, or the httpauth_username/httpauth_password given were refused`;
  }
  if (status === 407) return `${base}: a proxy asked for authentication`;
  return base;
}

/** A Chromium net error (`net::ERR_...`) of the main document, as a sentence. */
export function navigationErrorMessage(errorText: string, url: string,
  connectionFailure: (host: string) => RefusedConnection | undefined = () => undefined): string {
  let host = url;
  try {
    host = new URL(url).hostname;
  } catch {
    /* keep the raw URL */
  }
  const code = errorText.replace(/^net::/, '');
  // The main document's connection failed in the connection guard: it knows why (the browser does not).
  if (/^ERR_SOCKS_/.test(code) || code === 'ERR_PROXY_CONNECTION_FAILED') {
    const failure = connectionFailure(host);
    if (failure?.reason === 'non-public') {
      return `url host ${host} resolves to a ${failure.kind} address (${failure.address}); ${TargetPolicy.OPT_IN}`;
    }
    if (failure?.reason === 'unresolved') return `Could not resolve host ${host}`;
    if (failure?.reason === 'connect-failed') {
      if (failure.error === 'ETIMEDOUT') return `The connection to ${host} timed out`;
      if (failure.error === 'EHOSTUNREACH' || failure.error === 'ENETUNREACH') return `The address of ${host} is unreachable`;
      return `The server at ${host} refused the connection`;
    }
  }
  switch (code) {
    case 'ERR_NAME_NOT_RESOLVED':
    case 'ERR_NAME_RESOLUTION_FAILED':
      return `Could not resolve host ${host}`;
    case 'ERR_CONNECTION_REFUSED':
      return `The server at ${host} refused the connection`;
    case 'ERR_CONNECTION_TIMED_OUT':
    case 'ERR_TIMED_OUT':
      return `The connection to ${host} timed out`;
    case 'ERR_CONNECTION_RESET':
    case 'ERR_CONNECTION_CLOSED':
      return `The connection to ${host} was reset`;
    case 'ERR_EMPTY_RESPONSE':
      return `The server at ${host} closed the connection without sending a response`;
    case 'ERR_ADDRESS_UNREACHABLE':
      return `The address of ${host} is unreachable`;
    case 'ERR_TOO_MANY_REDIRECTS':
      return 'The page redirects too many times';
    case 'ERR_ABORTED':
      return 'The page load was aborted (the URL may point to a download rather than a page)';
    case 'ERR_INVALID_URL':
    case 'ERR_UNKNOWN_URL_SCHEME':
    case 'ERR_DISALLOWED_URL_SCHEME':
      return `The URL ${url} cannot be loaded as a web page`;
    case 'ERR_UNSAFE_PORT':
      return `Browsers refuse to connect to the port of ${url}`;
    case 'ERR_INVALID_AUTH_CREDENTIALS':
      return 'The page needs HTTP authentication and the credentials given were refused';
  }
  if (/^ERR_(CERT|SSL)_/.test(code)) {
    const why = CERTIFICATE_REFUSALS[code];
    return `The TLS certificate of ${host} was not accepted (${code})${why ? `: ${why(host)}` : ''}`;
  }
  return `The page could not be loaded (${code})`;
}

/** Why the browser refused a site's certificate, for the errors a user can act on. */
const CERTIFICATE_REFUSALS: Record<string, (host: string) => string> = {
  ERR_CERT_AUTHORITY_INVALID: () => 'it is not signed by an authority the test browser trusts. If it comes from your ' +
    'organisation\'s own certificate authority, the operator names that CA\'s certificate in WEBGAUGE_EXTRA_CA_CERTS ' +
    '(a PEM file) for the service and each agent',
  ERR_CERT_COMMON_NAME_INVALID: (host) => `it is not issued for ${host}`,
  ERR_CERT_DATE_INVALID: () => 'it has expired or is not valid yet',
  ERR_CERT_REVOKED: () => 'it was revoked',
  ERR_CERT_WEAK_KEY: () => 'its key is too weak',
  ERR_CERT_WEAK_SIGNATURE_ALGORITHM: () => 'it is signed with a weak algorithm',
  ERR_CERT_INVALID: () => 'it is malformed',
  ERR_SSL_PROTOCOL_ERROR: () => 'the TLS handshake failed',
  ERR_SSL_VERSION_OR_CIPHER_MISMATCH: () => 'the server offers no TLS version or cipher the browser accepts',
};

/**
 * A Lighthouse error code (thrown, or the LHR's runtimeError) as a sentence; undefined for codes that
 * are bugs rather than something about the page.
 */
export function lighthouseErrorMessage(code: string, loadLimitMs: number, detail?: string): string | undefined {
  switch (code) {
    case 'PAGE_HUNG':
      return `The page did not finish loading within ${Math.round(loadLimitMs / 1000)} s and stopped responding`;
    case 'NO_FCP':
      return 'The page did not paint any content';
    case 'TARGET_CRASHED':
      return 'The browser tab crashed while loading the page';
    case 'NOT_HTML':
      return 'The URL is not an HTML page';
    case 'DNS_FAILURE':
    case 'FAILED_DOCUMENT_REQUEST':
    case 'ERRORED_DOCUMENT_REQUEST':
    case 'INSECURE_DOCUMENT_REQUEST':
    case 'CHROME_INTERSTITIAL_ERROR':
    case 'PAGE_LOAD_TIMEOUT':
    case 'NO_NAVSTART':
    case 'NO_LCP':
    case 'NO_SPEEDLINE_FRAMES':
      return `The page could not be measured: ${detail ?? code}`;
  }
  return undefined;
}

/** The code of a LighthouseError (they carry `code` and `friendlyMessage`), if `err` is one. */
export function lighthouseErrorCode(err: unknown): string | undefined {
  if (err instanceof Error && 'code' in err && 'friendlyMessage' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

/** Where a load stood when Lighthouse failed: what lighthouseFailure needs to name the failure. */
export interface LoadStanding {
  /** The load's own verdict (load-wait.ts), if it failed. */
  failure?: string;
  /** Why the run was stopped from outside (timeout, cancellation), if it was. */
  stopped?: RunError;
  /** Whether the main document's response (headers) arrived. */
  mainDocumentResponded: boolean;
  /** The tested URL. */
  url: string;
  /** The load wait's limit. */
  maxWaitMs: number;
}

/**
 * An error of Lighthouse's (thrown while it gathered or audited the load), in the words the user reads: the load's
 * own failure or the run's stop when there is one (Lighthouse only tripped over it), else Lighthouse's code as a
 * sentence; anything else is returned as it is (a bug, not something about the page).
 */
export function lighthouseFailure(err: unknown, load: LoadStanding): unknown {
  if (err instanceof RunError) return err;
  if (load.failure) return new RunError(load.failure);
  if (load.stopped) return load.stopped;
  const code = lighthouseErrorCode(err);
  if (code === 'PAGE_HUNG' && !load.mainDocumentResponded) {
    return new RunError(`The server at ${new URL(load.url).host} did not respond within ` +
      `${Math.round(load.maxWaitMs / 1000)} s`);
  }
  const message = code && lighthouseErrorMessage(code, load.maxWaitMs);
  return message ? new RunError(message) : err;
}

/** The runtime error of a Lighthouse result (the audits ran, but the load could not be measured) as a RunError. */
export function lighthouseRuntimeFailure(runtimeError: { code: string; message: string }, maxWaitMs: number): RunError {
  const { code, message } = runtimeError;
  return new RunError(lighthouseErrorMessage(code, maxWaitMs, message) ?? `The page could not be measured: ${message}`);
}
