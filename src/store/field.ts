/** The field repository (migration 019): sites, raw page views, rollups, tracked paths and beacon counts. */
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db, Engine, RootDb, Trx } from './db.js';
import type { FieldCountsTable, FieldRollupsTable, FieldSitesTable, FieldViewsTable } from './schema.js';
import { FIELD_COUNT_COLUMNS } from './migrations/019-field.js';
import { compiledQuery } from './prepared.js';

export type FieldSiteRow = Selectable<FieldSitesTable>;
export type FieldViewInsert = Omit<Insertable<FieldViewsTable>, 'rolled' | 'id'>;
export type FieldRollupRow = Selectable<FieldRollupsTable>;
export type FieldCountColumn = (typeof FIELD_COUNT_COLUMNS)[number];
export { FIELD_COUNT_COLUMNS };

const ID_BATCH = 500;

/* Sites */

export function listFieldSites(db: Db, accountId: string): Promise<FieldSiteRow[]> {
  return db.selectFrom('field_sites').selectAll().where('account_id', '=', accountId).orderBy('created').orderBy('id').execute();
}

export function getFieldSite(db: Db, accountId: string, id: string): Promise<FieldSiteRow | undefined> {
  return db.selectFrom('field_sites').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** A site by its ID alone: the beacon endpoint's lookup (the beacon names its site, not its account). */
export function fieldSiteById(db: Db, id: string): Promise<FieldSiteRow | undefined> {
  return db.selectFrom('field_sites').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertFieldSite(db: Db, row: FieldSiteRow): Promise<void> {
  await db.insertInto('field_sites').values(row).execute();
}

export async function updateFieldSite(db: Db, id: string, fields: Partial<Omit<FieldSiteRow, 'id' | 'account_id' | 'created'>>): Promise<void> {
  await db.updateTable('field_sites').set(fields).where('id', '=', id).execute();
}

/** A site and everything collected for it (run it in a transaction). */
export async function deleteFieldSite(db: Db, id: string): Promise<void> {
  for (const t of ['field_views', 'field_rollups', 'field_paths', 'field_counts', 'field_alert_conditions', 'field_alert_events'] as const) await db.deleteFrom(t).where('site_id', '=', id).execute();
  await db.deleteFrom('field_sites').where('id', '=', id).execute();
}

export async function countFieldSites(db: Db, accountId: string): Promise<number> {
  const r = await db.selectFrom('field_sites').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(r.n);
}

/* Ingest: raw views and counts, in the group commit's transaction */

const VIEW_COLUMNS = ['site_id', 'received', 'path', 'template', 'device', 'connection', 'browser', 'browser_major', 'os', 'nav',
  'lcp', 'inp', 'cls', 'fcp', 'ttfb', 'rtt', 'vw', 'vh', 'attribution'] as const satisfies readonly (keyof FieldViewInsert)[];
const PG_TYPES: Record<(typeof VIEW_COLUMNS)[number], string> = {
  site_id: 'text', received: 'int8', path: 'text', template: 'text', device: 'text', connection: 'text', browser: 'text',
  browser_major: 'int4', os: 'text', nav: 'text', lcp: 'float8', inp: 'float8', cls: 'float8', fcp: 'float8', ttfb: 'float8',
  rtt: 'int4', vw: 'int4', vh: 'int4', attribution: 'text',
};

/** Views inserted `rows` at a time, compiled once each: SQLite runs them from its statement cache (Kysely's builder costs more). */
const insertViews = (rows: number) => compiledQuery(VIEW_COLUMNS.length * rows, (db: Db, ...values: (string | number)[]) =>
  db.insertInto('field_views').values(Array.from({ length: rows }, (_, r) =>
    Object.fromEntries(VIEW_COLUMNS.map((c, i) => [c, values[r * VIEW_COLUMNS.length + i]])) as unknown as FieldViewInsert)));
/** A batch's views go in chunks of 32 (under SQLite's 999 parameters of old builds), the rest one by one. */
const VIEW_CHUNK = 32;
const insertViewChunk = insertViews(VIEW_CHUNK);
const insertOneView = insertViews(1);
const viewValues = (rows: readonly FieldViewInsert[]) => rows.flatMap((r) => VIEW_COLUMNS.map((c) => r[c] ?? null)) as (string | number)[];

export interface CountDelta {
  siteId: string;
  hour: number;
  deltas: Partial<Record<FieldCountColumn, number>>;
}

/**
 * One group commit: its views and the counts of what was taken and refused, atomically. SQLite: one transaction, a
 * prepared insert a row (no round trip to pay). PostgreSQL: one statement (no BEGIN and COMMIT round trips), the views
 * as arrays (unnest: the same text whatever the batch's size) and the counts upserted beside them.
 */
export async function commitFieldBatch(db: RootDb, engine: Engine, rows: readonly FieldViewInsert[], counts: readonly CountDelta[]): Promise<void> {
  if (engine === 'sqlite') {
    await db.transaction().execute(async (trx) => {
      let i = 0;
      for (; i + VIEW_CHUNK <= rows.length; i += VIEW_CHUNK) await insertViewChunk(trx, ...viewValues(rows.slice(i, i + VIEW_CHUNK)));
      for (; i < rows.length; i++) await insertOneView(trx, ...viewValues([rows[i]!]));
      for (const c of counts) await addFieldCounts(trx, c.siteId, c.hour, c.deltas);
    });
    return;
  }
  const columns = sql.join(VIEW_COLUMNS.map((c) => sql.ref(c)));
  const arrays = sql.join(VIEW_COLUMNS.map((c) => sql`${rows.map((r) => r[c] ?? null)}::${sql.raw(PG_TYPES[c])}[]`));
  const views = sql`insert into field_views (${columns}) select * from unnest(${arrays})`;
  if (counts.length === 0) {
    await views.execute(db);
    return;
  }
  const countColumns = sql.join(['site_id', 'hour', ...FIELD_COUNT_COLUMNS].map((c) => sql.ref(c)));
  const values = sql.join(counts.map((c) => sql`(${sql.join([c.siteId, c.hour, ...FIELD_COUNT_COLUMNS.map((k) => c.deltas[k] ?? 0)])})`));
  const add = sql.join(FIELD_COUNT_COLUMNS.map((k) => sql`${sql.ref(k)} = field_counts.${sql.ref(k)} + excluded.${sql.ref(k)}`));
  const upsert = sql`insert into field_counts (${countColumns}) values ${values} on conflict (site_id, hour) do update set ${add}`;
  await (rows.length === 0 ? upsert : sql`with taken as (${views}) ${upsert}`).execute(db);
}

/** Add to a site's counts of an hour (beacons taken, refusals by reason). */
export async function addFieldCounts(db: Db, siteId: string, hour: number, deltas: Partial<Record<FieldCountColumn, number>>): Promise<void> {
  const values: Record<string, number | string> = { site_id: siteId, hour };
  const set: Record<string, unknown> = {};
  for (const c of FIELD_COUNT_COLUMNS) {
    const d = deltas[c];
    if (!d) continue;
    values[c] = d;
    set[c] = sql`field_counts.${sql.ref(c)} + ${d}`;
  }
  if (Object.keys(set).length === 0) return;
  await db.insertInto('field_counts').values(values as Insertable<FieldCountsTable>)
    .onConflict((oc) => oc.columns(['site_id', 'hour']).doUpdateSet(set)).execute();
}

export async function sumFieldCounts(db: Db, siteId: string, since: number): Promise<Record<FieldCountColumn, number>> {
  const row = await db.selectFrom('field_counts')
    .select(FIELD_COUNT_COLUMNS.map((c) => sql<number>`coalesce(sum(${sql.ref(c)}), 0)`.as(c)))
    .where('site_id', '=', siteId).where('hour', '>=', since).executeTakeFirstOrThrow();
  return Object.fromEntries(FIELD_COUNT_COLUMNS.map((c) => [c, Number((row as Record<string, unknown>)[c])])) as Record<FieldCountColumn, number>;
}

export async function countFieldViewsSince(db: Db, siteId: string, since: number): Promise<number> {
  const r = await db.selectFrom('field_views').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('site_id', '=', siteId).where('received', '>=', since).executeTakeFirstOrThrow();
  return Number(r.n);
}

/* The rollup job */

/** PostgreSQL: one rollup job at a time across the service's nodes (a transaction-scoped advisory lock). */
export async function takeRollupLock(trx: Trx, engine: Engine): Promise<boolean> {
  if (engine !== 'postgres') return true;
  const { rows } = await sql<{ got: boolean }>`select pg_try_advisory_xact_lock(${ROLLUP_LOCK}) as got`.execute(trx);
  return rows[0]?.got === true;
}
/** The advisory lock's key: "FIELD" in ASCII. */
const ROLLUP_LOCK = 0x4649454c44;

export type UnrolledView = Pick<Selectable<FieldViewsTable>, 'id' | 'site_id' | 'received' | 'path' | 'device' | 'connection' | 'browser' | 'lcp' | 'inp' | 'cls' | 'fcp' | 'ttfb'>;

/** The oldest views the rollups have not counted yet. */
export function unrolledViews(db: Db, limit: number): Promise<UnrolledView[]> {
  return db.selectFrom('field_views')
    .select(['id', 'site_id', 'received', 'path', 'device', 'connection', 'browser', 'lcp', 'inp', 'cls', 'fcp', 'ttfb'])
    .where('rolled', '=', 0).orderBy('id').limit(limit).execute();
}

/** The views counted, each with the template it was counted under. */
export async function markViewsRolled(db: Db, byTemplate: ReadonlyMap<string, readonly number[]>): Promise<void> {
  for (const [template, ids] of byTemplate) {
    for (let i = 0; i < ids.length; i += ID_BATCH) {
      await db.updateTable('field_views').set({ rolled: 1, template }).where('id', 'in', ids.slice(i, i + ID_BATCH)).execute();
    }
  }
}

/** Views taken for a site deleted meanwhile (its settings were still cached by the ingest for a few seconds). */
export async function deleteViews(db: Db, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += ID_BATCH) await db.deleteFrom('field_views').where('id', 'in', ids.slice(i, i + ID_BATCH)).execute();
}

export type RollupKey = Omit<FieldRollupRow, 'views' | 'sketch'>;

/** Every rollup row of a site's hour or day (the rollup job merges what it counted into them). */
export function rollupRowsAt(db: Db, siteId: string, grain: string, start: number): Promise<FieldRollupRow[]> {
  return db.selectFrom('field_rollups').selectAll().where('site_id', '=', siteId).where('grain', '=', grain).where('start', '=', start).execute();
}

const ROLLUP_COLUMNS = ['site_id', 'cut', 'grain', 'start', 'device', 'template', 'path', 'connection', 'browser', 'views', 'sketch'] as const;
const ROLLUP_KEY = ['site_id', 'cut', 'grain', 'start', 'device', 'template', 'path', 'connection', 'browser'] as const;

/** One rollup row written whole (inserted, or replacing the row of its key), compiled once for SQLite's statement cache. */
const upsertOneRollup = compiledQuery(ROLLUP_COLUMNS.length, (db: Db, ...values: (string | number)[]) =>
  db.insertInto('field_rollups').values(Object.fromEntries(ROLLUP_COLUMNS.map((c, i) => [c, values[i]])) as unknown as FieldRollupRow)
    .onConflict((oc) => oc.columns([...ROLLUP_KEY]).doUpdateSet((eb) => ({ views: eb.ref('excluded.views'), sketch: eb.ref('excluded.sketch') }))));

/** Rollup rows written whole, each inserted or replacing its key's row. PostgreSQL: one statement per thousand rows (unnest). */
export async function writeRollups(db: Db, engine: Engine, rows: readonly FieldRollupRow[]): Promise<void> {
  if (engine === 'sqlite') {
    for (const r of rows) await upsertOneRollup(db, ...(ROLLUP_COLUMNS.map((c) => r[c]) as (string | number)[]));
    return;
  }
  const types: Record<(typeof ROLLUP_COLUMNS)[number], string> = { site_id: 'text', cut: 'text', grain: 'text', start: 'int8', device: 'text',
    template: 'text', path: 'text', connection: 'text', browser: 'text', views: 'int4', sketch: 'bytea' };
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000);
    const arrays = sql.join(ROLLUP_COLUMNS.map((c) => sql`${chunk.map((r) => (c === 'sketch' ? Buffer.from(r.sketch) : r[c]))}::${sql.raw(types[c])}[]`));
    await sql`insert into field_rollups (${sql.join(ROLLUP_COLUMNS.map((c) => sql.ref(c)))}) select * from unnest(${arrays})
      on conflict (${sql.join(ROLLUP_KEY.map((c) => sql.ref(c)))}) do update set views = excluded.views, sketch = excluded.sketch`.execute(db);
  }
}

