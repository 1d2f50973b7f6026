/**
 * Lab beside field (issue 51): a lab test's URL and device matched to this account's real visitors of that URL. The
 * report, the page view, the scan's site report and the gate read field figures of a URL here, and compare a lab figure
 * with its field twin here; like every field figure, they come from the rollups (one statement per site and device).
 *
 * The match: the account's field site whose origins include the URL's origin (the first made, when two do); the URL's
 * path as the snippet keeps it (no query unless the site keeps queries); the device class of the test (a desktop
 * test ↔ desktop visitors, a phone test ↔ mobile visitors); the last LAB_FIELD_DAYS days. A path with fewer than
 * FIELD_MIN_VIEWS page views is judged by its template's figures, and says so.
 */
import { clock } from '../clock.js';
import { FIELD_FIGURE_NAMES, FIELD_FIGURES, fieldFigure, formatFigure, rate, type FieldFigureName, type Rating } from '../../analysis/figures.js';
import { assignTemplates, compilePattern } from '../../discovery/templates.js';
import type { Db } from '../../store/db.js';
import { labFieldRows, listFieldSites, type FieldRollupRow } from '../../store/field.js';
import type { DeviceClass } from '../vocabulary/device-classes.js';
import type { FieldDevice } from './beacon.js';
import { fieldWindow, figuresOf, type FieldFigures, type FieldWindow } from './figures.js';
import { DAY } from './rollup.js';
import { fieldSiteOf, type FieldSite } from './sites.js';
import { FieldSketch } from './sketch.js';
import { readDeviceCpu } from '../reports/device-cpu.js';
import { deviceClassOf } from '../vocabulary/device-classes.js';
import { readFieldSummary } from './figures.js';
import { readOptions, StoredOptionsError } from '../options/stored-options.js';
import { cpuThrottleOf } from '../pages/device-siblings.js';
import type { SecretBox } from '../../store/secret-box.js';
import type { Catalog } from '../catalog/catalog.js';

/** Fewer page views than this and a figure is too few to judge: a path's then comes from its template. */
export const FIELD_MIN_VIEWS = 50;
/** The window a lab figure is set beside: the last 28 days, as CrUX and PageSpeed Insights read the field. */
export const LAB_FIELD_DAYS = 28;

/** The visitors a lab test stands for: a desktop test ↔ desktop visitors, a phone test ↔ mobile visitors. */
export function fieldDeviceOfClass(cls: DeviceClass): FieldDevice {
  return cls === 'desktop' ? 'desktop' : 'mobile';
}

export interface UrlFieldTarget {
  url: string;
  device: FieldDevice;
}

/** Where a URL's field figures come from: its own page views, its template's, or neither has enough. */
export type FieldBasis = 'path' | 'template' | 'too-few';

export interface UrlField {
  site: Pick<FieldSite, 'id' | 'name'>;
  url: string;
  /** The path as the site's views name it. */
  path: string;
  device: FieldDevice;
  window: FieldWindow;
  basis: FieldBasis;
  /** The template the path counts under (null when no view of it or of a template it could be in was counted). */
  template: string | null;
  /** The path's own page views in the window (0 when the site does not track the path). */
  pathViews: number;
  templateViews: number;
  /** The basis's figures (too few: the larger of the two, to show how few). */
  figures: FieldFigures;
  /** The Field screen's view of these figures. */
  href: string;
  /** The basis's p75 per day of the window (for the page's history charts), oldest first. */
  daily: { day: number; views: number; p75: Record<FieldFigureName, number | null> }[];
}

/** The path of a URL as a site's beacons carry it; undefined when the URL is not on one of the site's origins. */
export function fieldPathOf(site: Pick<FieldSite, 'origins' | 'keepQuery'>, url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (!site.origins.includes(u.origin)) return undefined;
  return site.keepQuery ? u.pathname + u.search : u.pathname;
}

/**
 * The templates a path could be counted under (the rollup job names it by the scans' rules among the site's known
 * paths): the site's own pattern that matches it, else its shape alone and its shape among siblings (`/blog/:slug`).
 */
export function templateCandidates(site: Pick<FieldSite, 'templates'>, path: string): string[] {
  const bare = path.split('?')[0]!;
  const own = site.templates.find((p) => compilePattern(p).test(bare));
  if (own !== undefined) return [own];
  const alone = assignTemplates([bare])[0]!;
  const segments = alone.split('/').filter(Boolean);
  if (segments.length < 2 || segments[segments.length - 1] === ':id') return [alone];
  return [alone, `/${segments.slice(0, -1).join('/')}/:slug`];
}

