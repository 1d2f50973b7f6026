/**
 * The beacon: what the field snippet (src/web/field-snippet/) sends once per page view, and the one place that
 * checks it (issue 50, point 3). It travels as `text/plain` JSON by `navigator.sendBeacon` to
 * `POST /field/beacon/:siteId` (no CORS preflight); the server takes it only from a page of one of the site's
 * origins, at most MAX_BEACON_BYTES, shaped as below and every value within BOUNDS; unknown fields are dropped.
 *
 * Keys are short because the snippet carries them (its whole script stays under 6 KB compressed). Every time is in
 * milliseconds from the page view's start (web-vitals' values, rounded to 0.1 ms by the snippet); CLS is unitless.
 *
 * v 1:
 *   url   the page's URL, absolute; query and fragment already stripped by the snippet unless the site keeps queries
 *   nav   web-vitals' navigationType: navigate, reload, back-forward, back-forward-cache, prerender, restore
 *   dev   the device class the snippet saw: mobile, tablet, desktop (else the server reads it from the user agent)
 *   ect   navigator.connection.effectiveType: slow-2g, 2g, 3g, 4g (absent where the browser does not tell)
 *   rtt   navigator.connection.rtt, ms
 *   vw,vh the viewport, CSS px
 *   lcp   { v, el: the element's selector, src: the resource URL, ttfb, delay: resourceLoadDelay,
 *           load: resourceLoadDuration, render: elementRenderDelay }
 *   inp   { v, el: the interaction target's selector, type: pointer | keyboard, delay: inputDelay,
 *           proc: processingDuration, pres: presentationDelay,
 *           script: { src: the longest script's source URL, fn: its function name, dur: its duration,
 *                     part: the subpart it fell in (input-delay, processing-duration, presentation-delay) } }
 *   cls   { v, el: the largest shift's target, shift: the largest shift's value, t: its time }
 *   fcp   { v }
 *   ttfb  { v, wait: waitingDuration, cache: cacheDuration, dns: dnsDuration, conn: connectionDuration,
 *           req: requestDuration }
 * A beacon carries at least one metric. Selectors, never element text.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { fieldFigure } from '../../analysis/figures.js';

export const BEACON_VERSION = 1;
/** The largest beacon body taken, in bytes (a flood of large bodies costs the service nothing: refused unread). */
export const MAX_BEACON_BYTES = 16_384;

export const NAVIGATION_TYPES = ['navigate', 'reload', 'back-forward', 'back-forward-cache', 'prerender', 'restore'] as const;
export type NavigationType = (typeof NAVIGATION_TYPES)[number];
export const FIELD_DEVICES = ['mobile', 'tablet', 'desktop'] as const;
export type FieldDevice = (typeof FIELD_DEVICES)[number];
export const EFFECTIVE_TYPES = ['slow-2g', '2g', '3g', '4g'] as const;
export type EffectiveType = (typeof EFFECTIVE_TYPES)[number];
export const INTERACTION_TYPES = ['pointer', 'keyboard'] as const;
export const SCRIPT_SUBPARTS = ['input-delay', 'processing-duration', 'presentation-delay'] as const;

export interface LcpPart { v: number; el?: string; src?: string; ttfb?: number; delay?: number; load?: number; render?: number }
export interface InpScript { src?: string; fn?: string; dur?: number; part?: (typeof SCRIPT_SUBPARTS)[number] }
export interface InpPart { v: number; el?: string; type?: (typeof INTERACTION_TYPES)[number]; delay?: number; proc?: number; pres?: number; script?: InpScript }
export interface ClsPart { v: number; el?: string; shift?: number; t?: number }
export interface FcpPart { v: number }
export interface TtfbPart { v: number; wait?: number; cache?: number; dns?: number; conn?: number; req?: number }

export interface Beacon {
  v: 1;
  url: string;
  nav?: NavigationType;
  dev?: FieldDevice;
  ect?: EffectiveType;
  rtt?: number;
  vw?: number;
  vh?: number;
  lcp?: LcpPart;
  inp?: InpPart;
  cls?: ClsPart;
  fcp?: FcpPart;
  ttfb?: TtfbPart;
}


