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
/** After a failure the same question is not asked again for this long (after a 429, no question is). */
const FAILURE_HOLD_MS = 60_000;
const MINUTE = 60_000;
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

/** A queryHistoryRecord answer as weekly p75s, oldest first (the newest 40 at most); a week CrUX has too little data for (null, "NaN") is left out. */
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
  return { scope, key: record.key?.url ?? record.key?.origin ?? '', formFactor, points: points.filter((p) => p.last && Object.keys(p.p75).length > 0).slice(-CRUX_HISTORY_PERIODS) };
}

/**
 * The origin of a URL CrUX may be asked about: http(s) on a host name with a dot, not an IP address nor localhost.
 * CrUX knows only public sites; a test of an internal address (an IP, a one-label intranet name) is not sent to Google.
 */
export function askableOrigin(url: string): string | undefined {
  return askable(url)?.origin;
}

/** What of a URL CrUX is asked about: the URL without its fragment (which no server sees), and its origin. */
function askable(url: string): { url: string; origin: string } | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
  const host = u.hostname;
  if (!host.includes('.') || host.endsWith('.localhost') || /^[\d.]+$/.test(host) || host.startsWith('[')) return undefined;
  u.hash = '';
  return { url: u.href, origin: u.origin };
}

/* The quota */

/**
 * CrUX's quota (150 queries a minute per Cloud project) as a first-come, first-served queue over a sliding minute: a
 * question takes the earliest place the last minute leaves free and waits for it. The wait is bounded: a question
 * whose place is more than `waitMaxMs` (2 s) away is refused at once (false) rather than queued, so that no screen is
 * held on the quota for more than ~2 s; it shows nothing of CrUX then, and the next view asks again. The app holds one
 * client, hence one quota, for the whole process.
 */
export class CruxQuota {
  /** When each place of the window was (or will be) taken, ascending. */
  private readonly taken: number[] = [];

  constructor(
    private readonly perMinute = CRUX_QUERIES_PER_MINUTE,
    private readonly waitMaxMs = WAIT_MAX_MS,
    private readonly now: () => number = () => clock.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /** A place in the quota, waited for; false when it is more than waitMaxMs away (nothing is taken then). */
  async take(): Promise<boolean> {
    const now = this.now();
    while (this.taken.length > 0 && this.taken[0]! <= now - MINUTE) this.taken.shift();
    const n = this.taken.length;
    // The earliest time at which a minute holds fewer than perMinute places, never before a place already promised.
    const at = Math.max(now, this.taken[n - 1] ?? now, n >= this.perMinute ? this.taken[n - this.perMinute]! + MINUTE : now);
    if (at - now > this.waitMaxMs) return false;
    this.taken.push(at);
    if (at > now) await this.sleep(at - now);
    return true;
  }
}

/* The client */

type Kind = 'record' | 'history';
type Asked = { kind: 'answer'; body: CruxRecord | CruxHistory } | { kind: 'none' } | { kind: 'failed' };
/** What a question came to: its value, and whether CrUX failed (then nothing is kept for the day). */
interface Resolved { value: CruxRecord | CruxHistory | null; failed: boolean }

export interface CruxLog {
  warn(obj: object, msg: string): void;
}

export interface CruxClientOptions {
  /** How long Google's answer is waited for (4 s). */
  answerTimeoutMs?: number;
  /** After a failure, how long the same question is not asked again (1 minute); after a 429, no question is. */
  failureHoldMs?: number;
  /** The quota (tests give their own). */
  quota?: CruxQuota;
}

export class CruxClient {
  private readonly asking = new Map<string, Promise<Resolved>>();
  /** Questions that failed lately, by id, and until when they are not asked again. */
  private readonly heldUntil = new Map<string, number>();
  /** After a 429 (the project's quota spent elsewhere too), no question before this time. */
  private pausedUntil = 0;
  private readonly quota: CruxQuota;
  private readonly answerTimeoutMs: number;
  private readonly failureHoldMs: number;
  /** Queries sent, by endpoint (what the quota test counts; /metrics does not read it). */
  readonly counts = { record: 0, history: 0 };

  constructor(private readonly settings: { apiKey: string; baseUrl: string }, private readonly db: Db, private readonly log: CruxLog,
    options: CruxClientOptions = {}) {
    this.quota = options.quota ?? new CruxQuota();
    this.answerTimeoutMs = options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
    this.failureHoldMs = options.failureHoldMs ?? FAILURE_HOLD_MS;
  }

  /** CrUX's record of a URL (the origin's when the URL has none) for a form factor; null: none, or CrUX could not be asked. */
  record(url: string, formFactor: CruxFormFactor): Promise<CruxRecord | null> {
    return this.safely(this.kept('record', url, formFactor, false)) as Promise<CruxRecord | null>;
  }

  /** An origin's record (a scan's site). */
  originRecord(origin: string, formFactor: CruxFormFactor): Promise<CruxRecord | null> {
    return this.safely(this.kept('record', origin, formFactor, true)) as Promise<CruxRecord | null>;
  }

  /** CrUX's weekly p75s of a URL (the origin's when the URL has none), up to 40 weeks, oldest first. */
  history(url: string, formFactor: CruxFormFactor): Promise<CruxHistory | null> {
    return this.safely(this.kept('history', url, formFactor, false)) as Promise<CruxHistory | null>;
  }

