/**
 * Google's Chrome UX Report (issue 51, point 4): CrUX's p75s for a URL (its origin's when the URL has no record) and
 * its weekly history, shown beside the lab and beside this site's own visitors, labelled as Google's and never mixed
 * into ours. Asked only when the operator set a key (config.crux), at most once a UTC day per URL (or origin) and form
 * factor (the answer, or that there is none, kept in the store: crux_cache), within CrUX's quota of 150 queries a
 * minute for the whole process. The tested page's URL goes to Google: that is what setting the key means.
 *
 * CrUX's API (../shared/notes/field-facts.md §4): POST {base}/records:queryRecord and records:queryHistoryRecord
 * with `{url | origin, formFactor, metrics}`; a 404 NOT_FOUND means no record; CLS percentiles come as strings.
 */
import { clock } from '../clock.js';
import { FIELD_FIGURE_NAMES, type FieldFigureName } from '../../analysis/figures.js';
import type { Db } from '../../store/db.js';
import { cachedCrux, keepCrux } from '../../store/crux.js';
import type { DeviceClass } from '../vocabulary/device-classes.js';

export type CruxFormFactor = 'PHONE' | 'DESKTOP';

/** CrUX's name of each of our field figures. */
export const CRUX_METRICS: Readonly<Record<FieldFigureName, string>> = {
  lcp: 'largest_contentful_paint', inp: 'interaction_to_next_paint', cls: 'cumulative_layout_shift',
  fcp: 'first_contentful_paint', ttfb: 'experimental_time_to_first_byte',
};
/** CrUX's quota per Cloud project. */
export const CRUX_QUERIES_PER_MINUTE = 150;
/** The History API's most weekly periods. */
export const CRUX_HISTORY_PERIODS = 40;
/** A question waits at most this long for a slot of the quota, and for Google's answer: a screen is not held longer. */
const WAIT_MAX_MS = 2_000;
const ANSWER_TIMEOUT_MS = 4_000;
const DAY = 86_400_000;

export interface CruxMetric {
  p75: number;
  /** Shares (0-1) of the three bins. */
  good: number;
  needsImprovement: number;
  poor: number;
}

export interface CruxRecord {
  /** origin: the URL had no record; the origin's is shown (said so wherever it is). */
  scope: 'url' | 'origin';
  /** The URL or origin CrUX answered for. */
  key: string;
  formFactor: CruxFormFactor;
  collectionPeriod: { first: string; last: string };
  metrics: Partial<Record<FieldFigureName, CruxMetric>>;
}

export interface CruxHistoryPoint {
  /** The period's last day, YYYY-MM-DD. */
  last: string;
  p75: Partial<Record<FieldFigureName, number>>;
}

export interface CruxHistory {
  scope: 'url' | 'origin';
  key: string;
  formFactor: CruxFormFactor;
  /** Weekly periods, oldest first (weeks without enough data left out). */
  points: CruxHistoryPoint[];
}

/** A phone test ↔ CrUX's phones, a desktop test ↔ its desktops. */
export function cruxFormFactorOf(cls: DeviceClass): CruxFormFactor {
  return cls === 'desktop' ? 'DESKTOP' : 'PHONE';
}

/* CrUX's answers, as documented */

interface CruxDate { year: number; month: number; day: number }
interface CruxMetricAnswer {
  histogram?: { start: number | string; end?: number | string; density?: number }[];
  percentiles?: { p75?: number | string };
  percentilesTimeseries?: { p75s?: (number | string | null)[] };
}
interface CruxAnswer {
  record?: {
    key?: { url?: string; origin?: string };
    metrics?: Record<string, CruxMetricAnswer>;
    collectionPeriod?: { firstDate?: CruxDate; lastDate?: CruxDate };
    collectionPeriods?: { firstDate?: CruxDate; lastDate?: CruxDate }[];
  };
}

const dateOf = (d: CruxDate | undefined): string =>
  d ? `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}` : '';

