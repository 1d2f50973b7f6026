/**
 * The rollups (issue 50, point 4): the job that counts taken page views into the mergeable distributions every field
 * figure is read from, and the daily care of a site's data (retention, the paths kept as themselves).
 *
 * Each view is counted, for its device class, in the hour and the day it was received, under six cuts: the whole site,
 * its template, its path (only a tracked path, with its template: see below), its connection class, its browser family,
 * and the full key (template, connection, browser), which answers any combination of those filters. The cuts other
 * than the full key exist so that the common questions (a site, a template, a path, one breakdown) read a few hundred
 * rows for 90 days, whatever the number of combinations; a path is not crossed with connections and browsers (that
 * would multiply the rows by the tracked paths).
 *
 * Paths: a site's first TRACKED_PATHS distinct paths are tracked as they come; once a day the tracked set becomes the
 * site's TRACKED_PATHS most viewed paths of its raw views. Any other path is counted as its template only: a site with
 * a million distinct URLs keeps at most TRACKED_PATHS path rows per hour, day and device.
 *
 * Views are counted in batches inside one transaction that also marks them counted, so a crash counts a view once or
 * not yet, never twice; on PostgreSQL one node at a time runs it (an advisory lock).
 */
import { PeriodicJob, type PeriodicJobSettings } from '../../lib/periodic-job.js';
import { clock } from '../clock.js';
import { assignTemplates } from '../../discovery/templates.js';
import type { Store } from '../../store/db.js';
import {
  addTrackedPaths, allFieldSites, deleteViews, expireFieldData, fieldSiteById, markViewsRolled, replaceTrackedPaths, rollupRowsAt, takeRollupLock,
  topPaths, trackedPaths, unrolledViews, writeRollups, type RollupKey, type UnrolledView,
} from '../../store/field.js';
import { FieldSketch, placeView } from './sketch.js';
import { fieldSiteOf, MAX_WINDOW_DAYS } from './sites.js';

export const TRACKED_PATHS = 1000;
/** Views counted per transaction. */
const BATCH = 20_000;
const HOUR = 3_600_000;
export const DAY = 86_400_000;
/** Hourly rollups are kept this long (the day rollups answer longer windows). */
const HOUR_ROLLUP_DAYS = 7;

export const CUTS = ['site', 'template', 'path', 'connection', 'browser', 'full'] as const;
export type Cut = (typeof CUTS)[number];

export const startOfDay = (ms: number): number => Math.floor(ms / DAY) * DAY;
const startOfHour = (ms: number): number => Math.floor(ms / HOUR) * HOUR;

/** Count every view not counted yet; returns how many were counted. */
export async function rollUp(store: Store): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await store.db.transaction().execute(async (trx) => {
      if (!(await takeRollupLock(trx, store.engine))) return 0;
      const views = await unrolledViews(trx, BATCH);
      if (views.length === 0) return 0;
      const bySite = new Map<string, UnrolledView[]>();
      for (const v of views) {
        let list = bySite.get(v.site_id);
        if (!list) bySite.set(v.site_id, (list = []));
        list.push(v);
      }
      const byTemplate = new Map<string, number[]>();
      for (const [siteId, list] of bySite) {
        const row = await fieldSiteById(trx, siteId);
        if (!row) {
          // The site was deleted meanwhile (the ingest kept its settings a few seconds more): its views go with it.
          await deleteViews(trx, list.map((v) => v.id));
          continue;
        }
        const site = fieldSiteOf(row);
        const tracked = await trackedPaths(trx, siteId);
        const newPaths = new Set<string>();
        for (const v of list) {
          if (!tracked.has(v.path) && !newPaths.has(v.path) && tracked.size + newPaths.size < TRACKED_PATHS) newPaths.add(v.path);
        }
        const isTracked = (p: string) => tracked.has(p) || newPaths.has(p);
        // Templates by the scans' rules: the user's own patterns first, then the shape of the path among the site's known paths.
        const known = [...new Set([...tracked, ...list.map((v) => v.path)])];
        const templates = assignTemplates(known.map(stripQuery), site.templates);
        const templateOf = new Map(known.map((p, i) => [p, templates[i]!]));
        const sketches = new Map<string, { key: RollupKey; sketch: FieldSketch }>();
        for (const v of list) {
          const template = templateOf.get(v.path)!;
          push(byTemplate, template, v.id);
          const path = isTracked(v.path) ? v.path : '';
          const placed = placeView(v);
          for (const key of rollupKeysOf(siteId, v, template, path)) {
            const id = keyString(key);
            let entry = sketches.get(id);
            if (!entry) sketches.set(id, (entry = { key, sketch: new FieldSketch() }));
            entry.sketch.addPlaced(placed);
          }
        }
        // What was counted before: the rows of each hour and day touched, read once each, merged into the new counts.
        const periods = new Map<string, { grain: string; start: number }>();
        for (const { key } of sketches.values()) periods.set(`${key.grain} ${key.start}`, { grain: key.grain, start: key.start });
        for (const { grain, start } of periods.values()) {
          for (const row of await rollupRowsAt(trx, siteId, grain, start)) sketches.get(keyString(row))?.sketch.mergeEncoded(row.sketch);
        }
        await writeRollups(trx, store.engine, [...sketches.values()].map(({ key, sketch }) => ({ ...key, views: sketch.views, sketch: sketch.encode() })));
        await addTrackedPaths(trx, siteId, [...newPaths]);
      }
      await markViewsRolled(trx, byTemplate);
      return views.length;
    });
    total += n;
    if (n < BATCH) return total;
  }
}