/** The Field screen's view of a site for a device and a path or template, over `days`. */
export function fieldHref(siteId: string, device: FieldDevice | undefined, days: number, scope: { path?: string; template?: string | null }): string {
  const q = new URLSearchParams(device ? { device, days: String(days) } : { days: String(days) });
  if (scope.path !== undefined) q.set('path', scope.path);
  if (scope.template) q.set('template', scope.template);
  return `/field/${encodeURIComponent(siteId)}?${q.toString()}`;
}

function merged(rows: readonly FieldRollupRow[]): FieldSketch {
  const s = new FieldSketch();
  for (const r of rows) s.mergeEncoded(r.sketch);
  return s;
}

function dailyOf(rows: readonly FieldRollupRow[]): UrlField['daily'] {
  const days = new Map<number, FieldRollupRow[]>();
  for (const r of rows) {
    let list = days.get(r.start);
    if (!list) days.set(r.start, (list = []));
    list.push(r);
  }
  return [...days].sort((a, b) => a[0] - b[0]).map(([day, list]) => {
    const s = merged(list);
    return { day, views: s.views, p75: Object.fromEntries(FIELD_FIGURE_NAMES.map((m) => [m, s.quantile(m, 0.75)])) as Record<FieldFigureName, number | null> };
  });
}

/** A site's rows by path (the path cut) and by template (the template cut): each URL reads its own without a scan of them all. */
interface RowsIndex {
  byPath: Map<string, FieldRollupRow[]>;
  byTemplate: Map<string, FieldRollupRow[]>;
  /** A template's window merged once, however many of its URLs ask. */
  templateSketches: Map<string, FieldSketch>;
}

function indexRows(rows: readonly FieldRollupRow[]): RowsIndex {
  const index: RowsIndex = { byPath: new Map(), byTemplate: new Map(), templateSketches: new Map() };
  for (const r of rows) {
    const [m, key] = r.cut === 'path' ? [index.byPath, r.path] : [index.byTemplate, r.template];
    let list = m.get(key);
    if (!list) m.set(key, (list = []));
    list.push(r);
  }
  return index;
}

/** One URL's field figures from its site's rows (the path's and its candidate templates'). */
function urlFieldOf(site: FieldSite, t: UrlFieldTarget, path: string, rows: RowsIndex, w: FieldWindow, dailyFrom: number): UrlField {
  const inWindow = (r: FieldRollupRow) => r.start >= w.from;
  const pathRows = rows.byPath.get(path) ?? [];
  // The template the path was counted under: its newest path row's; else the candidate with the most views.
  const candidates = templateCandidates(site, path);
  let template: string | null = pathRows.length ? pathRows.reduce((a, b) => (b.start > a.start ? b : a)).template : null;
  const templateRowsOf = (name: string) => rows.byTemplate.get(name) ?? [];
  if (template === null) {
    let best = 0;
    for (const c of candidates) {
      const views = templateRowsOf(c).filter(inWindow).reduce((n, r) => n + r.views, 0);
      if (views > best) [best, template] = [views, c];
    }
  }
  const templateRows = template === null ? [] : templateRowsOf(template);
  const pathSketch = merged(pathRows.filter(inWindow));
  let templateSketch = template === null ? new FieldSketch() : rows.templateSketches.get(template);
  if (!templateSketch) rows.templateSketches.set(template!, (templateSketch = merged(templateRows.filter(inWindow))));
  const basis: FieldBasis = pathSketch.views >= FIELD_MIN_VIEWS ? 'path' : templateSketch.views >= FIELD_MIN_VIEWS ? 'template' : 'too-few';
  const chosen = basis === 'path' ? pathSketch : basis === 'template' ? templateSketch : pathSketch.views >= templateSketch.views ? pathSketch : templateSketch;
  const scope = basis === 'template' ? { template } : { path, template };
  return {
    site: { id: site.id, name: site.name }, url: t.url, path, device: t.device, window: w, basis, template,
    pathViews: pathSketch.views, templateViews: templateSketch.views, figures: figuresOf(chosen),
    href: fieldHref(site.id, t.device, w.days, scope),
    daily: dailyOf((basis === 'template' ? templateRows : pathRows).filter((r) => r.start >= dailyFrom)),
  };
}

export interface ReadUrlFieldOptions {
  /** Days of daily p75s to return besides the window's figures (a page's history: its reports' span); 0: none. */
  dailyDays?: number;
  now?: number;
}

/**
 * The field figures of each target's URL and device (keyed `${device} ${url}`); a URL on no field site of the
 * account is absent. One read of the account's sites, then one statement per site and device, whatever the count of
 * URLs (a scan's pages).
 */
