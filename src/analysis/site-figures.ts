/**
 * A site's figures from its scanned pages (docs/scans.md "figures"): how many pages are good, need improvement or
 * are poor on each Core Web Vital (TBT standing in for INP, as in Lighthouse), medians and 75th percentiles, the
 * grade distribution, the worst pages and templates, the structure audits that fail on the most pages with their
 * savings added up, and the third-party origins most pages load. Pure: the caller reads the reports.
 */
import { figure, rate, roundFigure, type FigureName, type RatedFigure } from './figures.js';
import { median } from './statistics.js';

/**
 * The rated figures a scan counts its pages by (good / needs improvement / poor, in the one table's bands; TBT standing
 * in for INP, as in Lighthouse), in the order the site report lists them.
 */
export const VITAL_NAMES = ['largest_contentful_paint', 'cumulative_layout_shift', 'total_blocking_time'] as const satisfies readonly RatedFigure[];
export type Vital = (typeof VITAL_NAMES)[number];

/** A scan's site: its origin once discovery followed the start page's redirects, else the start URL's origin. */
export const scanSite = (s: { site: string | null; url: string }): string => s.site ?? new URL(s.url).origin;

/** A page as the site's readers name it: its path on the site, any other URL in full. */
export const pathOnSite = (site: string, url: string): string => (url.startsWith(`${site}/`) ? url.slice(site.length) : url);

/** A page's report figures that site figures and comparisons read (null where the report has none). */
export interface PageFigures {
  grade: string | null;
  performance_score: number | null;
  largest_contentful_paint: number | null;
  total_blocking_time: number | null;
  cumulative_layout_shift: number | null;
  fully_loaded_time: number | null;
}

/** A completed page of the scan with its report's figures. */
export interface SitePage extends PageFigures {
  url: string;
  template: string;
  report_id: string | null;
}

/** A structure audit of one page (its structure.json). */
export interface PageAudit {
  id: string;
  title: string;
  impact: string;
  score: number | null;
  savings?: { ms?: number; bytes?: number };
}

/** One third-party origin as one page loaded it (from its HAR). */
export interface PageThirdParty {
  origin: string;
  requests: number;
  bytes: number;
  time_ms: number;
}

export interface VitalFigures {
  good: number;
  needs_improvement: number;
  poor: number;
  median: number | null;
  p75: number | null;
}

export interface SiteFigures {
  pages_measured: number;
  largest_contentful_paint: VitalFigures;
  cumulative_layout_shift: VitalFigures;
  total_blocking_time: VitalFigures;
  fully_loaded_time: { median: number | null; p75: number | null };
  performance_score: { median: number | null; p75: number | null };
  grades: Record<string, number>;
  worst_pages: {
    url: string; template: string; report: string | null; grade: string | null; performance_score: number | null;
    largest_contentful_paint: number | null; total_blocking_time: number | null; cumulative_layout_shift: number | null;
  }[];
  worst_templates: { template: string; pages: number; performance_score: number | null; largest_contentful_paint: number | null }[];
  structure: { id: string; title: string; impact: string; failing_pages: number; pages_measured: number; savings_ms: number; savings_bytes: number }[];
  third_parties: { origin: string; pages: number; requests: number; bytes: number; time_ms: number }[];
}

/** The value at or below which `p` of the values lie (nearest rank: a value that was measured, never invented). */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

const present = (xs: readonly (number | null)[]): number[] => xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
const mid = (xs: readonly number[]): number | null => (xs.length === 0 ? null : median(xs));
/** Rounded as the figure's unit keeps it (CLS three decimals, the rest whole numbers). */
const rounded = (v: number | null, name: FigureName): number | null => (v === null ? null : roundFigure(figure(name).unit, v));

/** The band of a page's value of a site vital. */
export const rateVital = (vital: Vital, value: number) => rate(vital, value);

function vitalFigures(pages: readonly SitePage[], vital: Vital): VitalFigures {
  const values = present(pages.map((p) => p[vital]));
  const out: VitalFigures = { good: 0, needs_improvement: 0, poor: 0, median: rounded(mid(values), vital), p75: rounded(percentile(values, 0.75), vital) };
  for (const v of values) out[rateVital(vital, v)] += 1;
  return out;
}

/** Worst first: the lowest performance score, then the highest LCP; pages without either last. */
function worseFirst(a: SitePage, b: SitePage): number {
  const sa = a.performance_score ?? Infinity;
  const sb = b.performance_score ?? Infinity;
  if (sa !== sb) return sa - sb;
  return (b.largest_contentful_paint ?? -1) - (a.largest_contentful_paint ?? -1);
}

/** Lighthouse counts an audit as passed at 0.9 and above. */
const FAILS_BELOW = 0.9;