/** The longest selector and URL taken (the snippet cuts them at 300 and 2,000). */
export const MAX_SELECTOR = 500;
export const MAX_URL = 2048;
const MAX_MS = 600_000;

const ms = { type: 'number', minimum: 0, maximum: MAX_MS };
const selector = { type: 'string', maxLength: MAX_SELECTOR };
const url = { type: 'string', maxLength: MAX_URL };
const part = (max: number, props: Record<string, object>) => ({
  type: 'object', required: ['v'], properties: { v: { type: 'number', minimum: 0, maximum: max }, ...props },
});

/** The beacon's JSON schema: types and shapes (a failure is malformed) and physical bounds (out of bounds). */
const SCHEMA = {
  type: 'object',
  required: ['v', 'url'],
  properties: {
    v: { const: BEACON_VERSION },
    url: { ...url, minLength: 1 },
    nav: { enum: NAVIGATION_TYPES },
    dev: { enum: FIELD_DEVICES },
    ect: { enum: EFFECTIVE_TYPES },
    rtt: { type: 'number', minimum: 0, maximum: 60_000 },
    vw: { type: 'number', minimum: 1, maximum: 20_000 },
    vh: { type: 'number', minimum: 1, maximum: 20_000 },
    lcp: part(fieldFigure('lcp').max, { el: selector, src: url, ttfb: ms, delay: ms, load: ms, render: ms }),
    inp: part(fieldFigure('inp').max, {
      el: selector, type: { enum: INTERACTION_TYPES }, delay: ms, proc: ms, pres: ms,
      script: { type: 'object', properties: { src: url, fn: { type: 'string', maxLength: 200 }, dur: ms, part: { enum: SCRIPT_SUBPARTS } } },
    }),
    cls: part(fieldFigure('cls').max, { el: selector, shift: { type: 'number', minimum: 0, maximum: fieldFigure('cls').max }, t: ms }),
    fcp: part(fieldFigure('fcp').max, {}),
    ttfb: part(fieldFigure('ttfb').max, { wait: ms, cache: ms, dns: ms, conn: ms, req: ms }),
  },
  anyOf: ['lcp', 'inp', 'cls', 'fcp', 'ttfb'].map((m) => ({ required: [m] })),
} as const;

// removeAdditional: unknown fields are dropped, at every depth; no coercion, no defaults.
const validate = new Ajv({ removeAdditional: 'all', allErrors: false, strict: false }).compile<Beacon>(SCHEMA);
/** Keywords whose failure is a value beyond what is physically possible, not a wrong shape. */
const BOUNDS = new Set(['minimum', 'maximum', 'maxLength', 'minLength']);

export type BeaconCheck =
  | { ok: true; beacon: Beacon }
  | { ok: false; reason: 'malformed' | 'out_of_bounds'; detail: string };

/** A beacon body (text) checked: parsed, shaped, bounded, unknown fields dropped. */
export function checkBeacon(text: string): BeaconCheck {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'malformed', detail: 'The body is not JSON.' };
  }
  if (validate(body)) {
    const b = body;
    if (!finite(b)) return { ok: false, reason: 'malformed', detail: 'A number is not finite.' };
    return { ok: true, beacon: b };
  }
  const e = validate.errors![0]!;
  return { ok: false, reason: BOUNDS.has(e.keyword) ? 'out_of_bounds' : 'malformed', detail: describe(e) };
}

function describe(e: ErrorObject): string {
  const where = e.instancePath === '' ? 'The beacon' : `The beacon's ${e.instancePath.slice(1).replaceAll('/', '.')}`;
  if (e.keyword === 'anyOf') return 'The beacon carries no metric (lcp, inp, cls, fcp or ttfb).';
  return `${where} ${e.message ?? 'is not valid'}.`;
}

/** JSON has no Infinity or NaN, but a number like 1e999 parses to Infinity: refused as malformed. */
function finite(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  if (v !== null && typeof v === 'object') return Object.values(v).every(finite);
  return true;
}
