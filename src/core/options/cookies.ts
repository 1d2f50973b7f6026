/**
 * The `cookies` option's one cookie string (the Set-Cookie form, docs/api.md "Test options"): parsed with the rules
 * the parser of POST /tests checks it by (options.ts) and the runner reads stored cookies by (conditions.ts), and
 * written back in one canonical text so that cosmetic differences do not make a new page.
 */
import { domainToASCII } from 'node:url';
import { show } from '../errors.js';
import { hasControlCharacter } from '../ids.js';

export interface ParsedCookie {
  name: string;
  value: string;
  domain?: string;
  path?: string;
  /** Unix seconds. */
  expires?: number;
  /** Seconds from when the cookie is set. */
  maxAge?: number;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const COOKIE_SYNTAX = 'name=value, optionally followed by "; Domain=...", "; Path=/...", "; Expires=<HTTP date>", '
  + '"; Max-Age=<seconds>", "; Secure", "; HttpOnly", "; SameSite=Strict|Lax|None"; one cookie per string';

/**
 * Parses one cookie string `name=value[; Attr[=value]]...` (the Set-Cookie form). Throws an Error whose message
 * says what is wrong. The runner reads stored cookies with the same rules (options/conditions.ts).
 */
export function parseCookie(s: string): ParsedCookie {
  const [pair = '', ...attrs] = s.split(';');
  const eq = pair.indexOf('=');
  const name = pair.slice(0, eq).trim();
  if (eq < 0 || !COOKIE_NAME.test(name)) throw new Error(`${show(s)} is not a cookie: expected ${COOKIE_SYNTAX}`);
  const value = pair.slice(eq + 1).trim();
  if (hasControlCharacter(s)) throw new Error(`${show(s)} contains control characters`);
  const c: ParsedCookie = { name, value };
  for (const raw of attrs) {
    const part = raw.trim();
    if (!part) continue;
    const at = part.indexOf('=');
    const key = (at < 0 ? part : part.slice(0, at)).trim().toLowerCase();
    const val = at < 0 ? '' : part.slice(at + 1).trim();
    const fail = (why: string) => new Error(`${show(s)}: ${why}`);
    if (key === 'domain') {
      const domain = domainToASCII(val.replace(/^\./, ''));
      if (!domain) throw fail('Domain must be a host name such as example.com');
      c.domain = domain;
    } else if (key === 'path') {
      if (!val.startsWith('/')) throw fail('Path must start with "/"');
      c.path = val;
    } else if (key === 'expires') {
      const t = Date.parse(val);
      if (Number.isNaN(t)) throw fail('Expires must be an HTTP date such as "Wed, 21 Oct 2026 07:28:00 GMT"');
      c.expires = Math.floor(t / 1000);
    } else if (key === 'max-age') {
      if (!/^-?\d{1,10}$/.test(val)) throw fail('Max-Age must be a whole number of seconds');
      c.maxAge = Number(val);
    } else if ((key === 'secure' || key === 'httponly') && at < 0) {
      c[key === 'secure' ? 'secure' : 'httpOnly'] = true;
    } else if (key === 'samesite' && /^(strict|lax|none)$/i.test(val)) {
      c.sameSite = (val[0]!.toUpperCase() + val.slice(1).toLowerCase()) as ParsedCookie['sameSite'];
    } else {
      // Most often "a=1; b=2": two cookies in one string.
      throw fail(`"${part}" is not a cookie attribute; expected ${COOKIE_SYNTAX}`);
    }
  }
  return c;
}

/** The canonical text of a cookie, so that cosmetic differences do not make a new page. */
export function canonicalCookie(c: ParsedCookie): string {
  const expires = c.expires === undefined ? undefined : new Date(c.expires * 1000).toUTCString();
  const parts = [
    `${c.name}=${c.value}`, c.domain !== undefined && `Domain=${c.domain}`, c.path !== undefined && `Path=${c.path}`,
    expires && `Expires=${expires}`, c.maxAge !== undefined && `Max-Age=${c.maxAge}`, c.secure && 'Secure',
    c.httpOnly && 'HttpOnly', c.sameSite && `SameSite=${c.sameSite}`,
  ];
  return parts.filter(Boolean).join('; ');
}
