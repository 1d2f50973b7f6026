/**
 * Small line charts drawn as SVG on the server (no script, no library): one metric over a page's reports, each
 * point a link to its report, named for screen readers and reachable with the keyboard, and a named flag where an
 * alert triggered. Pure functions.
 */
import { esc } from '../report/format.js';
import { structureAuditSet } from '../analysis/structure/index.js';
import { MONTHS } from '../lib/dates.js';
import { cpuBasisName } from '../core/reports/device-cpu.js';

export interface ChartPoint {
  /** The report the point opens. */
  href: string;
  /** When (ms since the epoch). */
  time: number;
  /** The figure, or null when the report has none (no Lighthouse): the point is left out. */
  value: number | null;
  /** The Lighthouse that made the report's figures (reports.lighthouse_version), when one did. */
  lighthouse?: string | null;
  /**
   * The CPU the figures came from (core/reports/device-cpu.ts cpuBasis): a phone's calibrated target, or null for the
   * agent's own CPU; left out where no report says (a scan's points).
   */
  cpu?: number | null;
}

export interface ChartMetric {
  /** As the caption shows it: "Performance". */
  title: string;
  /** As a point's name says it: "performance". */
  label: string;
  format: (v: number) => string;
  /** A fixed top of the axis (scores: 100); otherwise a round number at or above the largest value. */
  max?: number;
  /** The smallest top of a free axis (so a metric that is always 0 still has a scale). */
  minTop?: number;
  /**
   * The figure reads the structure audits of the Lighthouse that made it (metrics table `byAuditSet`): the line is
   * broken where the audit set changed, since the points on either side do not compare.
   */
  byAuditSet?: boolean;
  /** The figure's rating bands (the one table's): drawn as dashed lines where they fall inside the axis. */
  bands?: { good: number; poor: number };
  /** Bytes: the axis tops out at a round number of KB or MB, not of bytes. */
  binary?: boolean;
}

const two = (n: number) => String(n).padStart(2, '0');

/** "14:02:07 25 Nov 2026" (UTC), as the app writes a report's time (to the second: two tests of one minute differ). */
export function when(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** "25 Nov" (UTC). */
export function day(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
}

/** The time axis's end labels: days, or times of day when the reports span less than two days. */
export function axisEnds(from: number, to: number): [string, string] {
  if (to - from >= 2 * 86_400_000) return [day(from), day(to)];
  const hm = (t: number) => when(t).slice(0, 5);
  return day(from) === day(to) ? [hm(from), `${hm(to)} ${day(to)}`] : [`${hm(from)} ${day(from)}`, `${hm(to)} ${day(to)}`];
}

/** The smallest of 1, 2, 2.5, 5 × 10^k that is at least `v` (v > 0). */
export function niceCeil(v: number): number {
  const exp = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * exp >= v * (1 - 1e-12)) return m * exp;
  return 10 * exp;
}

/** The top of a free axis: a round number at or above `v`; of KB or MB for bytes (1.00 MB, not 976.6 KB). */
export function roundTop(v: number, binary: boolean): number {
  if (!binary) return niceCeil(v);
  const base = v > 512 * 1024 ? 1_048_576 : v > 512 ? 1024 : 1;
  return base * niceCeil(v / base);
}

/* The drawing: a fixed viewBox that scales with the figure's width. */
export const VIEW = { width: 320, height: 136, left: 50, right: 10, top: 12, bottom: 26 } as const;
const plotW = VIEW.width - VIEW.left - VIEW.right;
const plotH = VIEW.height - VIEW.top - VIEW.bottom;
const r1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Another series drawn beside the points, on the same axes, without points of its own: real visitors' p75 per day
 * (this site's own, or Google's CrUX per week) beside a page's lab reports.
 */
export interface ChartLine {
  /** As the legend and the summary say it: "This site's visitors (p75 per day)". */
  name: string;
  /** `line-field` (dashed), `line-crux` (dotted). */
  className: string;
  points: readonly { time: number; value: number }[];
}

