import type { CDPSession } from 'puppeteer-core';
import type { TestCookie } from './types.js';

/** Sets the cookies in the browser before the load, for the tested URL's host only. Returns warnings. */
export async function setCookies(session: CDPSession, url: string, cookies: readonly TestCookie[]): Promise<string[]> {
  const warnings: string[] = [];
  for (const cookie of cookies) {
    // `url` without `domain` makes Chromium create a host-only cookie for that URL's host.
    const { success } = await session.send('Network.setCookie', { ...cookie, url });
    if (!success) warnings.push(`Cookie "${cookie.name}" could not be set for ${new URL(url).host}`);
  }
  return warnings;
}
