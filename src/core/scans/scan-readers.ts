/**
 * The one reader of each JSON column a scan's work writes (as readScanSettings, scan-request.ts, is of `settings`):
 * scans.skipped and scans.discovery_errors (queueing.ts), scans.figures and scans.alerts (completion.ts), and
 * scan_pages.run_values (following.ts). Each reader owns what an absent, unreadable or older value reads as, so no
 * caller parses a column itself or has a fallback of its own. Only Webgauge writes these columns: an unreadable value
 * is a damaged row, read as absent rather than failing the scan's resource, screen, comparison, history or notices.
 */
import type { SiteFigures } from '../../analysis/site-figures.js';
import type { AlertVerdict } from './alert-verdicts.js';

/** The stored JSON parsed; undefined for null and for text that is not JSON. */
function parsed(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * scans.figures: the site figures the scan finished with. Null while it has none (discovering, running, ended in
 * error), and for a value that is not a JSON object.
 */
export function readScanFigures(text: string | null): SiteFigures | null {
  const v = parsed(text);
  return isObject(v) ? v as unknown as SiteFigures : null;
}

/**
 * scans.alerts: the verdicts of the scan's alert conditions once it completed ([] when it has no condition). Null
 * before it completed, for a scan completed before the column existed (migration 015), and for a value that is not a
 * JSON list: its conditions count as not judged.
 */
export function readScanAlerts(text: string | null): AlertVerdict[] | null {
  const v = parsed(text);
  return Array.isArray(v) ? v as AlertVerdict[] : null;
}

/** scans.skipped: the URLs discovery found and did not test, counted by reason; {} before discovery ended and for a value that is not a JSON object. */
export function readSkipped(text: string): Record<string, number> {
  const v = parsed(text);
  return isObject(v) ? v as Record<string, number> : {};
}

/** scans.discovery_errors: what went wrong where during discovery (at most 20); [] for a value that is not a JSON list. */
export function readDiscoveryErrors(text: string): string[] {
  const v = parsed(text);
  return Array.isArray(v) ? v as string[] : [];
}

/**
 * scan_pages.run_values: the page's figures over its test's kept runs, `{metric: number[]}` (page-artifacts.ts).
 * Null for a page tested once, for a page finished before the column existed (migration 014), and for a value that is
 * not a JSON object: the comparison then judges the page by its thresholds.
 */
export function readRunValues(text: string | null): Record<string, number[]> | null {
  const v = parsed(text);
  return isObject(v) ? v as Record<string, number[]> : null;
}
