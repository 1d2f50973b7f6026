/**
 * The waterfall of the report page, drawn from the HAR without script: one row per request, a bar per row
 * placed on the load's timeline (ms since navigation start) with its phases (latency queue, blocked, DNS,
 * connect, TLS, send, wait, receive), and lines at first contentful paint, DOMContentLoaded, onload and fully
 * loaded.
 */
import { esc, bytes, ms } from './format.js';

export interface WaterfallEntry {
  startedDateTime: string;
  time: number;
  request: { method?: string; url: string };
  response: { status: number; _transferSize?: number; bodySize?: number; content: { size?: number; mimeType?: string } };
  timings: { blocked?: number; dns?: number; connect?: number; ssl?: number; send?: number; wait?: number;
    receive?: number; _queued?: number };
  _resourceType?: string;
}

export interface WaterfallMarks {
  firstContentfulPaint: number;
  domContentLoaded: number;
  onload: number;
  /** -1 with stop_onload. */
  fullyLoaded: number;
}

const PHASES = [
  ['_queued', 'queued', 'Queued (includes throttle latency)'],
  ['blocked', 'blocked', 'Blocked'],
  ['dns', 'dns', 'DNS'],
  ['connect', 'connect', 'Connect'],
  ['send', 'send', 'Send'],
  ['wait', 'wait', 'Wait (server)'],
  ['receive', 'receive', 'Receive'],
] as const;

const positive = (n: number | undefined): number => (typeof n === 'number' && n > 0 ? n : 0);

interface Row {
  entry: WaterfallEntry;
  /** ms since navigation start at which the request was created (before any queueing). */
  start: number;
  segments: { phase: string; from: number; length: number }[];
  end: number;
}

function rows(entries: readonly WaterfallEntry[]): Row[] {
  const created = (e: WaterfallEntry) => Date.parse(e.startedDateTime) - positive(e.timings._queued);
  const origin = Math.min(...entries.map(created));
  return entries
    .map((entry) => {
      const start = created(entry) - origin;
      let at = start;
      const segments: Row['segments'] = [];
      for (const [key, phase] of PHASES) {
        // ssl is inside connect in HAR 1.2: drawn as part of it.
        const length = positive(entry.timings[key]);
        if (length > 0) segments.push({ phase, from: at, length });
        at += length;
      }
      return { entry, start, segments, end: Math.max(at, start + positive(entry.time)) };
    })
    .sort((a, b) => a.start - b.start);
}

/** Longer parts are cut in their middle here; the stylesheet cuts the folders first where the column is narrower. */
const MAX_PART = 60;
const cutMiddle = (s: string, max: number): string => (s.length > max ? `${s.slice(0, Math.ceil(max / 2) - 1)}…${s.slice(-Math.floor(max / 2))}` : s);

/**
 * A request's URL as its row names it: its folders, its file name with the query, and its host. Where the column is
 * too narrow the stylesheet cuts the folders (…/p1.jpg), the file name last, so rows of one folder stay told apart.
 */
export function urlParts(url: string): { dir: string; file: string; host: string } {
  let path = url;
  let host = '';
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') {
      path = `${u.pathname}${u.search}`;
      host = u.host;
    }
  } catch {
    // Not a URL: shown as given (as a data: or blob: URL is).
  }
  const q = path.indexOf('?');
  // A file at the root ("/", "/collect?v=2") keeps its slash: no folders to cut.
  const slash = Math.max(0, path.lastIndexOf('/', q < 0 ? path.length : q));
  return { dir: cutMiddle(path.slice(0, slash + (slash > 0 ? 1 : 0)), MAX_PART), file: cutMiddle(path.slice(slash + (slash > 0 ? 1 : 0)), MAX_PART), host };
}

/** Where a waterfall's last event is (ms since navigation start): its last request's end, onload or fully loaded. */
export function waterfallSpan(entries: readonly WaterfallEntry[], marks: WaterfallMarks): number {
  return Math.max(1, marks.fullyLoaded, marks.onload, ...(entries.length ? rows(entries).map((r) => r.end) : []));
}

