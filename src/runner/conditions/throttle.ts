/**
 * The `throttle` option: `down/up/latency` (README "Throttle values"). The load is really slowed, in the
 * browser, during the one load that every capture comes from (timings, HAR, filmstrip, video):
 * - download and upload: Chromium's own network throttling (Network.emulateNetworkConditions), a shared
 *   budget of `down` and `up` kilobits per second (1 Kbit = 1000 bit) for all requests of the page together;
 * - latency: every request is held for `latency` ms before it leaves the browser (request-interceptor.ts),
 *   one round trip per request added to whatever the server takes. Chromium's own latency setting is a
 *   floor ("at least N ms to the response headers"), which a slow server hides completely; an added round
 *   trip is what a slow link does. Connection set-up (TCP, TLS handshakes) is not charged extra round trips.
 * Lighthouse is told the throttling is `provided` (it is: by us, outside Lighthouse), so it applies none of
 * its own and its estimates use what it observed on the throttled network.
 */
import type { CDPSession } from 'puppeteer-core';
import type { ThrottleFigures } from '../../core/options.js';

export type Throttle = ThrottleFigures;

/** Kbit/s (1000 bit) to the bytes per second Chromium expects. */
export const kbpsToBytesPerSecond = (kbps: number): number => Math.max(1, Math.floor((kbps * 1000) / 8));

/**
 * Starts throughput throttling on the page's network. Call right before the navigation: Lighthouse clears
 * network conditions on its own session while it prepares the load.
 */
export async function applyThroughput(session: CDPSession, throttle: Throttle | undefined): Promise<void> {
  if (!throttle) return;
  await session.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0, // added per request by the interceptor instead (see above)
    downloadThroughput: kbpsToBytesPerSecond(throttle.downloadKbps),
    uploadThroughput: kbpsToBytesPerSecond(throttle.uploadKbps),
  });
}

/**
 * Lighthouse settings for the load: observed metrics, throttling `provided` (by us). The figures are only
 * recorded in the Lighthouse JSON's `configSettings.throttling` so that it says how the load was throttled;
 * Lighthouse does not apply them in this mode.
 */
export function lighthouseThrottling(throttle: Throttle | undefined): {
  throttlingMethod: 'provided';
  throttling: { requestLatencyMs: number; downloadThroughputKbps: number; uploadThroughputKbps: number;
    cpuSlowdownMultiplier: number; rttMs: number; throughputKbps: number };
} {
  return {
    throttlingMethod: 'provided',
    throttling: {
      requestLatencyMs: throttle?.latencyMs ?? 0,
      downloadThroughputKbps: throttle?.downloadKbps ?? 0,
      uploadThroughputKbps: throttle?.uploadKbps ?? 0,
      // Network only: the spec's throttle option says nothing about CPU.
      cpuSlowdownMultiplier: 1,
      rttMs: throttle?.latencyMs ?? 0,
      throughputKbps: throttle?.downloadKbps ?? 0,
    },
  };
}