export interface RollupQuery {
  siteId: string;
  cut: string;
  grain: 'hour' | 'day';
  from: number;
  to: number;
  device?: string;
  template?: string;
  path?: string;
  connection?: string;
  browser?: string;
}

/** The rollup rows of a cut over [from, to), filtered: what every field figure is read from. */
export function rollupRows(db: Db, q: RollupQuery): Promise<FieldRollupRow[]> {
  let query = db.selectFrom('field_rollups').selectAll()
    .where('site_id', '=', q.siteId).where('cut', '=', q.cut).where('grain', '=', q.grain)
    .where('start', '>=', q.from).where('start', '<', q.to);
  for (const k of ['device', 'template', 'path', 'connection', 'browser'] as const) {
    const v = q[k];
    if (v !== undefined) query = query.where(k, '=', v);
  }
  return query.execute();
}

/* Tracked paths */

export async function trackedPaths(db: Db, siteId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('field_paths').select('path').where('site_id', '=', siteId).execute();
  return new Set(rows.map((r) => r.path));
}

/** Paths the site tracks from now on (their view count is set at the daily re-choice, topPaths). */
export async function addTrackedPaths(db: Db, siteId: string, paths: readonly string[]): Promise<void> {
  for (let i = 0; i < paths.length; i += ID_BATCH) {
    await db.insertInto('field_paths').values(paths.slice(i, i + ID_BATCH).map((path) => ({ site_id: siteId, path, views: 0 })))
      .onConflict((oc) => oc.columns(['site_id', 'path']).doNothing()).execute();
  }
}

