/**
 * The pure steps of a load's collection (collect.ts): where the load ends, the run's metrics and its warnings.
 */
import type { DevtoolsLog } from 'lighthouse';
import type { RunMetrics } from '../types.js';
import type { RefusedConnection } from '../conditions/connection-guard.js';
import { fullyLoadedTime } from '../capture/network.js';
import { timingFigures, type PageTimings } from '../capture/timings.js';
import type { HarFigures } from '../capture/har.js';
import type { lighthouseMetrics } from '../lighthouse.js';

export interface LoadEnd {
  /** On the protocol's monotonic clock (seconds): fully loaded, or the end of onload with stop_onload. */
  at: number;
  /** The same, in ms since navigation start. */
  endMs: number;
}

/**
 * The load's end: fully loaded (the last network activity before 2 s of silence after onload, network.ts), or the
 * end of onload with stop_onload.
 * @param navStart navigation start on the protocol clock (seconds)
 * @param loadEventEnd the page's loadEventEnd (ms since navigation start)
 */
export function loadEnd(o: { devtoolsLog: DevtoolsLog; navStart: number; loadEventEnd: number; stopOnload: boolean }): LoadEnd {
  const onloadEnd = o.navStart + o.loadEventEnd / 1000;
  const at = o.stopOnload ? onloadEnd : fullyLoadedTime(o.devtoolsLog, onloadEnd);
  return { at, endMs: Math.round((at - o.navStart) * 1000) };
}

export interface MetricsInput {
  /** From the HAR (har.ts harFigures). */
  har: HarFigures;
  /** The page's navigation timings. */
  timings: PageTimings;
  /** The main document's HTTP auth challenge round trip (har.ts authChallengeMs). */
  authChallengeMs: number;
  /** LoadEnd.endMs. */
  loadEndMs: number;
  stopOnload: boolean;
  rumSpeedIndex: number;
  /** lighthouse.ts lighthouseMetrics. */
  lighthouse: ReturnType<typeof lighthouseMetrics>;
}

export function runMetrics(m: MetricsInput): RunMetrics {
  const timing = timingFigures(m.timings);
  return {
    ...m.har,
    ...timing,
    // Of the authorized response: an HTTP auth challenge's round trip is not the server's first byte.
    time_to_first_byte: Math.max(0, timing.time_to_first_byte - m.authChallengeMs),
    fully_loaded_time: m.stopOnload ? -1 : Math.max(m.loadEndMs, Math.round(m.timings.loadEventEnd)),
    rum_speed_index: m.rumSpeedIndex,
    ...m.lighthouse,
  };
}

/** What the connection guard's ledger tells of refused connections (conditions/connection-guard.ts GuardLedger). */
export interface RefusalsRecord {
  readonly refused: readonly RefusedConnection[];
  /** All refusals (the list is capped). */
  readonly refusedCount: number;
}

/** The warning about the page's connections to private or local addresses the guard refused; undefined if none. */
export function refusedConnectionsWarning(guard: RefusalsRecord): string | undefined {
  const refusedConnections = guard.refused.filter((r) => r.reason === 'non-public');
  if (refusedConnections.length === 0) return undefined;
  const hosts = [...new Set(refusedConnections.map((r) => `${r.host} (${r.kind} address ${r.address})`))];
  return `${guard.refusedCount} connection(s) of the page to private or local addresses were refused: ` +
    `${hosts.slice(0, 5).join(', ')}${hosts.length > 5 ? ', …' : ''}`;
}

/**
 * The run's warnings, in this order: those of the load (cookies not set, the DOM or the video not read), Lighthouse's,
 * the refused private connections, and the load wait's (its time limit hit).
 */
export function runWarnings(o: { load: readonly string[]; lighthouse: readonly unknown[]; guard: RefusalsRecord;
  loadWait: readonly string[] }): string[] {
  const warnings = [...o.load];
  for (const w of o.lighthouse) warnings.push(typeof w === 'string' ? w : String(w));
  const refused = refusedConnectionsWarning(o.guard);
  if (refused !== undefined) warnings.push(refused);
  warnings.push(...o.loadWait);
  return warnings;
}