/** The points that have a value, oldest first, placed in the viewBox; the time axis and the top fit the lines too. */
export function layout(metric: ChartMetric, points: ChartPoint[], lines: readonly ChartLine[] = []): {
  top: number; placed: (ChartPoint & { value: number; x: number; y: number })[]; placeLine: (l: ChartLine) => { x: number; y: number }[];
  /** The time axis's ends (the points' and the lines'). */
  from: number; to: number;
} {
  const valued = points.filter((p): p is ChartPoint & { value: number } => p.value !== null && Number.isFinite(p.value))
    .sort((a, b) => a.time - b.time);
  const others = lines.flatMap((l) => l.points).filter((p) => Number.isFinite(p.value));
  const largest = Math.max(0, ...valued.map((p) => p.value), ...others.map((p) => p.value));
  const top = metric.max ?? roundTop(Math.max(largest, metric.minTop ?? 1), metric.binary === true);
  const times = [...valued, ...others].map((p) => p.time);
  const t0 = times.length ? Math.min(...times) : 0;
  const span = times.length ? Math.max(...times) - t0 : 0;
  const xOf = (t: number) => r1(span > 0 ? VIEW.left + ((t - t0) / span) * plotW : VIEW.left + plotW / 2);
  const yOf = (v: number) => r1(VIEW.top + plotH - (Math.min(Math.max(v, 0), top) / top) * plotH);
  const placed = valued.map((p) => ({ ...p, x: xOf(p.time), y: yOf(p.value) }));
  const placeLine = (l: ChartLine) => [...l.points].sort((a, b) => a.time - b.time).map((p) => ({ x: xOf(p.time), y: yOf(p.value) }));
  return { top, placed, placeLine, from: t0, to: t0 + span };
}

/** An alert that triggered on a report of the chart: a flag over that report's point. */
export interface ChartMarker {
  /** The report's time (ms), placed on the time axis as its point is. */
  time: number;
  /** The figure that triggered it (a regression's: the recent median). */
  value: number;
}

/** A marker's name: "Alert triggered: Fully loaded 3.20 s at 14:02:07 25 Nov 2026". */
export const markerName = (metric: ChartMetric, m: ChartMarker): string =>
  `Alert triggered: ${metric.title} ${metric.format(m.value)} at ${when(m.time)}`;

/**
 * The markers inside the time axis of the points, each a dashed line over the plot under a flag above it, named
 * (an image with a title, so hovering shows it too). Markers outside the charted reports' span are left out.
 */
function drawMarkers(metric: ChartMetric, markers: ChartMarker[], from: number, to: number): { svg: string; count: number } {
  const shown = markers.filter((m) => Number.isFinite(m.time) && m.time >= from && m.time <= to).sort((a, b) => a.time - b.time);
  const bottomY = VIEW.top + plotH;
  const svg = shown.map((m) => {
    const x = r1(to > from ? VIEW.left + ((m.time - from) / (to - from)) * plotW : VIEW.left + plotW / 2);
    const name = markerName(metric, m);
    return `<g class="marker" role="img" aria-label="${esc(name)}"><title>${esc(name)}</title>` +
      `<line x1="${x}" y1="${VIEW.top - 2}" x2="${x}" y2="${bottomY}"/><path d="M${r1(x - 5)} 1h10l-5 9z"/></g>`;
  }).join('');
  return { svg, count: shown.length };
}

/** Where the Lighthouse that made the reports changed: between two charted points of different versions. */
export interface VersionChange {
  /** The first point made by the new version. */
  index: number;
  from: string;
  to: string;
  time: number;
  /** The structure audits changed too (a new major version: Lighthouse 12 → 13). */
  auditsChanged: boolean;
}

export function versionChanges(placed: readonly { lighthouse?: string | null; time: number }[]): VersionChange[] {
  const changes: VersionChange[] = [];
  let last: string | undefined;
  placed.forEach((p, index) => {
    if (!p.lighthouse) return;
    if (last !== undefined && p.lighthouse !== last) {
      changes.push({ index, from: last, to: p.lighthouse, time: p.time,
        auditsChanged: structureAuditSet(last) !== structureAuditSet(p.lighthouse) });
    }
    last = p.lighthouse;
  });
  return changes;
}

/** A change's name: "Lighthouse 12.8.2 → 13.5.0 from 14:02:07 25 Nov 2026 (the structure audits changed)". */
export const versionChangeName = (c: VersionChange, metric: ChartMetric): string =>
  `Lighthouse ${c.from} → ${c.to} from ${when(c.time)}` +
  (c.auditsChanged && metric.byAuditSet ? `: ${metric.title.toLowerCase()} before and after read other audits and do not compare` : '');

/** Where the CPU the figures came from changed (a page tested as a phone before device classes, then on a phone's CPU). */
export interface CpuChange {
  /** The first point on the new CPU. */
  index: number;
  from: number | null;
  to: number | null;
  time: number;
}

export function cpuChanges(placed: readonly { cpu?: number | null; time: number }[]): CpuChange[] {
  const changes: CpuChange[] = [];
  let last: number | null | undefined;
  placed.forEach((p, index) => {
    if (p.cpu === undefined) return;
    if (last !== undefined && p.cpu !== last) changes.push({ index, from: last, to: p.cpu, time: p.time });
    last = p.cpu;
  });
  return changes;
}