/** The site's most viewed paths since a time, from its raw views (the daily re-choice of the tracked paths). */
export async function topPaths(db: Db, siteId: string, since: number, limit: number): Promise<{ path: string; views: number }[]> {
  const rows = await db.selectFrom('field_views').select(['path', (eb) => eb.fn.countAll<number>().as('n')])
    .where('site_id', '=', siteId).where('received', '>=', since).groupBy('path')
    .orderBy('n', 'desc').orderBy('path').limit(limit).execute();
  return rows.map((r) => ({ path: r.path, views: Number(r.n) }));
}

export async function replaceTrackedPaths(db: Db, siteId: string, paths: readonly { path: string; views: number }[]): Promise<void> {
  await db.deleteFrom('field_paths').where('site_id', '=', siteId).execute();
  for (let i = 0; i < paths.length; i += ID_BATCH) {
    await db.insertInto('field_paths').values(paths.slice(i, i + ID_BATCH).map((p) => ({ site_id: siteId, ...p }))).execute();
  }
}

/**
 * Which of `paths` have lab tests in the account: a page (with a report) of one of the origins and that path; per
 * path, the most recently tested such page.
 */
export async function labPagesOf(db: Db, accountId: string, origins: readonly string[], paths: readonly string[]): Promise<Map<string, string>> {
  const byUrl = new Map<string, string>();
  for (const path of paths) for (const origin of origins) byUrl.set(origin + path, path);
  const urls = [...byUrl.keys()];
  const found = new Map<string, { id: string; time: number }>();
  for (let i = 0; i < urls.length; i += ID_BATCH) {
    const rows = await db.selectFrom('pages').select(['id', 'url', 'latest_report_time']).where('account_id', '=', accountId)
      .where('url', 'in', urls.slice(i, i + ID_BATCH)).where('report_count', '>', 0).execute();
    for (const r of rows) {
      const path = byUrl.get(r.url)!;
      const time = r.latest_report_time ?? 0;
      if ((found.get(path)?.time ?? -1) < time) found.set(path, { id: r.id, time });
    }
  }
  return new Map([...found].map(([path, f]) => [path, f.id]));
}

