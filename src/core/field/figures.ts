/**
 * Reading field figures: the one core module the Field screen, the API and (next) reports, pages, scans, alerts and
 * the gate call. Every figure comes from the rollups (rollup.ts), never from raw rows: a window of 1 to 90 days is its
 * day rollups (today's included, as far as it has gone), merged; the attribution lists are the only reader of raw
 * views, within the site's raw retention.
 *
 * A window of `days` is the last `days` UTC days, today the last of them.
 */
import { ApiError, show } from '../errors.js';
import { clock } from '../clock.js';
import { FIELD_FIGURE_NAMES, rateField, type FieldFigureName, type Rating } from '../../analysis/figures.js';
import type { Db } from '../../store/db.js';
import { countFieldViewsSince, rollupRows, sumFieldCounts, viewsForAttribution, type FieldCountColumn, type RollupQuery } from '../../store/field.js';
import { EFFECTIVE_TYPES, FIELD_DEVICES, type FieldDevice } from './beacon.js';
import { DAY, startOfDay, type Cut } from './rollup.js';
import { MAX_WINDOW_DAYS, type FieldSite } from './sites.js';
import { FieldSketch } from './sketch.js';
import { BROWSER_FAMILIES } from './visitor.js';

export const DEFAULT_WINDOW_DAYS = 28;
export const CONNECTION_CLASSES = [...EFFECTIVE_TYPES, 'unknown'] as const;
export const BREAKDOWNS = ['template', 'path', 'device', 'connection', 'browser'] as const;
export type Breakdown = (typeof BREAKDOWNS)[number];
/** The attribution lists read at most this many of the newest raw views of the window. */
const ATTRIBUTION_VIEWS = 20_000;
const LIVE_MS = 5 * 60_000;

export interface FieldFilters {
  device?: FieldDevice;
  template?: string;
  path?: string;
  connection?: string;
  browser?: string;
}

export interface FieldQuery {
  days: number;
  filters: FieldFilters;
}

export interface MetricFigures {
  /** Page views that measured this metric (INP needs an interaction; some browsers measure no LCP or CLS). */
  n: number;
  p50: number | null;
  p75: number | null;
  p90: number | null;
  /** Shares of the views (0-1) by web.dev's bands; null without views. */
  good: number | null;
  needsImprovement: number | null;
  poor: number | null;
  /** The p75's band: a site "passes" a metric when its p75 is good. */
  rating: Rating | null;
}

export interface FieldFigures {
  views: number;
  metrics: Record<FieldFigureName, MetricFigures>;
}

export interface FieldWindow {
  days: number;
  /** ms: the first day's start, and now. */
  from: number;
  to: number;
}

const bad = (detail: string) => new ApiError('E40005', detail);

/**
 * A query string's window and filters (`days`, `device`, `template`, `path`, `connection`, `browser`), checked; the
 * same names in the API and the app.
 */
export function parseFieldQuery(q: Record<string, unknown>): FieldQuery {
  const one = (k: string): string | undefined => {
    const v = q[k];
    if (v === undefined || v === '') return undefined;
    if (typeof v !== 'string') throw bad(`${k} is given more than once; give it once.`);
    if (v.length > 2048) throw bad(`${k} is longer than 2,048 characters.`);
    return v;
  };
  let days = DEFAULT_WINDOW_DAYS;
  const d = one('days');
  if (d !== undefined) {
    days = Number(d);
    if (!/^\d+$/.test(d) || days < 1 || days > MAX_WINDOW_DAYS) throw bad(`days must be a whole number from 1 to ${MAX_WINDOW_DAYS}, got ${show(d)}.`);
  }
  const filters: FieldFilters = {};
  const device = one('device');
  if (device !== undefined) {
    if (!(FIELD_DEVICES as readonly string[]).includes(device)) throw bad(`device must be one of ${FIELD_DEVICES.join(', ')}, got ${show(device)}.`);
    filters.device = device as FieldDevice;
  }
  const connection = one('connection');
  if (connection !== undefined) {
    if (!(CONNECTION_CLASSES as readonly string[]).includes(connection)) throw bad(`connection must be one of ${CONNECTION_CLASSES.join(', ')}, got ${show(connection)}.`);
    filters.connection = connection;
  }
  const browser = one('browser');
  if (browser !== undefined) {
    if (!(BROWSER_FAMILIES as readonly string[]).includes(browser)) throw bad(`browser must be one of ${BROWSER_FAMILIES.join(', ')}, got ${show(browser)}.`);
    filters.browser = browser;
  }
  const template = one('template');
  if (template !== undefined) filters.template = template;
  const path = one('path');
  if (path !== undefined) {
    if (!path.startsWith('/')) throw bad(`path must start with "/" (a path of the site), got ${show(path)}.`);
    filters.path = path;
  }
  return { days, filters };
}

