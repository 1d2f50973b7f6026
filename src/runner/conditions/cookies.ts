import type { CDPSession } from 'puppeteer-core';

export interface CookieSpec {
  name: string;
  value: string;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

/**
 * Parses a `cookies` option entry: `name=value` with optional `; Path=..; Secure; HttpOnly; SameSite=..`.
 * A Domain attribute is ignored on purpose: test cookies are host-only cookies of the tested URL, so they
 * never reach sibling subdomains or third parties. Expiry attributes are ignored (session cookies).
 */
export function parseCookie(raw: string): CookieSpec | undefined {
  const [pair = '', ...attrs] = raw.split(';');
  const eq = pair.indexOf('=');
  const name = (eq < 0 ? '' : pair.slice(0, eq)).trim();
  if (!name) return undefined;
  const cookie: CookieSpec = { name, value: pair.slice(eq + 1).trim(), path: '/', secure: false, httpOnly: false };
  for (const attr of attrs) {
    const [key = '', ...rest] = attr.split('=');
    const value = rest.join('=').trim();
    switch (key.trim().toLowerCase()) {
      case 'path':
        if (value.startsWith('/')) cookie.path = value;
        break;
      case 'secure':
        cookie.secure = true;
        break;
      case 'httponly':
        cookie.httpOnly = true;
        break;
      case 'samesite': {
        const v = value.toLowerCase();
        if (v === 'strict' || v === 'lax' || v === 'none') {
          cookie.sameSite = (v[0].toUpperCase() + v.slice(1)) as CookieSpec['sameSite'];
        }
        break;
      }
    }
  }
  return cookie;
}

/** Sets the cookies in the browser before the load, for the tested URL's host only. Returns warnings. */
export async function setCookies(session: CDPSession, url: string, cookies: readonly string[]): Promise<string[]> {
  const warnings: string[] = [];
  for (const raw of cookies) {
    const cookie = parseCookie(raw);
    if (!cookie) {
      warnings.push(`Cookie "${raw.split('=')[0]}" was ignored: expected name=value`);
      continue;
    }
    // `url` without `domain` makes Chromium create a host-only cookie for that URL's host.
    const { success } = await session.send('Network.setCookie', { ...cookie, url });
    if (!success) warnings.push(`Cookie "${cookie.name}" could not be set for ${new URL(url).host}`);
  }
  return warnings;
}