/**
 * @param limit rows shown; the rest are counted in a last line
 * @param span the time the axis reaches at least (waterfallSpan of every waterfall drawn beside this one: Compare's
 *   waterfalls share one time axis)
 */
export function renderWaterfall(entries: readonly WaterfallEntry[], marks: WaterfallMarks, limit = Infinity, span = 0): string {
  if (entries.length === 0) return '<p class="muted">No requests were recorded.</p>';
  const all = rows(entries);
  const shown = all.slice(0, limit);
  // Room after the last event for its line and the last bar's duration label.
  const total = Math.max(span, waterfallSpan(entries, marks)) * 1.08;
  const pct = (t: number): string => `${((100 * t) / total).toFixed(3)}%`;
  const step = [100, 200, 250, 500, 1000, 2000, 5000, 10_000, 20_000, 30_000, 60_000].find((s) => total / s <= 6) ?? 120_000;
  const ticks: string[] = [];
  for (let t = step; t < total; t += step) ticks.push(`<span class="tick" style="left:${pct(t)}">${ms(t)}</span>`);
  const lines = ([
    ['fcp', marks.firstContentfulPaint, 'First contentful paint'],
    ['dcl', marks.domContentLoaded, 'DOMContentLoaded'],
    ['onload', marks.onload, 'Onload'],
    ['fl', marks.fullyLoaded, 'Fully loaded'],
  ] as const)
    .filter(([, t]) => t >= 0)
    .map(([cls, t, title]) => `<i class="mark ${cls}" style="left:${pct(t)}" title="${title} ${ms(t)}"></i>`)
    .join('');
  const body = shown.map((r, i) => {
    const { dir, file, host } = urlParts(r.entry.request.url);
    const size = positive(r.entry.response._transferSize ?? r.entry.response.bodySize);
    const status = r.entry.response.status;
    const bars = r.segments.map((s) =>
      `<b class="${s.phase}" style="left:${pct(s.from)};width:${pct(Math.max(s.length, total / 1000))}"></b>`).join('');
    const timing = PHASES.filter(([k]) => positive(r.entry.timings[k]) > 0)
      .map(([k, , label]) => `${label} ${ms(Math.round(positive(r.entry.timings[k])))}`).join(', ');
    return `<tr><td class="n">${i + 1}</td>` +
      `<td class="url" title="${esc(r.entry.request.url)}"><span class="path">${dir ? `<span class="dir">${esc(dir)}</span>` : ''}` +
      `<span class="file">${esc(file)}</span></span><small>${esc(host)}</small></td>` +
      `<td class="${status >= 400 || status === 0 ? 'bad' : ''}">${status || '–'}</td>` +
      `<td>${esc(r.entry._resourceType ?? '')}</td><td class="num">${bytes(size)}</td>` +
      `<td class="bar" title="${esc(`starts at ${ms(Math.round(r.start))}; ${timing}`)}">${lines}${bars}` +
      `<em style="left:${pct(r.end)}">${ms(Math.round(r.end - r.start))}</em></td></tr>`;
  }).join('');
  const more = all.length > shown.length
    ? `<tr><td></td><td colspan="5" class="muted">and ${all.length - shown.length} more requests (full PDF and web report list them all)</td></tr>`
    : '';
  const legend = PHASES.map(([, phase, label]) => `<span><b class="${phase}"></b>${label}</span>`).join('') +
    '<span><i class="mark fcp"></i>First contentful paint</span><span><i class="mark dcl"></i>DOMContentLoaded</span>' +
    '<span><i class="mark onload"></i>Onload</span>' +
    (marks.fullyLoaded >= 0 ? '<span><i class="mark fl"></i>Fully loaded</span>' : '');
  return `<div class="waterfall"><table><thead><tr><th>#</th><th>URL</th><th>Status</th><th>Type</th>` +
    `<th class="num">Size</th><th class="bar axis">${ticks.join('')}</th></tr></thead><tbody>${body}${more}</tbody></table>` +
    `<div class="legend">${legend}</div></div>`;
}
