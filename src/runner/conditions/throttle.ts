/**
 * The `throttle` option: `down/up/latency` (docs/api.md "Test options"). The load is really slowed: every connection
 * of the browser crosses the connection guard, which is the emulated link (link.ts: a round trip per connection
 * and DNS lookup, half a round trip per byte each way, one shared budget of `down` and `up` Kbit/s per direction),
 * during the one load that every capture comes from (timings, HAR, filmstrip, video).
 * Lighthouse is told the throttling is `provided` (it is: by us, outside Lighthouse), so it applies none of
 * its own and its estimates use what it observed on the throttled network.
 */
import type { ThrottleFigures } from './types.js';

export type Throttle = ThrottleFigures;

/**
 * Lighthouse settings for the load: observed metrics, throttling `provided` (by us). The figures are only
 * recorded in the Lighthouse JSON's `configSettings.throttling` so that it says how the load was throttled;
 * Lighthouse does not apply them in this mode.
 */
export function lighthouseThrottling(throttle: Throttle | undefined, cpuRate = 1): {
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
      // The device class's calibrated CPU rate (cpu-calibration.ts), applied by us for the load; 1 for a desktop.
      cpuSlowdownMultiplier: cpuRate,
      rttMs: throttle?.latencyMs ?? 0,
      throughputKbps: throttle?.downloadKbps ?? 0,
    },
  };
}
