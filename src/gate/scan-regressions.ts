/**
 * `webgauge scan --compare-to last|SCAN_ID`: once the scan has completed, the server's comparison of it with an
 * earlier scan (GET /scans/{before}/compare/{after}, docs/scans.md "Compare two scans"), and what the outputs say of
 * it: the pages that got significantly worse, each with what got worse and on what basis (a test over the runs, or a
 * threshold), which fail the gate (exit 1, as a failed budget does). `last` with no earlier completed scan of the site
 * is no failure: the comparison is skipped, saying so (the first scan of a pipeline).
 */
import type { ComparedPage, Reason, ScanComparison } from '../analysis/scan-comparison-types.js';
import { plural } from '../lib/words.js';
import { apiErrorText, GateError, type ApiClient } from './api-client.js';

/** The comparison of the gate's scan (after) with the earlier one (before). */
export interface GateComparison {
  /** --compare-to as given: last, or a scan ID. */
  to: string;
  /** The earlier scan's ID (unknown when `last` found none). */
  against?: string;
  /** Why nothing was compared (last: no earlier completed scan of the site); the gate judges its budgets alone then. */
  skipped?: string;
  /** The comparison resource's attributes and links, when it was made. */
  attributes?: ScanComparison & { before?: { scan?: string; created?: number } };
  links?: Record<string, string>;
}

/** --compare-to's value: `last` or a scan ID (no slash, no control character). */
export function parseCompareTo(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '' || v.length > 128 || /[/\u0000-\u001f\u007f]/.test(v)) {
    throw new GateError(`--compare-to ${JSON.stringify(value)}: give last (the site's previous completed scan) or a scan's ID`);
  }
  return v;
}

/** Asks the server for the comparison of scan `scanId` (after) with `to` (before: last, or a scan's ID). */
export async function fetchComparison(api: ApiClient, scanId: string, to: string): Promise<GateComparison> {
  const path = to === 'last'
    ? `/scans/${encodeURIComponent(scanId)}/compare/last`
    : `/scans/${encodeURIComponent(to)}/compare/${encodeURIComponent(scanId)}`;
  const reply = await api.request('GET', path);
  if (to === 'last' && reply.status === 404) {
    // The gate's own scan exists (it was just read): no earlier completed scan of the site, the first of a pipeline.
    const errors = reply.body?.errors as { detail?: string }[] | undefined;
    return { to, skipped: errors?.[0]?.detail ?? 'no earlier completed scan of the site to compare with' };
  }
  if (reply.status >= 400) throw new GateError(`GET ${path}: ${apiErrorText(reply)}`);
  const data = reply.body?.data as { attributes?: GateComparison['attributes']; links?: Record<string, string> } | undefined;
  if (!data?.attributes || !Array.isArray(data.attributes.pages)) throw new GateError(`GET ${path}: the server answered without a comparison`);
  return { to, against: data.attributes.before?.scan ?? (to === 'last' ? undefined : to), attributes: data.attributes, links: data.links };
}

/** The pages that got significantly worse (the comparison lists them first). */
export const worsePages = (c: GateComparison | undefined): ComparedPage[] => c?.attributes?.pages.filter((p) => p.verdict === 'worse') ?? [];

/** "LCP 1.80 s → 2.90 s (threshold, not a test: +1.10 s, threshold 500 ms)" */
export const reasonText = (r: Reason): string => `${r.text} (${r.basis === 'test' ? 'test' : 'threshold, not a test'}: ${r.why})`;

/** What got worse on a page, one reason after the other. */
export const worseText = (p: ComparedPage): string => p.reasons.filter((r) => r.direction === 'worse').map(reasonText).join('; ');

/** "scan X" */
export const againstName = (c: GateComparison): string => `scan ${c.against ?? c.to}`;

/** "scan X (started 2026-11-28 10:00 UTC)", when the server said when it started. */
export function againstText(c: GateComparison): string {
  const created = c.attributes?.before?.created;
  const when = typeof created === 'number' ? ` (started ${new Date(created * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC)` : '';
  return `${againstName(c)}${when}`;
}

/** "2 worse, 1 better, 5 unchanged, 1 new, 0 gone, 0 not measured" */
export function countsText(c: ScanComparison): string {
  const n = c.counts;
  return `${n.worse} worse, ${n.better} better, ${n.unchanged} unchanged, ${n.new} new, ${n.gone} gone, ${n.failed} not measured`;
}

/** The verdict's words on the comparison: undefined when none was made. */
export function comparisonVerdict(c: GateComparison | undefined): { failed: boolean; text: string } | undefined {
  if (!c?.attributes) return undefined;
  const worse = worsePages(c).length;
  return worse
    ? { failed: true, text: `${plural(worse, 'page')} significantly worse than ${againstName(c)}` }
    : { failed: false, text: `no page significantly worse than ${againstName(c)}` };
}