export function siteFigures(pages: readonly SitePage[], audits: ReadonlyMap<string, readonly PageAudit[]>,
  thirdParties: ReadonlyMap<string, readonly PageThirdParty[]>, top = 10): SiteFigures {
  const grades: Record<string, number> = {};
  for (const p of pages) if (p.grade) grades[p.grade] = (grades[p.grade] ?? 0) + 1;

  const templates = new Map<string, SitePage[]>();
  for (const p of pages) templates.set(p.template, [...(templates.get(p.template) ?? []), p]);
  const worstTemplates = [...templates].map(([template, ps]) => ({
    template, pages: ps.length,
    performance_score: rounded(mid(present(ps.map((p) => p.performance_score))), 'performance_score'),
    largest_contentful_paint: rounded(mid(present(ps.map((p) => p.largest_contentful_paint))), 'largest_contentful_paint'),
  })).sort((a, b) => (a.performance_score ?? Infinity) - (b.performance_score ?? Infinity)
    || (b.largest_contentful_paint ?? -1) - (a.largest_contentful_paint ?? -1) || a.template.localeCompare(b.template));

  const structure = new Map<string, SiteFigures['structure'][number]>();
  for (const list of audits.values()) {
    for (const a of list) {
      if (a.score === null) continue;
      const s = structure.get(a.id) ?? { id: a.id, title: a.title, impact: a.impact, failing_pages: 0, pages_measured: 0, savings_ms: 0, savings_bytes: 0 };
      s.pages_measured += 1;
      if (a.score < FAILS_BELOW) {
        s.failing_pages += 1;
        s.savings_ms += Math.round(a.savings?.ms ?? 0);
        s.savings_bytes += Math.round(a.savings?.bytes ?? 0);
      }
      structure.set(a.id, s);
    }
  }

  const origins = new Map<string, SiteFigures['third_parties'][number]>();
  for (const list of thirdParties.values()) {
    for (const t of list) {
      const o = origins.get(t.origin) ?? { origin: t.origin, pages: 0, requests: 0, bytes: 0, time_ms: 0 };
      o.pages += 1;
      o.requests += t.requests;
      o.bytes += t.bytes;
      o.time_ms += Math.round(t.time_ms);
      origins.set(t.origin, o);
    }
  }

  return {
    pages_measured: pages.length,
    largest_contentful_paint: vitalFigures(pages, 'largest_contentful_paint'),
    cumulative_layout_shift: vitalFigures(pages, 'cumulative_layout_shift'),
    total_blocking_time: vitalFigures(pages, 'total_blocking_time'),
    fully_loaded_time: {
      median: rounded(mid(present(pages.map((p) => p.fully_loaded_time))), 'fully_loaded_time'),
      p75: rounded(percentile(present(pages.map((p) => p.fully_loaded_time)), 0.75), 'fully_loaded_time'),
    },
    performance_score: {
      median: rounded(mid(present(pages.map((p) => p.performance_score))), 'performance_score'),
      // The score a quarter of the pages fall below: higher is better, so the 25th percentile of the values.
      p75: rounded(percentile(present(pages.map((p) => p.performance_score)), 0.25), 'performance_score'),
    },
    grades,
    worst_pages: [...pages].sort(worseFirst).slice(0, top).map((p) => ({
      url: p.url, template: p.template, report: p.report_id, grade: p.grade, performance_score: p.performance_score,
      largest_contentful_paint: p.largest_contentful_paint, total_blocking_time: p.total_blocking_time,
      cumulative_layout_shift: p.cumulative_layout_shift,
    })),
    worst_templates: worstTemplates.slice(0, top),
    structure: [...structure.values()].filter((s) => s.failing_pages > 0)
      .sort((a, b) => b.failing_pages - a.failing_pages || b.savings_ms - a.savings_ms || b.savings_bytes - a.savings_bytes || a.id.localeCompare(b.id)),
    third_parties: [...origins.values()]
      .sort((a, b) => b.pages - a.pages || b.time_ms - a.time_ms || a.origin.localeCompare(b.origin)).slice(0, 20),
  };
}

/** The part of a HAR entry third parties are read from. */
export interface HarEntryOfPage {
  request: { url: string };
  response?: { _transferSize?: number; bodySize?: number; headersSize?: number };
  time?: number;
}

/** Origins of requests that are not the page's site (another host, not a subdomain of the site's), per origin. */
export function thirdPartiesOf(entries: readonly HarEntryOfPage[], site: string): PageThirdParty[] {
  let siteHost: string;
  try {
    siteHost = new URL(site).hostname.replace(/^www\./, '');
  } catch {
    return [];
  }
  const byOrigin = new Map<string, PageThirdParty>();
  for (const e of entries) {
    let u: URL;
    try {
      u = new URL(e.request.url);
    } catch {
      continue;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') continue;
    const host = u.hostname;
    if (host === siteHost || host.endsWith(`.${siteHost}`) || `www.${siteHost}` === host) continue;
    const t = byOrigin.get(u.origin) ?? { origin: u.origin, requests: 0, bytes: 0, time_ms: 0 };
    t.requests += 1;
    const r = e.response;
    const transfer = r?._transferSize ?? ((r?.bodySize ?? 0) > 0 ? (r!.bodySize ?? 0) + Math.max(0, r?.headersSize ?? 0) : 0);
    t.bytes += Math.max(0, transfer);
    t.time_ms += Math.max(0, e.time ?? 0);
    byOrigin.set(u.origin, t);
  }
  return [...byOrigin.values()];
}