/** "CPU: a mid-tier phone's CPU (benchmark 1000) from 14:02:07 5 Dec 2026; before: the test agent's own CPU: the figures do not compare". */
export const cpuChangeName = (c: CpuChange): string =>
  `CPU: ${cpuBasisName(c.to)} from ${when(c.time)}; before: ${cpuBasisName(c.from)}: the figures before and after do not compare`;

/** Each change of a line drawn between its two points, labelled: a version change, a CPU change. */
function drawChange(placed: readonly { x: number }[], c: { index: number }, className: string, name: string, label: string): string {
  const bottomY = VIEW.top + plotH;
  const x = r1((placed[c.index - 1]!.x + placed[c.index]!.x) / 2);
  return `<g class="${className}" role="img" aria-label="${esc(name)}"><title>${esc(name)}</title>` +
    `<line x1="${x}" y1="${VIEW.top}" x2="${x}" y2="${bottomY}"/>` +
    // The label on the side of the line with room for it.
    (x > VIEW.left + plotW / 2
      ? `<text x="${r1(x - 3)}" y="${VIEW.top + 9}" text-anchor="end">`
      : `<text x="${r1(x + 3)}" y="${VIEW.top + 9}">`) + `${esc(label)}</text></g>`;
}

/** Each version change as a dotted line between its two points, labelled with the new version. */
function drawVersionChanges(metric: ChartMetric, placed: readonly { x: number }[], changes: readonly VersionChange[]): string {
  return changes.map((c) => drawChange(placed, c, 'lh-change', versionChangeName(c, metric), `LH ${c.to.split('.').slice(0, 2).join('.')}`)).join('');
}

/**
 * One metric as a `<figure>`: a caption with the metric and its latest value, then the chart (axis ends, a line,
 * a linked point per report, named "14:02 25 Nov 2026: performance 87%", and a flag per alert that triggered on
 * one of them). Reports without the figure are skipped; with none at all the figure says so.
 */