const num = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** A queryRecord answer as our record; undefined when it is not of the documented shape. */
export function parseCruxRecord(answer: unknown, scope: CruxRecord['scope'], formFactor: CruxFormFactor): CruxRecord | undefined {
  const record = (answer as CruxAnswer | null)?.record;
  if (!record?.metrics) return undefined;
  const metrics: CruxRecord['metrics'] = {};
  for (const name of FIELD_FIGURE_NAMES) {
    const m = record.metrics[CRUX_METRICS[name]];
    const p75 = num(m?.percentiles?.p75);
    if (!m || p75 === undefined) continue;
    const d = (m.histogram ?? []).map((b) => num(b.density) ?? 0);
    metrics[name] = { p75, good: d[0] ?? 0, needsImprovement: d[1] ?? 0, poor: d[2] ?? 0 };
  }
  return {
    scope, key: record.key?.url ?? record.key?.origin ?? '', formFactor, metrics,
    collectionPeriod: { first: dateOf(record.collectionPeriod?.firstDate), last: dateOf(record.collectionPeriod?.lastDate) },
  };
}

/** A queryHistoryRecord answer as weekly p75s, oldest first; a week CrUX has too little data for (null, "NaN") is left out. */
export function parseCruxHistory(answer: unknown, scope: CruxHistory['scope'], formFactor: CruxFormFactor): CruxHistory | undefined {
  const record = (answer as CruxAnswer | null)?.record;
  if (!record?.metrics || !Array.isArray(record.collectionPeriods)) return undefined;
  const points: CruxHistoryPoint[] = record.collectionPeriods.map((p) => ({ last: dateOf(p.lastDate), p75: {} }));
  for (const name of FIELD_FIGURE_NAMES) {
    const series = record.metrics[CRUX_METRICS[name]]?.percentilesTimeseries?.p75s ?? [];
    series.forEach((v, i) => {
      const n = num(v);
      if (n !== undefined && points[i]) points[i]!.p75[name] = n;
    });
  }
  return { scope, key: record.key?.url ?? record.key?.origin ?? '', formFactor, points: points.filter((p) => p.last && Object.keys(p.p75).length > 0) };
}

/**
 * The origin of a URL CrUX may be asked about: http(s) on a host name with a dot, not an IP address nor localhost.
 * CrUX knows only public sites; a test of an internal address (an IP, a one-label intranet name) is not sent to Google.
 */
export function askableOrigin(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
  const host = u.hostname;
  if (!host.includes('.') || host.endsWith('.localhost') || /^[\d.]+$/.test(host) || host.startsWith('[')) return undefined;
  return u.origin;
}

/* The client */

type Asked = { kind: 'answer'; body: unknown } | { kind: 'none' } | { kind: 'failed' };

export interface CruxLog {
  warn(obj: object, msg: string): void;
}

export class CruxClient {
  /** When each query of the last minute was sent (the quota's sliding window). */
  private readonly sent: number[] = [];
  private readonly asking = new Map<string, Promise<unknown>>();
  /** Queries sent, by endpoint (tests, /metrics). */
  readonly counts = { record: 0, history: 0 };

  constructor(private readonly settings: { apiKey: string; baseUrl: string }, private readonly db: Db, private readonly log: CruxLog) {}

  /** CrUX's record of a URL (the origin's when the URL has none) for a form factor; null: none, or CrUX could not be asked. */
  record(url: string, formFactor: CruxFormFactor): Promise<CruxRecord | null> {
    return this.kept('record', url, formFactor, (scope, id) => this.ask('records:queryRecord', { ...id, formFactor, metrics: Object.values(CRUX_METRICS) })
      .then((a) => (a.kind === 'answer' ? { kind: 'answer' as const, body: parseCruxRecord(a.body, scope, formFactor) ?? null } : a)));
  }

  /** An origin's record (a scan's site). */
  originRecord(origin: string, formFactor: CruxFormFactor): Promise<CruxRecord | null> {
    return this.kept('record', origin, formFactor, (scope, id) => this.ask('records:queryRecord', { ...id, formFactor, metrics: Object.values(CRUX_METRICS) })
      .then((a) => (a.kind === 'answer' ? { kind: 'answer' as const, body: parseCruxRecord(a.body, scope, formFactor) ?? null } : a)), true);
  }