/* Drill-down and retention */

export interface ViewQuery {
  siteId: string;
  from: number;
  device?: string;
  template?: string;
  path?: string;
  connection?: string;
  browser?: string;
  limit: number;
}

export type ViewAttribution = Pick<Selectable<FieldViewsTable>, 'lcp' | 'inp' | 'cls' | 'attribution'>;

/** The newest raw views' metrics and attribution (the attribution lists read at most `limit`). */
export function viewsForAttribution(db: Db, q: ViewQuery): Promise<ViewAttribution[]> {
  let query = db.selectFrom('field_views').select(['lcp', 'inp', 'cls', 'attribution'])
    .where('site_id', '=', q.siteId).where('received', '>=', q.from);
  for (const k of ['device', 'template', 'path', 'connection', 'browser'] as const) {
    const v = q[k];
    if (v !== undefined) query = query.where(k, '=', v);
  }
  return query.orderBy('received', 'desc').limit(q.limit).execute();
}

export function allFieldSites(db: Db): Promise<Pick<FieldSiteRow, 'id' | 'raw_retention_days'>[]> {
  return db.selectFrom('field_sites').select(['id', 'raw_retention_days']).execute();
}

/** Drop a site's raw views before `viewsBefore`, its hourly rollups before `hoursBefore`, day rollups and counts before `daysBefore`. */
export async function expireFieldData(db: Db, siteId: string, viewsBefore: number, hoursBefore: number, daysBefore: number): Promise<void> {
  await db.deleteFrom('field_views').where('site_id', '=', siteId).where('received', '<', viewsBefore).execute();
  await db.deleteFrom('field_rollups').where('site_id', '=', siteId).where('grain', '=', 'hour').where('start', '<', hoursBefore).execute();
  await db.deleteFrom('field_rollups').where('site_id', '=', siteId).where('grain', '=', 'day').where('start', '<', daysBefore).execute();
  await db.deleteFrom('field_counts').where('site_id', '=', siteId).where('hour', '<', daysBefore).execute();
}

/* Lab beside field */

/**
 * The day rollups of some paths and templates of a site for one device since `from`: what a report, a page or a scan's
 * pages need of the field, in one statement (the path rows through their index, the template rows through the key).
 */
export function labFieldRows(db: Db, q: { siteId: string; device: string; from: number; paths: readonly string[]; templates: readonly string[] }):
  Promise<FieldRollupRow[]> {
  const base = () => db.selectFrom('field_rollups').selectAll().where('site_id', '=', q.siteId).where('grain', '=', 'day')
    .where('device', '=', q.device).where('start', '>=', q.from);
  const byPath = base().where('cut', '=', 'path').where('path', 'in', q.paths.length ? [...q.paths] : ['\u0000']);
  const byTemplate = base().where('cut', '=', 'template').where('template', 'in', q.templates.length ? [...q.templates] : ['\u0000']);
  return byPath.unionAll(byTemplate).execute();
}
