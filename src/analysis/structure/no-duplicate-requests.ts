/**
 * Avoid duplicate requests (ours; Lighthouse's duplicated-javascript looks inside bundles, not at requests).
 * The same URL downloaded again with a full response (2xx, GET) during one load is bytes and a round trip
 * spent twice, usually a script or stylesheet included twice or an uncacheable resource.
 * score = max(0, 1 − 0.25 × extra downloads).
 */
import { isOk, shortUrl, type HarEntryLike } from '../har.js';
import { clamp01, NOT_APPLICABLE, type StructureAudit } from './audit.js';

/** URL → number of full downloads, for URLs downloaded more than once. */
export function duplicateDownloads(entries: HarEntryLike[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of entries) {
    if (!isOk(e) || (e.request.method ?? 'GET').toUpperCase() !== 'GET') continue;
    counts.set(e.request.url, (counts.get(e.request.url) ?? 0) + 1);
  }
  return new Map([...counts].filter(([, n]) => n > 1));
}

export const noDuplicateRequests: StructureAudit = {
  id: 'no-duplicate-requests',
  title: 'Avoid downloading the same resource twice',
  impact: 'low',
  source: 'webgauge',
  run(input) {
    if (!input.har) return NOT_APPLICABLE;
    const dupes = duplicateDownloads(input.har.log.entries);
    let extra = 0;
    for (const n of dupes.values()) extra += n - 1;
    return {
      score: clamp01(1 - 0.25 * extra),
      offenders: [...dupes].map(([url, n]) => `${shortUrl(url)} (${n} times)`),
    };
  },
};