export async function readUrlsField(db: Db, accountId: string, targets: readonly UrlFieldTarget[], options: ReadUrlFieldOptions = {}):
  Promise<Map<string, UrlField>> {
  const out = new Map<string, UrlField>();
  if (targets.length === 0) return out;
  const now = options.now ?? clock.now();
  const sites = (await listFieldSites(db, accountId)).map(fieldSiteOf);
  if (sites.length === 0) return out;
  const w = fieldWindow(LAB_FIELD_DAYS, now);
  const dailyDays = Math.min(options.dailyDays ?? 0, 90);
  const dailyFrom = dailyDays > 0 ? w.to - dailyDays * DAY : Infinity;
  const from = Math.min(w.from, dailyDays > 0 ? dailyFrom - DAY : w.from);
  // Per site and device: its targets and their paths.
  const groups = new Map<string, { site: FieldSite; device: FieldDevice; items: { t: UrlFieldTarget; path: string }[] }>();
  for (const t of targets) {
    for (const site of sites) {
      const path = fieldPathOf(site, t.url);
      if (path === undefined) continue;
      const key = `${site.id} ${t.device}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { site, device: t.device, items: [] }));
      g.items.push({ t, path });
      break;
    }
  }
  for (const g of groups.values()) {
    const paths = [...new Set(g.items.map((i) => i.path))];
    const templates = [...new Set(paths.flatMap((p) => templateCandidates(g.site, p)))];
    const rows = await labFieldRows(db, { siteId: g.site.id, device: g.device, from, paths, templates });
    // The path rows name the templates their paths were counted under: those are read too when not among the candidates.
    const named = [...new Set(rows.filter((r) => r.cut === 'path').map((r) => r.template))].filter((t) => !templates.includes(t));
    const all = indexRows(named.length ? [...rows, ...(await labFieldRows(db, { siteId: g.site.id, device: g.device, from, paths: [], templates: named }))] : rows);
    for (const { t, path } of g.items) out.set(`${t.device} ${t.url}`, urlFieldOf(g.site, t, path, all, w, dailyFrom));
  }
  return out;
}

/** One URL's field figures for a device; undefined when the URL is on no field site of the account. */
export async function readUrlField(db: Db, accountId: string, target: UrlFieldTarget, options: ReadUrlFieldOptions = {}): Promise<UrlField | undefined> {
  return (await readUrlsField(db, accountId, [target], options)).get(`${target.device} ${target.url}`);
}

/* Lab against field */

/** How a lab figure stands against the field's p75: markedly better (the lab is more optimistic), markedly worse, or alike. */
export type LabFieldDirection = 'lab-better' | 'lab-worse' | 'alike';

export interface LabFieldGap {
  metric: FieldFigureName;
  lab: number;
  field: number;
  direction: LabFieldDirection;
  /** |lab − field|, in the figure's unit. */
  size: number;
  /** The sentence the screens show. */
  words: string;
}

/**
 * A lab figure against its field twin's p75. Markedly different: by at least a quarter of the field's p75 and at
 * least the figure's smallest gap that matters (the one table's `gap`), so a 40 ms difference of a 300 ms TTFB is
 * alike and a CLS of 0.01 against 0.02 too.
 */
export function compareLabField(metric: FieldFigureName, lab: number, field: number): LabFieldGap {
  const spec = fieldFigure(metric);
  const size = Math.abs(lab - field);
  const marked = size >= Math.max(0.25 * field, spec.gap);
  const direction: LabFieldDirection = !marked ? 'alike' : lab < field ? 'lab-better' : 'lab-worse';
  const f = (v: number) => formatFigure(spec.unit, v);
  const words = direction === 'alike'
    ? `The lab's ${spec.short} (${f(lab)}) is close to visitors' p75 (${f(field)}).`
    : direction === 'lab-better'
      ? `The lab's ${spec.short} (${f(lab)}) is ${f(size)} better than visitors' p75 (${f(field)}): this test is more optimistic than real visits.`
      : `The lab's ${spec.short} (${f(lab)}) is ${f(size)} worse than visitors' p75 (${f(field)}): this test is more pessimistic than real visits.`;
  return { metric, lab, field, direction, size, words };
}

/* A page's lab verdict against its field verdict (a scan's pages) */

export type LabFieldGroup = 'good-lab-poor-field' | 'poor-lab-good-field' | 'aligned' | 'no-field';

export const LAB_FIELD_GROUPS: readonly { id: LabFieldGroup; title: string; words: string }[] = [
  { id: 'good-lab-poor-field', title: 'Good lab, poor field', words: 'the lab test passes, real visitors do not: the test is not showing what visitors live' },
  { id: 'poor-lab-good-field', title: 'Poor lab, good field', words: 'the lab test fails, real visitors pass: the test is harsher than real visits' },
  { id: 'aligned', title: 'Aligned', words: 'the lab test and real visitors agree' },
  { id: 'no-field', title: 'No field figures', words: `fewer than ${FIELD_MIN_VIEWS} page views of the page or its template, or no field site for its origin` },
];

/** The lab figures a page passes on: LCP and CLS as measured, TBT as the lab's stand-in for INP (no interaction in a load). */
export interface LabVerdictFigures {
  largest_contentful_paint: number | null;
  cumulative_layout_shift: number | null;
  total_blocking_time: number | null;
}

/** Every one of the figures present is good; null when none is. */
export function labPasses(lab: LabVerdictFigures): boolean | null {
  const ratings = (Object.entries(lab) as [keyof LabVerdictFigures, number | null][])
    .filter(([, v]) => v !== null && Number.isFinite(v)).map(([k, v]) => rate(k, v!));
  return ratings.length === 0 ? null : ratings.every((r) => r === 'good');
}

/** The Core Web Vitals' p75s (LCP, INP, CLS) each good, of those with enough views; null when none has. */
export function fieldPasses(f: FieldFigures): boolean | null {
  const ratings: Rating[] = (['lcp', 'inp', 'cls'] as const).map((m) => f.metrics[m])
    .filter((m) => m.n >= FIELD_MIN_VIEWS && m.rating !== null).map((m) => m.rating!);
  return ratings.length === 0 ? null : ratings.every((r) => r === 'good');
}

export function labFieldGroup(lab: LabVerdictFigures, field: UrlField | undefined): LabFieldGroup {
  const l = labPasses(lab);
  const f = field && field.basis !== 'too-few' ? fieldPasses(field.figures) : null;
  if (l === null || f === null) return 'no-field';
  if (l && !f) return 'good-lab-poor-field';
  if (!l && f) return 'poor-lab-good-field';
  return 'aligned';
}

/** The lab twins of the field figures, in the table's order (INP has none). */
export const LAB_TWINS = FIELD_FIGURES.filter((f): f is (typeof FIELD_FIGURES)[number] & { lab: string } => 'lab' in f);

/* A report's and a scan's field figures (the API's /reports/{id}/field and /scans/{id}/field, the gate's field budgets) */

/**
 * The device class a report's load ran as: the one its load stored (reports.device_cpu), else its options' (a simulated
 * device in a browser that can slow its CPU is a mid-tier phone, anything else a desktop: the rule of a page's devices).
 */
export function reportDeviceClass(deviceCpu: string | null, options: { simulate_device?: string; device_class?: DeviceClass }, cpuThrottle: boolean):
  DeviceClass {
  return readDeviceCpu(deviceCpu)?.device_class ?? deviceClassOf(options, cpuThrottle);
}

/** The device class of a stored report (its options read with the store's key; options that do not read: its load's class, else desktop). */
export function deviceClassOfReport(box: SecretBox, catalog: Catalog, report: { device_cpu: string | null; options: string; browser: string }): DeviceClass {
  let options: { simulate_device?: string; device_class?: DeviceClass } = {};
  try {
    options = readOptions(box, report.options);
  } catch (err) {
    // A key rotated away: the device its load stored decides, else a desktop.
    if (!(err instanceof StoredOptionsError)) throw err;
  }
  return reportDeviceClass(report.device_cpu, options, cpuThrottleOf(catalog, report.browser));
}

/** What to do when no field site collects an origin's page views (the API's `detail`, the gate's skipped check). */
export function noFieldSiteDetail(origin: string): string {
  return `No field site of this account collects page views from ${origin}: create one for that origin (the Field screen's ` +
    `New field site, or POST /api/2.0/field_sites with "origins": ["${origin}"]) and paste its snippet into the site's pages (docs/field.md).`;
}

export interface OriginField {
  site: Pick<FieldSite, 'id' | 'name'>;
  origin: string;
  device: FieldDevice;
  window: FieldWindow;
  /** The whole site's views for the device: enough (site) or fewer than FIELD_MIN_VIEWS (too-few). */
  basis: 'site' | 'too-few';
  figures: FieldFigures;
  href: string;
}

/**
 * The whole field site of an origin for a device over the last LAB_FIELD_DAYS days (a scan's site, beside its site
 * figures); undefined when no field site of the account has the origin (the first made, when two do).
 */
export async function readOriginField(db: Db, accountId: string, origin: string, device: FieldDevice, options: { now?: number } = {}):
  Promise<OriginField | undefined> {
  const site = (await listFieldSites(db, accountId)).map(fieldSiteOf).find((s) => s.origins.includes(origin));
  if (!site) return undefined;
  const { window, figures } = await readFieldSummary(db, site, { days: LAB_FIELD_DAYS, filters: { device } }, options.now ?? clock.now());
  return {
    site: { id: site.id, name: site.name }, origin, device, window, basis: figures.views >= FIELD_MIN_VIEWS ? 'site' : 'too-few', figures,
    href: fieldHref(site.id, device, window.days, {}),
  };
}