  /** CrUX's weekly p75s of a URL (the origin's when the URL has none), up to 40 weeks. */
  history(url: string, formFactor: CruxFormFactor): Promise<CruxHistory | null> {
    return this.kept('history', url, formFactor, (scope, id) => this.ask('records:queryHistoryRecord',
      { ...id, formFactor, metrics: Object.values(CRUX_METRICS), collectionPeriodCount: CRUX_HISTORY_PERIODS })
      .then((a) => (a.kind === 'answer' ? { kind: 'answer' as const, body: parseCruxHistory(a.body, scope, formFactor) ?? null } : a)));
  }

  /**
   * Today's kept answer, else CrUX asked (the URL, then its origin on NOT_FOUND) and the answer kept for the day. A
   * failure is not kept: the last day's answer is shown if there is one, and CrUX is asked again on the next view.
   * Callers asking the same at once share one question.
   */
  private async kept<T>(kind: 'record' | 'history', key: string, formFactor: CruxFormFactor,
    ask: (scope: 'url' | 'origin', id: { url: string } | { origin: string }) => Promise<Asked>, isOrigin = false): Promise<T | null> {
    const id = `${kind} ${formFactor} ${key}`;
    const pending = this.asking.get(id);
    if (pending) return pending as Promise<T | null>;
    const work = (async (): Promise<T | null> => {
      const today = Math.floor(clock.now() / DAY) * DAY;
      const row = await cachedCrux(this.db, kind, key, formFactor);
      const stored = row?.body ? (JSON.parse(row.body) as T) : null;
      if (row && row.day === today) return stored;
      const origin = askableOrigin(key);
      if (origin === undefined) return null;
      let answer = await ask(isOrigin ? 'origin' : 'url', isOrigin ? { origin } : { url: key });
      if (answer.kind === 'none' && !isOrigin) answer = await ask('origin', { origin });
      if (answer.kind === 'failed') return stored;
      const body = answer.kind === 'answer' ? answer.body : null;
      await keepCrux(this.db, { kind, key, form_factor: formFactor, day: today, body: body === null ? null : JSON.stringify(body), fetched: clock.now() });
      return body as T | null;
    })().finally(() => this.asking.delete(id));
    this.asking.set(id, work);
    return work;
  }

  /** One question to CrUX, within the quota; a 404 is "no record", anything else that is not a 200 a failure (logged). */
  private async ask(endpoint: 'records:queryRecord' | 'records:queryHistoryRecord', body: object): Promise<Asked> {
    if (!(await this.slot())) {
      this.log.warn({ endpoint }, `CrUX: over the quota of ${CRUX_QUERIES_PER_MINUTE} queries a minute; not asked now`);
      return { kind: 'failed' };
    }
    this.counts[endpoint === 'records:queryRecord' ? 'record' : 'history']++;
    try {
      const res = await fetch(`${this.settings.baseUrl}/${endpoint}?key=${encodeURIComponent(this.settings.apiKey)}`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body),
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
      const text = await res.text();
      if (res.status === 404) return { kind: 'none' };
      if (res.status !== 200) {
        // The key is in the request's URL, never in what is logged.
        this.log.warn({ endpoint, status: res.status, answer: text.slice(0, 300) }, 'CrUX answered with an error');
        return { kind: 'failed' };
      }
      return { kind: 'answer', body: JSON.parse(text) as unknown };
    } catch (err) {
      this.log.warn({ endpoint, err: (err as Error).message }, 'CrUX could not be asked');
      return { kind: 'failed' };
    }
  }

  /** A place in the last minute's 150; waits for one up to WAIT_MAX_MS, else false. */
  private async slot(): Promise<boolean> {
    const deadline = clock.now() + WAIT_MAX_MS;
    for (;;) {
      const now = clock.now();
      while (this.sent.length && this.sent[0]! <= now - 60_000) this.sent.shift();
      if (this.sent.length < CRUX_QUERIES_PER_MINUTE) {
        this.sent.push(now);
        return true;
      }
      const free = this.sent[0]! + 60_000;
      if (free > deadline) return false;
      await new Promise((r) => setTimeout(r, free - now));
    }
  }
}
