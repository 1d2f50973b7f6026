/**
 * Taking beacons (issue 50, point 3). The endpoint is public by nature (a visitor's browser sends no key), so it is
 * hardened like one: in this order, a flood is limited per client address and per site (429), the body's size,
 * the page's origin (`Origin` and the page URL must be one of the site's origins), Global Privacy Control (when the
 * site honours it), the JSON's shape and every value's bounds (beacon.ts). Every refusal of a known site is counted
 * by reason; the address is used for the limit and never stored, nor the user agent (visitor.ts keeps its families).
 *
 * Nothing acknowledged is lost: a beacon is answered 204 only once its row is committed. Rows are committed in
 * batches (group commit): a transaction takes every beacon read in the same turn of the event loop, and the ones that
 * arrive while it commits wait for the next, which takes them all; so a quiet site pays one short transaction per
 * beacon and a busy one a transaction per few dozen or hundred.
 */
import { LRUCache } from 'lru-cache';
import { ApiError } from '../errors.js';
import { clock } from '../clock.js';
import type { Store } from '../../store/db.js';
import { commitFieldBatch, fieldSiteById, type FieldCountColumn, type FieldViewInsert } from '../../store/field.js';
import { checkBeacon, MAX_BEACON_BYTES, type Beacon } from './beacon.js';
import { fieldSiteOf, type FieldSite } from './sites.js';
import { visitorOf } from './visitor.js';

export type RefusalReason = Exclude<FieldCountColumn, 'accepted'>;
export { MAX_BEACON_BYTES };

export interface BeaconRequest {
  siteId: string;
  /** The `Origin` header, as sent. */
  origin: string | undefined;
  /** The request carried `Sec-GPC: 1`. */
  gpc: boolean;
  userAgent: string | undefined;
  /** The client's address: the rate limit's key, never stored. */
  address: string;
  /** The body as text. */
  body: string | undefined;
}

export interface IngestLimits {
  /** Beacons a second per site; a burst of 5 s of it. */
  siteRate: number;
  /** Beacons a minute per client address; a burst of a minute of it. */
  clientRate: number;
}

/** The most beacons one transaction commits, and the most that may wait for a commit before new ones are turned away (503). */
const MAX_BATCH = 1000;
const MAX_WAITING = 20_000;
/** Batches PostgreSQL commits at once (each on its own pooled connection). */
const PG_IN_FLIGHT = 3;
/** A site's settings are read again after this long (a change of origins takes effect within it). */
const SITE_CACHE_MS = 5_000;
const HOUR = 3_600_000;

/** A token bucket: `rate` tokens a second up to `burst`. */
class Bucket {
  private tokens: number;
  private at: number;
  constructor(private readonly rate: number, private readonly burst: number, now: number) {
    this.tokens = burst;
    this.at = now;
  }
  /** Take a token, or say in how many seconds one is there. */
  take(now: number): number {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.rate));
  }
}

interface Waiting {
  row: FieldViewInsert;
  resolve(): void;
  reject(err: unknown): void;
}

