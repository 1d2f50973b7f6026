/**
 * What a Lighthouse audit names and what fixing it would save, read from its result (the LHR's `details`,
 * `metricSavings`), in one shape for every audit: Lighthouse 12's opportunities and tables, and Lighthouse 13's
 * insights (tables, checklists, lists of them, a node, a network tree).
 */
import type { LhAudit, Savings, StructureItem } from './audit.js';

/** Items kept per audit: enough to act on, few enough for the report and structure.json. */
export const ITEMS_KEPT = 50;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** A node item's words: its HTML snippet, else its selector. */
function elementOf(node: unknown): string | undefined {
  if (!isObj(node)) return undefined;
  return text(node.snippet) ?? text(node.selector) ?? text(node.nodeLabel);
}

/** A table or opportunity row, in our words (unknown columns are left out). */
function rowItem(row: Obj): StructureItem | undefined {
  const source = isObj(row.source) ? row.source : undefined;
  const entity = row.entity;
  const item: StructureItem = {
    url: text(row.url) ?? text(source?.url) ?? (isObj(entity) ? text(entity.url) : undefined),
    element: elementOf(row.node),
    label: text(row.statistic) ?? (isObj(entity) ? text(entity.text) : text(entity)) ?? text(row.source) ?? text(row.label) ??
      text(row.reason),
    total_bytes: num(row.totalBytes) ?? num(row.transferSize),
    wasted_bytes: num(row.wastedBytes),
    wasted_ms: num(row.wastedMs) ?? num(row.mainThreadTime) ?? num(row.blockingTime) ?? num(row.duration),
  };
  // A statistic's value (DOM size: total elements, depth, children) is what it names.
  const value = isObj(row.value) ? num(row.value.value) : undefined;
  if (value !== undefined && item.label) item.label = `${item.label}: ${value}`;
  for (const k of Object.keys(item) as (keyof StructureItem)[]) if (item[k] === undefined) delete item[k];
  return Object.keys(item).length > 0 ? item : undefined;
}

/** Every URL of a network tree (Lighthouse 13's network-dependency-tree-insight), depth first. */
function chainItems(chains: unknown, out: StructureItem[]): void {
  if (!isObj(chains)) return;
  for (const link of Object.values(chains)) {
    if (!isObj(link)) continue;
    const url = text(link.url);
    if (url) out.push({ url });
    chainItems(link.children, out);
  }
}

function detailItems(details: unknown, out: StructureItem[]): void {
  if (!isObj(details) || out.length >= ITEMS_KEPT) return;
  switch (details.type) {
    case 'table':
    case 'opportunity':
      if (Array.isArray(details.items)) {
        for (const row of details.items) {
          const item = isObj(row) ? rowItem(row) : undefined;
          if (item) out.push(item);
        }
      }
      return;
    case 'checklist':
      // The checks that failed (document latency: redirects, a slow server, no compression; LCP discovery).
      if (isObj(details.items)) {
        for (const check of Object.values(details.items)) {
          if (isObj(check) && check.value === false && text(check.label)) out.push({ label: check.label as string });
        }
      }
      return;
    case 'node': {
      const element = elementOf(details);
      if (element) out.push({ element });
      return;
    }
    case 'list':
      if (Array.isArray(details.items)) for (const part of details.items) detailItems(part, out);
      return;
    case 'list-section':
      return detailItems(details.value, out);
    case 'network-tree':
      return chainItems(details.chains, out);
    default:
  }
}

/** What the audit names, at most ITEMS_KEPT, duplicates dropped. */
export function lighthouseItems(audit: LhAudit): StructureItem[] {
  const all: StructureItem[] = [];
  detailItems(audit.details, all);
  const seen = new Set<string>();
  const items: StructureItem[] = [];
  for (const item of all) {
    const key = JSON.stringify(item);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(item);
    if (items.length >= ITEMS_KEPT) break;
  }
  return items;
}

/** Time metrics whose saving is a time (CLS's is not). */
const TIME_METRICS = ['FCP', 'LCP', 'TBT', 'INP'];

/** What fixing the audit would save: Lighthouse's time and byte estimates, and each metric's. */
export function lighthouseSavings(audit: LhAudit): Savings | undefined {
  const details = isObj(audit.details) ? audit.details : {};
  const debug = isObj(details.debugData) ? details.debugData : {};
  const metrics: Record<string, number> = {};
  for (const [metric, value] of Object.entries(audit.metricSavings ?? {})) {
    if (num(value) !== undefined) metrics[metric] = value as number;
  }
  const largestTime = Math.max(0, ...TIME_METRICS.map((m) => metrics[m] ?? 0));
  const ms = num(details.overallSavingsMs) ?? (largestTime > 0 ? largestTime : undefined);
  const bytes = num(details.overallSavingsBytes) ?? num(debug.wastedBytes);
  const savings: Savings = {
    ...(ms ? { ms: Math.round(ms) } : {}),
    ...(bytes ? { bytes: Math.round(bytes) } : {}),
    ...(Object.keys(metrics).length > 0 ? { metrics } : {}),
  };
  return Object.keys(savings).length > 0 ? savings : undefined;
}
