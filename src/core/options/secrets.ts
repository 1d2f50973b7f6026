/**
 * The one rule that keeps a test's secrets (its HTTP auth password and cookie values) out of everything the
 * service stores or logs, except the test's own options (`analysis-options`, retests). It is applied to every
 * artifact as it is written (core/reports/reports.ts) and to every message the agent logs or stores about a test.
 *
 * Structured first, so that even a one-character secret never survives where it stands as a whole:
 * - Authorization / Proxy-Authorization / Cookie / Set-Cookie headers and HAR cookie values: removed;
 * - user:password@ in URLs: removed;
 * - a URL path segment, query or fragment parameter value whose decoded value equals a secret;
 * - a test cookie's `name=value` pair anywhere in text;
 * - a string (a header value, a JSON value) that is a secret as a whole.
 * Then, for secrets of at least LITERAL_MIN characters, every occurrence as a substring (plain and
 * percent-encoded). Shorter secrets are not replaced inside other text: a two-character cookie value such as
 * "en" occurs in every artifact ("Content-Length", base64 images) and replacing it there would destroy the
 * artifact while hiding nothing (nobody can tell which "en" was the cookie). From 8 characters on, an
 * accidental occurrence in unrelated text is rare enough (one in 64^8 per position for random text) that
 * replacing every occurrence costs nothing, and an 8-character word that does occur ("password") is then
 * hidden too, which errs on the side of the secret.
 */
import { parseCookie } from './cookies.js';

export const REMOVED = '[removed]';
/** Secrets at least this long are also replaced wherever they occur inside text. */
export const LITERAL_MIN = 8;

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'set-cookie2']);

export interface TestSecrets {
  /** Values that must not appear: the password, base64 of `user:password`, each cookie value. */
  values: string[];
  /** The test's cookies as `name=value`, to remove the pair wherever it is written. */
  cookies: { name: string; value: string }[];
}

/** The secrets of a test's options. */
export function testSecrets(o: { httpauth_username?: string; httpauth_password?: string; cookies?: readonly string[];
  journey_secrets?: Readonly<Record<string, string>> }): TestSecrets {
  const values: string[] = [];
  const cookies: TestSecrets['cookies'] = [];
  if (o.httpauth_password) values.push(o.httpauth_password);
  values.push(...Object.values(o.journey_secrets ?? {}));
  if (o.httpauth_username !== undefined) {
    values.push(Buffer.from(`${o.httpauth_username}:${o.httpauth_password ?? ''}`).toString('base64'));
  }
  for (const raw of o.cookies ?? []) {
    let parsed: { name: string; value: string } | undefined;
    try {
      parsed = parseCookie(raw);
    } catch {
      // Stored options were validated; an unreadable entry still must not leak: take what follows the first "=".
      const eq = raw.indexOf('=');
      parsed = { name: raw.slice(0, Math.max(0, eq)).trim(), value: raw.slice(eq + 1).split(';')[0]!.trim() };
    }
    if (!parsed.value) continue;
    values.push(parsed.value);
    if (parsed.name) cookies.push({ name: parsed.name, value: parsed.value });
  }
  return { values: [...new Set(values)], cookies };
}

export interface Scrubber {
  /** Whether there is anything to scrub beyond the always-secret headers. */
  readonly empty: boolean;
  text(s: string): string;
  /** A scrubbed deep copy of a JSON value (object keys included). */
  json<T>(value: T): T;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A value as an HTML form posts it (application/x-www-form-urlencoded: a space is "+"). */
const formEncoded = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);

/**
 * The text a value leaves inside base64 (standard and URL-safe), wherever it stands in the encoded bytes: for each of
 * the three alignments, the characters that only its own bytes decide (found by encoding it between other bytes and
 * keeping what did not change).
 */
export function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value);
  const forms = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const around = (fill: number) =>
      Buffer.concat([Buffer.alloc(offset, fill), bytes, Buffer.alloc(3, fill)]).toString('base64');
    const [a, b] = [around(0x00), around(0xff)];
    let start = 0;
    while (start < a.length && a[start] !== b[start]) start++;
    let end = start;
    while (end < a.length && a[end] === b[end]) end++;
    const core = a.slice(start, end);
    if (core.length >= LITERAL_MIN) forms.add(core).add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms];
}

function decode(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return component;
  }
}

