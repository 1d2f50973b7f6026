/**
 * Page views sent to a field site as its snippet would (the real beacon endpoint, its Origin and a browser's
 * User-Agent per device class), for tests and benchmarks that need real visitors' figures without a browser.
 */
import assert from 'node:assert/strict';

export const USER_AGENTS = {
  mobile: 'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36',
  desktop: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
} as const;

export interface FieldView {
  /** The page's URL (its origin is the beacon's Origin). */
  url: string;
  device: keyof typeof USER_AGENTS;
  lcp?: number;
  inp?: number;
  cls?: number;
  fcp?: number;
  ttfb?: number;
}

/** Each view's beacon, `concurrency` at a time; every one must be taken (204). */
export async function sendFieldViews(base: string, siteId: string, views: readonly FieldView[], concurrency = 16): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < views.length) {
      const v = views[next++]!;
      const body: Record<string, unknown> = { v: 1, url: v.url };
      for (const m of ['lcp', 'inp', 'cls', 'fcp', 'ttfb'] as const) if (v[m] !== undefined) body[m] = { v: v[m] };
      const res = await fetch(`${base}/field/beacon/${encodeURIComponent(siteId)}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', origin: new URL(v.url).origin, 'user-agent': USER_AGENTS[v.device] },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 204, await res.text());
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, views.length) }, worker));
}

/** `n` views of a URL on a device, each metric's values spread evenly around `at` (± the fraction `spread` of it, 0 by default). */
export function viewsOf(n: number, url: string, device: FieldView['device'], at: Partial<Record<'lcp' | 'inp' | 'cls' | 'fcp' | 'ttfb', number>>, spread = 0): FieldView[] {
  return Array.from({ length: n }, (_, i) => {
    const k = n === 1 ? 0 : (i / (n - 1)) * 2 - 1;
    const v: FieldView = { url, device };
    for (const [m, value] of Object.entries(at) as [keyof typeof at, number][]) {
      const x = value * (1 + k * spread);
      v[m] = m === 'cls' ? Math.round(x * 10_000) / 10_000 : Math.round(x);
    }
    return v;
  });
}
