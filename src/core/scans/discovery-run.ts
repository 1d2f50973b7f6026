/**
 * Stage 1 of a scan's work (scan-work.ts): discovery. Before: POST /scans stored the scan `discovering` (scans.ts).
 * A process claims one such scan under a lease and renews it while discovery runs (src/discovery: a fetch of text
 * through the target policy, never a page load), so a crashed process's discovery is taken up again by another.
 * After: what discovery found is queued (queueing.ts).
 */
import { discover } from '../../discovery/discover.js';
import type { DiscoveryResult } from '../../discovery/types.js';
import { dnsOverride } from '../../net/resolve.js';
import { claimDiscovery, renewDiscoveryLease, updateScan } from '../../store/scans.js';
import { clock } from '../clock.js';
import { readOptions } from '../options/stored-options.js';
import { readScanSettings } from './scan-request.js';
import { queueDiscovered } from './queueing.js';
import type { ScanWorkContext } from './scan-work.js';

/** How often a running discovery renews its lease and looks whether its scan was cancelled. */
const LEASE_RENEW_MS = 5_000;
const LEASE_MS = 30_000;

/**
 * Take one scan waiting for discovery and discover it; false when none was waiting. `stopping` aborts a
 * discovery in flight and frees its lease for the next process.
 */
export async function discoverNextScan(ctx: ScanWorkContext, stopping: AbortSignal): Promise<boolean> {
  const { store } = ctx;
  const now = clock.now();
  const scan = await claimDiscovery(store.db, store.engine, ctx.owner, now, now + LEASE_MS);
  if (!scan) return false;
  const settings = readScanSettings(scan.settings);
  const options = readOptions(store.box, scan.options);
  const abort = new AbortController();
  const onStop = () => abort.abort();
  stopping.addEventListener('abort', onStop);
  let found = 0;
  let lastSaid = 0;
  // The lease is renewed while discovery runs; a cancel (the scan left `discovering`) stops it.
  const renew = setInterval(() => {
    void renewDiscoveryLease(store.db, scan.id, ctx.owner, clock.now() + LEASE_MS)
      .then((held) => { if (!held) abort.abort(); })
      .catch(() => undefined);
    if (found !== lastSaid) {
      lastSaid = found;
      void updateScan(store.db, scan.id, ['discovering'], { found }, ctx.owner).catch(() => undefined);
    }
  }, LEASE_RENEW_MS);
  let result: DiscoveryResult;
  try {
    result = await discover({
      url: options.url, source: settings.source, urls: settings.urls, sitemaps: settings.sitemaps,
      include: settings.include, exclude: settings.exclude, templates: settings.templates, maxPages: settings.max_pages,
      sample: settings.sample, crawlDepth: settings.crawl_depth, respectRobots: settings.respect_robots, keepQuery: settings.keep_query,
      timeLimitMs: ctx.discoveryTimeLimitMs, policy: ctx.policy, dns: options.dns.map(dnsOverride),
      ...(options.httpauth_username ? { httpAuth: { username: options.httpauth_username, password: options.httpauth_password ?? '' } } : {}),
      ...(ctx.extraCaCerts?.length ? { extraCaCerts: ctx.extraCaCerts } : {}),
      signal: abort.signal,
      onProgress: (n: number) => { found = n; },
    });
  } finally {
    clearInterval(renew);
    stopping.removeEventListener('abort', onStop);
  }
  if (stopping.aborted) {
    // The process is stopping: the next one discovers the scan again from the start.
    await updateScan(store.db, scan.id, ['discovering'], { lease_owner: null, lease_expires: null }, ctx.owner).catch(() => undefined);
    return true;
  }
  await queueDiscovered(ctx, scan, settings, result);
  return true;
}