/** Runs of text that can hold a URL or a query: what lies between spaces, quotes and angle brackets. */
const TOKEN = /[^\s"'<>`\\]+/g;
const USERINFO = /(\/\/)[^/?#@\s"'<>]*@/g;

export function secretScrubber(secrets: TestSecrets): Scrubber {
  const values = new Set(secrets.values.filter((v) => v.length > 0));
  const isSecret = (component: string): boolean => component.length > 0 && (values.has(component) || values.has(decode(component)));
  const literal = [...values].filter((v) => v.length >= LITERAL_MIN)
    .flatMap((v) => [v, encodeURIComponent(v), formEncoded(v), ...base64Forms(v)])
    .sort((a, b) => b.length - a.length);
  const literalRe = literal.length ? new RegExp([...new Set(literal)].map(escapeRegExp).join('|'), 'g') : undefined;
  const pairs = secrets.cookies.map(({ name, value }) =>
    new RegExp(`(^|[^\\w!#$%&'*+.^\`|~-])(${escapeRegExp(name)}=)(${escapeRegExp(value)}|${escapeRegExp(encodeURIComponent(value))})(?=$|[;&,\\s"'#])`, 'g'));

  const params = (query: string): string => query.split(/([&;])/).map((part) => {
    if (part === '&' || part === ';') return part;
    const eq = part.indexOf('=');
    if (eq < 0) return isSecret(part) ? REMOVED : part;
    return isSecret(part.slice(eq + 1)) ? `${part.slice(0, eq + 1)}${REMOVED}` : part;
  }).join('');

  const urlToken = (token: string): string => {
    const hash = token.indexOf('#');
    const fragment = hash < 0 ? undefined : token.slice(hash + 1);
    const beforeHash = hash < 0 ? token : token.slice(0, hash);
    const q = beforeHash.indexOf('?');
    const query = q < 0 ? undefined : beforeHash.slice(q + 1);
    let path = q < 0 ? beforeHash : beforeHash.slice(0, q);
    // Path segments only where the token is a URL or an absolute path: "and/or" is prose, not a path.
    const urlStart = path.search(/[a-z][a-z0-9+.-]*:\/\/|^\/|=\//i);
    if (urlStart >= 0) {
      const segments = path.split('/');
      // Scheme and authority stay as they are (a host is not a path segment).
      const first = /:\/\//.test(path) ? 3 : 1;
      path = segments.map((seg, i) => (i >= first && isSecret(seg) ? REMOVED : seg)).join('/');
    }
    let out = path;
    if (query !== undefined) out += `?${params(query)}`;
    if (fragment !== undefined) out += `#${isSecret(fragment) ? REMOVED : params(fragment)}`;
    return out;
  };

  const text = (s: string): string => {
    if (isSecret(s)) return REMOVED;
    let out = s.replace(USERINFO, '$1');
    for (const re of pairs) out = out.replace(re, `$1$2${REMOVED}`);
    if (values.size > 0) {
      out = out.replace(TOKEN, (token) => (token.includes('/') || token.includes('?') || token.includes('#') ? urlToken(token) : token));
    }
    if (literalRe) out = out.replace(literalRe, REMOVED);
    return out;
  };

  const json = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(json);
    if (value && typeof value === 'object') {
      const obj = value as Record<string, unknown>;
      // A header ({name, value}) that always carries credentials or cookies.
      const header = typeof obj.name === 'string' && typeof obj.value === 'string' && SECRET_HEADERS.has(obj.name.toLowerCase());
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(obj)) {
        if (header && k === 'value') out[k] = REMOVED;
        else if (k === 'cookies' && Array.isArray(v)) out[k] = v.map(scrubCookie);
        else out[text(k)] = json(v);
      }
      return out;
    }
    return value;
  };
  const scrubCookie = (c: unknown): unknown => {
    const copy = json(c);
    if (copy && typeof copy === 'object' && 'value' in copy) (copy as { value: unknown }).value = REMOVED;
    return copy;
  };

  return { empty: values.size === 0, text, json: <T>(v: T) => json(v) as T };
}

/** An error's message and stack, scrubbed, for a log line. */
export function scrubError(scrubber: Scrubber, err: unknown): { message: string; stack?: string } {
  if (err instanceof Error) return { message: scrubber.text(err.message), stack: err.stack && scrubber.text(err.stack) };
  return { message: scrubber.text(String(err)) };
}