/**
 * The rollup rows a view is counted in: for its hour and its day, each cut, for its device. The path cut carries the
 * path's template too (a path lies in one); `path` is "" when the path is not tracked (then it has no row of the path
 * cut and counts under its template alone). The full key is (template, connection, browser): the combinations of
 * those filters; a path combines with its template and the device only.
 */
export function rollupKeysOf(siteId: string, v: Pick<UnrolledView, 'received' | 'device' | 'connection' | 'browser'>, template: string, path: string): RollupKey[] {
  const keys: RollupKey[] = [];
  for (const [grain, start] of [['hour', startOfHour(v.received)], ['day', startOfDay(v.received)]] as const) {
    for (const cut of CUTS) {
      if (cut === 'path' && path === '') continue;
      keys.push({
        site_id: siteId, cut, grain, start, device: v.device,
        template: cut === 'template' || cut === 'path' || cut === 'full' ? template : '',
        path: cut === 'path' ? path : '',
        connection: cut === 'connection' || cut === 'full' ? v.connection : '',
        browser: cut === 'browser' || cut === 'full' ? v.browser : '',
      });
    }
  }
  return keys;
}

/** A rollup row's key as one string (the map of a run's sketches). */
const keyString = (k: RollupKey): string => `${k.cut}\u0001${k.grain}\u0001${k.start}\u0001${k.device}\u0001${k.template}\u0001${k.path}\u0001${k.connection}\u0001${k.browser}`;

function push(m: Map<string, number[]>, k: string, v: number): void {
  let list = m.get(k);
  if (!list) m.set(k, (list = []));
  list.push(v);
}

const stripQuery = (p: string): string => {
  const q = p.indexOf('?');
  return q < 0 ? p : p.slice(0, q);
};

/** Each site's daily care: raw views past its retention, rollups past theirs, and its tracked paths chosen again. */
export async function tendFieldSites(store: Store, now = clock.now()): Promise<void> {
  for (const site of await allFieldSites(store.db)) {
    await store.db.transaction().execute(async (trx) => {
      await expireFieldData(trx, site.id, now - site.raw_retention_days * DAY, now - HOUR_ROLLUP_DAYS * DAY, startOfDay(now) - MAX_WINDOW_DAYS * DAY);
      const top = await topPaths(trx, site.id, now - site.raw_retention_days * DAY, TRACKED_PATHS);
      if (top.length > 0) await replaceTrackedPaths(trx, site.id, top);
    });
  }
}

/** The rollup job: counts new views every `intervalMs`; tends the sites once a day (and at start). */
export class FieldRollupJob extends PeriodicJob<void> {
  private lastTended = 0;
  constructor(private readonly store: Store, settings: Omit<PeriodicJobSettings, 'failure'>) {
    super({ ...settings, failure: 'field rollup failed' });
  }
  protected async runOnce(): Promise<void> {
    await rollUp(this.store);
    const now = clock.now();
    if (now - this.lastTended >= DAY) {
      this.lastTended = now;
      await tendFieldSites(this.store, now);
    }
  }
  /** Count what waits now (tests, and a reader that wants the newest figures). */
  flush(): Promise<void> {
    return this.run();
  }
}