export function parseBreakdown(v: unknown): Breakdown {
  if (typeof v !== 'string' || !(BREAKDOWNS as readonly string[]).includes(v)) throw bad(`by must be one of ${BREAKDOWNS.join(', ')}, got ${show(v)}.`);
  return v as Breakdown;
}

export function fieldWindow(days: number, now = clock.now()): FieldWindow {
  return { days, from: startOfDay(now) - (days - 1) * DAY, to: now };
}

/**
 * The cut whose rows answer these filters (and a breakdown by `by`): the narrowest one that has every key asked. A path
 * (asked for, or broken down by) combines with its template and the device only: the path cut's keys.
 */
function cutFor(filters: FieldFilters, by?: Breakdown): Cut {
  const keys = new Set(Object.entries(filters).filter(([k, v]) => v !== undefined && k !== 'device').map(([k]) => k));
  if (by && by !== 'device') keys.add(by);
  if (keys.has('path')) {
    const other = [...keys].filter((k) => k !== 'path' && k !== 'template');
    if (other.length > 0) throw bad(`A path combines with its template and the device only, not with ${other.join(' or ')}: leave ${other.length === 1 ? 'it' : 'them'} out or look at the template.`);
    return 'path';
  }
  if (keys.size === 0) return 'site';
  if (keys.size === 1) return [...keys][0] as Cut;
  return 'full';
}

function rowsQuery(site: FieldSite, w: FieldWindow, filters: FieldFilters, cut: Cut, grain: 'hour' | 'day' = 'day'): RollupQuery {
  const q: RollupQuery = { siteId: site.id, cut, grain, from: w.from, to: w.to + 1, device: filters.device };
  // The filters the cut keeps as keys.
  if (cut === 'template' || cut === 'path' || cut === 'full') q.template = filters.template;
  if (cut === 'path') q.path = filters.path;
  if (cut === 'connection' || cut === 'full') q.connection = filters.connection;
  if (cut === 'browser' || cut === 'full') q.browser = filters.browser;
  return q;
}

export function figuresOf(sketch: FieldSketch): FieldFigures {
  const metrics = {} as Record<FieldFigureName, MetricFigures>;
  for (const name of FIELD_FIGURE_NAMES) {
    const d = sketch.distribution(name);
    const p75 = sketch.quantile(name, 0.75);
    metrics[name] = {
      n: d.n, p50: sketch.quantile(name, 0.5), p75, p90: sketch.quantile(name, 0.9),
      good: d.n === 0 ? null : d.good / d.n, needsImprovement: d.n === 0 ? null : d.ni / d.n, poor: d.n === 0 ? null : d.poor / d.n,
      rating: p75 === null ? null : rateField(name, p75),
    };
  }
  return { views: sketch.views, metrics };
}

/** The figures of a site over a window, with filters. */
export async function readFieldSummary(db: Db, site: FieldSite, q: FieldQuery, now = clock.now()): Promise<{ window: FieldWindow; figures: FieldFigures }> {
  const w = fieldWindow(q.days, now);
  const rows = await rollupRows(db, rowsQuery(site, w, q.filters, cutFor(q.filters)));
  const sketch = new FieldSketch();
  for (const r of rows) sketch.mergeEncoded(r.sketch);
  return { window: w, figures: figuresOf(sketch) };
}

export interface BreakdownRow {
  value: string;
  figures: FieldFigures;
}

/** The figures per value of one key (template, path, device, connection, browser), most viewed first. */
export async function readFieldBreakdown(db: Db, site: FieldSite, q: FieldQuery, by: Breakdown, limit = 100, now = clock.now()):
  Promise<{ window: FieldWindow; rows: BreakdownRow[] }> {
  const w = fieldWindow(q.days, now);
  const rows = await rollupRows(db, rowsQuery(site, w, q.filters, cutFor(q.filters, by)));
  const groups = new Map<string, FieldSketch>();
  for (const r of rows) {
    const value = by === 'device' ? r.device : r[by];
    let s = groups.get(value);
    if (!s) groups.set(value, (s = new FieldSketch()));
    s.mergeEncoded(r.sketch);
  }
  const out = [...groups].map(([value, s]) => ({ value, figures: figuresOf(s) }))
    .sort((a, b) => b.figures.views - a.figures.views || (a.value < b.value ? -1 : 1));
  return { window: w, rows: out.slice(0, limit) };
}

export interface SeriesPoint {
  /** ms: the day's start (UTC). */
  day: number;
  views: number;
  p75: Record<FieldFigureName, number | null>;
}