export function lineChart(metric: ChartMetric, points: ChartPoint[], markers: ChartMarker[] = [],
  /** What a point is, as the names say it: a page's report, a site's scan, or a day of real visitors' figures. */
  noun: 'report' | 'scan' | 'day' = 'report', lines: readonly ChartLine[] = []): string {
  const drawn = lines.filter((l) => l.points.length > 0);
  const { top, placed, placeLine, from, to } = layout(metric, points, drawn);
  const latest = placed[placed.length - 1];
  // A day of real visitors is a day (UTC), not the instant it starts: "5 Dec 2026", and the axis's ends are days.
  const stamp = noun === 'day' ? (t: number) => `${day(t)} ${new Date(t).getUTCFullYear()}` : when;
  const ends = (from: number, to: number): [string, string] => (noun === 'day' ? [day(from), day(to)] : axisEnds(from, to));
  const caption = `<figcaption><h3>${esc(metric.title)} <span class="chart-latest">${latest ? esc(metric.format(latest.value)) : '–'}</span></h3></figcaption>`;
  if (!latest) {
    return `<figure class="chart card">${caption}<p class="muted">No ${esc(metric.label)} figures: these ${noun}s did not measure it.</p></figure>`;
  }
  const values = placed.map((p) => p.value);
  const flags = drawMarkers(metric, markers, from, to);
  const changes = versionChanges(placed);
  const cpus = cpuChanges(placed);
  const summary = `${metric.title} over ${placed.length} ${noun}${placed.length === 1 ? '' : 's'}` +
    (placed.length > 1 ? `, from ${stamp(placed[0].time)} to ${stamp(latest.time)}` : `, ${stamp(latest.time)}`) +
    `: latest ${metric.format(latest.value)}, lowest ${metric.format(Math.min(...values))}, highest ${metric.format(Math.max(...values))}` +
    (metric.bands ? `; good ≤ ${metric.format(metric.bands.good)}, poor > ${metric.format(metric.bands.poor)}` : '') +
    (flags.count ? `; ${flags.count} alert${flags.count === 1 ? '' : 's'} triggered` : '') +
    changes.map((c) => `; ${versionChangeName(c, metric)}`).join('') + cpus.map((c) => `; ${cpuChangeName(c)}`).join('') +
    drawn.map((l) => `; ${l.name}: ${l.points.length} point${l.points.length === 1 ? '' : 's'}, latest ${metric.format(l.points[l.points.length - 1]!.value)}`).join('');
  const bottomY = VIEW.top + plotH;
  const x1 = VIEW.left + plotW;
  const axes = `<g class="axis"><line x1="${VIEW.left}" y1="${VIEW.top}" x2="${x1}" y2="${VIEW.top}"/>` +
    `<line x1="${VIEW.left}" y1="${bottomY}" x2="${x1}" y2="${bottomY}"/></g>` +
    `<g class="ticks"><text x="${VIEW.left - 6}" y="${VIEW.top + 4}" text-anchor="end">${esc(metric.format(top))}</text>` +
    `<text x="${VIEW.left - 6}" y="${bottomY + 4}" text-anchor="end">${esc(metric.format(0))}</text>` +
    (to > from
      ? `<text x="${VIEW.left}" y="${VIEW.height - 6}" text-anchor="start">${ends(from, to)[0]}</text>` +
        `<text x="${x1}" y="${VIEW.height - 6}" text-anchor="end">${ends(from, to)[1]}</text>`
      : `<text x="${VIEW.left + plotW / 2}" y="${VIEW.height - 6}" text-anchor="middle">${stamp(latest.time)}</text>`) + '</g>';
  // The rating bands (good at or under the first line, poor over the second), where the axis reaches them.
  const yOf = (v: number) => r1(VIEW.top + plotH - (v / top) * plotH);
  const bands = metric.bands ? ([['good', metric.bands.good], ['poor', metric.bands.poor]] as const)
    .filter(([, v]) => v > 0 && v <= top)
    .map(([k, v]) => `<g class="band band-${k}"><line x1="${VIEW.left}" y1="${yOf(v)}" x2="${x1}" y2="${yOf(v)}"/>` +
      `<text x="${x1 - 2}" y="${r1(yOf(v) - 2)}" text-anchor="end">${k} ${esc(metric.format(v))}</text></g>`).join('') : '';
  // A figure that reads the structure audits is not joined across a change of them, nor any figure across a change of CPU.
  const breaks = [...new Set([...(metric.byAuditSet ? changes.filter((c) => c.auditsChanged).map((c) => c.index) : []),
    ...cpus.map((c) => c.index)])].sort((a, b) => a - b);
  const segments = [0, ...breaks].map((start, i) => placed.slice(start, [...breaks, placed.length][i]));
  const line = segments.filter((seg) => seg.length > 1)
    .map((seg) => `<polyline class="line" points="${seg.map((p) => `${p.x},${p.y}`).join(' ')}"/>`).join('');
  const versions = (changes.length ? `<g class="lh-changes">${drawVersionChanges(metric, placed, changes)}</g>` : '') +
    (cpus.length ? `<g class="cpu-changes">${cpus.map((c) => drawChange(placed, c, 'cpu-change', cpuChangeName(c),
      c.to === null ? 'agent CPU' : 'phone CPU')).join('')}</g>` : '');
  // Each line as a polyline (a lone day as a short dash), under the points.
  const others = drawn.map((l) => {
    const at = placeLine(l);
    const shape = at.length > 1 ? `<polyline points="${at.map((p) => `${p.x},${p.y}`).join(' ')}"/>` : `<line x1="${r1(at[0]!.x - 4)}" y1="${at[0]!.y}" x2="${r1(at[0]!.x + 4)}" y2="${at[0]!.y}"/>`;
    return `<g class="${esc(l.className)}">${shape}</g>`;
  }).join('');
  const legend = drawn.length ? `<p class="chart-legend"><span class="key-lab">${esc(noun === 'report' ? 'Lab reports' : `${noun[0]!.toUpperCase()}${noun.slice(1)}s`)}</span>` +
    drawn.map((l) => `<span class="key-${esc(l.className)}">${esc(l.name)}</span>`).join('') + '</p>' : '';
  const radius = placed.length > 40 ? 2.5 : 3.5;
  const dots = placed.map((p) => {
    const name = `${stamp(p.time)}: ${metric.label} ${metric.format(p.value)}`;
    return `<a href="${esc(p.href)}" aria-label="${esc(name)}"><title>${esc(name)}</title><circle cx="${p.x}" cy="${p.y}" r="${radius}"/></a>`;
  }).join('');
  // Two layers of one viewBox: the drawing, an image with its summary; over it the points, a group of links (links
  // inside role="img" would be presentational children: axe's nested-interactive).
  const box = `viewBox="0 0 ${VIEW.width} ${VIEW.height}"`;
  return `<figure class="chart card">${caption}<div class="chart-plot">` +
    `<svg role="img" aria-label="${esc(summary)}" ${box}>${axes}${bands}${versions}${others}${line}</svg>` +
    `<svg class="points" role="group" aria-label="${esc(`${metric.title} of each ${noun}`)}" ${box}>` +
    `${flags.count ? `<g class="markers">${flags.svg}</g>` : ''}${dots}</svg></div>${legend}</figure>`;
}