export class FieldIngest {
  private readonly sites = new LRUCache<string, { site: FieldSite | null }>({ max: 10_000, ttl: SITE_CACHE_MS });
  /** Bounded: a flood from many addresses costs at most this many buckets (the oldest are forgotten: a full bucket again). */
  private readonly clients = new LRUCache<string, Bucket>({ max: 100_000 });
  private readonly siteBuckets = new LRUCache<string, Bucket>({ max: 10_000 });
  private readonly reading = new Map<string, Promise<FieldSite | null>>();
  private waiting: Waiting[] = [];
  private inFlight = 0;
  private readonly maxInFlight: number;
  private scheduled = false;
  /** Refusals and acceptances not yet committed, per site and hour. */
  private counts = new Map<string, Partial<Record<FieldCountColumn, number>>>();
  private countTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly store: Store, private readonly limits: IngestLimits) {
    this.maxInFlight = store.engine === 'postgres' ? PG_IN_FLIGHT : 1;
  }

  /** Take one beacon: resolves once it is committed; throws the ApiError to answer otherwise. */
  async take(req: BeaconRequest): Promise<void> {
    const now = clock.now();
    const cached = this.sites.get(req.siteId);
    const clientWait = this.clientBucket(req.address, now).take(now);
    if (clientWait > 0) {
      // Counted without a read of the site: a site known to this process a moment ago (its cache entry may be stale) is
      // the one the flood names. A flood of unknown IDs reads nothing and counts nothing.
      const known = cached ?? this.sites.peek(req.siteId, { allowStale: true });
      if (known?.site) this.count(known.site.id, 'rate_limited', now);
      throw new ApiError('E42904', `Too many beacons from this address; try again in ${clientWait} s.`, { 'Retry-After': String(clientWait) });
    }
    const site = cached ? cached.site : await this.readSite(req.siteId);
    if (!site) throw new ApiError('E40418', 'No field site has this ID; copy the snippet again from the Field screen.');
    const siteWait = this.siteBucket(site.id, now).take(now);
    if (siteWait > 0) {
      this.count(site.id, 'rate_limited', now);
      throw new ApiError('E42904', `The site takes at most ${this.limits.siteRate} beacons a second; try again in ${siteWait} s.`, { 'Retry-After': String(siteWait) });
    }
    this.check(site, req, now);
    const checked = checkBeacon(req.body ?? '');
    if (!checked.ok) {
      this.count(site.id, checked.reason, now);
      throw new ApiError('E40010', checked.detail);
    }
    const row = this.viewOf(site, checked.beacon, req, now);
    if (!row) {
      this.count(site.id, 'foreign_origin', now);
      throw new ApiError('E40304', `The page URL is not on one of the site's origins (${site.origins.join(', ')}).`);
    }
    if (this.closed || this.waiting.length >= MAX_WAITING) throw new ApiError('E50300', 'The service is taking too many beacons at once; try again shortly.', { 'Retry-After': '1' });
    await new Promise<void>((resolve, reject) => {
      this.waiting.push({ row, resolve, reject });
      this.commitSoon();
    });
  }

  /** A beacon too large to read (the HTTP layer refused its body): counted for its site when the site is known here. */
  tooLarge(siteId: string): ApiError {
    const site = this.sites.get(siteId)?.site;
    if (site) this.count(site.id, 'too_large', clock.now());
    return new ApiError('E41300', `A beacon is at most ${MAX_BEACON_BYTES} bytes.`);
  }

  /** A site changed or deleted here: read it again at its next beacon (other processes read it within SITE_CACHE_MS). */
  forget(siteId: string): void {
    this.sites.delete(siteId);
  }

  /** Commit what waits and stop taking beacons (the service is stopping). */
  async close(): Promise<void> {
    this.closed = true;
    await this.settle();
  }

  /** Wait until every beacon and count waiting now is committed (refusals' counts included, without their 1 s wait). */
  async settle(): Promise<void> {
    clearTimeout(this.countTimer);
    this.countTimer = undefined;
    while (this.inFlight > 0 || this.scheduled || this.waiting.length > 0 || this.counts.size > 0) {
      if (this.inFlight === 0 && !this.scheduled) void this.commit();
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  private check(site: FieldSite, req: BeaconRequest, now: number): void {
    if (req.body !== undefined && Buffer.byteLength(req.body) > MAX_BEACON_BYTES) {
      this.count(site.id, 'too_large', now);
      throw new ApiError('E41300', `A beacon is at most ${MAX_BEACON_BYTES} bytes.`);
    }
    if (req.origin === undefined || !site.origins.includes(req.origin)) {
      this.count(site.id, 'foreign_origin', now);
      throw new ApiError('E40304', req.origin === undefined
        ? 'The beacon came without an Origin header; browsers send one, from a page of one of the site\'s origins.'
        : `Origin ${req.origin} is not one of the site's origins (${site.origins.join(', ')}); add it to the site.`);
    }
    if (req.gpc && site.honourGpc) {
      this.count(site.id, 'gpc', now);
      throw new ApiError('E40305', 'The browser sends Global Privacy Control and this site honours it: nothing was stored.');
    }
  }

  /** The raw view a beacon becomes; undefined when its page is not on one of the site's origins. */
  private viewOf(site: FieldSite, b: Beacon, req: BeaconRequest, now: number): FieldViewInsert | undefined {
    let page: URL;
    try {
      page = new URL(b.url);
    } catch {
      return undefined;
    }
    if (!site.origins.includes(page.origin)) return undefined;
    const visitor = visitorOf(req.userAgent);
    const strip = (u: string | undefined) => (u === undefined ? undefined : stripUrl(u, site.keepQuery));
    const attribution = {
      lcp: b.lcp && { el: b.lcp.el, src: strip(b.lcp.src), ttfb: b.lcp.ttfb, delay: b.lcp.delay, load: b.lcp.load, render: b.lcp.render },
      inp: b.inp && { el: b.inp.el, type: b.inp.type, delay: b.inp.delay, proc: b.inp.proc, pres: b.inp.pres,
        script: b.inp.script && { ...b.inp.script, src: strip(b.inp.script.src) } },
      cls: b.cls && { el: b.cls.el, shift: b.cls.shift, t: b.cls.t },
      ttfb: b.ttfb && { wait: b.ttfb.wait, cache: b.ttfb.cache, dns: b.ttfb.dns, conn: b.ttfb.conn, req: b.ttfb.req },
    };
    return {
      site_id: site.id, received: now,
      path: site.keepQuery ? page.pathname + page.search : page.pathname,
      template: null, device: b.dev ?? visitor.device, connection: b.ect ?? 'unknown', browser: visitor.browser,
      browser_major: visitor.browserMajor, os: visitor.os, nav: b.nav ?? 'navigate',
      lcp: b.lcp?.v ?? null, inp: b.inp?.v ?? null, cls: b.cls?.v ?? null, fcp: b.fcp?.v ?? null, ttfb: b.ttfb?.v ?? null,
      rtt: b.rtt === undefined ? null : Math.round(b.rtt), vw: b.vw === undefined ? null : Math.round(b.vw), vh: b.vh === undefined ? null : Math.round(b.vh),
      attribution: JSON.stringify(attribution),
    };
  }

  /** One read of a site however many beacons for it arrive while it is read (a burst after a start would make one each). */
  private readSite(id: string): Promise<FieldSite | null> {
    let reading = this.reading.get(id);
    if (!reading) {
      reading = (async () => {
        try {
          const row = id.length <= 128 ? await fieldSiteById(this.store.db, id) : undefined;
          const site = row ? fieldSiteOf(row) : null;
          this.sites.set(id, { site });
          return site;
        } finally {
          this.reading.delete(id);
        }
      })();
      this.reading.set(id, reading);
    }
    return reading;
  }

  private clientBucket(address: string, now: number): Bucket {
    let b = this.clients.get(address);
    if (!b) this.clients.set(address, (b = new Bucket(this.limits.clientRate / 60, this.limits.clientRate, now)));
    return b;
  }

  private siteBucket(siteId: string, now: number): Bucket {
    let b = this.siteBuckets.get(siteId);
    if (!b) this.siteBuckets.set(siteId, (b = new Bucket(this.limits.siteRate, this.limits.siteRate * 5, now)));
    return b;
  }

  private count(siteId: string, column: FieldCountColumn, now: number): void {
    const key = `${siteId} ${Math.floor(now / HOUR) * HOUR}`;
    let c = this.counts.get(key);
    if (!c) this.counts.set(key, (c = {}));
    c[column] = (c[column] ?? 0) + 1;
    // Refusals alone (a flood) are committed once a second, not one transaction each.
    if (!this.countTimer && !this.closed) {
      this.countTimer = setTimeout(() => {
        this.countTimer = undefined;
        this.commitSoon();
      }, 1000);
      this.countTimer.unref();
    }
  }

  /**
   * Commit what waits at the end of this turn of the event loop (setImmediate: after the I/O callbacks of the turn), so
   * that every beacon read in the same turn joins the batch. On SQLite a commit runs without giving the event loop a
   * turn, so committing at once would commit every beacon alone: measured, 3,400 transactions of one row a second.
   */
  private commitSoon(): void {
    if (this.inFlight >= this.maxInFlight || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.commit();
    });
  }

  /**
   * Commit one batch of what waits (and the counts), then let the next turn's beacons gather for the next batch.
   * PostgreSQL commits up to PG_IN_FLIGHT batches at once on separate connections: a commit waits on the server's
   * flush to disk, and the next batch need not wait for it.
   */
  private async commit(): Promise<void> {
    if (this.inFlight >= this.maxInFlight || (this.waiting.length === 0 && this.counts.size === 0)) return;
    this.inFlight++;
    const batch = this.waiting.length > MAX_BATCH ? this.waiting.splice(0, MAX_BATCH) : this.waiting.splice(0);
    for (const w of batch) this.countAccepted(w.row);
    const counts = [...this.counts].map(([key, deltas]) => {
      const [siteId, hour] = key.split(' ');
      return { siteId: siteId!, hour: Number(hour), deltas };
    });
    this.counts = new Map();
    try {
      await commitFieldBatch(this.store.db, this.store.engine, batch.map((w) => w.row), counts);
      for (const w of batch) w.resolve();
    } catch (err) {
      // Not committed: not acknowledged (the route answers the store's error); the counts of refusals are lost with it.
      for (const w of batch) w.reject(err);
    } finally {
      this.inFlight--;
    }
    if (this.waiting.length > 0 || this.counts.size > 0) this.commitSoon();
  }

  private countAccepted(row: FieldViewInsert): void {
    const key = `${row.site_id} ${Math.floor(row.received / HOUR) * HOUR}`;
    let c = this.counts.get(key);
    if (!c) this.counts.set(key, (c = {}));
    c.accepted = (c.accepted ?? 0) + 1;
  }
}

/** A URL without its fragment, and without its query unless the site keeps queries; cut to 2,000 characters. */
export function stripUrl(u: string, keepQuery: boolean): string {
  let out = u;
  const hash = out.indexOf('#');
  if (hash >= 0) out = out.slice(0, hash);
  if (!keepQuery) {
    const q = out.indexOf('?');
    if (q >= 0) out = out.slice(0, q);
  }
  return out.slice(0, 2000);
}