/** The p75 of each metric per day of the window (days without views are left out). */
export async function readFieldSeries(db: Db, site: FieldSite, q: FieldQuery, now = clock.now()): Promise<{ window: FieldWindow; points: SeriesPoint[] }> {
  const w = fieldWindow(q.days, now);
  const rows = await rollupRows(db, rowsQuery(site, w, q.filters, cutFor(q.filters)));
  const days = new Map<number, FieldSketch>();
  for (const r of rows) {
    let s = days.get(r.start);
    if (!s) days.set(r.start, (s = new FieldSketch()));
    s.mergeEncoded(r.sketch);
  }
  const points = [...days].sort((a, b) => a[0] - b[0]).map(([day, s]) => ({
    day, views: s.views,
    p75: Object.fromEntries(FIELD_FIGURE_NAMES.map((m) => [m, s.quantile(m, 0.75)])) as Record<FieldFigureName, number | null>,
  }));
  return { window: w, points };
}

export interface AttributionEntry {
  /** The selector, resource URL or script URL. */
  value: string;
  count: number;
  /** The metric's p75 over the views that named it (exact: these few are read raw). */
  p75: number;
}

export interface FieldAttribution {
  /** The raw views read (the newest of the window, at most ATTRIBUTION_VIEWS), and from when (the raw retention bounds it). */
  views: number;
  from: number;
  lcpElements: AttributionEntry[];
  lcpResources: AttributionEntry[];
  inpTargets: AttributionEntry[];
  inpScripts: AttributionEntry[];
  clsTargets: AttributionEntry[];
}

/** What the views name as the cause of their LCP, INP and CLS, each with its count and the p75 of those views. */
export async function readFieldAttribution(db: Db, site: FieldSite, q: FieldQuery, limit = 20, now = clock.now()): Promise<FieldAttribution> {
  const w = fieldWindow(q.days, now);
  const from = Math.max(w.from, now - site.rawRetentionDays * DAY);
  const views = await viewsForAttribution(db, { siteId: site.id, from, ...q.filters, limit: ATTRIBUTION_VIEWS });
  const lists = { lcpElements: new Map<string, number[]>(), lcpResources: new Map<string, number[]>(), inpTargets: new Map<string, number[]>(),
    inpScripts: new Map<string, number[]>(), clsTargets: new Map<string, number[]>() };
  const add = (m: Map<string, number[]>, key: unknown, value: number | null) => {
    if (typeof key !== 'string' || key === '' || value === null) return;
    let l = m.get(key);
    if (!l) m.set(key, (l = []));
    l.push(value);
  };
  for (const v of views) {
    const a = parseAttribution(v.attribution);
    add(lists.lcpElements, a.lcp?.el, v.lcp);
    add(lists.lcpResources, a.lcp?.src, v.lcp);
    add(lists.inpTargets, a.inp?.el, v.inp);
    add(lists.inpScripts, a.inp?.script?.src, v.inp);
    add(lists.clsTargets, a.cls?.el, v.cls);
  }
  const top = (m: Map<string, number[]>): AttributionEntry[] => [...m]
    .map(([value, values]) => ({ value, count: values.length, p75: nearestRank(values, 0.75) }))
    .sort((a, b) => b.count - a.count || b.p75 - a.p75).slice(0, limit);
  return {
    views: views.length, from, lcpElements: top(lists.lcpElements), lcpResources: top(lists.lcpResources),
    inpTargets: top(lists.inpTargets), inpScripts: top(lists.inpScripts), clsTargets: top(lists.clsTargets),
  };
}

interface StoredAttribution {
  lcp?: { el?: string; src?: string };
  inp?: { el?: string; script?: { src?: string } };
  cls?: { el?: string };
}

function parseAttribution(text: string | null): StoredAttribution {
  if (text === null) return {};
  try {
    return JSON.parse(text) as StoredAttribution;
  } catch {
    return {};
  }
}

/** The nearest-rank percentile of values (the value of rank ⌈q·n⌉), as the rollups define it. */
export function nearestRank(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

export interface FieldIntake {
  /** Page views taken in the last five minutes (the first thing to look at after pasting the snippet). */
  lastFiveMinutes: number;
  /** Since the window's start: beacons taken, and refused per reason. */
  accepted: number;
  refused: Record<Exclude<FieldCountColumn, 'accepted'>, number>;
}

export async function readFieldIntake(db: Db, site: FieldSite, days: number, now = clock.now()): Promise<FieldIntake> {
  const [recent, counts] = await Promise.all([
    countFieldViewsSince(db, site.id, now - LIVE_MS),
    sumFieldCounts(db, site.id, fieldWindow(days, now).from),
  ]);
  const { accepted, ...refused } = counts;
  return { lastFiveMinutes: recent, accepted, refused };
}
