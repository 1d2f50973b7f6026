/** The web app over HTTP as a browser would use it, without one: sign in for a cookie, read screens, post forms. */
import assert from 'node:assert/strict';

export interface Screen {
  status: number;
  html: string;
  location: string | null;
}

export function webSession(server: { base: string }) {
  const get = async (cookie: string, path: string): Promise<Screen> => {
    const res = await fetch(server.base + path, { headers: { cookie }, redirect: 'manual' });
    return { status: res.status, html: await res.text(), location: res.headers.get('location') };
  };
  return {
    /** The session cookie of a sign-in with the API key. */
    async signIn(key: string): Promise<string> {
      const res = await fetch(`${server.base}/sign-in`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.base },
        body: new URLSearchParams({ api_key: key }).toString(),
      });
      const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
      assert.ok(cookie, `sign-in answered ${res.status} without a cookie`);
      return cookie;
    },
    get,
    /** A form post with the session's CSRF token (read from a screen, as the browser would have it). */
    async post(cookie: string, path: string, fields: [string, string][] = []): Promise<Screen> {
      const csrf = (await get(cookie, '/account')).html.match(/name="csrf" value="([^"]+)"/)?.[1] ?? '';
      const body = new URLSearchParams([['csrf', csrf], ...fields]).toString();
      const res = await fetch(server.base + path, {
        method: 'POST', redirect: 'manual', body, headers: { cookie, origin: server.base, 'content-type': 'application/x-www-form-urlencoded' },
      });
      return { status: res.status, html: await res.text(), location: res.headers.get('location') };
    },
  };
}