  /** Never thrown into a screen: a store that cannot be read or written is logged, and nothing of CrUX is shown. */
  private async safely(work: Promise<Resolved>): Promise<CruxRecord | CruxHistory | null> {
    try {
      return (await work).value;
    } catch (err) {
      this.log.warn({ err: this.scrub((err as Error).message) }, 'CrUX: the kept answers could not be read or written');
      return null;
    }
  }

  /**
   * Today's kept answer, else CrUX asked (the URL; on NOT_FOUND its origin, through the origin's own kept answer) and
   * the answer, or that there is none, kept for the UTC day. A failure is not kept for the day: it is held for a minute
   * (nothing asked again meanwhile), the last day's answer is shown if there is one (its collection period says how old),
   * else nothing. Callers asking the same at once share one question.
   */
  private kept(kind: Kind, key: string, formFactor: CruxFormFactor, isOrigin: boolean): Promise<Resolved> {
    const target = askable(key);
    if (target === undefined) return Promise.resolve({ value: null, failed: false });
    const asked = isOrigin ? target.origin : target.url;
    const id = `${kind} ${formFactor} ${asked}`;
    const pending = this.asking.get(id);
    if (pending) return pending;
    const work = (async (): Promise<Resolved> => {
      const now = clock.now();
      const today = Math.floor(now / DAY) * DAY;
      const row = await cachedCrux(this.db, kind, asked, formFactor);
      const stored = row?.body ? (JSON.parse(row.body) as CruxRecord | CruxHistory) : null;
      if (row && row.day === today) return { value: stored, failed: false };
      const failed = { value: stored, failed: true };
      if (now < this.pausedUntil || now < (this.heldUntil.get(id) ?? 0)) return failed;
      const answer = await this.ask(kind, isOrigin ? { origin: asked } : { url: asked }, formFactor);
      let resolved: Resolved;
      if (answer.kind === 'answer') resolved = { value: answer.body, failed: false };
      else if (answer.kind === 'none') resolved = isOrigin ? { value: null, failed: false } : await this.kept(kind, target.origin, formFactor, true);
      else resolved = failed;
      if (resolved.failed) {
        this.heldUntil.set(id, clock.now() + this.failureHoldMs);
        return failed;
      }
      this.heldUntil.delete(id);
      await keepCrux(this.db, { kind, key: asked, form_factor: formFactor, day: today,
        body: resolved.value === null ? null : JSON.stringify(resolved.value), fetched: clock.now() });
      return resolved;
    })().finally(() => this.asking.delete(id));
    this.asking.set(id, work);
    return work;
  }

  /**
   * One question to CrUX, within the quota. A 404 NOT_FOUND is "no record"; anything else that is not a 200 with a
   * record of the documented shape is a failure, logged without the key.
   */
  private async ask(kind: Kind, id: { url: string } | { origin: string }, formFactor: CruxFormFactor): Promise<Asked> {
    const endpoint = kind === 'record' ? 'records:queryRecord' : 'records:queryHistoryRecord';
    const about = { endpoint, ...id, formFactor };
    if (!(await this.quota.take())) {
      this.log.warn(about, `CrUX: over the quota of ${CRUX_QUERIES_PER_MINUTE} queries a minute; not asked now`);
      return { kind: 'failed' };
    }
    this.counts[kind]++;
    const body = { ...id, formFactor, metrics: Object.values(CRUX_METRICS), ...(kind === 'history' ? { collectionPeriodCount: CRUX_HISTORY_PERIODS } : {}) };
    try {
      // The key is in the question's URL only: never in what is logged.
      const res = await fetch(`${this.settings.baseUrl}/${endpoint}?key=${encodeURIComponent(this.settings.apiKey)}`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.answerTimeoutMs),
      });
      const text = await res.text();
      if (res.status === 404 && errorStatusOf(text) === 'NOT_FOUND') return { kind: 'none' };
      if (res.status !== 200) {
        if (res.status === 429) this.pausedUntil = clock.now() + this.failureHoldMs;
        this.log.warn({ ...about, status: res.status, answer: this.scrub(text.slice(0, 300)) }, 'CrUX answered with an error');
        return { kind: 'failed' };
      }
      this.pausedUntil = 0; // a 200: the quota is free again
      const scope = 'url' in id ? 'url' : 'origin';
      const parsed = kind === 'record' ? parseCruxRecord(JSON.parse(text), scope, formFactor) : parseCruxHistory(JSON.parse(text), scope, formFactor);
      if (parsed) return { kind: 'answer', body: parsed };
      this.log.warn({ ...about, answer: this.scrub(text.slice(0, 300)) }, 'CrUX answered in a shape it does not document');
      return { kind: 'failed' };
    } catch (err) {
      this.log.warn({ ...about, err: this.scrub((err as Error).message) }, 'CrUX could not be asked');
      return { kind: 'failed' };
    }
  }

  private scrub(text: string): string {
    return text.split(this.settings.apiKey).join('[key]').split(encodeURIComponent(this.settings.apiKey)).join('[key]');
  }
}

/** The `error.status` of a Google API error answer (`NOT_FOUND`, `RESOURCE_EXHAUSTED`, ...). */
function errorStatusOf(text: string): string | undefined {
  try {
    const status = (JSON.parse(text) as { error?: { status?: unknown } } | null)?.error?.status;
    return typeof status === 'string' ? status : undefined;
  } catch {
    return undefined;
  }
}
