import { RunError } from '../types.js';

export interface Throttle {
  downloadKbps: number;
  uploadKbps: number;
  latencyMs: number;
}

/** Parses the `throttle` option, `down/up/latency` in Kbit/s, Kbit/s, ms. */
export function parseThrottle(value: string | undefined): Throttle | undefined {
  if (value === undefined || value === '') return undefined;
  const m = /^(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(value.trim());
  if (!m) throw new RunError(`Invalid throttle "${value}": expected down/up/latency, e.g. 5000/1000/30`);
  const [downloadKbps, uploadKbps, latencyMs] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (downloadKbps <= 0 || uploadKbps <= 0) throw new RunError(`Invalid throttle "${value}": speeds must be positive`);
  return { downloadKbps, uploadKbps, latencyMs };
}

/** Lighthouse settings for the load: observed metrics, devtools throttling only when asked. */
export function lighthouseThrottling(throttle: Throttle | undefined): {
  throttlingMethod: 'provided' | 'devtools';
  throttling: { requestLatencyMs: number; downloadThroughputKbps: number; uploadThroughputKbps: number;
    cpuSlowdownMultiplier: number; rttMs: number; throughputKbps: number };
} {
  if (!throttle) {
    return {
      throttlingMethod: 'provided',
      throttling: { requestLatencyMs: 0, downloadThroughputKbps: 0, uploadThroughputKbps: 0, cpuSlowdownMultiplier: 1,
        rttMs: 0, throughputKbps: 0 },
    };
  }
  return {
    throttlingMethod: 'devtools',
    throttling: {
      requestLatencyMs: throttle.latencyMs,
      downloadThroughputKbps: throttle.downloadKbps,
      uploadThroughputKbps: throttle.uploadKbps,
      // Network only: the spec's throttle option says nothing about CPU.
      cpuSlowdownMultiplier: 1,
      // Only used by the simulator, which we do not run; kept consistent for the LHR's settings echo.
      rttMs: throttle.latencyMs,
      throughputKbps: throttle.downloadKbps,
    },
  };
}
